/* GGUF parser: every metadata type, real headers against gguf-py dumps,
 * hostile inputs, the file reader, the cache, and the model summary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "core/util.h"
#include "gguf_writer.h"
#include "llm/ggml_types.h"
#include "llm/gguf.h"
#include "llm/gguf_info.h"
#include "llm/gguf_internal.h"
#include "testutil.h"

static char *tmp_dir;

static enum gguf_status parse_gw(struct gw *w, struct gguf_header **h, char *err, size_t n)
{
	size_t len;
	const uint8_t *b = gw_header(w, &len);
	return gguf_parse(b, len, h, err, n);
}

static void test_all_types(void **state)
{
	(void)state;
	struct gw *w = gw_new();
	struct gguf_header *h;
	char err[256];
	uint32_t per_layer[3] = {8, 0, 8};
	bool pattern[3] = {true, true, false};
	float fl[2] = {1.5f, -2.0f};
	int32_t il[2] = {-7, 9};
	gw_str(w, "general.architecture", "llama");
	gw_u8(w, "t.u8", 200);
	gw_i8(w, "t.i8", -100);
	gw_u16(w, "t.u16", 60000);
	gw_i16(w, "t.i16", -30000);
	gw_u32(w, "t.u32", 4000000000u);
	gw_i32(w, "t.i32", -2000000000);
	gw_u64(w, "t.u64", 1ull << 60);
	gw_i64(w, "t.i64", -(1ll << 60));
	gw_f32(w, "t.f32", 0.25f);
	gw_f64(w, "t.f64", -1e300);
	gw_bool(w, "t.bool", true);
	gw_str(w, "t.str", "hello");
	gw_arr_u32(w, "llama.attention.head_count_kv", per_layer, 3);
	gw_arr_bool(w, "t.pattern", pattern, 3);
	gw_arr_f32(w, "t.af32", fl, 2);
	gw_arr_i32(w, "t.ai32", il, 2);
	gw_arr_vocab(w, "tokenizer.ggml.tokens", 5000);
	gw_tensor2(w, "token_embd.weight", GGML_T_Q8_0, 64, 10);
	gw_tensor2(w, "output_norm.weight", GGML_T_F32, 64, 1);
	assert_int_equal(parse_gw(w, &h, err, sizeof err), GGUF_OK);
	uint64_t u;
	double f;
	bool b;
	assert_true(gguf_get_u64(h, "t.u8", &u) && u == 200);
	assert_int_equal(gguf_find(h, "t.i8")->i, -100);
	assert_true(gguf_get_u64(h, "t.u16", &u) && u == 60000);
	assert_int_equal(gguf_find(h, "t.i16")->i, -30000);
	assert_true(gguf_get_u64(h, "t.u32", &u) && u == 4000000000u);
	assert_false(gguf_get_u64(h, "t.i32", &u)); /* negative is not a u64 */
	assert_int_equal(gguf_find(h, "t.i32")->i, -2000000000);
	assert_true(gguf_get_u64(h, "t.u64", &u) && u == 1ull << 60);
	assert_int_equal(gguf_find(h, "t.i64")->i, -(1ll << 60));
	assert_true(gguf_get_f64(h, "t.f32", &f) && f == 0.25);
	assert_true(gguf_get_f64(h, "t.f64", &f) && f == -1e300);
	assert_true(gguf_get_bool(h, "t.bool", &b) && b);
	assert_string_equal(gguf_get_str(h, "t.str"), "hello");
	assert_null(gguf_get_str(h, "t.u8"));
	assert_true(gguf_get_arch_u64(h, "attention.head_count_kv", &u) == false); /* an array */
	const struct gguf_kv *kv = gguf_find_arch(h, "attention.head_count_kv");
	assert_true(gguf_kv_elem_u64(kv, 2, &u) && u == 8);
	assert_true(gguf_kv_elem_u64(kv, 1, &u) && u == 0);
	assert_false(gguf_kv_elem_u64(kv, 3, &u));
	kv = gguf_find(h, "t.pattern");
	assert_int_equal(kv->arr_type, GGUF_VT_BOOL);
	assert_int_equal(kv->arr_i[2], 0);
	assert_true(gguf_find(h, "t.af32")->arr_f[1] == -2.0);
	assert_int_equal(gguf_find(h, "t.ai32")->arr_i[0], -7);
	/* the vocabulary is counted, not kept */
	kv = gguf_find(h, "tokenizer.ggml.tokens");
	assert_int_equal(kv->arr_type, GGUF_VT_STRING);
	assert_int_equal(kv->arr_n, 5000);
	assert_null(kv->arr_i);
	assert_string_equal(h->arch, "llama");
	assert_int_equal(h->n_tensors, 2);
	const struct gguf_tensor *t = gguf_find_tensor(h, "token_embd.weight");
	assert_int_equal(t->nbytes, 2 * 34 * 10);
	assert_int_equal(t->n_elements, 640);
	assert_int_equal(gguf_find_tensor(h, "output_norm.weight")->offset, 704); /* PAD(680, 32) */
	assert_int_equal(h->data_offset % 32, 0);
	assert_true(h->data_offset >= h->infos_end);
	gguf_header_unref(h);
	gw_free(w);
}

