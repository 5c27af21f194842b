/* The --json snapshot (docs/json-schema.md). */
#ifndef GTM_JSON_VIEW_H
#define GTM_JSON_VIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/snapshot.h"

/* Which process rows a view lists: GPU rows (and AI processes), or all. */
bool view_lists_process(const struct gtm_snapshot *s, int i, bool all);

json_t *json_device(const struct gtm_device *d);
json_t *json_process(const struct gtm_process *p);
json_t *json_snapshot(const struct gtm_snapshot *s, bool all);
/* --list-gpus --json: {"schema_version", "gpus": [...], "sources": [...]}. */
int json_print_gpu_list(FILE *out, const struct gtm_snapshot *s);
/* Prints the snapshot as indented JSON and a newline. Returns 0 or -1. */
int json_print_snapshot(FILE *out, const struct gtm_snapshot *s, bool all);

#endif
