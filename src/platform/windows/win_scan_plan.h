/* Which processes of a Toolhelp listing a Windows scan reads, and how much
 * of each: the rule of proc_scan_opts (only_pid, details_priority_only,
 * pair_if_missing) as the Linux scan applies it, kept pure so that tests
 * reach it without GPU users (tests/unit/winpure). */
#ifndef GTM_WIN_SCAN_PLAN_H
#define GTM_WIN_SCAN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/platform_api.h"

enum win_row {
	WIN_ROW_SKIP = 0, /* not part of this scan (only_pid): neither row nor count */
	WIN_ROW_COUNT,    /* counted in n_procs_total, no row (no view lists it) */
	WIN_ROW_BASIC,    /* a row with what ps shows, detail NULL (a priority PID's parent) */
	WIN_ROW_FULL,     /* a row with its detail read */
};

struct win_listed {
	uint32_t pid, ppid;
};

/* Sets rows[i] for each of the n listed processes under o (NULL: every
 * process in full). With details_priority_only: the priority PIDs in full,
 * their parents basic, the rest counted; a priority PID the listing lacks
 * turns that off when pair_if_missing asks. only_pid: that PID and its
 * parent (an Ollama runner's API is its parent's port), in full. Returns
 * whether priority_only held. */
bool win_scan_plan(const struct win_listed *l, size_t n, const struct proc_scan_opts *o, uint8_t *rows);

/* Whether pid is one of the sorted priority PIDs of o. */
bool win_is_priority(const struct proc_scan_opts *o, uint32_t pid);

#endif
