/* Writing host-stream lines (wsl_proto_write.h). */
#include "sources/wsl_proto_write.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "sources/wddm/wddm_adapter_info.h"

static void reserve(struct wsl_line *l, size_t more)
{
	if (l->len + more + 1 <= l->cap)
		return;
	size_t cap = l->cap ? l->cap : 1024;
	while (cap < l->len + more + 1)
		cap *= 2;
	l->buf = xrealloc(l->buf, cap);
	l->cap = cap;
}

static void put(struct wsl_line *l, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0) {
		reserve(l, (size_t)n);
		vsnprintf(l->buf + l->len, (size_t)n + 1, fmt, ap2);
		l->len += (size_t)n;
	}
	va_end(ap2);
}

/* Bytes that stand for themselves in a name: the reader splits records on
 * ';', pairs on ' ', key from value on '=', engines on ',' and ':'. */
static bool plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("._~()+-", c);
}

void wsl_line_put_name(struct wsl_line *l, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);

	reserve(l, n * 3);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c && plain(c)) {
			l->buf[l->len++] = (char)c;
			continue;
		}
		l->buf[l->len++] = '%';
		l->buf[l->len++] = hex[c >> 4];
		l->buf[l->len++] = hex[c & 15];
	}
	l->buf[l->len] = '\0';
}

static void put_bytes(struct wsl_line *l, const char *key, gtm_u64 v)
{
	if (gtm_u64_ok(v))
		put(l, " %s=%llu", key, (unsigned long long)v.v);
	else
		put(l, " %s=-", key);
}

/* As PDH prints it: 0x<high>_0x<low>. */
static void put_luid(struct wsl_line *l, uint64_t luid)
{
	char id[WSL_LUID_LEN];
	wddm_luid_format(luid, id, sizeof id);
	put(l, " luid=%s", id);
}

static const char *const state_names[] = {
	[WSL_HELPER_OK] = "ok", [WSL_HELPER_PARTIAL] = "partial", [WSL_HELPER_ERROR] = "error"};

void wsl_line_header(struct wsl_line *l, uint64_t seq, uint32_t vmwp_pid, int n_vms, enum wsl_helper_state state,
		     const char *why)
{
	l->len = 0;
	put(l, "GTMH%d seq=%llu vmwp=%u vms=%d state=%s", WSL_PROTO_VERSION, (unsigned long long)seq, vmwp_pid,
	    n_vms < 0 ? 0 : n_vms, state_names[state]);
	if (why && why[0]) {
		put(l, " why=");
		wsl_line_put_name(l, why);
	}
}

/* A record of an adapter's three byte counts. */
static void put_counts(struct wsl_line *l, const char *tag, uint64_t luid, const char *const keys[3],
		       const gtm_u64 v[3])
{
	put(l, ";%s", tag);
	put_luid(l, luid);
	for (int i = 0; i < 3; i++)
		put_bytes(l, keys[i], v[i]);
}

void wsl_line_adapter(struct wsl_line *l, uint64_t luid, gtm_u64 dedicated, gtm_u64 shared, gtm_u64 committed)
{
	static const char *const keys[] = {"ded", "shared", "committed"};
	put_counts(l, "A", luid, keys, (const gtm_u64[]){dedicated, shared, committed});
}

void wsl_line_vm(struct wsl_line *l, uint64_t luid, gtm_u64 local, gtm_u64 nonlocal, gtm_u64 committed)
{
	static const char *const keys[] = {"local", "nonlocal", "committed"};
	put_counts(l, "V", luid, keys, (const gtm_u64[]){local, nonlocal, committed});
}

/* One decimal, without printf's locale: "12.5", "0.0". */
static void put_pct(struct wsl_line *l, double pct)
{
	unsigned long long tenths = (unsigned long long)gtm_llround(pct * 10.0);
	put(l, "%llu.%llu", tenths / 10, tenths % 10);
}

void wsl_line_proc(struct wsl_line *l, uint32_t pid, const char *name, uint64_t luid, gtm_u64 local,
		   gtm_u64 nonlocal, gtm_u64 committed, const struct wsl_host_engine *eng, int n_eng)
{
	int written = 0;

	put(l, ";P pid=%u name=", pid);
	wsl_line_put_name(l, name && name[0] ? name : "?");
	put_luid(l, luid);
	put_bytes(l, "local", local);
	put_bytes(l, "nonlocal", nonlocal);
	put_bytes(l, "committed", committed);
	for (int i = 0; i < n_eng && written < WSL_HOST_MAX_ENG; i++) {
		if (!isfinite(eng[i].pct) || eng[i].pct < 0 || !eng[i].type[0])
			continue; /* no sample: left out (the protocol has no N/A percentage) */
		put(l, written ? "," : " eng=");
		wsl_line_put_name(l, eng[i].type);
		put(l, ":");
		put_pct(l, eng[i].pct);
		written++;
	}
}

void wsl_line_end(struct wsl_line *l)
{
	put(l, "\n");
}

void wsl_line_free(struct wsl_line *l)
{
	free(l->buf);
	memset(l, 0, sizeof *l);
}
