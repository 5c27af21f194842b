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

#include "standin_server_http.h"

#define CAPTURED_MODEL_PREFIX "/srv/models/"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)(n > 0 ? n : 0) + 1);
	size_t got = n > 0 ? fread(b, 1, (size_t)n, f) : 0;
	b[got] = 0;
	fclose(f);
	return b;
}

/* Replaces every "/srv/models/<file>" path and every "@MODEL@" with model. */
static char *substitute(const char *text, const char *model)
{
	size_t cap = strlen(text) * 2 + 4096, o = 0;
	char *out = malloc(cap);
	for (const char *p = text; *p;) {
		size_t skip = 0;
		if (!strncmp(p, "@MODEL@", 7))
			skip = 7;
		else if (!strncmp(p, CAPTURED_MODEL_PREFIX, strlen(CAPTURED_MODEL_PREFIX)))
			skip = strcspn(p, "'\" \n");
		if (skip) {
			size_t ml = strlen(model);
			if (o + ml + 1 >= cap)
				out = realloc(out, cap = cap * 2 + ml);
			memcpy(out + o, model, ml);
			o += ml;
			p += skip;
		} else {
			if (o + 2 >= cap)
				out = realloc(out, cap *= 2);
			out[o++] = *p++;
		}
	}
	out[o] = 0;
	return out;
}

static const char builtin_props[] =
	"{\"default_generation_settings\":{\"n_ctx\":4096},\"total_slots\":4,\"model_alias\":\"@MODEL@\","
	"\"model_path\":\"@MODEL@\",\"build_info\":\"standin\",\"is_sleeping\":false}";
static const char builtin_slots[] =
	"[{\"id\":0,\"n_ctx\":4096,\"is_processing\":true},{\"id\":1,\"n_ctx\":4096,\"is_processing\":false},"
	"{\"id\":2,\"n_ctx\":4096,\"is_processing\":false},{\"id\":3,\"n_ctx\":4096,\"is_processing\":false}]";
static const char builtin_models[] =
	"{\"object\":\"list\",\"data\":[{\"id\":\"@MODEL@\",\"owned_by\":\"llamacpp\",\"meta\":{\"n_ctx\":4096,\"size\":1}}]}";

static char *answer(const char *dir, const char *file, const char *builtin, const char *model)
{
	char path[1024];
	char *raw = NULL;
	if (dir) {
		snprintf(path, sizeof path, "%s/%s", dir, file);
		raw = slurp(path);
	}
	char *out = substitute(raw ? raw : builtin, model);
	free(raw);
	return out;
}

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
		char *text = slurp(log_src);
		if (!text) {
			fprintf(stderr, "stand-in: cannot read %s\n", log_src);
			return 1;
		}
		char *out = substitute(text, abs_model);
		FILE *f = fopen(log, "w");
		if (!f || fputs(out, f) < 0 || fclose(f) != 0)
			return 1;
		free(text);
		free(out);
	}
	char *props = answer(replay, "props.json", builtin_props, abs_model);
	char *slots = answer(replay, "slots.after.json", builtin_slots, abs_model);
	char *metrics = answer(replay, "metrics.after.txt", "llamacpp:tokens_predicted_total 8\n", abs_model);
	char *models = answer(replay, "v1_models.json", builtin_models, abs_model);
	struct replay_route routes[] = {
		{"/props", 200, props, REPLAY_NORMAL}, {"/slots", 200, slots, REPLAY_NORMAL},
		{"/metrics", 200, metrics, REPLAY_NORMAL}, {"/v1/models", 200, models, REPLAY_NORMAL},
		{"/health", 200, "{\"status\":\"ok\"}", REPLAY_NORMAL},
	};
	struct replay_route silent[] = {{NULL, 0, NULL, REPLAY_HANG}};
	struct replay_server *rs = hang ? replay_start(silent, 1, false, 0) : replay_start(routes, 5, false, 0);
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
