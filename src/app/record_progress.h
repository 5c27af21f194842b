/* What `gputaskman record` says while it runs, on stderr (stdout stays
 * untouched for scripts): at the start where it records, how often and under
 * what size; then the snapshots and the file's size so far. On a terminal one
 * line rewritten in place, at most once a second; to a file or a pipe a line
 * after the first snapshot, then one a minute, so a log stays short. */
#ifndef GTM_RECORD_PROGRESS_H
#define GTM_RECORD_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct record_progress {
	FILE *out;
	bool tty, line_open;
	uint64_t last_ns, lines;
	int last_len;           /* a terminal's line is cleared with spaces, not escapes */
};

#define RECORD_PROGRESS_TTY_NS 1000000000ull   /* a terminal's line: at most once a second */
#define RECORD_PROGRESS_LOG_NS 60000000000ull  /* a log's: a line a minute */

/* The start line: "recording to PATH (in CWD) (new file | appending to SIZE),
 * a snapshot every S s [, N snapshots], kept under SIZE; Ctrl-C stops".
 * existing_bytes is the file's size before this run (0: a new file). */
void record_start_line(char *buf, size_t n, const char *path, const char *cwd, uint64_t existing_bytes,
		       double interval_s, long long count, uint64_t max_bytes);
/* "N snapshots, SIZE written, the file is SIZE" (file_bytes UINT64_MAX: not read). */
void record_status_line(char *buf, size_t n, uint64_t samples, uint64_t written, uint64_t file_bytes);
/* Whether a status line is due at now_ns (pure: the rule above). */
bool record_progress_due(const struct record_progress *p, uint64_t now_ns);

void record_progress_init(struct record_progress *p, FILE *out, bool tty);
/* Prints the status line when due (or always with force). */
void record_progress_step(struct record_progress *p, uint64_t now_ns, bool force, uint64_t samples,
			  uint64_t written, const char *path);
/* Ends a terminal's rewritten line, so what follows starts on its own. */
void record_progress_end(struct record_progress *p);

#endif
