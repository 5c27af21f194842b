/* A stand-in for a PyTorch/transformers job: maps each file named with --map
 * read-only (through whatever links the path has, as safetensors' loader
 * does), writes --ready FILE and waits to be killed (at most 60 s). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *ready = NULL;
	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--ready")) {
			ready = argv[++i];
		} else if (!strcmp(argv[i], "--map")) {
			struct stat st;
			int fd = open(argv[++i], O_RDONLY);
			if (fd < 0 || fstat(fd, &st) != 0 ||
			    mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
				perror(argv[i]);
				return 1;
			}
			close(fd);
		}
	}
	FILE *f = ready ? fopen(ready, "w") : NULL;
	if (!f || fclose(f) != 0)
		return 1;
	for (int i = 0; i < 600; i++)
		usleep(100000);
	return 0;
}
