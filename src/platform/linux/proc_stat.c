/* /proc/PID/stat and /proc/PID/status parsers (proc(5): "/proc/pid/stat",
 * fs/proc/array.c do_task_stat()). */
#include "proc_parse.h"

#include <string.h>

#include "proc_lex.h"

/* Copies comm, replacing control bytes so a hostile name cannot drive a
 * terminal (a process may name itself "\033[2J"). */
static void copy_comm(char *dst, size_t cap, const char *src, size_t n)
{
	size_t k = n < cap - 1 ? n : cap - 1;

	for (size_t i = 0; i < k; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	dst[k] = '\0';
}

/* Skips n blank-separated fields. */
static bool skip_fields(struct lex *l, int n)
{
	for (int i = 0; i < n; i++)
		if (!lex_skip_field(l))
			return false;
	return true;
}

int proc_stat_parse(const char *buf, size_t len, struct proc_stat *out)
{
	struct lex l = {buf, buf + len};
	const char *open, *close;
	uint64_t v;

	memset(out, 0, sizeof *out);
	if (!lex_u64(&l, &v) || v > UINT32_MAX)
		return -1;
	out->pid = (uint32_t)v;
	open = memchr(l.p, '(', (size_t)(l.end - l.p));
	close = memrchr(buf, ')', len);
	if (!open || !close || close < open)
		return -1;
	copy_comm(out->comm, sizeof out->comm, open + 1, (size_t)(close - open - 1));
	l.p = close + 1;
	lex_skip_blank(&l);
	if (l.p >= l.end)
		return -1;
	out->state = *l.p++;
	/* fields counted from 1: state is 3, ppid 4, flags 9, starttime 22, rss 24, startcode 26 */
	if (!lex_u64(&l, &v) || v > UINT32_MAX)
		return -1;
	out->ppid = (uint32_t)v;
	if (!skip_fields(&l, 4) || !lex_u64(&l, &v) || v > UINT32_MAX)
		return -1;
	out->flags = (uint32_t)v;
	if (!skip_fields(&l, 12) || !lex_u64(&l, &out->start_time))
		return -1;
	if (!skip_fields(&l, 1) || !lex_u64(&l, &out->rss_pages))
		return -1;
	/* startcode is shown only to who may ptrace the process (0 otherwise) */
	if (!skip_fields(&l, 1) || !lex_u64(&l, &out->start_code))
		out->start_code = 0;
	return 0;
}

/* One "Key:\tvalue" line of status; the value starts after the colon. */
static void status_line(const char *line, const char *end, struct proc_status *out)
{
	struct lex l;
	uint64_t a, b;

	if (end - line > 4 && memcmp(line, "Uid:", 4) == 0) {
		l = (struct lex){line + 4, end};
		if (lex_u64(&l, &a) && lex_u64(&l, &b) && a <= UINT32_MAX && b <= UINT32_MAX) {
			out->has_uid = true;
			out->uid_real = (uid_t)a;
			out->uid_effective = (uid_t)b;
		}
	} else if (end - line > 5 && memcmp(line, "Tgid:", 5) == 0) {
		l = (struct lex){line + 5, end};
		if (lex_u64(&l, &a) && a <= UINT32_MAX) {
			out->has_tgid = true;
			out->tgid = (uint32_t)a;
		}
	} else if (end - line > 6 && memcmp(line, "VmRSS:", 6) == 0) {
		l = (struct lex){line + 6, end};
		lex_skip_blank(&l);
		/* "kB" is 1024 bytes (fs/proc/task_mmu.c uses << (PAGE_SHIFT - 10)) */
		if (lex_u64(&l, &a) && a <= UINT64_MAX / 1024) {
			out->has_vmrss = true;
			out->vmrss_bytes = a * 1024;
		}
	}
}

int proc_status_parse(const char *buf, size_t len, struct proc_status *out)
{
	const char *p = buf, *end = buf + len;

	memset(out, 0, sizeof *out);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		status_line(p, eol, out);
		p = eol + 1;
	}
	return out->has_tgid || out->has_uid || out->has_vmrss ? 0 : -1;
}
