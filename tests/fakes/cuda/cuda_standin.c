/* A stand-in CUDA process: maps the libcuda.so.1 given as argv[1] with
 * dlopen, maps each further file read-only (the first shared, as llama.cpp
 * maps a model, the others private, as torch.load(mmap=True) does), says
 * "ready" on stdout, and waits until stdin closes (the test ends it by
 * closing the pipe or with a signal). */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int map_file(const char *path, int flags)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0 ||
	    mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0) == MAP_FAILED) {
		fprintf(stderr, "cuda_standin: cannot map %s\n", path);
		return 1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	char buf[64];

	if (argc < 2) {
		fprintf(stderr, "usage: cuda_standin /path/to/libcuda.so.1\n");
		return 2;
	}
	void *lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "cuda_standin: %s\n", dlerror());
		return 1;
	}
	int (*init)(unsigned) = (int (*)(unsigned))dlsym(lib, "cuInit");
	if (!init || init(0) != 0)
		return 1;
	for (int i = 2; i < argc; i++)
		if (map_file(argv[i], i == 2 ? MAP_SHARED : MAP_PRIVATE) != 0)
			return 1;
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof buf) > 0)
		;
	return 0;
}
