/* GGUF header parsing over a bounded buffer (ggml/src/gguf.cpp:484-780). */
#include "llm/gguf.h"

#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "llm/ggml_types.h"
#include "llm/gguf_internal.h"
#include "llm/gguf_walk.h"

/* The header's bytes [base, base + len) are at p: all of them for a buffer,
 * a window that moves forward for the file front-end (fill), so a 6 MB
 * vocabulary passes through a buffer of a few hundred KiB that stays in the
 * CPU's cache. pos is an offset in the header, never below base. */
struct rd {
	const uint8_t *p;
	size_t base, len, pos;
	enum gguf_status st;
	char *err;
	size_t errlen;
	gguf_fill_fn fill; /* file front-end: pulls more of the header on demand */
	void *fill_ctx;
	size_t walk_spacing; /* gguf_walk_strings' spacing: 0 (the defaults) but in tests */
	uint64_t likely_end;  /* passed to fill (gguf_fill_fn): 0, or an estimate of the header's end */
	uint64_t n_tensors;   /* from the preamble, for likely_end */
};

/* the byte at pos, and how many follow it in the window */
static inline const uint8_t *cur(const struct rd *r)
{
	return r->p + (r->pos - r->base);
}

static inline size_t avail(const struct rd *r)
{
	return r->base + r->len > r->pos ? r->base + r->len - r->pos : 0;
}