static void test_v2_and_alignment(void **state)
{
	(void)state;
	struct gw *w = gw_new();
	struct gguf_header *h;
	char err[256];
	gw_set_version(w, 2);
	gw_set_alignment(w, 64);
	gw_tensor2(w, "a", GGML_T_F32, 3, 1);
	gw_tensor2(w, "b", GGML_T_F32, 3, 1);
	assert_int_equal(parse_gw(w, &h, err, sizeof err), GGUF_OK);
	assert_int_equal(h->version, 2);
	assert_int_equal(h->alignment, 64);
	assert_int_equal(h->tensors[1].offset, 64);
	assert_int_equal(h->data_offset % 64, 0);
	gguf_header_unref(h);
	gw_free(w);
}

/* ---- real headers ---- */

static const char *const vtype_dump_names[] = {
	"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "BOOL", "STRING", "ARRAY",
	"UINT64", "INT64", "FLOAT64",
};

static int dump_vtype(const char *s)
{
	for (int i = 0; i < GGUF_VT_COUNT; i++)
		if (strcmp(s, vtype_dump_names[i]) == 0)
			return i;
	return -1;
}

/* One "N: TYPE | count | key = value" line of gguf_dump.py against h. */
static void check_dump_kv(const struct gguf_header *h, char *line)
{
	char type[32], key[256];
	unsigned long long count;
	int used = 0;
	if (sscanf(line, " %*u: %31s | %llu | %255s =%n", type, &count, key, &used) != 3 || !used)
		return;
	if (strncmp(key, "GGUF.", 5) == 0)
		return;
	const char *val = line + used + 1;
	const struct gguf_kv *kv = gguf_find(h, key);
	if (!kv)
		fail_msg("key %s from the dump is missing", key);
	if (type[0] == '[') {
		type[strlen(type) - 1] = '\0';
		assert_int_equal(kv->type, GGUF_VT_ARRAY);
		assert_int_equal(kv->arr_type, dump_vtype(type + 1));
		assert_int_equal(kv->arr_n, count);
		return;
	}
	assert_int_equal(kv->type, dump_vtype(type));
	if (kv->type == GGUF_VT_STRING) {
		size_t n = strlen(val);
		if (n >= 2 && val[0] == '\'' && !strchr(val, '\\')) {
			size_t cmp = n - 2;
			if (n >= 5 && strcmp(val + n - 4, "...'") == 0)
				cmp = n - 5;
			assert_int_equal(strncmp(kv->str, val + 1, cmp), 0);
		}
	} else if (kv->type == GGUF_VT_BOOL) {
		assert_int_equal(kv->u, strcmp(val, "True") == 0);
	} else if (kv->type == GGUF_VT_F32 || kv->type == GGUF_VT_F64) {
		assert_true(kv->f == strtod(val, NULL));
	} else {
		assert_true(kv->i == strtoll(val, NULL, 10));
	}
}

/* "N: n_elements | ne0, ne1, ne2, ne3 | TYPE | name" */
static void check_dump_tensor(const struct gguf_header *h, const char *line)
{
	unsigned long long nel, ne[4];
	char type[32], name[128];
	if (sscanf(line, " %*u: %llu | %llu, %llu, %llu, %llu | %31s | %127s", &nel, &ne[0], &ne[1], &ne[2], &ne[3],
		   type, name) != 7)
		return;
	const struct gguf_tensor *t = gguf_find_tensor(h, name);
	if (!t)
		fail_msg("tensor %s from the dump is missing", name);
	assert_int_equal(t->n_elements, nel);
	for (int d = 0; d < 4; d++)
		assert_int_equal(t->ne[d], ne[d]);
	assert_string_equal(ggml_type_name(t->type), type);
}

/* llama.cpp's own C reader: data offset, each tensor's size and offset. */
static void check_llama_gguf(const struct gguf_header *h, const char *path)
{
	char *txt, *p;
	unsigned long long v, size, off;
	char name[128];
	if (access(path, R_OK) != 0)
		return;
	txt = tu_read_file(path, NULL);
	if ((p = strstr(txt, "data offset:")) && sscanf(p, "data offset: %llu", &v) == 1)
		assert_int_equal(h->data_offset, v);
	for (p = txt; (p = strstr(p, "]: name = ")); p++) {
		if (sscanf(p, "]: name = %127[^,], size = %llu, offset = %llu", name, &size, &off) != 3)
			continue;
		const struct gguf_tensor *t = gguf_find_tensor(h, name);
		assert_non_null(t);
		assert_int_equal(t->nbytes, size);
		assert_int_equal(t->offset, off);
	}
	free(txt);
}

static void test_real_headers(void **state)
{
	(void)state;
	const char *fx = tu_shared_fixture("gguf");
	char dir[512], path[1024];
	struct dirent *de;
	int n = 0;
	if (!fx)
		skip();
	snprintf(dir, sizeof dir, "%s", fx);
	DIR *d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".gguf") != 0)
			continue;
		struct gguf_header *h = NULL;
		char err[256];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (gguf_read_file(path, &h, err, sizeof err) != GGUF_OK)
			fail_msg("%s: %s", de->d_name, err);
		n++;
		snprintf(path, sizeof path, "%s/%.*s.dump.txt", dir, (int)(len - 5), de->d_name);
		if (access(path, R_OK) == 0) {
			char *txt = tu_read_file(path, NULL), *save = NULL;
			bool tensors = false;
			for (char *line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
				if (strstr(line, "* Dumping") && strstr(line, "tensor"))
					tensors = true;
				else if (tensors)
					check_dump_tensor(h, line);
				else
					check_dump_kv(h, line);
			}
			free(txt);
		}
		snprintf(path, sizeof path, "%s/%.*s.llama-gguf.txt", dir, (int)(len - 5), de->d_name);
		check_llama_gguf(h, path);
		gguf_header_unref(h);
	}
	closedir(d);
	assert_true(n >= 2);
}

