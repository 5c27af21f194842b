/* safetensors header parser, pure over a bounded buffer (see safetensors.h
 * for the reference reader's checks it applies). */
#include "llm/safetensors.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/util.h"

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

enum st_status st_header_len(const uint8_t *buf, size_t n, uint64_t file_size, uint64_t *len)
{
	if (n < 8 || file_size < 8)
		return ST_ERR_TOO_SMALL;
	*len = le64(buf);
	if (*len > ST_MAX_HEADER)
		return ST_ERR_TOO_LARGE;
	return *len + 8 > file_size ? ST_ERR_TRUNCATED : ST_OK;
}

bool st_is_safetensors_magic(const uint8_t *buf, size_t n, uint64_t file_size)
{
	uint64_t len;
	/* an empty header "{}" is 2 bytes; the JSON starts at byte 8 */
	return n >= 9 && st_header_len(buf, n, file_size, &len) == ST_OK && len >= 2 && buf[8] == '{';
}

static enum st_status fail(char *err, size_t n, enum st_status st, const char *fmt, const char *name)
{
	snprintf(err, n, fmt, name);
	return st;
}

/* A JSON array of non-negative integers, each into out[i] (at most max; the
 * count in *count); false when it is not one. */
static bool u64_array(const json_t *a, uint64_t *out, size_t max, size_t *count)
{
	size_t i;
	json_t *v;
	if (!json_is_array(a))
		return false;
	json_array_foreach(a, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return false;
		if (i < max)
			out[i] = (uint64_t)json_integer_value(v);
	}
	*count = json_array_size(a);
	return true;
}

/* shape x bits, checked: the reference reader's ValidationOverflow and
 * MisalignedSlice. */
static enum st_status tensor_size(const json_t *shape, enum st_dtype dt, uint64_t *n_el, uint64_t *bytes,
				  uint32_t *n_dims)
{
	size_t i;
	json_t *v;
	uint64_t n = 1;
	json_array_foreach(shape, i, v) {
		uint64_t d = (uint64_t)json_integer_value(v);
		if (d && n > UINT64_MAX / d)
			return ST_ERR_OVERFLOW;
		n *= d;
	}
	*n_dims = (uint32_t)json_array_size(shape);
	unsigned bits = st_dtype_bits(dt);
	if (n > UINT64_MAX / bits)
		return ST_ERR_OVERFLOW;
	if ((n * bits) % 8)
		return ST_ERR_MISALIGNED;
	*n_el = n;
	*bytes = n * bits / 8;
	return ST_OK;
}

static enum st_status parse_tensor(const char *name, const json_t *info, struct st_tensor *t, uint64_t *bytes,
				   char *err, size_t en)
{
	const json_t *dtype = json_object_get(info, "dtype");
	const json_t *shape = json_object_get(info, "shape");
	const json_t *offs = json_object_get(info, "data_offsets");
	uint64_t o[2], dummy;
	size_t n_o = 0, n_s = 0;

	if (!json_is_object(info) || !json_is_string(dtype) || !u64_array(shape, &dummy, 0, &n_s) ||
	    !u64_array(offs, o, 2, &n_o) || n_o != 2)
		return fail(err, en, ST_ERR_JSON, "tensor %.200s: needs dtype, shape and two data_offsets", name);
	int dt = st_dtype_lookup(json_string_value(dtype), json_string_length(dtype));
	if (dt < 0)
		return fail(err, en, ST_ERR_DTYPE, "tensor %.200s: unknown dtype", name);
	t->name = xstrdup(name);
	t->dtype = (enum st_dtype)dt;
	t->begin = o[0];
	t->end = o[1];
	enum st_status st = tensor_size(shape, t->dtype, &t->n_elements, bytes, &t->n_dims);
	if (st == ST_ERR_OVERFLOW)
		return fail(err, en, st, "tensor %.200s: shape overflows 64 bits", name);
	if (st == ST_ERR_MISALIGNED)
		return fail(err, en, st, "tensor %.200s: shape x bits is not a whole number of bytes", name);
	return ST_OK;
}

static enum st_status parse_meta(struct st_header *h, const json_t *meta, char *err, size_t en)
{
	const char *k;
	json_t *v;
	if (json_is_null(meta))
		return ST_OK;
	if (!json_is_object(meta))
		return fail(err, en, ST_ERR_JSON, "%s is not an object", "__metadata__");
	if (json_object_size(meta) > ST_MAX_META)
		return fail(err, en, ST_ERR_LIMIT, "more than 4096 %s entries", "__metadata__");
	h->meta = xcalloc(json_object_size(meta) + 1, sizeof *h->meta);
	json_object_foreach((json_t *)meta, k, v) {
		/* the reference reader's metadata is a map of strings to strings */
		if (!json_is_string(v))
			return fail(err, en, ST_ERR_JSON, "__metadata__ value of %.200s is not a string", k);
		h->meta[h->n_meta].key = xstrdup(k);
		h->meta[h->n_meta++].value = xstrndup(json_string_value(v), json_string_length(v));
	}
	return ST_OK;
}

