/* Replays a fuzz target's corpus without libFuzzer, so `make check` (gcc,
 * sanitizers) runs every seed and every crash once found. Arguments: files or
 * folders. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int run_path(const char *path, int *count)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	DIR *d = opendir(path);
	struct dirent *e;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char child[4096];
		snprintf(child, sizeof child, "%s/%s", path, e->d_name);
		if (run_path(child, count) != 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

int main(int argc, char **argv)
{
	int count = 0;
	for (int i = 1; i < argc; i++) {
		if (run_path(argv[i], &count) != 0) {
			fprintf(stderr, "cannot read %s\n", argv[i]);
			return 1;
		}
	}
	printf("replayed %d inputs\n", count);
	return count > 0 ? 0 : 1;
}
