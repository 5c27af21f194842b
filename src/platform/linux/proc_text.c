/* NUL-separated lists (/proc/PID/cmdline, /proc/PID/environ: proc(5)) and
 * /etc/passwd lines (passwd(5)). */
#include "proc_parse.h"

#include <string.h>

#include "core/util.h"
#include "proc_lex.h"

char **proc_split_nul(const char *buf, size_t len, int max_items, int *n)
{
	const char *p = buf, *end = buf + len;
	char **v;
	int count = 0, k = 0;

	while (p < end && count < max_items) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		count++;
		p = z ? z + 1 : end;
	}
	v = xcalloc((size_t)count + 1, sizeof *v);
	for (p = buf; k < count; k++) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		size_t sl = z ? (size_t)(z - p) : (size_t)(end - p);
		v[k] = xstrndup(p, sl);
		p += sl + 1;
	}
	v[count] = NULL;
	*n = count;
	return v;
}

/* One "name:passwd:uid:..." line: the name when uid matches. */
static int passwd_line(const char *line, const char *eol, uid_t uid, char *name, size_t cap)
{
	const char *c1 = memchr(line, ':', (size_t)(eol - line));
	const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
	struct lex l;
	uint64_t v;
	size_t nl;

	if (!c1 || !c2 || c1 == line)
		return -1;
	l = (struct lex){c2 + 1, eol};
	if (l.p >= l.end || *l.p < '0' || *l.p > '9')
		return -1;
	if (!lex_u64(&l, &v) || !lex_char(&l, ':') || v != (uint64_t)uid)
		return -1;
	nl = (size_t)(c1 - line);
	if (cap == 0)
		return 0;
	if (nl > cap - 1)
		nl = cap - 1;
	memcpy(name, line, nl);
	name[nl] = '\0';
	return 0;
}

int proc_passwd_lookup(const char *buf, size_t len, uid_t uid, char *name, size_t cap)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		if (*p != '#' && passwd_line(p, eol, uid, name, cap) == 0)
			return 0;
		p = eol + 1;
	}
	return -1;
}
