/* The host stream's line parser (protocol in wsl_proto.h and docs/wsl.md).
 * Works on (pointer, length) slices only: a line is never assumed to be
 * NUL-terminated, every copy is bounded, every number checked for overflow. */
#include "sources/wsl_proto.h"

#include <stdio.h>
#include <string.h>

struct slice {
	const char *p;
	size_t n;
};

static bool slice_eq(struct slice s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && memcmp(s.p, lit, n) == 0;
}

/* Next token of s up to sep (consumed); the whole rest when sep is absent. */
static struct slice next_tok(struct slice *s, char sep)
{
	const char *e = memchr(s->p, sep, s->n);
	struct slice t = {s->p, e ? (size_t)(e - s->p) : s->n};
	s->p += t.n + (e ? 1 : 0);
	s->n -= t.n + (e ? 1 : 0);
	return t;
}

static int parse_u64(struct slice s, uint64_t *v)
{
	uint64_t x = 0;
	if (s.n == 0 || s.n > 20)
		return -1;
	for (size_t i = 0; i < s.n; i++) {
		unsigned d = (unsigned char)s.p[i] - '0';
		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

/* A byte count or '-' (not available). A count past WSL_BYTES_MAX is no GPU's
 * memory: a bad number (the line is refused), so sums of counts cannot wrap. */
static int parse_bytes(struct slice s, gtm_u64 *v)
{
	uint64_t x;
	if (slice_eq(s, "-")) {
		*v = GTM_U64_NA;
		return 0;
	}
	if (parse_u64(s, &x) != 0 || x > WSL_BYTES_MAX)
		return -1;
	*v = gtm_u64_of(x, GTM_MEASURED);
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decoding into dst (NUL-terminated); control bytes are refused. */
static int parse_name(struct slice s, char *dst, size_t cap)
{
	size_t w = 0;
	for (size_t i = 0; i < s.n; i++) {
		int c = (unsigned char)s.p[i];
		if (c == '%') {
			int h = i + 2 < s.n ? hexval(s.p[i + 1]) : -1, l = h >= 0 ? hexval(s.p[i + 2]) : -1;
			if (h < 0 || l < 0)
				return -1;
			c = h * 16 + l;
			i += 2;
		}
		if (c < 0x20 || c == 0x7f)
			return -1;
		if (w + 1 < cap)
			dst[w++] = (char)c;
	}
	dst[w] = '\0';
	return s.n ? 0 : -1;
}

/* LUID as PDH prints it: 0x<8 hex>_0x<8 hex>; kept lower case (captures show both). */
static int parse_luid(struct slice s, char *dst)
{
	static const char shape[] = "0x########_0x########";

	if (s.n != sizeof shape - 1)
		return -1;
	for (size_t i = 0; i < s.n; i++) {
		char c = s.p[i];
		bool ok = shape[i] == '#' ? hexval(c) >= 0 : (c | (shape[i] == 'x' ? 0x20 : 0)) == shape[i];
		if (!ok)
			return -1;
		dst[i] = shape[i] == '#' ? (char)(c >= 'A' && c <= 'F' ? c | 0x20 : c) : shape[i];
	}
	dst[s.n] = '\0';
	return 0;
}

/* A percentage: digits, optionally a fraction; bounded. */
static int parse_pct(struct slice s, double *v)
{
	double x = 0, scale = 0;
	if (s.n == 0 || s.n > 16)
		return -1;
	for (size_t i = 0; i < s.n; i++) {
		char c = s.p[i];
		if (c == '.' && scale == 0 && i > 0) {
			scale = 1;
			continue;
		}
		if (c < '0' || c > '9')
			return -1;
		if (scale > 0)
			x += (c - '0') * (scale /= 10);
		else
			x = x * 10 + (c - '0');
	}
	*v = x;
	return s.p[s.n - 1] == '.' ? -1 : 0;
}

struct kv {
	struct slice key, val;
};

/* Splits a record body into at most max key=value pairs. */
static int split_kv(struct slice body, struct kv *kv, int max, int *n)
{
	*n = 0;
	while (body.n) {
		struct slice t = next_tok(&body, ' ');
		if (t.n == 0)
			continue;
		if (*n == max)
			return -1;
		struct slice k = next_tok(&t, '=');
		if (k.n == 0 || t.n == 0)
			return -1;
		kv[(*n)++] = (struct kv){k, t};
	}
	return 0;
}

#define MAX_KV 16

struct rec {
	struct kv kv[MAX_KV];
	int n;
};

static const struct slice *get(const struct rec *r, const char *key)
{
	const struct slice *v = NULL;
	for (int i = 0; i < r->n; i++)
		if (slice_eq(r->kv[i].key, key))
			v = &r->kv[i].val; /* the last one wins */
	return v;
}

static int get_bytes(const struct rec *r, const char *key, gtm_u64 *v)
{
	const struct slice *s = get(r, key);
	if (!s) {
		*v = GTM_U64_NA;
		return 0;
	}
	return parse_bytes(*s, v);
}

static int fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return -1;
}

static struct wsl_host_adapter *adapter_of(struct wsl_host_sample *o, const struct rec *r, int *index)
{
	char luid[WSL_LUID_LEN];
	const struct slice *s = get(r, "luid");

	if (!s || parse_luid(*s, luid) != 0)
		return NULL;
	for (int i = 0; i < o->n_adapters; i++)
		if (!strcmp(o->adapters[i].luid, luid))
			return *index = i, &o->adapters[i];
	if (o->n_adapters == WSL_MAX_ADAPTERS)
		return NULL;
	struct wsl_host_adapter *a = &o->adapters[o->n_adapters];
	memset(a, 0, sizeof *a);
	memcpy(a->luid, luid, sizeof luid);
	memcpy(a->vm.luid, luid, sizeof luid);
	a->dedicated = a->shared = a->committed = GTM_U64_NA;
	*index = o->n_adapters++;
	return a;
}

static const struct {
	const char *name;
	enum wsl_helper_state state;
} states[] = {{"ok", WSL_HELPER_OK}, {"partial", WSL_HELPER_PARTIAL}, {"error", WSL_HELPER_ERROR}};

static int rec_header(struct wsl_host_sample *o, const struct rec *r, char *err, size_t errlen)
{
	const struct slice *seq = get(r, "seq"), *vm = get(r, "vmwp"), *vms = get(r, "vms"), *st = get(r, "state"),
			   *why = get(r, "why");
	uint64_t v;
	bool known = false;

	if (!seq || parse_u64(*seq, &o->seq) != 0)
		return fail(err, errlen, "header: no seq");
	if (!vm || parse_u64(*vm, &v) != 0 || v > UINT32_MAX)
		return fail(err, errlen, "header: no vmwp");
	o->vmwp_pid = (uint32_t)v;
	o->n_vms = o->vmwp_pid ? 1 : 0;
	if (vms && (parse_u64(*vms, &v) != 0 || v > 1000))
		return fail(err, errlen, "header: bad vms");
	if (vms)
		o->n_vms = (int)v;
	for (size_t i = 0; st && i < sizeof states / sizeof states[0]; i++)
		if (slice_eq(*st, states[i].name))
			o->state = states[i].state, known = true;
	if (st && !known)
		return fail(err, errlen, "header: unknown state");
	if (why && parse_name(*why, o->why, sizeof o->why) != 0)
		return fail(err, errlen, "header: bad why");
	return 0;
}

static int rec_adapter(struct wsl_host_sample *o, const struct rec *r, char *err, size_t errlen)
{
	int ix;
	struct wsl_host_adapter *a = adapter_of(o, r, &ix);
	if (!a)
		return fail(err, errlen, "A: bad luid or too many adapters");
	if (get_bytes(r, "ded", &a->dedicated) || get_bytes(r, "shared", &a->shared) ||
	    get_bytes(r, "committed", &a->committed))
		return fail(err, errlen, "A: bad number");
	return 0;
}

/* A vmwp.exe instance. One without Local or Non Local Usage ('-' or absent)
 * cannot be matched by size: that record alone is refused, and its adapter's
 * list marked incomplete (the caller must not read the gap as a vanishing). */
static int rec_vm(struct wsl_host_sample *o, const struct rec *r, char *err, size_t errlen)
{
	int ix;
	gtm_u64 l, nl, c;
	struct wsl_host_adapter *a = adapter_of(o, r, &ix);
	if (!a)
		return fail(err, errlen, "V: bad luid or too many adapters");
	if (get_bytes(r, "local", &l) || get_bytes(r, "nonlocal", &nl) || get_bytes(r, "committed", &c))
		return fail(err, errlen, "V: bad number");
	if (!gtm_u64_ok(l) || !gtm_u64_ok(nl)) {
		a->vm_incomplete = true;
		o->n_refused++;
		snprintf(o->refused_why, sizeof o->refused_why, "V record without %s",
			 !gtm_u64_ok(l) ? "Local Usage" : "Non Local Usage");
		return 0;
	}
	if (a->vm.n == WSL_MAX_CTX)
		return fail(err, errlen, "V: too many contexts");
	a->vm.ctx[a->vm.n++] = (struct wsl_ctx){.local = l.v, .nonlocal = nl.v, .committed = gtm_u64_ok(c) ? c.v : 0,
						.committed_na = !gtm_u64_ok(c)};
	return 0;
}

static int parse_engines(struct slice s, struct wsl_host_proc *p)
{
	while (s.n) {
		struct slice e = next_tok(&s, ','), type = next_tok(&e, ':');
		if (p->n_eng == WSL_HOST_MAX_ENG)
			return 0; /* the busiest come first: the rest is dropped */
		struct wsl_host_engine *g = &p->eng[p->n_eng];
		if (parse_name(type, g->type, sizeof g->type) != 0 || parse_pct(e, &g->pct) != 0)
			return -1;
		p->n_eng++;
	}
	return 0;
}

static int rec_proc(struct wsl_host_sample *o, const struct rec *r, char *err, size_t errlen)
{
	const struct slice *pid = get(r, "pid"), *name = get(r, "name"), *eng = get(r, "eng");
	struct wsl_host_proc p = {.adapter = -1};
	uint64_t v;

	if (!pid || parse_u64(*pid, &v) != 0 || v == 0 || v > UINT32_MAX)
		return fail(err, errlen, "P: bad pid");
	p.pid = (uint32_t)v;
	if (!name || parse_name(*name, p.name, sizeof p.name) != 0)
		return fail(err, errlen, "P: bad name");
	if (get(r, "luid") && !adapter_of(o, r, &p.adapter))
		return fail(err, errlen, "P: bad luid");
	if (get_bytes(r, "local", &p.local) || get_bytes(r, "nonlocal", &p.nonlocal) ||
	    get_bytes(r, "committed", &p.committed))
		return fail(err, errlen, "P: bad number");
	if (eng && parse_engines(*eng, &p) != 0)
		return fail(err, errlen, "P: bad engines");
	if (o->n_procs == WSL_HOST_MAX_PROCS) {
		o->n_procs_dropped++;
		return 0;
	}
	o->procs[o->n_procs++] = p;
	return 0;
}

static const struct {
	const char *tag;
	int (*parse)(struct wsl_host_sample *, const struct rec *, char *, size_t);
} records[] = {{"A", rec_adapter}, {"V", rec_vm}, {"P", rec_proc}};

static int parse_record(struct wsl_host_sample *o, struct slice r, bool first, char *err, size_t errlen)
{
	struct slice tag = next_tok(&r, ' ');
	struct rec rec;

	if (split_kv(r, rec.kv, MAX_KV, &rec.n) != 0)
		return fail(err, errlen, "a record is not key=value pairs");
	if (first) {
		if (tag.n < 5 || memcmp(tag.p, "GTMH", 4) != 0)
			return fail(err, errlen, "not a host-stream line");
		if (!slice_eq(tag, "GTMH1"))
			return fail(err, errlen, "protocol version is not 1");
		return rec_header(o, &rec, err, errlen);
	}
	for (size_t i = 0; i < sizeof records / sizeof records[0]; i++)
		if (slice_eq(tag, records[i].tag))
			return records[i].parse(o, &rec, err, errlen);
	return 0; /* a record of a later minor revision: skipped */
}

int wsl_line_parse(const char *line, size_t len, struct wsl_host_sample *out, char *err, size_t errlen)
{
	struct slice s = {line, len};
	bool first = true;

	memset(out, 0, offsetof(struct wsl_host_sample, adapters));
	out->n_adapters = out->n_procs = out->n_procs_dropped = out->n_refused = 0;
	out->refused_why[0] = '\0';
	if (len && line[len - 1] == '\r')
		s.n--;
	if (s.n > WSL_LINE_MAX)
		return fail(err, errlen, "line too long");
	while (s.n || first) {
		struct slice r = next_tok(&s, ';');
		if (parse_record(out, r, first, err, errlen) != 0)
			return -1;
		first = false;
	}
	return 0;
}

void wsl_linebuf_feed(struct wsl_linebuf *lb, const char *data, size_t n, wsl_line_fn fn, void *arg)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t take = nl ? (size_t)(nl - data) : n;
		if (!lb->skipping && lb->len + take > sizeof lb->buf) {
			lb->skipping = true; /* over-long: dropped whole, up to its newline */
			lb->len = 0;
			lb->too_long++;
		}
		if (!lb->skipping) {
			memcpy(lb->buf + lb->len, data, take);
			lb->len += take;
		}
		if (nl) {
			if (!lb->skipping)
				fn(arg, lb->buf, lb->len);
			lb->len = 0;
			lb->skipping = false;
			take++;
		}
		data += take;
		n -= take;
	}
}
