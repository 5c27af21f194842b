/* The host stream's line protocol, version 1 (docs/wsl.md): one line per
 * sample from the Windows helper, records separated by ';', each a tag and
 * space-separated key=value pairs:
 *
 *   GTMH1 seq=12 vmwp=4242 vms=1 state=ok
 *   ;A luid=0x00000000_0x0000D1A5 ded=8589934592 shared=0 committed=9663676416
 *   ;V luid=0x00000000_0x0000D1A5 local=0 nonlocal=0 committed=0     (vmwp.exe's, newest first)
 *   ;P pid=9000 name=chrome.exe luid=0x00000000_0x0000D1A5 local=104857600 nonlocal=0
 *      committed=125829120 eng=3D:12.5,Copy:0
 *
 * (one line; wrapped here). A value is a decimal number or '-' (not
 * available: N/A, never 0); a name is percent-encoded UTF-8. Pure functions
 * over bounded buffers: the parser never reads past len, and an over-long,
 * truncated or garbled line is refused with a reason, so the caller counts it
 * and skips it. */
#ifndef GTM_WSL_PROTO_H
#define GTM_WSL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/reading.h"
#include "sources/wsl_match.h"

#define WSL_PROTO_VERSION 1
#define WSL_LINE_MAX 65536         /* longer lines are skipped whole */
#define WSL_HOST_MAX_PROCS 128     /* Windows processes with GPU memory kept per sample */
#define WSL_HOST_MAX_ENG 8
#define WSL_NAME_LEN 64
#define WSL_BYTES_MAX (1ull << 50) /* 1 PiB: a larger byte count is a bad number */

enum wsl_helper_state {
	WSL_HELPER_OK = 0,
	WSL_HELPER_PARTIAL,   /* some counter sets missing (why says which) */
	WSL_HELPER_ERROR,     /* the helper runs but reads nothing (why says why) */
};

struct wsl_host_adapter {
	char luid[WSL_LUID_LEN];
	gtm_u64 dedicated, shared, committed; /* GPU Adapter Memory totals */
	struct wsl_adapter_ctxs vm;           /* vmwp.exe's GPU Process Memory instances */
	bool vm_incomplete;                   /* a V record of it was refused: vm lacks a context */
};

struct wsl_host_engine {
	char type[24];
	double pct;
};

struct wsl_host_proc {
	uint32_t pid;
	char name[WSL_NAME_LEN];
	int adapter;                          /* index into adapters */
	gtm_u64 local, nonlocal, committed;
	struct wsl_host_engine eng[WSL_HOST_MAX_ENG];
	int n_eng;
};

struct wsl_host_sample {
	uint64_t seq;
	uint32_t vmwp_pid;                    /* 0: no vmwp.exe found (no WSL work on the GPU yet) */
	int n_vms;                            /* vmwp.exe processes: more than 1 ⇒ other VMs run */
	enum wsl_helper_state state;
	char why[128];
	struct wsl_host_adapter adapters[WSL_MAX_ADAPTERS];
	int n_adapters;
	struct wsl_host_proc procs[WSL_HOST_MAX_PROCS];
	int n_procs;
	int n_procs_dropped;                  /* past WSL_HOST_MAX_PROCS */
	int n_refused;                        /* records refused alone (the rest of the line is kept) */
	char refused_why[64];                 /* the last one's reason */
};

/* Parses one line (without its newline). Returns 0, or -1 with err set (out
 * is then unspecified). A V record without its Local or Non Local Usage is
 * refused alone: counted in n_refused, its adapter marked vm_incomplete. */
int wsl_line_parse(const char *line, size_t len, struct wsl_host_sample *out, char *err, size_t errlen);

/* Splits a byte stream into lines, bounded: bytes are fed as they arrive;
 * each complete line is handed to the callback; a line longer than
 * WSL_LINE_MAX is dropped whole (counted in too_long). */
struct wsl_linebuf {
	char buf[WSL_LINE_MAX];
	size_t len;
	bool skipping;        /* inside an over-long line: drop until its newline */
	uint64_t too_long;
};

typedef void (*wsl_line_fn)(void *arg, const char *line, size_t len);
void wsl_linebuf_feed(struct wsl_linebuf *lb, const char *data, size_t n, wsl_line_fn fn, void *arg);

#endif
