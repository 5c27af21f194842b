/* Hand-built `--json` snapshots for the diff tests. */
#ifndef GTM_TEST_DIFF_BUILD_H
#define GTM_TEST_DIFF_BUILD_H

#include <jansson.h>
#include <limits.h>

#include "views/diff.h"

#define NUL LLONG_MIN   /* a counter that is null */
#define ABSENT (LLONG_MIN + 1) /* a key left out (older or limited snapshot) */
#define MiB (1024LL * 1024LL)

struct pspec {
	long long pid, host_pid, start; /* 0: null */
	const char *name, *owner;       /* owner NULL: "local" */
	long long vram, rss, spill;     /* NUL / ABSENT / bytes; spill 0 = null */
	int gpu;                        /* the gpus[].index it uses; -1: no GPU use */
	int ports[4];
	int n_ports;
};

json_t *b_gpu(int index, const char *uuid, long long used);
json_t *b_proc(struct pspec s);
/* A snapshot; steals gpus and procs. host NULL: null hostname. */
json_t *b_snap(const char *host, const char *taken_at, json_t *gpus, json_t *procs);

/* Reads both documents (asserting they are valid) and compares them. */
struct diff_result *b_diff(json_t *before, json_t *after, struct snap_rows *sb, struct snap_rows *sa);
void b_free(struct diff_result *r, struct snap_rows *sb, struct snap_rows *sa);
/* The row whose before (or else after) row has this PID, or NULL. */
const struct diff_proc_row *b_row_b(const struct diff_result *r, long long pid);
const struct diff_proc_row *b_row_a(const struct diff_result *r, long long pid);
/* The text report (caller frees). */
char *b_text(const struct diff_result *r, bool all);

#endif