static void test_real_model_info(void **state)
{
	(void)state;
	const char *fx = tu_shared_fixture("gguf");
	char path[1024], err[256];
	struct gguf_header *h;
	struct gguf_model_info m;
	if (!fx)
		skip();
	snprintf(path, sizeof path, "%s/tiny-gemma3-f16.gguf", fx);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	gguf_model_info_get(h, path, NULL, &m);
	assert_string_equal(m.arch, "gemma3");
	assert_string_equal(m.name, "tiny-gemma3-f16");
	assert_int_equal(m.kind, GGUF_KIND_LLM);
	assert_int_equal(m.n_layer, 6);
	assert_int_equal(m.n_ctx_train, 32768);
	assert_int_equal(m.n_embd, 128);
	assert_int_equal(m.n_head, 4);
	assert_int_equal(m.n_head_kv, 1);
	assert_string_equal(m.quant, "F16");
	assert_int_equal(m.mix[0].type, GGML_T_F16);
	assert_int_equal(m.mix[1].type, GGML_T_F32);
	assert_int_equal(m.file_size, 11099296);
	assert_string_equal(m.kind_hint, "");
	gguf_header_unref(h);
	snprintf(path, sizeof path, "%s/ggml-vocab-bert-bge.gguf", fx);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	gguf_model_info_get(h, path, NULL, &m);
	assert_int_equal(m.kind, GGUF_KIND_EMBEDDING); /* bert.attention.causal = false */
	gguf_header_unref(h);
	snprintf(path, sizeof path, "%s/ggml-vocab-llama-spm.gguf", fx);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	gguf_model_info_get(h, path, NULL, &m);
	assert_int_equal(m.kind, GGUF_KIND_VOCAB_ONLY);
	assert_int_equal(m.n_params, 0);
	gguf_header_unref(h);
}

/* ---- hostile inputs ---- */

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Raw tensor info bytes; returns their length. */
static size_t raw_tensor(uint8_t *b, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type,
			 uint64_t offset)
{
	size_t n = 0, len = strlen(name);
	put_le(b, len, 8), n += 8;
	memcpy(b + n, name, len), n += len;
	put_le(b + n, n_dims, 4), n += 4;
	for (uint32_t d = 0; d < n_dims; d++)
		put_le(b + n, ne[d], 8), n += 8;
	put_le(b + n, type, 4), n += 4;
	put_le(b + n, offset, 8), n += 8;
	return n;
}

static void expect_error(struct gw *w, enum gguf_status want, const char *fragment)
{
	struct gguf_header *h = (struct gguf_header *)1;
	char err[256] = "";
	enum gguf_status st = parse_gw(w, &h, err, sizeof err);
	if (st != want || !strstr(err, fragment))
		fail_msg("want %s '%s', got %s '%s'", gguf_status_name(want), fragment, gguf_status_name(st), err);
	assert_null(h);
	gw_free(w);
}

static struct gw *with_tensor(const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type, uint64_t off)
{
	uint8_t b[512];
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "llama");
	gw_raw(w, b, raw_tensor(b, name, n_dims, ne, type, off));
	gw_force_counts(w, 1, 1);
	return w;
}

static void test_truncated_everywhere(void **state)
{
	(void)state;
	struct gw *w = gw_new();
	size_t len;
	uint32_t arr[2] = {1, 2};
	gw_str(w, "general.architecture", "qwen3");
	gw_u32(w, "qwen3.block_count", 2);
	gw_f32(w, "x.f", 1.0f);
	gw_arr_u32(w, "x.a", arr, 2);
	gw_arr_vocab(w, "tokenizer.ggml.tokens", 20);
	gw_tensor2(w, "token_embd.weight", GGML_T_Q8_0, 64, 4);
	gw_tensor2(w, "blk.0.attn_norm.weight", GGML_T_F32, 64, 1);
	const uint8_t *full = gw_header(w, &len);
	uint8_t *copy = xmalloc(len);
	memcpy(copy, full, len);
	for (size_t cut = 0; cut < len; cut++) {
		/* a fresh allocation of exactly cut bytes, so ASan sees any overread */
		uint8_t *b = xmalloc(cut ? cut : 1);
		struct gguf_header *h;
		char err[256] = "";
		memcpy(b, copy, cut);
		enum gguf_status st = gguf_parse(b, cut, &h, err, sizeof err);
		assert_int_not_equal(st, GGUF_OK);
		assert_true(st == GGUF_ERR_TRUNCATED || (cut == 0 && st == GGUF_ERR_MAGIC));
		assert_true(err[0] != '\0');
		assert_null(h);
		free(b);
	}
	struct gguf_header *h;
	char err[256];
	assert_int_equal(gguf_parse(copy, len, &h, err, sizeof err), GGUF_OK);
	gguf_header_unref(h);
	free(copy);
	gw_free(w);
}

