/* Test-only GGUF writer (layout: ggml/include/gguf.h; llm-memory.md §1). */
#include "gguf_writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llm/ggml_types.h"

struct buf {
	uint8_t *p;
	size_t len, cap;
};

struct gw {
	uint32_t version, alignment;
	uint64_t n_kv, n_tensors, data_size;
	bool forced;
	uint64_t forced_tensors, forced_kv;
	struct buf kv, ti, out;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			abort();
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_le(struct buf *b, uint64_t v, unsigned n)
{
	uint8_t x[8];
	for (unsigned i = 0; i < n; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, n);
}

static void put_str(struct buf *b, const char *s)
{
	put_le(b, strlen(s), 8);
	put(b, s, strlen(s));
}

struct gw *gw_new(void)
{
	struct gw *w = calloc(1, sizeof *w);
	if (!w)
		abort();
	w->version = 3;
	w->alignment = 32;
	return w;
}

void gw_free(struct gw *w)
{
	if (!w)
		return;
	free(w->kv.p);
	free(w->ti.p);
	free(w->out.p);
	free(w);
}

void gw_set_version(struct gw *w, uint32_t version) { w->version = version; }

void gw_set_alignment(struct gw *w, uint32_t alignment)
{
	w->alignment = alignment;
	gw_u32(w, "general.alignment", alignment);
}

static void key(struct gw *w, const char *k, uint32_t type)
{
	put_str(&w->kv, k);
	put_le(&w->kv, type, 4);
	w->n_kv++;
}

#define SCALAR(fn, T, id, n)                                    \
	void fn(struct gw *w, const char *k, T v)               \
	{                                                       \
		key(w, k, id);                                  \
		put_le(&w->kv, (uint64_t)v, n);                 \
	}
SCALAR(gw_u8, uint8_t, 0, 1)
SCALAR(gw_i8, int8_t, 1, 1)
SCALAR(gw_u16, uint16_t, 2, 2)
SCALAR(gw_i16, int16_t, 3, 2)
SCALAR(gw_u32, uint32_t, 4, 4)
SCALAR(gw_i32, int32_t, 5, 4)
SCALAR(gw_u64, uint64_t, 10, 8)
SCALAR(gw_i64, int64_t, 11, 8)
SCALAR(gw_bool, bool, 7, 1)

void gw_f32(struct gw *w, const char *k, float v)
{
	uint32_t u;
	memcpy(&u, &v, 4);
	key(w, k, 6);
	put_le(&w->kv, u, 4);
}

void gw_f64(struct gw *w, const char *k, double v)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	key(w, k, 12);
	put_le(&w->kv, u, 8);
}

void gw_str(struct gw *w, const char *k, const char *v)
{
	key(w, k, 8);
	put_str(&w->kv, v);
}

static void arr_head(struct gw *w, const char *k, uint32_t et, size_t n)
{
	key(w, k, 9);
	put_le(&w->kv, et, 4);
	put_le(&w->kv, n, 8);
}

void gw_arr_u32(struct gw *w, const char *k, const uint32_t *v, size_t n)
{
	arr_head(w, k, 4, n);
	for (size_t i = 0; i < n; i++)
		put_le(&w->kv, v[i], 4);
}

void gw_arr_i32(struct gw *w, const char *k, const int32_t *v, size_t n)
{
	arr_head(w, k, 5, n);
	for (size_t i = 0; i < n; i++)
		put_le(&w->kv, (uint32_t)v[i], 4);
}

void gw_arr_f32(struct gw *w, const char *k, const float *v, size_t n)
{
	arr_head(w, k, 6, n);
	for (size_t i = 0; i < n; i++) {
		uint32_t u;
		memcpy(&u, &v[i], 4);
		put_le(&w->kv, u, 4);
	}
}

void gw_arr_bool(struct gw *w, const char *k, const bool *v, size_t n)
{
	arr_head(w, k, 7, n);
	for (size_t i = 0; i < n; i++)
		put_le(&w->kv, v[i], 1);
}

void gw_arr_vocab(struct gw *w, const char *k, size_t n)
{
	char s[64];
	arr_head(w, k, 8, n);
	for (size_t i = 0; i < n; i++) {
		int len = snprintf(s, sizeof s, "tok%zu%.*s", i, (int)(i % 5), "abcde");
		put_le(&w->kv, (uint64_t)len, 8);
		put(&w->kv, s, (size_t)len);
	}
}

void gw_raw_kv(struct gw *w, const char *k, uint32_t type, const void *bytes, size_t n)
{
	key(w, k, type);
	put(&w->kv, bytes, n);
}

void gw_raw(struct gw *w, const void *bytes, size_t n)
{
	put(w->n_tensors ? &w->ti : &w->kv, bytes, n);
}

static uint64_t tensor_bytes(uint32_t type, uint32_t n_dims, const uint64_t *ne)
{
	uint64_t b = 0;
	if (!ggml_row_bytes(type, ne[0], &b))
		return 0;
	for (uint32_t d = 1; d < n_dims; d++)
		b *= ne[d];
	return b;
}

void gw_tensor(struct gw *w, const char *name, uint32_t type, uint32_t n_dims, const uint64_t *ne)
{
	put_str(&w->ti, name);
	put_le(&w->ti, n_dims, 4);
	for (uint32_t d = 0; d < n_dims; d++)
		put_le(&w->ti, ne[d], 8);
	put_le(&w->ti, type, 4);
	put_le(&w->ti, w->data_size, 8);
	uint64_t nb = n_dims <= 4 ? tensor_bytes(type, n_dims, ne) : 0;
	w->data_size += (nb + w->alignment - 1) / w->alignment * w->alignment;
	w->n_tensors++;
}

void gw_tensor2(struct gw *w, const char *name, uint32_t type, uint64_t ne0, uint64_t ne1)
{
	uint64_t ne[2] = {ne0, ne1};
	gw_tensor(w, name, type, ne1 > 1 ? 2 : 1, ne);
}

void gw_force_counts(struct gw *w, uint64_t n_tensors, uint64_t n_kv)
{
	w->forced = true;
	w->forced_tensors = n_tensors;
	w->forced_kv = n_kv;
}

const uint8_t *gw_header(struct gw *w, size_t *len)
{
	w->out.len = 0;
	put(&w->out, "GGUF", 4);
	put_le(&w->out, w->version, 4);
	put_le(&w->out, w->forced ? w->forced_tensors : w->n_tensors, 8);
	put_le(&w->out, w->forced ? w->forced_kv : w->n_kv, 8);
	put(&w->out, w->kv.p, w->kv.len);
	put(&w->out, w->ti.p, w->ti.len);
	*len = w->out.len;
	return w->out.p;
}

uint64_t gw_data_size(const struct gw *w)
{
	return w->data_size;
}

int gw_write_file(struct gw *w, const char *path)
{
	size_t len;
	const uint8_t *h = gw_header(w, &len);
	uint64_t data_start = w->n_tensors ? (len + w->alignment - 1) / w->alignment * w->alignment : len;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int rc = write(fd, h, len) == (ssize_t)len ? 0 : -1;
	if (rc == 0 && ftruncate(fd, (off_t)(data_start + w->data_size)) != 0)
		rc = -1;
	close(fd);
	return rc;
}
