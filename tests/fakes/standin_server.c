/* A stand-in llama-server for the explain e2e test (built as "llama-server"):
 *  -m MODEL            maps the model read-only and shared, relative to its cwd
 *  --lib LIB           dlopens a library named like the runtime's (repeatable)
 *  --log-file FILE     writes the log given by --log-source, every "@MODEL@" and
 *                      the captured run's model path replaced by MODEL
 *  --replay DIR        serves DIR/props.json, slots.after.json, metrics.after.txt,
 *                      v1_models.json, health.json (a captured run; model_path
 *                      substituted); without it, small built-in answers
 *  --ready FILE        written once serving: "PORT\n"
 *  --hang              accepts connections and never answers
 * Listens on 127.0.0.1 on an ephemeral port (--port is taken as the
 * llama-server flag, not honoured), then waits to be killed (at most 60 s). */
#include <dlfcn.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "standin_answers.h"
#include "standin_server_http.h"

int main(int argc, char **argv)
{
	const char *model = NULL, *ready = NULL, *log = NULL, *log_src = NULL, *replay = NULL;
	bool hang = false;
	for (int i = 1; i < argc; i++)
		hang |= !strcmp(argv[i], "--hang");
	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "-m"))
			model = argv[++i];
		else if (!strcmp(argv[i], "--ready"))
			ready = argv[++i];
		else if (!strcmp(argv[i], "--log-file"))
			log = argv[++i];
		else if (!strcmp(argv[i], "--log-source"))
			log_src = argv[++i];
		else if (!strcmp(argv[i], "--replay"))
			replay = argv[++i];
		else if (!strcmp(argv[i], "--lib") && !dlopen(argv[++i], RTLD_NOW | RTLD_LOCAL)) {
			fprintf(stderr, "stand-in: dlopen %s: %s\n", argv[i], dlerror());
			return 1;
		}
	}
	if (!model || !ready) {
		fprintf(stderr, "stand-in: -m MODEL and --ready FILE are needed\n");
		return 1;
	}
	int fd = open(model, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
		perror("stand-in: mapping the model");
		return 1;
	}
	char abs_model[2048];
	if (model[0] == '/')
		snprintf(abs_model, sizeof abs_model, "%s", model);
	else if (!getcwd(abs_model, 1024) || strlen(abs_model) + strlen(model) + 2 > sizeof abs_model)
		return 1;
	else
		strcat(strcat(abs_model, "/"), model);
	if (log && log_src) {
		char *text = standin_slurp(log_src);
		if (!text) {
			fprintf(stderr, "stand-in: cannot read %s\n", log_src);
			return 1;
		}
		char *out = standin_substitute(text, abs_model, false);
		FILE *f = fopen(log, "w");
		if (!f || fputs(out, f) < 0 || fclose(f) != 0)
			return 1;
		free(text);
		free(out);
	}
	struct replay_route routes[STANDIN_ROUTES];
	standin_routes(replay, abs_model, routes);
	struct replay_route silent[] = {{NULL, 0, NULL, REPLAY_HANG}};
	struct replay_server *rs = hang ? replay_start(silent, 1, false, 0) : replay_start(routes, STANDIN_ROUTES, false, 0);
	if (!rs) {
		perror("stand-in: listen");
		return 1;
	}
	FILE *f = fopen(ready, "w");
	if (!f || fprintf(f, "%u\n", replay_port(rs)) < 0 || fclose(f) != 0)
		return 1;
	for (int i = 0; i < 600; i++)
		usleep(100000);
	replay_stop(rs);
	return 0;
}