static int by_offsets(const void *a, const void *b)
{
	const struct st_tensor *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Metadata::validate: contiguous from 0, each size what its shape says. */
static enum st_status validate(struct st_header *h, char *err, size_t en)
{
	uint64_t start = 0;
	qsort(h->tensors, h->n_tensors, sizeof *h->tensors, by_offsets);
	for (size_t i = 0; i < h->n_tensors; i++) {
		const struct st_tensor *t = &h->tensors[i];
		if (t->begin != start || t->end < t->begin)
			return fail(err, en, ST_ERR_OFFSETS, "tensor %.200s: data_offsets leave a gap or overlap", t->name);
		start = t->end;
		uint64_t bytes = t->n_elements * st_dtype_bits(t->dtype) / 8;
		if (t->end - t->begin != bytes)
			return fail(err, en, ST_ERR_SIZE, "tensor %.200s: data_offsets disagree with dtype and shape",
				    t->name);
		struct st_dtype_share *s = &h->by_dtype[t->dtype];
		s->n_tensors++;
		s->n_params += t->n_elements;
		s->bytes += bytes;
		h->n_params += t->n_elements;
	}
	h->data_len = start;
	return ST_OK;
}

static enum st_status parse_root(struct st_header *h, const json_t *root, char *err, size_t en)
{
	const char *k;
	json_t *v;
	size_t n = json_object_size(root);
	enum st_status st = ST_OK;

	if (n > ST_MAX_TENSORS + 1)
		return fail(err, en, ST_ERR_LIMIT, "more than %s tensors", "1048576");
	h->tensors = xcalloc(n + 1, sizeof *h->tensors);
	json_object_foreach((json_t *)root, k, v) {
		uint64_t bytes = 0;
		if (!strcmp(k, "__metadata__"))
			st = parse_meta(h, v, err, en);
		else
			st = parse_tensor(k, v, &h->tensors[h->n_tensors], &bytes, err, en);
		if (h->tensors[h->n_tensors].name)
			h->n_tensors++;
		if (st != ST_OK)
			return st;
	}
	return validate(h, err, en);
}

enum st_status st_header_parse(const uint8_t *buf, size_t n, uint64_t file_size, struct st_header **out, char *err,
			       size_t errlen)
{
	uint64_t len = 0;
	json_error_t je;

	*out = NULL;
	enum st_status st = st_header_len(buf, n, file_size, &len);
	if (st == ST_ERR_TOO_SMALL)
		return fail(err, errlen, st, "%s", "shorter than the 8-byte header length");
	if (st == ST_ERR_TOO_LARGE)
		return fail(err, errlen, st, "%s", "header length above 100000000 bytes");
	if (st != ST_OK || len > n - 8)
		return fail(err, errlen, ST_ERR_TRUNCATED, "%s", "the file ends inside its header");
	if (len == 0 || buf[8] != '{')
		return fail(err, errlen, ST_ERR_START, "%s", "the header does not start with '{'");
	/* jansson checks the UTF-8; duplicate names are refused, not resolved */
	json_t *root = json_loadb((const char *)buf + 8, (size_t)len, JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(root)) {
		json_decref(root);
		return fail(err, errlen, ST_ERR_JSON, "header is not a JSON object: %.200s", root ? "" : je.text);
	}
	struct st_header *h = xcalloc(1, sizeof *h);
	h->header_len = len;
	h->file_size = file_size;
	st = parse_root(h, root, err, errlen);
	json_decref(root);
	if (st != ST_OK) {
		st_header_free(h);
		return st;
	}
	/* MetadataIncompleteBuffer: kept as missing (a partial download) or extra bytes */
	uint64_t want = 8 + len + h->data_len;
	if (h->data_len > UINT64_MAX - 8 - len)
		want = UINT64_MAX;
	if (want > file_size)
		h->missing_bytes = want - file_size;
	else
		h->extra_bytes = file_size - want;
	*out = h;
	return ST_OK;
}

void st_header_free(struct st_header *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_tensors; i++)
		free(h->tensors[i].name);
	for (size_t i = 0; i < h->n_meta; i++) {
		free(h->meta[i].key);
		free(h->meta[i].value);
	}
	free(h->tensors);
	free(h->meta);
	free(h);
}

const char *st_header_meta(const struct st_header *h, const char *key)
{
	for (size_t i = 0; h && i < h->n_meta; i++)
		if (!strcmp(h->meta[i].key, key))
			return h->meta[i].value;
	return NULL;
}

bool st_header_complete(const struct st_header *h)
{
	return h && !h->missing_bytes && !h->extra_bytes;
}
