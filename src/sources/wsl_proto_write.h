/* The host stream's lines as the Windows helper writes them (protocol v1,
 * docs/wsl.md; wsl_proto.h reads them): a line is built record by record
 * into a growing buffer, numbers in decimal, '-' for a value that is not
 * available (never 0), names percent-encoded. Pure and portable, so the
 * Linux suite round-trips every record through wsl_line_parse. */
#ifndef GTM_WSL_PROTO_WRITE_H
#define GTM_WSL_PROTO_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "core/reading.h"
#include "sources/wsl_proto.h"

struct wsl_line {
	char *buf;     /* NUL-terminated; ends with '\n' after wsl_line_end */
	size_t len, cap;
};

/* Starts a line (drops what l held): the GTMH1 header. why may be NULL. */
void wsl_line_header(struct wsl_line *l, uint64_t seq, uint32_t vmwp_pid, int n_vms, enum wsl_helper_state state,
		     const char *why);
/* ;A: one adapter's GPU Adapter Memory totals. */
void wsl_line_adapter(struct wsl_line *l, uint64_t luid, gtm_u64 dedicated, gtm_u64 shared, gtm_u64 committed);
/* ;V: one of vmwp.exe's GPU Process Memory instances (call in PDH order). */
void wsl_line_vm(struct wsl_line *l, uint64_t luid, gtm_u64 local, gtm_u64 nonlocal, gtm_u64 committed);
/* ;P: another process's memory on one adapter and its engines (busiest
 * first; at most WSL_HOST_MAX_ENG are written, percentages with one decimal). */
void wsl_line_proc(struct wsl_line *l, uint32_t pid, const char *name, uint64_t luid, gtm_u64 local,
		   gtm_u64 nonlocal, gtm_u64 committed, const struct wsl_host_engine *eng, int n_eng);
/* Ends the line with '\n'. */
void wsl_line_end(struct wsl_line *l);
void wsl_line_free(struct wsl_line *l);

/* Appends s percent-encoded: every byte outside [A-Za-z0-9._~()+,-] and
 * every non-ASCII byte as %XX, so space, '%', ';', '=', ':', ',' never end
 * a field (the reader decodes %XX anywhere). */
void wsl_line_put_name(struct wsl_line *l, const char *s);

#endif