static void test_hostile_counts_and_lengths(void **state)
{
	(void)state;
	uint8_t b[64];
	struct gw *w = gw_new();
	gw_force_counts(w, 0, 1ull << 62);
	expect_error(w, GGUF_ERR_LIMIT, "metadata keys");
	w = gw_new();
	gw_force_counts(w, 1ull << 40, 0);
	expect_error(w, GGUF_ERR_LIMIT, "tensors");
	/* a plausible count the buffer cannot hold: refused before allocating */
	w = gw_new();
	gw_force_counts(w, 0, 60000);
	expect_error(w, GGUF_ERR_TRUNCATED, "truncated");
	/* a key of 2^62 bytes */
	w = gw_new();
	memset(b, 0, sizeof b);
	put_le(b, 1ull << 62, 8);
	gw_raw(w, b, 32);
	gw_force_counts(w, 0, 1);
	expect_error(w, GGUF_ERR_LIMIT, "length");
	/* a string value of 2^63 bytes */
	w = gw_new();
	gw_raw_kv(w, "k", GGUF_VT_STRING, (put_le(b, 1ull << 63, 8), b), 8);
	expect_error(w, GGUF_ERR_LIMIT, "length");
	/* an array of 2^61 strings */
	w = gw_new();
	put_le(b, GGUF_VT_STRING, 4);
	put_le(b + 4, 1ull << 61, 8);
	gw_raw_kv(w, "k", GGUF_VT_ARRAY, b, 12);
	expect_error(w, GGUF_ERR_LIMIT, "count");
	/* an array of 2^40 u64 */
	w = gw_new();
	put_le(b, GGUF_VT_U64, 4);
	put_le(b + 4, 1ull << 40, 8);
	gw_raw_kv(w, "k", GGUF_VT_ARRAY, b, 12);
	expect_error(w, GGUF_ERR_LIMIT, "count");
}

static void test_hostile_structure(void **state)
{
	(void)state;
	uint8_t b[64];
	uint64_t ne[5] = {32, 2, 1, 1, 1};
	struct gw *w = gw_new();
	put_le(b, GGUF_VT_ARRAY, 4);
	put_le(b + 4, 1, 8);
	gw_raw_kv(w, "nested", GGUF_VT_ARRAY, b, 12);
	expect_error(w, GGUF_ERR_FORMAT, "nested arrays");
	w = gw_new();
	gw_raw_kv(w, "k", 13, b, 4);
	expect_error(w, GGUF_ERR_FORMAT, "unknown value type 13");
	w = gw_new();
	put_le(b, 77, 4);
	put_le(b + 4, 1, 8);
	gw_raw_kv(w, "k", GGUF_VT_ARRAY, b, 12);
	expect_error(w, GGUF_ERR_FORMAT, "array of unknown type 77");
	w = gw_new();
	gw_u32(w, "dup", 1);
	gw_u32(w, "dup", 2);
	expect_error(w, GGUF_ERR_FORMAT, "duplicate metadata key 'dup'");
	w = gw_new();
	gw_u32(w, "", 1);
	expect_error(w, GGUF_ERR_FORMAT, "empty");
	w = gw_new();
	gw_u32(w, "general.alignment", 48);
	expect_error(w, GGUF_ERR_FORMAT, "power of two");
	expect_error(with_tensor("t", 5, ne, GGML_T_F32, 0), GGUF_ERR_FORMAT, "5 dimensions");
	expect_error(with_tensor("t", 0, ne, GGML_T_F32, 0), GGUF_ERR_FORMAT, "0 dimensions");
	expect_error(with_tensor("t", 2, ne, 31, 0), GGUF_ERR_FORMAT, "unknown ggml type 31");
	expect_error(with_tensor("t", 2, ne, 36, 0), GGUF_ERR_FORMAT, "unknown ggml type 36");
	expect_error(with_tensor("t", 2, ne, 1000, 0), GGUF_ERR_FORMAT, "unknown ggml type 1000");
	expect_error(with_tensor("t", 2, ne, GGML_T_F32, 64), GGUF_ERR_FORMAT, "expected 0");
	uint64_t odd[2] = {33, 1};
	expect_error(with_tensor("t", 2, odd, GGML_T_Q8_0, 0), GGUF_ERR_FORMAT, "block");
	uint64_t huge[4] = {1ull << 40, 1ull << 40, 1, 1};
	expect_error(with_tensor("t", 2, huge, GGML_T_F32, 0), GGUF_ERR_FORMAT, "overflowing");
	uint64_t neg[2] = {UINT64_MAX, 1};
	expect_error(with_tensor("t", 2, neg, GGML_T_F32, 0), GGUF_ERR_FORMAT, "invalid");
	uint64_t big_bytes[4] = {1ull << 31, 1ull << 31, 2, 1}; /* 2^63 elements of 4 B */
	expect_error(with_tensor("t", 3, big_bytes, GGML_T_F32, 0), GGUF_ERR_FORMAT, "overflow");
	char longname[80];
	memset(longname, 'n', 64);
	longname[64] = '\0';
	expect_error(with_tensor(longname, 2, ne, GGML_T_F32, 0), GGUF_ERR_FORMAT, "name");
	w = gw_new();
	gw_tensor2(w, "same", GGML_T_F32, 4, 1);
	gw_tensor2(w, "same", GGML_T_F32, 4, 1);
	expect_error(w, GGUF_ERR_FORMAT, "duplicate tensor name");
}

