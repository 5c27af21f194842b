/* Writes the GGUF fuzz seed corpus: small headers built with the test
 * writer (valid models of several architectures and a few broken ones). */
#include <stdio.h>
#include <string.h>

#include "gguf_writer.h"
#include "llm/ggml_types.h"
#include "llm/gguf.h"

static const char *out_dir;

static void save(struct gw *w, const char *name)
{
	char path[1024];
	size_t len;
	const uint8_t *b = gw_header(w, &len);
	snprintf(path, sizeof path, "%s/%s", out_dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, len, f) != len)
		perror(path);
	if (f)
		fclose(f);
	gw_free(w);
}

/* A small model: 3 layers, per-layer tensors, arch keys added by extra. */
static struct gw *model(const char *arch, void (*extra)(struct gw *, const char *))
{
	char k[128];
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", arch);
	gw_str(w, "general.name", "seed");
	gw_u32(w, "general.file_type", 7);
	snprintf(k, sizeof k, "%s.block_count", arch), gw_u32(w, k, 3);
	snprintf(k, sizeof k, "%s.context_length", arch), gw_u32(w, k, 2048);
	snprintf(k, sizeof k, "%s.embedding_length", arch), gw_u32(w, k, 64);
	snprintf(k, sizeof k, "%s.feed_forward_length", arch), gw_u32(w, k, 128);
	snprintf(k, sizeof k, "%s.attention.head_count", arch), gw_u32(w, k, 4);
	if (extra)
		extra(w, arch);
	gw_arr_vocab(w, "tokenizer.ggml.tokens", 8);
	gw_tensor2(w, "token_embd.weight", GGML_T_Q8_0, 64, 16);
	for (int il = 0; il < 3; il++) {
		snprintf(k, sizeof k, "blk.%d.attn_q.weight", il), gw_tensor2(w, k, GGML_T_Q8_0, 64, 64);
		snprintf(k, sizeof k, "blk.%d.ffn_up_exps.weight", il), gw_tensor2(w, k, GGML_T_Q4_0, 64, 8);
		snprintf(k, sizeof k, "blk.%d.attn_norm.weight", il), gw_tensor2(w, k, GGML_T_F32, 64, 1);
	}
	gw_tensor2(w, "output_norm.weight", GGML_T_F32, 64, 1);
	return w;
}

static void swa(struct gw *w, const char *a)
{
	char k[128];
	snprintf(k, sizeof k, "%s.attention.sliding_window", a), gw_u32(w, k, 16);
	snprintf(k, sizeof k, "%s.attention.head_count_kv", a), gw_u32(w, k, 1);
}

static void hybrid(struct gw *w, const char *a)
{
	char k[128];
	uint32_t kv[3] = {0, 2, 0};
	snprintf(k, sizeof k, "%s.attention.head_count_kv", a), gw_arr_u32(w, k, kv, 3);
	snprintf(k, sizeof k, "%s.ssm.conv_kernel", a), gw_u32(w, k, 4);
	snprintf(k, sizeof k, "%s.ssm.inner_size", a), gw_u32(w, k, 128);
	snprintf(k, sizeof k, "%s.ssm.state_size", a), gw_u32(w, k, 16);
}

static void mla(struct gw *w, const char *a)
{
	char k[128];
	snprintf(k, sizeof k, "%s.attention.key_length", a), gw_u32(w, k, 96);
	snprintf(k, sizeof k, "%s.attention.key_length_mla", a), gw_u32(w, k, 48);
	snprintf(k, sizeof k, "%s.attention.value_length_mla", a), gw_u32(w, k, 32);
}

static void pattern(struct gw *w, const char *a)
{
	char k[128];
	bool p[3] = {true, false, true};
	snprintf(k, sizeof k, "%s.attention.sliding_window", a), gw_u32(w, k, 32);
	snprintf(k, sizeof k, "%s.attention.sliding_window_pattern", a), gw_arr_bool(w, k, p, 3);
	snprintf(k, sizeof k, "%s.attention.shared_kv_layers", a), gw_u32(w, k, 1);
}

static void every_type(struct gw *w, const char *a)
{
	(void)a;
	float f[2] = {1, 2};
	int32_t i[2] = {-1, 1};
	gw_u8(w, "t.u8", 1), gw_i8(w, "t.i8", -1), gw_u16(w, "t.u16", 2), gw_i16(w, "t.i16", -2);
	gw_i32(w, "t.i32", -3), gw_u64(w, "t.u64", 4), gw_i64(w, "t.i64", -4);
	gw_f32(w, "t.f32", 0.5f), gw_f64(w, "t.f64", 0.25), gw_bool(w, "t.b", true);
	gw_arr_f32(w, "t.af", f, 2), gw_arr_i32(w, "t.ai", i, 2);
}

/* String arrays for the multi-walker walk: merges long enough for several
 * walkers, and strings whose bytes are themselves short strings (a guessed
 * boundary inside one is not a real one). */
static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void lookalike(struct gw *w, const char *a)
{
	uint8_t b[2048];
	size_t n = 12;
	(void)a;
	put_le(b, GGUF_VT_STRING, 4);
	put_le(b + 4, 60, 8);
	for (int i = 0; i < 30; i++) {
		put_le(b + n, 13, 8);
		memcpy(b + n + 8, "\5\0\0\0\0\0\0\0abcde", 13);
		put_le(b + n + 21, 3, 8);
		memcpy(b + n + 29, "xyz", 3);
		n += 32;
	}
	gw_raw_kv(w, "tokenizer.ggml.lookalike", GGUF_VT_ARRAY, b, n);
	gw_arr_vocab(w, "tokenizer.ggml.merges", 120);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_gguf_corpus DIR\n");
		return 2;
	}
	out_dir = argv[1];
	save(model("llama", every_type), "llama-all-types.gguf");
	save(model("gemma3", swa), "gemma3-swa.gguf");
	save(model("gemma4", pattern), "gemma4-pattern.gguf");
	save(model("jamba", hybrid), "jamba-hybrid.gguf");
	save(model("mamba2", hybrid), "mamba2.gguf");
	save(model("deepseek2", mla), "deepseek2-mla.gguf");
	save(model("bert", NULL), "bert.gguf");
	save(model("llama", lookalike), "llama-lookalike-strings.gguf");
	struct gw *w = model("qwen3", NULL);
	gw_set_version(w, 2);
	save(w, "qwen3-v2.gguf");
	w = gw_new();
	gw_set_version(w, 0x03000000u);
	save(w, "big-endian.gguf");
	w = gw_new();
	gw_set_version(w, 1);
	save(w, "v1.gguf");
	w = gw_new();
	gw_force_counts(w, 3, 1u << 20);
	save(w, "huge-count.gguf");
	return 0;
}
