/* A stand-in GPU server for the diff e2e test: maps the library given with
 * --lib (the fake libcuda.so.1, so gputaskman sees a CUDA process), listens on
 * 127.0.0.1:--port (0: any free port), prints "ready PORT" and lives until the
 * test ends it by PID, or --seconds pass (default 120, so none outlives a failed
 * test). The test copies it under the name it should have (comm). */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int listen_on(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	socklen_t len = sizeof a;
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 4) || getsockname(fd, (struct sockaddr *)&a, &len)) {
		perror("diff_standin: listen");
		return -1;
	}
	return ntohs(a.sin_port);
}

int main(int argc, char **argv)
{
	const char *lib = NULL;
	int port = -1, seconds = 120;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--lib"))
			lib = argv[i + 1];
		else if (!strcmp(argv[i], "--port"))
			port = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atoi(argv[i + 1]);
	}
	if (lib && !dlopen(lib, RTLD_NOW)) {
		fprintf(stderr, "diff_standin: %s\n", dlerror());
		return 1;
	}
	if (port >= 0 && (port = listen_on(port)) < 0)
		return 1;
	printf("ready %d\n", port);
	fflush(stdout);
	while (seconds-- > 0)
		sleep(1);
	return 0;
}
