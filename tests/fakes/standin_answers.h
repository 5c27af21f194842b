/* What the stand-in llama-servers (standin_server.c on Linux,
 * tests/windows/standin/llama_server.c on Windows) serve: a captured run's
 * /props, /slots, /metrics, /v1/models, or small built-in answers, with the
 * model's path put in. Portable C: both builds share it. */
#ifndef GTM_STANDIN_ANSWERS_H
#define GTM_STANDIN_ANSWERS_H

#include <stdbool.h>

#include "standin_server_http.h"

#define STANDIN_ROUTES 5

/* The whole file, NUL-terminated and malloc'd; NULL when it cannot be read. */
char *standin_slurp(const char *path);
/* text with every "/srv/models/<file>" path (the captured run's) and every
 * "@MODEL@" replaced by model; with json, model is written as a JSON
 * string's content (a Windows path's backslashes escaped). malloc'd. */
char *standin_substitute(const char *text, const char *model, bool json);
/* The STANDIN_ROUTES routes (/props, /slots, /metrics, /v1/models, /health)
 * into routes: dir's props.json, slots.after.json, metrics.after.txt,
 * v1_models.json when dir is given and has them, else the built-in answers;
 * model substituted. The bodies stay allocated for the process's life. */
void standin_routes(const char *dir, const char *model, struct replay_route *routes);

#endif
