/* The --json snapshot (docs/json-schema.md). */
#ifndef GTM_JSON_VIEW_H
#define GTM_JSON_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "core/snapshot.h"
#include "views/json_writer.h"

/* Which process rows a view lists: GPU rows and the parents GPU runners serve
 * through (Ollama's server), or all. */
bool view_lists_process(const struct gtm_snapshot *s, int i, bool all);

/* A process's members, inside an object the caller has begun (inspect PID
 * adds its memory plans after them). */
void jw_process_members(struct jw *w, const struct gtm_process *p);
/* Its three runs of members, in that order: pid .. start_time_ticks (identity,
 * owner, command line), rss_bytes .. vram_total_bytes (readings), category ..
 * explain (identification and explanation). */
void jw_process_head(struct jw *w, const struct gtm_process *p);
void jw_process_readings(struct jw *w, const struct gtm_process *p);
void jw_process_tail(struct jw *w, const struct gtm_process *p);
/* --list-gpus --json: {"schema_version", "gpus": [...], "sources": [...]}. */
int json_print_gpu_list(FILE *out, const struct gtm_snapshot *s);
/* Prints the snapshot as indented JSON and a newline. Returns 0 or -1. */
int json_print_snapshot(FILE *out, const struct gtm_snapshot *s, bool all);
/* The same document; compact: on one line without spaces, then a newline (a
 * recording's JSON Lines; json_indent() gives back json_print_snapshot's text). */
int json_write_snapshot(FILE *out, const struct gtm_snapshot *s, bool all, bool compact);

/* Rows' text kept between snapshots (views/json_rows.c): a writer of one
 * snapshot after another (the recorder) copies the runs of a row's members
 * whose inputs did not change instead of writing them again. */
struct json_row_cache;
struct json_row_cache *json_row_cache_new(void);
void json_row_cache_free(struct json_row_cache *c);
/* How many kept texts (a row's head or tail) it has copied: for tests and benchmarks. */
uint64_t json_row_cache_copies(const struct json_row_cache *c);
/* jw_process_members through the cache: the same text. */
void json_row_cache_members(struct json_row_cache *c, struct jw *w, const struct gtm_process *p);
/* json_write_snapshot with rows' text from c (NULL: none kept). */
int json_write_snapshot_rows(FILE *out, const struct gtm_snapshot *s, bool all, bool compact,
			     struct json_row_cache *rows);

#endif
