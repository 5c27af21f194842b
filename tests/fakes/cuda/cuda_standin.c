/* A stand-in CUDA process: maps the libcuda.so.1 given as argv[1] with
 * dlopen, says "ready" on stdout, and waits until stdin closes (the test ends
 * it by closing the pipe or with a signal). */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

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
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof buf) > 0)
		;
	return 0;
}
