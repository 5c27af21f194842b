/* `gputaskman serve`: the Prometheus exporter (docs/exporter.md). */
#ifndef GTM_CMD_SERVE_H
#define GTM_CMD_SERVE_H

#include <stdio.h>

#include "serve/serve.h"

/* argv[0] is "serve". Returns 0 and fills o, 1 after printing help to out
 * (the caller exits 0), or 2 after one line on err naming the problem. */
int cmd_serve_parse(int argc, char **argv, struct serve_opts *o, FILE *out, FILE *err);
int cmd_serve(int argc, char **argv);

#endif