static bool fail(struct rd *r, enum gguf_status st, const char *fmt, ...)
{
	if (r->st != GGUF_OK)
		return false;
	r->st = st;
	if (r->err && r->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool within_limit(struct rd *r, uint64_t n)
{
	if (r->st != GGUF_OK)
		return false;
	if (n > GGUF_MAX_HEADER_BYTES || r->pos + n > GGUF_MAX_HEADER_BYTES)
		return fail(r, GGUF_ERR_LIMIT, "GGUF header larger than %llu MiB",
			    (unsigned long long)(GGUF_MAX_HEADER_BYTES >> 20));
	return true;
}

static bool truncated(struct rd *r, uint64_t n)
{
	return fail(r, GGUF_ERR_TRUNCATED, "truncated GGUF header: needs %llu bytes at offset %zu, %zu available",
		    (unsigned long long)n, r->pos, avail(r));
}

/* n bytes at pos in the window */
static bool need(struct rd *r, uint64_t n)
{
	if (!within_limit(r, n))
		return false;
	if (n > avail(r) && r->fill)
		r->fill(r->fill_ctx, r->pos, r->pos + n, r->likely_end, &r->p, &r->base, &r->len);
	if (n > avail(r))
		return truncated(r, n);
	return true;
}

/* n bytes at pos that are passed over unread: only their end is asked of the
 * front-end, which then need not read them. */
static bool skip(struct rd *r, uint64_t n)
{
	if (!within_limit(r, n))
		return false;
	if (n > avail(r) && r->fill)
		r->fill(r->fill_ctx, r->pos + n - 1, r->pos + n, 0, &r->p, &r->base, &r->len);
	/* the window may now start past pos: what lies before it was passed over */
	if (n > avail(r))
		return truncated(r, n);
	r->pos += n;
	return true;
}

/* Little-endian loads, independent of host byte order. */
static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return le64toh(v);
}

static uint64_t load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	if (n == 8)
		return load_le64(p);
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static bool rd_le(struct rd *r, unsigned n, uint64_t *v)
{
	if (!need(r, n))
		return false;
	*v = load_le(cur(r), n);
	r->pos += n;
	return true;
}

static bool rd_u32(struct rd *r, uint32_t *v)
{
	uint64_t x;
	if (!rd_le(r, 4, &x))
		return false;
	*v = (uint32_t)x;
	return true;
}

/* A string: u64 length + bytes, no NUL. Points into the buffer. */
static bool rd_str(struct rd *r, const char *what, const uint8_t **s, uint64_t *n)
{
	size_t at = r->pos;
	if (!rd_le(r, 8, n))
		return false;
	if (*n > GGUF_MAX_STRING)
		return fail(r, GGUF_ERR_LIMIT, "%s at offset %zu has length %llu (limit %llu)", what, at,
			    (unsigned long long)*n, (unsigned long long)GGUF_MAX_STRING);
	if (!need(r, *n))
		return false;
	*s = cur(r);
	r->pos += *n;
	return true;
}

static const uint8_t vtype_size[GGUF_VT_COUNT] = {
	[GGUF_VT_U8] = 1, [GGUF_VT_I8] = 1, [GGUF_VT_U16] = 2, [GGUF_VT_I16] = 2,
	[GGUF_VT_U32] = 4, [GGUF_VT_I32] = 4, [GGUF_VT_F32] = 4, [GGUF_VT_BOOL] = 1,
	[GGUF_VT_STRING] = 0, [GGUF_VT_ARRAY] = 0, [GGUF_VT_U64] = 8, [GGUF_VT_I64] = 8,
	[GGUF_VT_F64] = 8,
};

static const char *const vtype_names[GGUF_VT_COUNT] = {
	"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64",
};

const char *gguf_vtype_name(enum gguf_vtype t)
{
	return (unsigned)t < GGUF_VT_COUNT ? vtype_names[t] : "invalid";
}

static bool vtype_is_float(enum gguf_vtype t)
{
	return t == GGUF_VT_F32 || t == GGUF_VT_F64;
}

static bool vtype_is_signed(enum gguf_vtype t)
{
	return t == GGUF_VT_I8 || t == GGUF_VT_I16 || t == GGUF_VT_I32 || t == GGUF_VT_I64;
}

/* Decodes one fixed-size scalar at p into (u, i, f). */
static void decode_scalar(enum gguf_vtype t, const uint8_t *p, uint64_t *u, int64_t *i, double *f)
{
	uint64_t raw = load_le(p, vtype_size[t]);
	unsigned bits = 8u * vtype_size[t];
	if (t == GGUF_VT_F32) {
		float x;
		uint32_t w = (uint32_t)raw;
		memcpy(&x, &w, 4);
		*f = x;
	} else if (t == GGUF_VT_F64) {
		memcpy(f, &raw, 8);
	} else if (vtype_is_signed(t)) {
		/* sign-extend from `bits` */
		uint64_t m = bits == 64 ? 0 : (1ull << (bits - 1));
		*i = bits == 64 ? (int64_t)raw : (int64_t)((raw ^ m) - m);
		*f = (double)*i;
	} else {
		*u = raw;
		*f = (double)raw;
	}
	if (vtype_is_float(t)) {
		*i = (*f >= -9.2e18 && *f <= 9.2e18) ? (int64_t)*f : 0;
		*u = (*f >= 0 && *f <= 1.8e19) ? (uint64_t)*f : 0;
	} else if (vtype_is_signed(t)) {
		*u = *i >= 0 ? (uint64_t)*i : 0;
	} else {
		*i = raw <= INT64_MAX ? (int64_t)raw : INT64_MAX;
	}
}

static bool valid_vtype(uint32_t t)
{
	return t < GGUF_VT_COUNT;
}

/* Room for n elements of at least es bytes each (checked before any loop or
 * allocation, so a hostile count costs nothing). */
static bool count_within_limit(struct rd *r, uint64_t n, uint64_t es)
{
	if (n > GGUF_MAX_HEADER_BYTES / es)
		return fail(r, GGUF_ERR_LIMIT, "count %llu at offset %zu exceeds the header size limit",
			    (unsigned long long)n, r->pos);
	return true;
}

static bool need_count(struct rd *r, uint64_t n, uint64_t es)
{
	return count_within_limit(r, n, es) && need(r, n * es);
}

/* Where the header likely ends, seen from a string array's j-th of n
 * strings (the array began at start): the strings left at the average
 * length so far, then the tensor infos at TENSOR_INFO_GUESS bytes each (a
 * name of about 30 bytes and two dimensions; most of the keys come before
 * the vocabulary). Only a hint for the file's read-ahead, so that its last
 * read stops near the header's end instead of a window past it: too short
 * costs one more read, too long what a read-ahead costs anyway. 0 when the
 * array has no average yet or the guess overflows. */
#define TENSOR_INFO_GUESS 64u
static uint64_t likely_end(const struct rd *r, size_t start, uint64_t j, uint64_t n)
{
	uint64_t rest;
	if (j == 0 || __builtin_mul_overflow((n - j), (r->pos - start) / j, &rest) ||
	    __builtin_add_overflow(rest, r->n_tensors * TENSOR_INFO_GUESS, &rest) || rest > GGUF_MAX_HEADER_BYTES)
		return 0;
	return r->pos + rest;
}

static bool read_array(struct rd *r, struct gguf_kv *kv)
{
	uint32_t et;
	uint64_t n;
	if (!rd_u32(r, &et) || !rd_le(r, 8, &n))
		return false;
	if (!valid_vtype(et))
		return fail(r, GGUF_ERR_FORMAT, "key '%s': array of unknown type %u", kv->key, et);
	if (et == GGUF_VT_ARRAY)
		return fail(r, GGUF_ERR_FORMAT, "key '%s': nested arrays are not allowed", kv->key);
	kv->arr_type = et;
	kv->arr_n = n;
	if (et == GGUF_VT_STRING) {
		/* skipped element by element, never materialised; a hostile
		 * count runs out of bytes (8 at least an element) in as many steps
		 * as the buffer or file holds */
		if (!count_within_limit(r, n, 8))
			return false;
		size_t start = r->pos;
		for (uint64_t j = 0; j < n;) {
			const uint8_t *s;
			uint64_t sl, got;
			/* fast path (vocabularies): the strings whole in the window and
			 * under the header limit, passed over by several walkers at once
			 * with exactly the one-walker result (gguf_walk.h) */
			size_t room = GGUF_MAX_HEADER_BYTES - r->pos;
			r->pos += gguf_walk_strings(cur(r), avail(r) < room ? avail(r) : room, n - j, r->walk_spacing, &got);
			j += got;
			if (j == n)
				break;
			/* one element the slow way: more of the file, or the error */
			r->likely_end = likely_end(r, start, j, n);
			bool ok = rd_str(r, "array string", &s, &sl);
			r->likely_end = 0;
			if (!ok)
				return false;
			j++;
		}
		return true;
	}
	uint64_t es = vtype_size[et];
	if (n > GGUF_SMALL_ARRAY)
		return count_within_limit(r, n, es) && skip(r, n * es);
	if (!need_count(r, n, es))
		return false;
	{
		kv->arr_i = xcalloc(n ? n : 1, sizeof *kv->arr_i);
		kv->arr_f = xcalloc(n ? n : 1, sizeof *kv->arr_f);
		for (uint64_t j = 0; j < n; j++) {
			uint64_t u = 0;
			int64_t i = 0;
			decode_scalar(et, cur(r) + j * es, &u, &i, &kv->arr_f[j]);
			kv->arr_i[j] = vtype_is_signed(et) || vtype_is_float(et) ? i : (int64_t)(u <= INT64_MAX ? u : INT64_MAX);
		}
	}
	r->pos += n * es;
	return true;
}

static bool read_value(struct rd *r, struct gguf_kv *kv)
{
	if (kv->type == GGUF_VT_ARRAY)
		return read_array(r, kv);
	if (kv->type == GGUF_VT_STRING) {
		const uint8_t *s;
		if (!rd_str(r, "string value", &s, &kv->str_len))
			return false;
		kv->str = xstrndup((const char *)s, kv->str_len);
		return true;
	}
	if (!need(r, vtype_size[kv->type]))
		return false;
	decode_scalar(kv->type, cur(r), &kv->u, &kv->i, &kv->f);
	if (kv->type == GGUF_VT_BOOL)
		kv->u = kv->u != 0, kv->i = (int64_t)kv->u, kv->f = (double)kv->u;
	r->pos += vtype_size[kv->type];
	return true;
}

/* Open-addressing set of byte strings, for llama.cpp's duplicate-key and
 * duplicate-tensor-name checks (gguf.cpp:560-603) in linear time. */
struct strset {
	const char **slot;
	size_t cap;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static void strset_init(struct strset *set, uint64_t n)
{
	set->cap = 16;
	while (set->cap < 2 * n)
		set->cap *= 2;
	set->slot = xcalloc(set->cap, sizeof *set->slot);
}

/* false when s was already present */
static bool strset_add(struct strset *set, const char *s)
{
	size_t i = (size_t)str_hash(s) & (set->cap - 1);
	while (set->slot[i]) {
		if (strcmp(set->slot[i], s) == 0)
			return false;
		i = (i + 1) & (set->cap - 1);
	}
	set->slot[i] = s;
	return true;
}

static bool read_kvs(struct rd *r, struct gguf_header *h)
{
	struct strset keys;
	strset_init(&keys, h->n_kv);
	h->kv = xcalloc(h->n_kv ? h->n_kv : 1, sizeof *h->kv);
	for (uint64_t k = 0; k < h->n_kv && r->st == GGUF_OK; k++) {
		struct gguf_kv *kv = &h->kv[k];
		const uint8_t *s;
		uint64_t n;
		uint32_t t;
		kv->offset = r->pos;
		if (!rd_str(r, "key", &s, &n))
			break;
		kv->key = xstrndup((const char *)s, n);
		if (n == 0 || strlen(kv->key) != n) {
			fail(r, GGUF_ERR_FORMAT, "metadata key %llu at offset %llu is empty or holds a NUL",
			     (unsigned long long)k, (unsigned long long)kv->offset);
			break;
		}
		if (!strset_add(&keys, kv->key)) {
			fail(r, GGUF_ERR_FORMAT, "duplicate metadata key '%s'", kv->key);
			break;
		}
		if (!rd_u32(r, &t))
			break;
		if (!valid_vtype(t)) {
			fail(r, GGUF_ERR_FORMAT, "key '%s' has unknown value type %u", kv->key, t);
			break;
		}
		kv->type = t;
		read_value(r, kv);
	}
	free(keys.slot);
	return r->st == GGUF_OK;
}

/* n_dims, ne[], type and size of one tensor info (gguf.cpp:680-740). */
static bool read_tensor_shape(struct rd *r, struct gguf_tensor *t)
{
	if (!rd_u32(r, &t->n_dims))
		return false;
	if (t->n_dims < 1 || t->n_dims > 4)
		return fail(r, GGUF_ERR_FORMAT, "tensor '%s' has %u dimensions (1 to 4 allowed)", t->name, t->n_dims);
	uint64_t nel = 1;
	for (uint32_t d = 0; d < 4; d++) {
		t->ne[d] = 1;
		if (d < t->n_dims && !rd_le(r, 8, &t->ne[d]))
			return false;
		if (t->ne[d] > (uint64_t)INT64_MAX || __builtin_mul_overflow(nel, t->ne[d], &nel) ||
		    nel > (uint64_t)INT64_MAX)
			return fail(r, GGUF_ERR_FORMAT, "tensor '%s' has invalid or overflowing dimensions", t->name);
	}
	t->n_elements = nel;
	if (!rd_u32(r, &t->type))
		return false;
	const struct ggml_type_info *ti = ggml_type_get(t->type);
	if (!ti)
		return fail(r, GGUF_ERR_FORMAT, "tensor '%s' has unknown ggml type %u", t->name, t->type);
	uint64_t row;
	if (!ggml_row_bytes(t->type, t->ne[0], &row))
		return fail(r, GGUF_ERR_FORMAT, "tensor '%s': row of %llu is not a multiple of %s's block of %u",
			    t->name, (unsigned long long)t->ne[0], ti->name, ti->blck);
	if (__builtin_mul_overflow(row, t->ne[1], &t->nbytes) ||
	    __builtin_mul_overflow(t->nbytes, t->ne[2], &t->nbytes) ||
	    __builtin_mul_overflow(t->nbytes, t->ne[3], &t->nbytes) || t->nbytes > (uint64_t)INT64_MAX)
		return fail(r, GGUF_ERR_FORMAT, "tensor '%s' size overflows", t->name);
	return rd_le(r, 8, &t->offset);
}

static uint64_t pad_to(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

static bool read_tensors(struct rd *r, struct gguf_header *h)
{
	struct strset names;
	uint64_t expect = 0;
	strset_init(&names, h->n_tensors);
	h->tensors = xcalloc(h->n_tensors ? h->n_tensors : 1, sizeof *h->tensors);
	for (uint64_t k = 0; k < h->n_tensors && r->st == GGUF_OK; k++) {
		struct gguf_tensor *t = &h->tensors[k];
		const uint8_t *s;
		uint64_t n;
		if (!rd_str(r, "tensor name", &s, &n))
			break;
		t->name = xstrndup((const char *)s, n);
		if (n >= GGUF_MAX_NAME || strlen(t->name) != n) {
			fail(r, GGUF_ERR_FORMAT, "tensor %llu: name of %llu bytes is invalid (max %d)",
			     (unsigned long long)k, (unsigned long long)n, GGUF_MAX_NAME - 1);
			break;
		}
		if (!strset_add(&names, t->name)) {
			fail(r, GGUF_ERR_FORMAT, "duplicate tensor name '%s'", t->name);
			break;
		}
		if (!read_tensor_shape(r, t))
			break;
		/* offsets are the running sum of padded sizes (gguf.cpp:770) */
		if (t->offset != expect) {
			fail(r, GGUF_ERR_FORMAT, "tensor '%s' has data offset %llu, expected %llu", t->name,
			     (unsigned long long)t->offset, (unsigned long long)expect);
			break;
		}
		if (__builtin_add_overflow(expect, pad_to(t->nbytes, h->alignment), &expect) ||
		    expect > (uint64_t)INT64_MAX) {
			fail(r, GGUF_ERR_FORMAT, "tensor data size overflows");
			break;
		}
		h->data_bytes = t->offset + t->nbytes;
	}
	free(names.slot);
	return r->st == GGUF_OK;
}

static bool read_preamble(struct rd *r, struct gguf_header *h)
{
	if (r->len < 4 && r->fill)
		r->fill(r->fill_ctx, 0, 4, 0, &r->p, &r->base, &r->len);
	if (!gguf_is_gguf_magic(r->p, r->len)) {
		if (r->len == 0)
			return fail(r, GGUF_ERR_MAGIC, "not a GGUF file (empty)");
		if (r->len < 4 && memcmp(r->p, "GGUF", r->len) == 0)
			return fail(r, GGUF_ERR_TRUNCATED, "truncated GGUF header: %zu bytes", r->len);
		return fail(r, GGUF_ERR_MAGIC, "not a GGUF file (bad magic)");
	}
	r->pos = 4;
	if (!rd_u32(r, &h->version))
		return false;
	/* GGUF numbers its versions from 1 (ggml docs/gguf.md: v1, v2 64-bit
	 * counts, v3 big-endian files); llama.cpp rejects 0 as a bad version
	 * before its byte-order check, which a 0 would otherwise pass */
	if (h->version == 0)
		return fail(r, GGUF_ERR_VERSION, "GGUF version 0 is not a valid version (GGUF versions start at 1; "
			    "the file is damaged or not a model)");
	/* a byte-swapped file has the version in the high half (gguf.cpp:497) */
	if ((h->version & 0xFFFFu) == 0)
		return fail(r, GGUF_ERR_BIG_ENDIAN, "big-endian (byte-swapped) GGUF v%u is not supported",
			    __builtin_bswap32(h->version));
	if (h->version != 2 && h->version != 3)
		return fail(r, GGUF_ERR_VERSION, "unsupported GGUF version %u", h->version);
	if (!rd_le(r, 8, &h->n_tensors) || !rd_le(r, 8, &h->n_kv))
		return false;
	if (h->n_kv > GGUF_MAX_KV)
		return fail(r, GGUF_ERR_LIMIT, "GGUF declares %llu metadata keys (limit %llu)",
			    (unsigned long long)h->n_kv, (unsigned long long)GGUF_MAX_KV);
	if (h->n_tensors > GGUF_MAX_TENSORS)
		return fail(r, GGUF_ERR_LIMIT, "GGUF declares %llu tensors (limit %llu)",
			    (unsigned long long)h->n_tensors, (unsigned long long)GGUF_MAX_TENSORS);
	r->n_tensors = h->n_tensors;
	/* smallest key-value 13 bytes, smallest tensor info 32: refuse counts the
	 * buffer cannot hold before allocating for them */
	return need_count(r, h->n_kv, 13) && need_count(r, h->n_tensors, 32);
}

static bool read_alignment(struct rd *r, struct gguf_header *h)
{
	const struct gguf_kv *a = gguf_find(h, "general.alignment");
	h->alignment = 32; /* GGUF_DEFAULT_ALIGNMENT, gguf.cpp:613-617 */
	if (!a)
		return true;
	if (a->type != GGUF_VT_U32 || a->u == 0 || (a->u & (a->u - 1)) != 0)
		return fail(r, GGUF_ERR_FORMAT, "general.alignment must be a u32 power of two");
	h->alignment = (uint32_t)a->u;
	return true;
}

static enum gguf_status parse_rd(struct rd *rp, struct gguf_header **out);

enum gguf_status gguf_parse(const uint8_t *buf, size_t len, struct gguf_header **out, char *err, size_t errlen)
{
	struct rd r = {.p = buf, .len = buf ? len : 0, .err = err, .errlen = errlen};
	return parse_rd(&r, out);
}

enum gguf_status gguf_parse_fill(gguf_fill_fn fill, void *ctx, const uint8_t *buf, size_t len,
				 struct gguf_header **out, char *err, size_t errlen)
{
	struct rd r = {.p = buf, .len = buf ? len : 0, .err = err, .errlen = errlen, .fill = fill, .fill_ctx = ctx};
	return parse_rd(&r, out);
}

/* A window of at most `window` bytes past what the parser asks for, moved
 * forward over a buffer: the file front-end's discipline without a file. */
struct mem_window {
	const uint8_t *buf;
	size_t len, window, max_len;
};

static void mem_window_fill(void *ctx, uint64_t from, uint64_t upto, uint64_t likely_end, const uint8_t **buf,
			    size_t *base, size_t *len)
{
	struct mem_window *m = ctx;
	(void)likely_end; /* the window is the test's, whatever the parser expects */
	if (from > m->len)
		from = m->len;
	if (upto > m->len)
		upto = m->len;
	if (from > upto)
		from = upto;
	size_t n = (size_t)(upto - from) + m->window;
	if (n > m->len - from)
		n = m->len - (size_t)from;
	*buf = m->buf + from;
	*base = (size_t)from;
	*len = n;
	if (n > m->max_len)
		m->max_len = n;
}

enum gguf_status gguf_parse_windowed(const uint8_t *buf, size_t len, size_t window, size_t *max_window,
				     struct gguf_header **out, char *err, size_t errlen)
{
	struct mem_window m = {.buf = buf, .len = buf ? len : 0, .window = window};
	/* walkers as close as they go, so that small inputs take every path of
	 * the multi-walker walk too (gguf_parse keeps the defaults) */
	struct rd r = {.err = err, .errlen = errlen, .fill = mem_window_fill, .fill_ctx = &m, .walk_spacing = 1};
	enum gguf_status st = parse_rd(&r, out);
	if (max_window)
		*max_window = m.max_len;
	return st;
}

size_t gguf_walk_spacing;

static enum gguf_status parse_rd(struct rd *rp, struct gguf_header **out)
{
	struct rd r = *rp;
	if (!r.walk_spacing)
		r.walk_spacing = gguf_walk_spacing;
	char *err = r.err;
	size_t errlen = r.errlen;
	struct gguf_header *h = xcalloc(1, sizeof *h);
	h->refcount = 1;
	h->arch = "";
	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (read_preamble(&r, h) && read_kvs(&r, h) && read_alignment(&r, h) && read_tensors(&r, h)) {
		const char *arch = gguf_get_str(h, "general.architecture");
		h->arch = arch ? arch : "";
		h->infos_end = r.pos;
		h->data_offset = h->n_tensors ? pad_to(r.pos, h->alignment) : r.pos;
		*out = h;
		return GGUF_OK;
	}
	gguf_header_unref(h);
	return r.st;
}

void gguf_header_ref(struct gguf_header *h)
{
	if (h)
		__atomic_add_fetch(&h->refcount, 1, __ATOMIC_RELAXED);
}

void gguf_header_unref(struct gguf_header *h)
{
	if (!h || __atomic_sub_fetch(&h->refcount, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	if (h->kv) {
		for (uint64_t i = 0; i < h->n_kv; i++) {
			free(h->kv[i].key);
			free(h->kv[i].str);
			free(h->kv[i].arr_i);
			free(h->kv[i].arr_f);
		}
	}
	if (h->tensors)
		for (uint64_t i = 0; i < h->n_tensors; i++)
			free(h->tensors[i].name);
	free(h->kv);
	free(h->tensors);
	free(h);
}

bool gguf_is_gguf_magic(const uint8_t *buf, size_t len)
{
	return buf && len >= 4 && memcmp(buf, "GGUF", 4) == 0;
}

static const char *const status_names[] = {
	[GGUF_OK] = "ok", [GGUF_ERR_TRUNCATED] = "truncated", [GGUF_ERR_MAGIC] = "not-gguf",
	[GGUF_ERR_VERSION] = "unsupported-version", [GGUF_ERR_BIG_ENDIAN] = "big-endian",
	[GGUF_ERR_LIMIT] = "limit", [GGUF_ERR_FORMAT] = "format", [GGUF_ERR_IO] = "io",
	[GGUF_ERR_CHANGED] = "changed",
};

const char *gguf_status_name(enum gguf_status s)
{
	return (unsigned)s < ARRAY_LEN(status_names) ? status_names[s] : "invalid";
}