static void test_versions_and_magic(void **state)
{
	(void)state;
	struct gw *w = gw_new();
	gw_set_version(w, 1);
	expect_error(w, GGUF_ERR_VERSION, "unsupported GGUF version 1");
	w = gw_new();
	gw_set_version(w, 4);
	expect_error(w, GGUF_ERR_VERSION, "unsupported GGUF version 4");
	/* no GGUF version 0 exists: not mistaken for a byte-swapped file, whose
	 * version also has a zero low half (llama.cpp checks 0 first) */
	w = gw_new();
	gw_set_version(w, 0);
	expect_error(w, GGUF_ERR_VERSION, "GGUF version 0 is not a valid version");
	/* gguf-py --bigendian: the version reads as 0x03000000 (gguf.cpp:497) */
	w = gw_new();
	gw_set_version(w, 0x03000000u);
	expect_error(w, GGUF_ERR_BIG_ENDIAN, "big-endian");
	struct gguf_header *h;
	char err[256];
	const uint8_t ggml[] = "GGMLxxxxxxxxxxxxxxxxxxxxxxxxxx";
	assert_int_equal(gguf_parse(ggml, sizeof ggml, &h, err, sizeof err), GGUF_ERR_MAGIC);
	assert_non_null(strstr(err, "not a GGUF file"));
	assert_int_equal(gguf_parse(NULL, 0, &h, err, sizeof err), GGUF_ERR_MAGIC);
	assert_int_equal(gguf_parse((const uint8_t *)"GG", 2, &h, err, sizeof err), GGUF_ERR_TRUNCATED);
}

/* ---- the file reader and the cache ---- */

static void append_byte(const char *path)
{
	FILE *f = fopen(path, "ab");
	fputc(0, f);
	fclose(f);
}

/* The parser through a moving window, as the file front-end reads: the same
 * header at every window size, and a long vocabulary and a long numeric
 * array pass through a window far smaller than the header. */
static void test_windowed_parse(void **state)
{
	(void)state;
	char err[256];
	size_t len, max_window;
	struct gguf_header *h, *hw;
	int32_t *types = calloc(300000, sizeof *types);
	static const float scores[] = {0.5f, -1.25f, 3.0f};
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "llama");
	gw_u32(w, "llama.block_count", 2);
	gw_f32(w, "llama.rope.freq_base", 10000.0f);
	gw_arr_vocab(w, "tokenizer.ggml.tokens", 150000);
	gw_arr_i32(w, "tokenizer.ggml.token_type", types, 300000); /* 1.2 MB, more than a small array */
	gw_arr_f32(w, "tokenizer.ggml.scores", scores, 3);
	gw_str(w, "general.name", "after the arrays");
	gw_tensor2(w, "token_embd.weight", GGML_T_F16, 64, 150000);
	gw_tensor2(w, "output.weight", GGML_T_F16, 64, 150000);
	const uint8_t *b = gw_header(w, &len);
	assert_true(len > 2u << 20);
	assert_int_equal(gguf_parse(b, len, &h, err, sizeof err), GGUF_OK);
	assert_int_equal(gguf_parse_windowed(b, len, 256u << 10, &max_window, &hw, err, sizeof err), GGUF_OK);
	assert_true(max_window < 1u << 20); /* neither array is held whole */
	assert_int_equal(hw->infos_end, h->infos_end);
	assert_int_equal(hw->data_offset, h->data_offset);
	assert_string_equal(gguf_get_str(hw, "general.name"), "after the arrays");
	gguf_header_unref(hw);
	for (size_t win = 1; win <= 67; win += 11) {
		assert_int_equal(gguf_parse_windowed(b, len, win, NULL, &hw, err, sizeof err), GGUF_OK);
		assert_int_equal(hw->infos_end, h->infos_end);
		assert_int_equal(hw->n_tensors, 2);
		assert_string_equal(gguf_get_str(hw, "general.name"), "after the arrays");
		assert_string_equal(hw->tensors[1].name, "output.weight");
		gguf_header_unref(hw);
	}
	/* cut inside the long numeric array, and inside the vocabulary */
	static const size_t cuts[] = {2u << 20, 1u << 20, 100};
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		assert_int_equal(gguf_parse(b, cuts[i], &hw, err, sizeof err), GGUF_ERR_TRUNCATED);
		assert_int_equal(gguf_parse_windowed(b, cuts[i], 4096, NULL, &hw, err, sizeof err),
				 GGUF_ERR_TRUNCATED);
		assert_null(hw);
	}
	gguf_header_unref(h);
	gw_free(w);
	free(types);
}

/* A string array of count strings of len bytes each, then count2 of len2,
 * raw (the writer's vocabularies are all of one shape). */
static void skewed_strings(struct gw *w, const char *key, size_t count, size_t len, size_t count2, size_t len2)
{
	size_t total = 12 + (count * (8 + len)) + (count2 * (8 + len2)), at = 12;
	uint8_t *b = calloc(1, total);
	uint32_t et = GGUF_VT_STRING;
	uint64_t n = count + count2;
	memcpy(b, &et, 4); /* little-endian hosts, as the writer */
	memcpy(b + 4, &n, 8);
	for (size_t i = 0; i < count + count2; i++) {
		uint64_t l = i < count ? len : len2;
		memcpy(b + at, &l, 8);
		memset(b + at + 8, 'a' + (int)(i % 26), (size_t)l);
		at += 8 + (size_t)l;
	}
	gw_raw_kv(w, key, GGUF_VT_ARRAY, b, total);
	free(b);
}

