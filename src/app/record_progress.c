#include "app/record_progress.h"

#include <string.h>
#include <sys/stat.h>

#include "core/format.h"
#include "core/util.h"

void record_start_line(char *buf, size_t n, const char *path, const char *cwd, uint64_t existing_bytes,
		       double interval_s, long long count, uint64_t max_bytes)
{
	char existing[48], size[32], max[32], where[600] = "", times[48] = "";
	bool absolute = path[0] == '/' || path_is_dos_absolute(path);
	if (!absolute && cwd && cwd[0])
		snprintf(where, sizeof where, " in %s", cwd);
	if (existing_bytes)
		snprintf(existing, sizeof existing, "appending to %s", fmt_bytes_raw(size, sizeof size, existing_bytes));
	else
		snprintf(existing, sizeof existing, "a new file");
	if (count)
		snprintf(times, sizeof times, ", %lld snapshot%s", count, count == 1 ? "" : "s");
	snprintf(buf, n, "recording to %s%s (%s), a snapshot every %g s%s, kept under %s; Ctrl-C stops", path, where,
		 existing, interval_s, times, fmt_bytes_raw(max, sizeof max, max_bytes));
}

void record_status_line(char *buf, size_t n, uint64_t samples, uint64_t written, uint64_t file_bytes)
{
	char w[32], f[32];
	fmt_bytes_raw(w, sizeof w, written);
	if (file_bytes == UINT64_MAX)
		snprintf(buf, n, "%llu snapshot%s, %s written", (unsigned long long)samples, samples == 1 ? "" : "s", w);
	else
		snprintf(buf, n, "%llu snapshot%s, %s written, the file is %s", (unsigned long long)samples,
			 samples == 1 ? "" : "s", w, fmt_bytes_raw(f, sizeof f, file_bytes));
}

bool record_progress_due(const struct record_progress *p, uint64_t now_ns)
{
	if (!p->lines)
		return true; /* the first snapshot says it works */
	return now_ns - p->last_ns >= (p->tty ? RECORD_PROGRESS_TTY_NS : RECORD_PROGRESS_LOG_NS);
}

void record_progress_init(struct record_progress *p, FILE *out, bool tty)
{
	memset(p, 0, sizeof *p);
	p->out = out;
	p->tty = tty;
}

void record_progress_step(struct record_progress *p, uint64_t now_ns, bool force, uint64_t samples,
			  uint64_t written, const char *path)
{
	char line[160];
	struct stat st;
	if (!force && !record_progress_due(p, now_ns))
		return;
	record_status_line(line, sizeof line, samples, written, stat(path, &st) == 0 ? (uint64_t)st.st_size : UINT64_MAX);
	if (p->tty) { /* rewritten in place: spaces clear what a longer line left (every console has those) */
		int len = (int)strlen(line);
		fprintf(p->out, "\rgputaskman record: %s%*s", line, p->last_len > len ? p->last_len - len : 0, "");
		p->last_len = len;
	} else {
		fprintf(p->out, "gputaskman record: %s\n", line);
	}
	fflush(p->out);
	p->line_open = p->tty;
	p->last_ns = now_ns;
	p->lines++;
}

void record_progress_end(struct record_progress *p)
{
	if (p->line_open)
		fputc('\n', p->out);
	p->line_open = false;
}
