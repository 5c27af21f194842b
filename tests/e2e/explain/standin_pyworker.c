/* A stand-in for a vLLM or SGLang process (built as standin_pyworker, and
 * as "vllm" and "sglang" so that `vllm serve MODEL` / `sglang serve` command
 * lines identify it as the real CLI's): sets its name (comm) to --comm NAME
 * (vLLM titles its workers "VLLM::Worker_TP0", which the kernel keeps as 15
 * bytes), appends each --line TEXT to --log FILE with "@PID@" replaced by its
 * own PID, points its stdout and stderr at that file (as a shell redirection
 * does). With --metrics FILE it serves FILE as /metrics on 127.0.0.1 (every
 * other path 404; --metrics-mode hang: never answers; garbage: bytes that
 * are not HTTP). With --children N, everything after "--" is started N times
 * as its children, "@RANK@" in each of their own arguments (up to their "--")
 * replaced by 0..N-1 (an engine
 * core starting its tensor-parallel workers). Writes "PID [PORT]" to --ready
 * FILE and waits (at most 300 s: the test kills it); options after "--" are the
 * children's. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "standin_server_http.h"

/* After fork only what is safe in a child of a threaded process: no malloc. */
static void spawn(char **cmd, int n)
{
	static char bufs[64][1024];
	for (int rank = 0; rank < n; rank++) {
		if (fork() != 0)
			continue;
		/* as a spawned Python process, it holds none of its parent's sockets */
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		/* its own options only: a "--" further on starts its children's */
		for (int i = 0; i < 64 && cmd[i] && strcmp(cmd[i], "--") != 0; i++) {
			char *at = strstr(cmd[i], "@RANK@");
			if (!at)
				continue;
			snprintf(bufs[i], sizeof bufs[i], "%.*s%d%s", (int)(at - cmd[i]), cmd[i], rank, at + 6);
			cmd[i] = bufs[i];
		}
		execv(cmd[0], cmd);
		_exit(127);
	}
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = f ? calloc(1, 1u << 20) : NULL;
	if (buf && fread(buf, 1, (1u << 20) - 1, f) == 0 && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

static struct replay_server *serve(const char *file, const char *mode)
{
	static struct replay_route routes[3];
	char *body = read_all(file);
	if (!body)
		return NULL;
	enum replay_mode m = !mode ? REPLAY_NORMAL : !strcmp(mode, "hang") ? REPLAY_HANG : REPLAY_GARBAGE;
	routes[0] = (struct replay_route){"/metrics", 200, body, m};
	routes[1] = (struct replay_route){"/health", 200, "", m}; /* vLLM's: 200, empty */
	routes[2] = (struct replay_route){NULL, 404, "{\"detail\":\"Not Found\"}", m};
	return replay_start(routes, 3, false, 0);
}

int main(int argc, char **argv)
{
	const char *log = NULL, *ready = NULL, *metrics = NULL, *mode = NULL;
	int children = 0, end = argc;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			end = i;
			break;
		}
	for (int i = 1; i + 1 < end; i++) {
		if (!strcmp(argv[i], "--log"))
			log = argv[++i];
		else if (!strcmp(argv[i], "--ready"))
			ready = argv[++i];
		else if (!strcmp(argv[i], "--metrics"))
			metrics = argv[++i];
		else if (!strcmp(argv[i], "--metrics-mode"))
			mode = argv[++i];
		else if (!strcmp(argv[i], "--children"))
			children = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--comm"))
			prctl(PR_SET_NAME, argv[++i], 0, 0, 0);
	}
	int fd = log ? open(log, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
	if (fd < 0 || !ready || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		return 1;
	for (int i = 1; i + 1 < end; i++) {
		if (strcmp(argv[i], "--line"))
			continue;
		const char *l = argv[++i], *at = strstr(l, "@PID@");
		if (at)
			dprintf(1, "%.*s%d%s\n", (int)(at - l), l, (int)getpid(), at + 5);
		else
			dprintf(1, "%s\n", l);
	}
	struct replay_server *rs = metrics ? serve(metrics, mode) : NULL;
	if (metrics && !rs)
		return 1;
	if (children > 0 && end + 1 < argc)
		spawn(argv + end + 1, children);
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", ready);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return 1;
	fprintf(f, "%d %u\n", (int)getpid(), rs ? (unsigned)replay_port(rs) : 0u);
	if (fclose(f) != 0 || rename(tmp, ready) != 0)
		return 1;
	for (int i = 0; i < 3000; i++)
		usleep(100000);
	return 0;
}