/* The file reader reads ahead only about as far as the parser expects the
 * header to end (the strings left at their average so far, the tensor
 * infos): a guess too short (short strings, then long ones), too long (long,
 * then short) and many tensor infos must change nothing in the result. */
static void test_file_reader_estimates(void **state)
{
	(void)state;
	char path[512], err[256];
	size_t len;
	struct gguf_header *h, *hm;
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "llama");
	skewed_strings(w, "tokenizer.ggml.tokens", 30000, 2, 2500, 200);
	skewed_strings(w, "tokenizer.ggml.merges", 2500, 200, 50000, 3);
	gw_str(w, "general.name", "after the arrays");
	for (int i = 0; i < 700; i++) {
		char name[64];
		snprintf(name, sizeof name, "blk.%d.a_rather_long_tensor_name_for_the_guess.weight", i);
		gw_tensor2(w, name, GGML_T_F32, 64, 2);
	}
	snprintf(path, sizeof path, "%s/skewed.gguf", tmp_dir);
	assert_int_equal(gw_write_file(w, path), 0);
	const uint8_t *b = gw_header(w, &len);
	assert_true(len > 1u << 20); /* several reads of the file */
	assert_int_equal(gguf_parse(b, len, &hm, err, sizeof err), GGUF_OK);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	assert_int_equal(h->infos_end, hm->infos_end);
	assert_int_equal(h->data_offset, hm->data_offset);
	assert_int_equal(h->n_tensors, 700);
	assert_string_equal(h->tensors[699].name, hm->tensors[699].name);
	assert_string_equal(gguf_get_str(h, "general.name"), "after the arrays");
	gguf_header_unref(h);
	gguf_header_unref(hm);
	gw_free(w);
}

static void test_file_reader(void **state)
{
	(void)state;
	char path[512], err[256];
	struct gguf_header *h;
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "llama");
	gw_arr_vocab(w, "tokenizer.ggml.tokens", 150000); /* header of several chunks */
	gw_tensor2(w, "token_embd.weight", GGML_T_F16, 4096, 150000);
	snprintf(path, sizeof path, "%s/big.gguf", tmp_dir);
	assert_int_equal(gw_write_file(w, path), 0);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	assert_true(h->infos_end > 1u << 20);
	struct stat st;
	stat(path, &st);
	assert_int_equal(h->file_size, (uint64_t)st.st_size);
	assert_int_equal(h->data_offset + 4096ull * 150000 * 2, (uint64_t)st.st_size);
	assert_true(gguf_file_is_gguf(path));
	gguf_header_unref(h);
	/* changed while read */
	gguf_read_file_hook = append_byte;
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_ERR_CHANGED);
	assert_string_equal(err, "file changed while reading");
	assert_null(h);
	gguf_read_file_hook = NULL;
	/* truncated inside the header */
	assert_int_equal(truncate(path, 300000), 0);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_ERR_TRUNCATED);
	assert_non_null(strstr(err, "truncated"));
	assert_int_equal(gguf_read_file(tmp_dir, &h, err, sizeof err), GGUF_ERR_IO);
	assert_string_equal(err, "not a regular file");
	snprintf(path, sizeof path, "%s/absent.gguf", tmp_dir);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_ERR_IO);
	assert_non_null(strstr(err, "cannot open"));
	assert_false(gguf_file_is_gguf(path));
	gw_free(w);
}

/* A half-downloaded model: the header is whole, the tensor data ends past the
 * end of the file. It parses; the missing bytes are counted. */
static void test_incomplete_file(void **state)
{
	(void)state;
	char path[512], err[256];
	struct gguf_header *h;
	struct gguf_model_info info;
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "llama");
	gw_tensor2(w, "token_embd.weight", GGML_T_F16, 4096, 1000);
	gw_tensor2(w, "output.weight", GGML_T_F16, 4096, 1000);
	snprintf(path, sizeof path, "%s/partial.gguf", tmp_dir);
	assert_int_equal(gw_write_file(w, path), 0);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	uint64_t end = h->data_offset + 2ull * 4096 * 1000 * 2;
	assert_int_equal(gguf_data_end(h), end);
	assert_int_equal(gguf_missing_bytes(h), 0);
	gguf_model_info_get(h, path, NULL, &info);
	assert_false(info.incomplete);
	gguf_header_unref(h);
	/* cut inside the second tensor */
	assert_int_equal(truncate(path, (off_t)(end - 123456)), 0);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	assert_int_equal(gguf_missing_bytes(h), 123456);
	gguf_model_info_get(h, path, NULL, &info);
	assert_true(info.incomplete);
	assert_int_equal(info.missing_bytes, 123456);
	assert_int_equal(info.data_end, end);
	assert_int_equal(info.file_size, end - 123456);
	gguf_header_unref(h);
	/* cut right after the header: every tensor byte is missing */
	size_t hl;
	const uint8_t *hb = gw_header(w, &hl);
	assert_int_equal(truncate(path, (off_t)hl), 0);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	assert_int_equal(gguf_missing_bytes(h), end - hl);
	gguf_header_unref(h);
	/* a header parsed from a buffer has no file length: never incomplete */
	assert_int_equal(gguf_parse(hb, hl, &h, err, sizeof err), GGUF_OK);
	assert_int_equal(gguf_missing_bytes(h), 0);
	gguf_header_unref(h);
	gw_free(w);
}

