/* The Windows helper's --host-stream mode (docs/wsl.md, "What the Windows
 * helper's --host-stream mode must emit"): the WDDM source's one PDH query
 * (pdh_reader.h) and its engine rules, read without DXGI, NVML or ADL, so
 * the first line comes in milliseconds. */
#ifndef GTM_HOST_STREAM_H
#define GTM_HOST_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/wsl_proto.h"
#include "sources/wsl_proto_write.h"
#include "wddm_source.h"
#include "win_proc_list.h"

/* host_stream_procs.c: the processes listed (win_proc_list.h), by PID,
 * with their image names (UTF-8, ".exe" included). */
struct hs_name {
	uint32_t pid;
	char name[WSL_NAME_LEN];
};
struct hs_names {
	struct hs_name *v;
	size_t n, cap;
	struct win_proc_list list; /* the listing's buffers, kept between lines */
};
/* Lists the processes now; false when no listing could be had (the table
 * is then empty). */
bool hs_names_read(struct hs_names *t);
/* The image name of pid, or NULL when the listing did not list it. */
const char *hs_names_of(const struct hs_names *t, uint32_t pid);
/* How many processes run an image of this name (case-insensitive). */
int hs_names_count(const struct hs_names *t, const char *image);
void hs_names_free(struct hs_names *t);
/* A handle on this process's parent to wait on, or NULL when it cannot be
 * told (gone already, its PID reused by a younger process, no rights). */
void *hs_parent_open(void);

/* host_stream_line.c: one sample into one line. A P record: one process's
 * GPU Process Memory rows on one adapter (every phys) summed. */
struct hs_group {
	uint32_t pid;
	uint64_t luid;
	gtm_u64 local, nonlocal, committed;
};
struct host_stream {
	struct wddm_source src;    /* pdh and the engine tracker only: no adapters, no telemetry */
	char open_why[200];        /* why src.pdh is NULL */
	struct hs_names names;
	uint32_t vmwp;             /* the vmwp.exe chosen last (kept while it holds GPU memory) */
	uint64_t seq;
	struct wsl_line line;
	struct hs_group *groups;   /* scratch: the P records of a line */
	size_t cap_groups;
};
#define HS_VMWP_IMAGE "vmwp.exe"
/* Collects and writes the next line into hs->line. */
void host_stream_sample(struct host_stream *hs);

#endif
