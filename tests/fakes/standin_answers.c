#include "standin_answers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPTURED_MODEL_PREFIX "/srv/models/"

char *standin_slurp(const char *path)
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

/* model as it goes into the text: as is, or escaped for a JSON string */
static char *model_text(const char *model, bool json)
{
	char *out = malloc(strlen(model) * 2 + 1), *o = out;
	for (const char *p = model; *p; p++) {
		if (json && (*p == '\\' || *p == '"'))
			*o++ = '\\';
		*o++ = *p;
	}
	*o = 0;
	return out;
}

char *standin_substitute(const char *text, const char *model, bool json)
{
	char *m = model_text(model, json);
	size_t ml = strlen(m), cap = strlen(text) * 2 + ml + 4096, o = 0;
	char *out = malloc(cap);
	for (const char *p = text; *p;) {
		size_t skip = 0;
		if (!strncmp(p, "@MODEL@", 7))
			skip = 7;
		else if (!strncmp(p, CAPTURED_MODEL_PREFIX, strlen(CAPTURED_MODEL_PREFIX)))
			skip = strcspn(p, "'\" \n");
		if (skip) {
			if (o + ml + 1 >= cap)
				out = realloc(out, cap = cap * 2 + ml);
			memcpy(out + o, m, ml);
			o += ml;
			p += skip;
		} else {
			if (o + 2 >= cap)
				out = realloc(out, cap *= 2);
			out[o++] = *p++;
		}
	}
	out[o] = 0;
	free(m);
	return out;
}

static const char builtin_props[] =
	"{\"default_generation_settings\":{\"n_ctx\":4096},\"total_slots\":4,\"model_alias\":\"@MODEL@\","
	"\"model_path\":\"@MODEL@\",\"build_info\":\"standin\",\"is_sleeping\":false}";
static const char builtin_slots[] =
	"[{\"id\":0,\"n_ctx\":4096,\"is_processing\":true},{\"id\":1,\"n_ctx\":4096,\"is_processing\":false},"
	"{\"id\":2,\"n_ctx\":4096,\"is_processing\":false},{\"id\":3,\"n_ctx\":4096,\"is_processing\":false}]";
/* one 8-token request in 4 ms of the server's time: 2000 tok/s since it started */
static const char builtin_metrics[] =
	"llamacpp:tokens_predicted_total 8\nllamacpp:tokens_predicted_seconds_total 0.004\n";
static const char builtin_models[] =
	"{\"object\":\"list\",\"data\":[{\"id\":\"@MODEL@\",\"owned_by\":\"llamacpp\",\"meta\":{\"n_ctx\":4096,\"size\":1}}]}";

static char *answer(const char *dir, const char *file, const char *builtin, const char *model)
{
	char path[1024];
	char *raw = NULL;
	if (dir) {
		snprintf(path, sizeof path, "%s/%s", dir, file);
		raw = standin_slurp(path);
	}
	char *out = standin_substitute(raw ? raw : builtin, model, true);
	free(raw);
	return out;
}

void standin_routes(const char *dir, const char *model, struct replay_route *routes)
{
	static const struct {
		const char *path, *file, *builtin;
	} tab[STANDIN_ROUTES] = {
		{"/props", "props.json", builtin_props},
		{"/slots", "slots.after.json", builtin_slots},
		{"/metrics", "metrics.after.txt", builtin_metrics},
		{"/v1/models", "v1_models.json", builtin_models},
		{"/health", NULL, "{\"status\":\"ok\"}"},
	};
	for (int i = 0; i < STANDIN_ROUTES; i++)
		routes[i] = (struct replay_route){tab[i].path, 200,
						  tab[i].file ? answer(dir, tab[i].file, tab[i].builtin, model)
							      : tab[i].builtin,
						  REPLAY_NORMAL};
}