static void test_cache(void **state)
{
	(void)state;
	char path[512], err[256];
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "llama");
	gw_tensor2(w, "a", GGML_T_F32, 8, 1);
	snprintf(path, sizeof path, "%s/cached.gguf", tmp_dir);
	assert_int_equal(gw_write_file(w, path), 0);
	struct gguf_header *a = gguf_cache_get(path, err, sizeof err);
	struct gguf_header *b = gguf_cache_get(path, err, sizeof err);
	assert_non_null(a);
	assert_ptr_equal(a, b);
	gguf_header_unref(b);
	/* a rewritten file (new size and mtime) is parsed again */
	gw_tensor2(w, "b", GGML_T_F32, 8, 1);
	assert_int_equal(gw_write_file(w, path), 0);
	struct utimbuf ut = {time(NULL), time(NULL) + 5};
	utime(path, &ut);
	b = gguf_cache_get(path, err, sizeof err);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_int_equal(b->n_tensors, 2);
	assert_int_equal(a->n_tensors, 1); /* the old reference stays valid */
	gguf_header_unref(a);
	gguf_header_unref(b);
	/* errors are reported, not cached */
	tu_write_file(path, "nope", 4);
	assert_null(gguf_cache_get(path, err, sizeof err));
	assert_non_null(strstr(err, "not a GGUF"));
	gguf_cache_clear();
	gw_free(w);
}

/* ---- model summary ---- */

static enum gguf_kind kind_of(void (*fn)(struct gw *), const char *arch, uint32_t n_tensors)
{
	struct gw *w = gw_new();
	struct gguf_header *h;
	struct gguf_model_info m;
	char err[256], k[128];
	gw_str(w, "general.architecture", arch);
	snprintf(k, sizeof k, "%s.block_count", arch), gw_u32(w, k, 2);
	snprintf(k, sizeof k, "%s.context_length", arch), gw_u32(w, k, 2048);
	if (fn)
		fn(w);
	for (uint32_t i = 0; i < n_tensors; i++) {
		snprintf(k, sizeof k, "blk.%u.w", i);
		gw_tensor2(w, k, GGML_T_F16, 8, 8);
	}
	assert_int_equal(parse_gw(w, &h, err, sizeof err), GGUF_OK);
	gguf_model_info_get(h, NULL, NULL, &m);
	gguf_header_unref(h);
	gw_free(w);
	return m.kind;
}

static void rerank(struct gw *w) { gw_u32(w, "qwen3.pooling_type", 4); }
static void mean_pool(struct gw *w) { gw_u32(w, "qwen3.pooling_type", 1); }
static void stt(struct gw *w) { gw_u32(w, "stt.sample_rate", 16000); }
static void decision(struct gw *w) { gw_str(w, "decision.type", "policy"); }
static void mmproj(struct gw *w) { gw_str(w, "general.type", "mmproj"); }

static void test_kinds(void **state)
{
	(void)state;
	assert_int_equal(kind_of(NULL, "qwen3", 2), GGUF_KIND_LLM);
	assert_int_equal(kind_of(rerank, "qwen3", 2), GGUF_KIND_RERANKER);
	assert_int_equal(kind_of(mean_pool, "qwen3", 2), GGUF_KIND_EMBEDDING);
	assert_int_equal(kind_of(stt, "qwen3", 2), GGUF_KIND_SPEECH);
	assert_int_equal(kind_of(decision, "llama", 2), GGUF_KIND_DECISION);
	assert_int_equal(kind_of(mmproj, "clip", 2), GGUF_KIND_VISION_PROJECTOR);
	assert_int_equal(kind_of(NULL, "clip", 2), GGUF_KIND_VISION_PROJECTOR);
	assert_int_equal(kind_of(NULL, "llada", 2), GGUF_KIND_DIFFUSION);
	assert_int_equal(kind_of(NULL, "llama", 0), GGUF_KIND_VOCAB_ONLY);
	assert_string_equal(gguf_kind_name(GGUF_KIND_VISION_PROJECTOR), "vision-projector");
	/* stable-diffusion.cpp checkpoints carry no architecture key */
	struct gw *w = gw_new();
	struct gguf_header *h;
	struct gguf_model_info m;
	char err[256];
	gw_tensor2(w, "model.diffusion_model.input_blocks.0.0.weight", GGML_T_F16, 32, 4);
	assert_int_equal(parse_gw(w, &h, err, sizeof err), GGUF_OK);
	gguf_model_info_get(h, "/m/sd-v1-5.gguf", NULL, &m);
	assert_int_equal(m.kind, GGUF_KIND_DIFFUSION);
	assert_string_equal(m.arch, "");
	gguf_header_unref(h);
	gw_free(w);
	assert_string_equal(gguf_kind_text(GGUF_KIND_LLM), "LLM");
}

