/* What the tracer does with one read(2) of its fanotify group: every event
 * counted, a queue overflow noted, its own opens and files not named like a
 * model dropped before any system call, the rest resolved (the folder's
 * handle, the magic where the suffix is ambiguous, the process's start time)
 * through the io table and recorded. The io table is the seam the tests
 * replace. */
#ifndef GTM_OPENS_EVENTS_H
#define GTM_OPENS_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "fanotify_parse.h"
#include "open_table.h"
#include "opens_mute.h"

struct opens_io {
	void *ctx;
	/* The folder of ev's DFID_NAME as an fd (O_PATH) and its path in out;
	 * -1 when it cannot be resolved (why: a short word into why). */
	int (*resolve_dir)(void *ctx, const struct fan_event *ev, char *out, size_t cap, char *why, size_t wcap);
	/* At most n leading bytes of name in dirfd (a regular file only), or -1. */
	long (*read_head)(void *ctx, int dirfd, const char *name, uint8_t *b, size_t n);
	/* The start time of pid (as struct gtm_process's), or -1 when it is gone. */
	int (*start_time)(void *ctx, uint32_t pid, uint64_t *out);
	void (*close_fd)(void *ctx, int fd);
	/* Each other process's open per folder, for muting busy ones; NULL: none. */
	struct mute_tally *tally;
};

struct opens_counts {
	uint64_t events, model_opens, overflows, unresolved, malformed;
	char problem[256];
};

/* Handles buf (len bytes from one read) into t and c. self: this process's
 * PID (its own opens, the magic reads, are not recorded). unix_ns, mono_ns:
 * the time of the read. */
void opens_handle_buffer(const uint8_t *buf, size_t len, uint32_t self, int64_t unix_ns, uint64_t mono_ns,
			 const struct opens_io *io, struct open_table *t, struct opens_counts *c);

#endif