static void test_decision_hint(void **state)
{
	(void)state;
	char out[64];
	assert_true(gguf_decision_hint("/m/openjev-7b-Q4_K_M.gguf", NULL, out, sizeof out));
	assert_string_equal(out, "likely decision model (openjev)");
	assert_true(gguf_decision_hint("/m/Julia-1.Q8_0.gguf", NULL, out, sizeof out));
	assert_string_equal(out, "likely decision model (julia-1)");
	assert_true(gguf_decision_hint("/models/kev/model-f16.gguf", NULL, out, sizeof out));
	assert_string_equal(out, "likely decision model (kev)");
	assert_true(gguf_decision_hint("/blobs/sha256-abc", "laya:latest", out, sizeof out));
	assert_string_equal(out, "likely decision model (laya)");
	assert_true(gguf_decision_hint("lev_q4.gguf", NULL, out, sizeof out));
	/* substrings are not names */
	assert_false(gguf_decision_hint("/m/levels-7b.gguf", NULL, out, sizeof out));
	assert_false(gguf_decision_hint("/m/kevlar.gguf", NULL, out, sizeof out));
	assert_false(gguf_decision_hint("/m/julia-12.gguf", NULL, out, sizeof out));
	assert_false(gguf_decision_hint("/m/openjevx/julia.gguf", "qwen3:14b", out, sizeof out));
	assert_string_equal(out, "");
	assert_false(gguf_decision_hint(NULL, NULL, out, sizeof out));
}

static void test_info_hint_is_separate(void **state)
{
	(void)state;
	struct gw *w = gw_new();
	struct gguf_header *h;
	struct gguf_model_info m;
	char err[256];
	gw_str(w, "general.architecture", "llama");
	gw_str(w, "general.name", "Lev");
	gw_u32(w, "llama.block_count", 1);
	gw_u32(w, "llama.context_length", 4096);
	gw_u32(w, "llama.attention.head_count", 8);
	gw_u32(w, "general.file_type", 1024 + 15);
	gw_tensor2(w, "token_embd.weight", GGML_T_Q4_0, 64, 100);
	gw_tensor2(w, "blk.0.attn_q.weight", GGML_T_Q8_0, 64, 64);
	gw_tensor2(w, "output_norm.weight", GGML_T_F32, 64, 1);
	assert_int_equal(parse_gw(w, &h, err, sizeof err), GGUF_OK);
	gguf_model_info_get(h, "/srv/lev/lev-Q4_K_M.gguf", NULL, &m);
	assert_int_equal(m.kind, GGUF_KIND_LLM);
	assert_string_equal(m.kind_hint, "likely decision model (lev)");
	assert_string_equal(m.kind_label, "LLM; likely decision model (lev)");
	assert_string_equal(m.quant, "Q4_K - Medium");
	assert_true(m.ftype_guessed);
	assert_int_equal(m.n_params, 6400 + 4096 + 64);
	assert_int_equal(m.n_head, 8);
	assert_int_equal(m.n_head_kv, 8); /* defaults to n_head */
	assert_int_equal(m.n_mix, 3);
	/* by bytes: Q8_0 64x64 = 4352 B, Q4_0 64x100 = 3600 B, F32 256 B */
	assert_int_equal(m.mix[0].type, GGML_T_Q8_0);
	assert_int_equal(m.mix[0].bytes, 4352);
	assert_int_equal(m.mix[1].type, GGML_T_Q4_0);
	assert_int_equal(m.mix[2].type, GGML_T_F32);
	gguf_header_unref(h);
	gw_free(w);
}

static void test_type_table(void **state)
{
	(void)state;
	static const uint32_t removed[] = {4, 5, 31, 32, 33, 36, 37, 38, 43, 1000};
	for (size_t i = 0; i < ARRAY_LEN(removed); i++)
		assert_false(ggml_type_valid(removed[i]));
	assert_int_equal(ggml_type_get(GGML_T_Q8_0)->type_size, 34);
	assert_int_equal(ggml_type_get(14)->type_size, 210); /* Q6_K */
	assert_int_equal(ggml_type_get(39)->blck, 32);       /* MXFP4 */
	assert_int_equal(ggml_type_get(42)->type_size, 18);  /* Q2_0 */
	assert_int_equal(ggml_type_from_name("q4_k"), 12);
	assert_int_equal(ggml_type_from_name("nope"), -1);
	bool guessed;
	assert_string_equal(llama_ftype_name(7, &guessed), "Q8_0");
	assert_false(guessed);
	assert_null(llama_ftype_name(4, NULL));
	assert_null(llama_ftype_name(99, NULL));
	uint64_t row;
	assert_false(ggml_row_bytes(GGML_T_Q8_0, 33, &row));
	assert_true(ggml_row_bytes(GGML_T_Q8_0, 64, &row) && row == 68);
	assert_false(ggml_row_bytes(GGML_T_F32, UINT64_MAX / 2, &row));
}

static int setup(void **state)
{
	(void)state;
	tmp_dir = tu_tempdir();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(tmp_dir);
	free(tmp_dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_types),
		cmocka_unit_test(test_v2_and_alignment),
		cmocka_unit_test(test_real_headers),
		cmocka_unit_test(test_real_model_info),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_hostile_counts_and_lengths),
		cmocka_unit_test(test_hostile_structure),
		cmocka_unit_test(test_versions_and_magic),
		cmocka_unit_test(test_incomplete_file),
		cmocka_unit_test(test_windowed_parse),
		cmocka_unit_test(test_file_reader),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_decision_hint),
		cmocka_unit_test(test_info_hint_is_separate),
		cmocka_unit_test(test_type_table),
		cmocka_unit_test(test_file_reader_estimates),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
