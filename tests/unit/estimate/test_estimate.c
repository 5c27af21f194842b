/* The estimator against published models' header replicas (llm-memory.md
 * §3-4 worked examples) and real llama-server logs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cmd_inspect.h"
#include "core/format.h"
#include "core/util.h"
#include "gguf_writer.h"
#include "llm/arch.h"
#include "llm/estimate.h"
#include "llm/ggml_types.h"
#include "llm/gguf.h"
#include "llm/llama_flags.h"
#include "replicas.h"
#include "testutil.h"

static char *tmp_dir;

static struct gguf_header *load_replica(const struct replica_spec *s)
{
	char path[512];
	struct gguf_header *h = NULL;
	char err[256];
	snprintf(path, sizeof path, "%s/%s.gguf", tmp_dir, s->name);
	assert_int_equal(replica_write(s, path), 0);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	return h;
}

/* Plans h under a space-separated llama-server argument string. */
static struct estimate plan(const struct gguf_header *h, const char *args)
{
	char *copy = xstrdup(args), *argv[64], *save = NULL, err[256] = "";
	int argc = 0;
	struct llama_flags f;
	struct estimate e;
	for (char *t = strtok_r(copy, " ", &save); t && argc < 64; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	llama_flags_init(&f);
	assert_true(llama_flags_parse(&f, argc, argv, 0));
	assert_true(estimate_plan(h, &f, &e, err, sizeof err));
	llama_flags_free(&f);
	free(copy);
	return e;
}

static const char *mib(uint64_t b)
{
	static char buf[4][32];
	static int i;
	i = (i + 1) % 4;
	return fmt_mib(buf[i], sizeof buf[i], b);
}

static void test_qwen3_full_offload(void **state)
{
	(void)state;
	struct gguf_header *h = load_replica(&replica_qwen3_0_6b_q8_0);
	struct estimate e = plan(h, "-c 4096");
	/* llm-memory §4: 28 x 16,720,896 + output_norm + token_embd copy */
	assert_int_equal(e.weights_gpu, 633495552);
	assert_string_equal(mib(e.weights_gpu), "604.15 MiB");
	assert_int_equal(e.tied_copy, 165306368);
	assert_string_equal(mib(e.weights_host), "157.65 MiB");
	assert_true(e.output_on_gpu);
	assert_int_equal(e.gpu_layers, 28);
	assert_int_equal(e.kv_bytes_per_token, 112 * 1024);
	assert_string_equal(mib(e.kv_bytes), "448.00 MiB");
	assert_int_equal(e.kv_gpu, e.kv_bytes);
	assert_int_equal(e.kv_full_bytes, e.kv_bytes);
	assert_int_equal(e.n_swa_layers, 0);
	e = plan(h, "--ctx-size=8192");
	assert_string_equal(mib(e.kv_bytes), "896.00 MiB");
	/* unified or split over 4 streams: the same total */
	e = plan(h, "-c 8192 -np 4");
	assert_false(e.unified);
	assert_int_equal(e.n_stream, 4);
	assert_int_equal(e.kv_cells, 2048);
	assert_string_equal(mib(e.kv_bytes), "896.00 MiB");
	/* the real log's 40960 cells: 4480.00 MiB (trained context by default) */
	e = plan(h, "");
	assert_int_equal(e.n_ctx, 40960);
	assert_string_equal(mib(e.kv_bytes), "4480.00 MiB");
	gguf_header_unref(h);
}

static void test_qwen3_cpu_only_and_partial(void **state)
{
	(void)state;
	const uint64_t layer = 16720896, embd = 165306368;
	struct gguf_header *h = load_replica(&replica_qwen3_0_6b_q8_0);
	struct estimate e = plan(h, "-c 4096 -ngl 0");
	/* CPU only: no duplicate, the whole file mapped */
	assert_int_equal(e.weights_gpu, 0);
	assert_string_equal(mib(e.weights_host), "604.15 MiB");
	assert_int_equal(e.kv_host, e.kv_bytes);
	/* -ngl 10: output layer first, then the last 9 repeating layers */
	e = plan(h, "-c 4096 -ngl 10");
	assert_true(e.output_on_gpu);
	assert_int_equal(e.gpu_layers, 9);
	assert_int_equal(e.weights_gpu, 9 * layer + 4096 + embd);
	assert_int_equal(e.weights_host, embd + 19 * layer); /* file span of token_embd + blk.0-18 */
	assert_int_equal(e.kv_gpu, 9ull * 4096 * 4096);
	assert_int_equal(e.kv_host, 19ull * 4096 * 4096);
	/* -nkvo: weights as before, the KV cache on the host */
	e = plan(h, "-c 4096 -ngl 10 -nkvo");
	assert_int_equal(e.weights_gpu, 9 * layer + 4096 + embd);
	assert_int_equal(e.kv_gpu, 0);
	assert_int_equal(e.kv_host, 28ull * 4096 * 4096);
	/* -ngl 1: only the output layer (with the tied copy) */
	e = plan(h, "-c 4096 -ngl 1");
	assert_int_equal(e.gpu_layers, 0);
	assert_int_equal(e.weights_gpu, 4096 + embd);
	/* --no-mmap: host weights are a copy of the sum, not a span */
	e = plan(h, "-c 4096 -ngl 10 --no-mmap");
	assert_false(e.host_mapped);
	assert_int_equal(e.weights_host, embd + 19 * layer);
	/* ngl beyond the layer count is all layers */
	e = plan(h, "-ngl 999 -c 4096");
	assert_int_equal(e.weights_gpu, 633495552);
	gguf_header_unref(h);
}

static void test_quantized_kv(void **state)
{
	(void)state;
	struct gguf_header *h = load_replica(&replica_qwen3_0_6b_q8_0);
	struct estimate e = plan(h, "-c 4096 -ctk q8_0 -ctv q8_0 -fa on");
	/* 1024 values per layer in Q8_0: 32 blocks of 34 B, for K and for V */
	assert_int_equal(e.kv_bytes_per_token, 28 * 2 * 1088);
	assert_string_equal(mib(e.kv_bytes), "238.00 MiB");
	assert_false(e.refused);
	e = plan(h, "-c 4096 -ctk q4_0 -ctv f16 -fa off");
	assert_int_equal(e.kv_bytes_per_token, 28 * (576 + 2048));
	assert_false(e.refused);
	/* a quantized V cache without flash attention is refused by llama.cpp */
	e = plan(h, "-c 4096 -ctk q8_0 -ctv q8_0 -fa off");
	assert_true(e.refused);
	assert_non_null(strstr(e.notes[0], "requires flash_attn"));
	gguf_header_unref(h);
}

static void test_gemma3_270m_swa(void **state)
{
	(void)state;
	struct gguf_header *h = load_replica(&replica_gemma3_270m_q8_0);
	struct estimate e = plan(h, "-c 4096");
	assert_string_equal(mib(e.weights_gpu), "271.81 MiB");
	assert_string_equal(mib(e.kv_full_bytes), "72.00 MiB");
	/* default 4 slots, unified: SWA cells PAD(min(4096, 512*4 + 512)) */
	assert_true(e.unified);
	assert_int_equal(e.n_swa_layers, 15);
	assert_int_equal(e.swa_cells, 2560);
	assert_string_equal(mib(e.kv_bytes), "49.50 MiB");
	assert_int_equal(e.kv_bytes_per_token, 18 * 1024);
	e = plan(h, "-c 4096 -np 1");
	assert_int_equal(e.swa_cells, 1024);
	assert_string_equal(mib(e.kv_bytes), "27.00 MiB");
	e = plan(h, "-c 4096 --swa-full");
	assert_string_equal(mib(e.kv_bytes), "72.00 MiB");
	/* -np 4 without -kvu: 4 streams of 1024 cells */
	e = plan(h, "-c 4096 -np 4");
	assert_string_equal(mib(e.kv_bytes), "72.00 MiB");
	e = plan(h, "-c 4096 -np 4 -kvu");
	assert_string_equal(mib(e.kv_bytes), "49.50 MiB");
	e = plan(h, "-c 4096 -np 1 -ub 2048");
	assert_string_equal(mib(e.kv_bytes), "49.50 MiB");
	gguf_header_unref(h);
}

static uint64_t moe_exps_bytes(const struct replica_spec *s)
{
	return 3 * replica_bytes(s->wtype, s->n_embd, s->expert_ff, s->n_expert);
}

static void test_moe_cpu_moe(void **state)
{
	(void)state;
	const struct replica_spec *s = &replica_qwen3_30b_a3b_q8_0;
	struct gguf_header *h = load_replica(s);
	uint64_t embd = replica_bytes(s->wtype, s->n_embd, s->vocab, 1);
	uint64_t exps = moe_exps_bytes(s);
	uint64_t all = 0;
	for (uint64_t i = 0; i < h->n_tensors; i++)
		all += h->tensors[i].nbytes;
	struct estimate full = plan(h, "-c 4096");
	assert_int_equal(full.weights_gpu, all - embd); /* untied: no copy */
	assert_int_equal(full.tied_copy, 0);
	struct estimate e = plan(h, "-c 4096 --cpu-moe");
	assert_int_equal(e.n_overridden, 3 * 48);
	assert_int_equal(e.moved_to_host, 48 * exps);
	assert_int_equal(e.weights_gpu, all - embd - 48 * exps);
	/* mapped span runs from token_embd to the last layer's experts */
	assert_true(e.weights_host > embd + 48 * exps);
	assert_int_equal(e.kv_bytes, full.kv_bytes); /* KV stays with its layers */
	e = plan(h, "-c 4096 -ncmoe 10");
	assert_int_equal(e.moved_to_host, 10 * exps);
	e = plan(h, "-c 4096 -ot blk\\.(4[0-7])\\.ffn_.*_exps=CPU");
	assert_int_equal(e.moved_to_host, 8 * exps);
	/* the first matching override wins */
	e = plan(h, "-c 4096 -ot blk\\.47\\..*=CUDA0 --cpu-moe");
	assert_int_equal(e.moved_to_host, 47 * exps);
	gguf_header_unref(h);
}

static void test_max_ctx(void **state)
{
	(void)state;
	struct gguf_header *h = load_replica(&replica_qwen3_0_6b_q8_0);
	struct llama_flags f;
	llama_flags_init(&f);
	uint64_t free_b = 633495552ull + 8192ull * 114688;
	assert_int_equal(estimate_max_ctx(h, &f, free_b), 8192);
	assert_int_equal(estimate_max_ctx(h, &f, free_b - 1), 7936);
	assert_int_equal(estimate_max_ctx(h, &f, 1000), 0);
	assert_int_equal(estimate_max_ctx(h, &f, UINT64_MAX / 4), 40960);
	gguf_header_unref(h);
}

/* A small synthetic model of architecture arch with n_head attention heads
 * (0: no head_count key) and extra keys added by fn. */
static struct gguf_header *synthetic_heads(const char *arch, uint32_t n_layer, uint32_t n_head,
					   void (*fn)(struct gw *, const char *))
{
	char k[128], path[512], err[256];
	struct gguf_header *h = NULL;
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", arch);
	snprintf(k, sizeof k, "%s.block_count", arch), gw_u32(w, k, n_layer);
	snprintf(k, sizeof k, "%s.context_length", arch), gw_u32(w, k, 8192);
	snprintf(k, sizeof k, "%s.embedding_length", arch), gw_u32(w, k, 256);
	if (n_head)
		snprintf(k, sizeof k, "%s.attention.head_count", arch), gw_u32(w, k, n_head);
	if (fn)
		fn(w, arch);
	gw_tensor2(w, "token_embd.weight", GGML_T_F16, 256, 1000);
	snprintf(path, sizeof path, "%s/syn-%s.gguf", tmp_dir, arch);
	assert_int_equal(gw_write_file(w, path), 0);
	gw_free(w);
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	return h;
}

static struct gguf_header *synthetic(const char *arch, uint32_t n_layer, void (*fn)(struct gw *, const char *))
{
	return synthetic_heads(arch, n_layer, 4, fn);
}

static void mamba2_keys(struct gw *w, const char *a)
{
	char k[128];
	snprintf(k, sizeof k, "%s.ssm.conv_kernel", a), gw_u32(w, k, 4);
	snprintf(k, sizeof k, "%s.ssm.inner_size", a), gw_u32(w, k, 512);
	snprintf(k, sizeof k, "%s.ssm.state_size", a), gw_u32(w, k, 128);
	snprintf(k, sizeof k, "%s.ssm.group_count", a), gw_u32(w, k, 1);
}

static void jamba_keys(struct gw *w, const char *a)
{
	char k[128];
	uint32_t kv[8] = {0, 0, 0, 2, 0, 0, 0, 2};
	mamba2_keys(w, a);
	snprintf(k, sizeof k, "%s.attention.head_count_kv", a), gw_arr_u32(w, k, kv, 8);
}

static void test_recurrent_and_hybrid(void **state)
{
	(void)state;
	/* r = (4-1)(512 + 2*1*128) = 2304, s = 128*512 = 65536 floats per layer and sequence */
	const uint64_t rs = (2304 + 65536) * 4ull;
	struct gguf_header *h = synthetic("mamba2", 4, mamba2_keys);
	struct estimate e = plan(h, "-c 4096 -np 1");
	assert_false(e.has_kv);
	assert_int_equal(e.kv_bytes, 0);
	assert_int_equal(e.n_rs_layers, 4);
	assert_int_equal(e.rs_bytes, 4 * rs);
	e = plan(h, "-c 4096"); /* 4 slots: one state per sequence */
	assert_int_equal(e.rs_bytes, 16 * rs);
	gguf_header_unref(h);
	/* jamba: layers with head_count_kv 0 are recurrent, the others attention */
	h = synthetic("jamba", 8, jamba_keys);
	e = plan(h, "-c 4096 -np 1");
	assert_int_equal(e.n_rs_layers, 6);
	assert_int_equal(e.n_kv_layers, 2);
	assert_int_equal(e.kv_bytes_per_token, 2 * 2 * (2 * 64 * 2)); /* head 256/4 = 64, 2 KV heads, f16 */
	gguf_header_unref(h);
}

static void bert_keys(struct gw *w, const char *a)
{
	char k[128];
	snprintf(k, sizeof k, "%s.attention.causal", a), gw_bool(w, k, false);
	snprintf(k, sizeof k, "%s.pooling_type", a), gw_u32(w, k, 2);
}

static void mla_keys(struct gw *w, const char *a)
{
	char k[128];
	snprintf(k, sizeof k, "%s.attention.head_count_kv", a), gw_u32(w, k, 1);
	snprintf(k, sizeof k, "%s.attention.key_length", a), gw_u32(w, k, 576);
	snprintf(k, sizeof k, "%s.attention.value_length", a), gw_u32(w, k, 512);
	snprintf(k, sizeof k, "%s.attention.key_length_mla", a), gw_u32(w, k, 192);
	snprintf(k, sizeof k, "%s.attention.value_length_mla", a), gw_u32(w, k, 128);
	snprintf(k, sizeof k, "%s.attention.kv_lora_rank", a), gw_u32(w, k, 512);
}

static void gptoss_keys(struct gw *w, const char *a)
{
	char k[128];
	snprintf(k, sizeof k, "%s.attention.sliding_window", a), gw_u32(w, k, 128);
}

static void test_encoder_mla_and_patterns(void **state)
{
	(void)state;
	struct gguf_header *h = synthetic("bert", 4, bert_keys);
	struct estimate e = plan(h, "-c 512");
	assert_false(e.has_kv);
	assert_int_equal(e.kv_bytes, 0);
	gguf_header_unref(h);
	/* DeepSeek-style MLA: K is 576 x 1 head, no V tensor */
	h = synthetic("deepseek2", 2, mla_keys);
	e = plan(h, "-c 4096");
	assert_true(e.mla);
	assert_int_equal(e.kv_bytes_per_token, 2 * 576 * 2);
	assert_int_equal(e.kv_v_bytes, 0);
	gguf_header_unref(h);
	/* gpt-oss: even layers SWA (period 2) */
	h = synthetic("gpt-oss", 6, gptoss_keys);
	e = plan(h, "-c 8192 -np 1");
	assert_int_equal(e.n_swa_layers, 3);
	assert_int_equal(e.swa_cells, 768); /* PAD(128 + 512, 256) */
	gguf_header_unref(h);
}

/* "size = X MiB (N cells, L layers" lines of a real llama-server log, in order. */
static size_t log_kv_sizes(const char *log, double *mib_out, unsigned *cells, size_t max)
{
	size_t n = 0;
	for (const char *p = log; (p = strstr(p, "llama_kv_cache: size =")) && n < max; p++) {
		unsigned layers;
		if (sscanf(p, "llama_kv_cache: size = %lf MiB ( %u cells, %u layers", &mib_out[n], &cells[n], &layers) == 3)
			n++;
	}
	return n;
}

static struct estimate plan_from_command(const char *run, const char *model)
{
	char path[1024], *cmd, *log;
	snprintf(path, sizeof path, "%s/%s/command.txt", tu_shared_fixture("llama"), run);
	cmd = tu_read_file(path, NULL);
	cmd[strcspn(cmd, "\n")] = '\0';
	snprintf(path, sizeof path, "%s/%s", tu_shared_fixture("gguf"), model);
	struct gguf_header *h = NULL;
	char err[256];
	assert_int_equal(gguf_read_file(path, &h, err, sizeof err), GGUF_OK);
	/* the runs used a CPU-only build: everything stays on the host */
	log = xmalloc(strlen(cmd) + 16);
	sprintf(log, "%s -ngl 0", cmd);
	struct estimate e = plan(h, log);
	free(log);
	free(cmd);
	gguf_header_unref(h);
	return e;
}

static void test_real_logs(void **state)
{
	(void)state;
	char path[1024], dir[512], *log;
	double mibs[4];
	unsigned cells[4];
	if (!tu_shared_fixture("llama") || !tu_shared_fixture("gguf"))
		skip();
	/* copied: tu_shared_fixture returns a shared buffer */
	snprintf(dir, sizeof dir, "%s", tu_shared_fixture("llama"));

	struct estimate e = plan_from_command("qwen3-f16-c4096", "tiny-qwen3-f16.gguf");
	snprintf(path, sizeof path, "%s/qwen3-f16-c4096/server.log", dir);
	log = tu_read_file(path, NULL);
	assert_int_equal(log_kv_sizes(log, mibs, cells, 4), 1);
	assert_int_equal(e.kv_cells, cells[0]);
	assert_true(e.kv_bytes == (uint64_t)(mibs[0] * 1048576.0));
	assert_string_equal(mib(e.kv_bytes), "8.00 MiB");
	assert_non_null(strstr(log, "CPU_Mapped model buffer size =    13.78 MiB"));
	assert_string_equal(mib(e.weights_host), "13.78 MiB");
	/* logits for 4 slots of a 50257-token vocabulary */
	assert_non_null(strstr(log, "CPU  output buffer size =     0.77 MiB"));
	assert_string_equal(mib(e.output_bytes), "0.77 MiB");
	free(log);

	e = plan_from_command("gemma3-f16-c4096", "tiny-gemma3-f16.gguf");
	snprintf(path, sizeof path, "%s/gemma3-f16-c4096/server.log", dir);
	log = tu_read_file(path, NULL);
	assert_int_equal(log_kv_sizes(log, mibs, cells, 4), 2);
	assert_int_equal(e.kv_cells, cells[0]);
	assert_int_equal(e.swa_cells, cells[1]);
	assert_int_equal(e.n_swa_layers, 5);
	/* global 1 layer x 4096 cells, SWA 5 layers x 768 cells, 256 B per cell */
	assert_string_equal(mib(4096ull * 256), "1.00 MiB");
	assert_string_equal(mib(5ull * 768 * 256), "0.94 MiB");
	assert_int_equal(e.kv_bytes, 4096ull * 256 + 5ull * 768 * 256);
	assert_non_null(strstr(log, "CPU_Mapped model buffer size =     9.89 MiB"));
	assert_string_equal(mib(e.weights_host), "9.89 MiB");
	assert_non_null(strstr(log, "CPU  output buffer size =     0.49 MiB"));
	assert_string_equal(mib(e.output_bytes), "0.49 MiB");
	free(log);
}

static void test_flags(void **state)
{
	(void)state;
	struct llama_flags f;
	char *argv1[] = {"llama-server", "-m", "/m/a.gguf", "--ctx-size=8192", "-ngl", "auto", "-fa", "off",
			 "-ctk", "q8_0", "--cache-type-v=q4_0", "-np", "2", "--port", "8081", "--temp", "0.7",
			 "-ot", "exps=CPU,attn=CUDA0", "--lora", "a.gguf", "--alias", "x", "--no-mmap", "-ub", "256"};
	char defaults[256];
	llama_flags_init(&f);
	assert_true(llama_flags_parse(&f, ARRAY_LEN(argv1), argv1, 1));
	assert_string_equal(f.model, "/m/a.gguf");
	assert_int_equal(f.n_ctx, 8192);
	assert_int_equal(f.n_gpu_layers, -1);
	assert_int_equal(f.flash_attn, LLAMA_FA_OFF);
	assert_int_equal(f.type_k, GGML_T_Q8_0);
	assert_int_equal(f.type_v, GGML_T_Q4_0);
	assert_int_equal(f.n_parallel, 2);
	assert_false(f.kv_unified);
	assert_int_equal(f.port, 8081);
	assert_int_equal(f.n_ot, 2);
	assert_string_equal(f.ot[1].pattern, "attn");
	assert_string_equal(f.ot[1].buft, "CUDA0");
	assert_int_equal(f.n_lora, 1);
	assert_string_equal(f.alias, "x");
	assert_true(f.no_mmap);
	assert_int_equal(f.n_ubatch, 256);
	assert_int_equal(f.defaulted, LF_DEF_BATCH);
	llama_flags_free(&f);

	char *argv2[] = {"llama-server", "-m", "x.gguf", "-fa", "-c", "bogus"};
	llama_flags_init(&f);
	llama_flags_describe_defaults(&f, defaults, sizeof defaults);
	assert_non_null(strstr(defaults, "-c (trained context)"));
	assert_non_null(strstr(defaults, "4 slots"));
	assert_false(llama_flags_parse(&f, ARRAY_LEN(argv2), argv2, 1));
	assert_int_equal(f.flash_attn, LLAMA_FA_ON); /* a bare -fa (older builds) */
	assert_non_null(strstr(f.error, "bogus"));
	assert_true(f.kv_unified);
	llama_flags_free(&f);

	char *argv3[] = {"x", "-ngl", "-1", "-np", "4", "-kvu", "-ngl"};
	llama_flags_init(&f);
	assert_false(llama_flags_parse(&f, ARRAY_LEN(argv3), argv3, 1)); /* missing value */
	assert_int_equal(f.n_gpu_layers, -1);
	assert_true(f.kv_unified);
	llama_flags_free(&f);
}

/* A whole llama-server command line: the memory flags read, the rest listed
 * as ignored with their values, bare words kept as positional. */
static void test_flags_command_line(void **state)
{
	(void)state;
	struct llama_flags f, c;
	char *argv1[] = {"llama-server", "--metrics", "-t", "8", "--temp", "-0.5", "--host=0.0.0.0", "-np", "4",
			 "-kvu", "--no-kv-unified", "--jinja", "-ctk", "Q4_0", "--cache-type-v", "BF16", "-md", "d.gguf",
			 "-ts", "3,1", "--no-mmap", "--mmap", "-nkvo", "-kvo", "--weird", "--seed", "model.gguf"};
	llama_flags_init(&f);
	assert_true(llama_flags_parse(&f, ARRAY_LEN(argv1), argv1, 1));
	assert_int_equal(f.type_k, GGML_T_Q4_0);
	assert_int_equal(f.type_v, GGML_T_BF16);
	assert_false(f.kv_unified); /* -no-kvu after -kvu: the last wins */
	assert_false(f.no_mmap);
	assert_false(f.no_kv_offload);
	assert_int_equal(f.n_positional, 0); /* llama-server: "model.gguf" is --seed's value */
	/* -ts is read by the device plan */
	assert_int_equal(f.n_tensor_split, 2);
	assert_true(f.tensor_split[0] == 3.0f && f.tensor_split[1] == 1.0f && f.tensor_split[2] == 0.0f);
	static const struct { const char *flag, *value, *why; } want[] = {
		{"--metrics", NULL, "does not change memory"}, {"-t", "8", "not read by the plan"},
		{"--temp", "-0.5", "not read by the plan"}, {"--host", "0.0.0.0", "does not change memory"},
		{"--jinja", NULL, "does not change memory"}, {"-md", "d.gguf", "changes memory; not estimated"},
		{"--weird", NULL, "not read by the plan"},
		{"--seed", "model.gguf", "not read by the plan"},
	};
	assert_int_equal(f.n_ignored, ARRAY_LEN(want));
	for (size_t i = 0; i < ARRAY_LEN(want); i++) {
		assert_string_equal(f.ignored[i].flag, want[i].flag);
		if (want[i].value)
			assert_string_equal(f.ignored[i].value, want[i].value);
		else
			assert_null(f.ignored[i].value);
		assert_string_equal(f.ignored[i].why, want[i].why);
	}
	llama_flags_copy(&c, &f); /* deep: both freed (ASan) */
	llama_flags_free(&f);
	assert_string_equal(c.ignored[1].value, "8");
	llama_flags_free(&c);

	/* inspect MODEL.gguf ...: an unknown option never takes the model; a bare
	 * -fa before it is on; -no-kvu with an automatic -np has no effect */
	char *argv2[] = {"--some-switch", "m.gguf", "-fa", "x.GGUF", "-no-kvu", "extra"};
	llama_flags_init(&f);
	assert_true(llama_flags_parse_opts(&f, ARRAY_LEN(argv2), argv2, 0, LF_PARSE_GGUF_OPERAND));
	assert_int_equal(f.n_positional, 3);
	assert_string_equal(f.positional[0], "m.gguf");
	assert_string_equal(f.positional[1], "x.GGUF");
	assert_string_equal(f.positional[2], "extra");
	assert_int_equal(f.flash_attn, LLAMA_FA_ON);
	assert_true(f.kv_unified);
	assert_int_equal(f.n_ignored, 2);
	assert_null(f.ignored[0].value);
	assert_string_equal(f.ignored[1].flag, "-no-kvu");
	assert_non_null(strstr(f.ignored[1].why, "automatic -np"));
	llama_flags_free(&f);

	/* -fa keeps taking a value that is not a model; a bad one is an error */
	char *argv3[] = {"-fa", "AUTO", "--flash-attn", "sideways"};
	llama_flags_init(&f);
	assert_false(llama_flags_parse(&f, ARRAY_LEN(argv3), argv3, 0));
	assert_non_null(strstr(f.error, "sideways"));
	llama_flags_free(&f);

	/* past the limit the ignored options are counted, not kept */
	char *many[LLAMA_FLAGS_MAX_IGNORED + 3];
	for (size_t i = 0; i < ARRAY_LEN(many); i++)
		many[i] = "--metrics";
	llama_flags_init(&f);
	assert_true(llama_flags_parse(&f, ARRAY_LEN(many), many, 0));
	assert_int_equal(f.n_ignored, LLAMA_FLAGS_MAX_IGNORED);
	assert_int_equal(f.n_ignored_dropped, 3);
	llama_flags_free(&f);
}

static void test_bad_model(void **state)
{
	(void)state;
	struct gguf_header *h = synthetic("llama", 4, NULL);
	struct estimate e;
	struct llama_flags f;
	char err[256];
	llama_flags_init(&f);
	assert_true(estimate_plan(h, &f, &e, err, sizeof err));
	gguf_header_unref(h);
	/* per-layer array of the wrong length is refused, as llama.cpp throws */
	h = synthetic("jamba", 9, jamba_keys);
	assert_false(estimate_plan(h, &f, &e, err, sizeof err));
	assert_non_null(strstr(err, "head_count_kv"));
	gguf_header_unref(h);
}

/* As many KV heads as attention heads (UINT32_MAX each): consistent counts,
 * absurd sizes. */
static void huge_keys(struct gw *w, const char *a)
{
	char k[128];
	snprintf(k, sizeof k, "%s.attention.head_count_kv", a), gw_u32(w, k, UINT32_MAX);
	snprintf(k, sizeof k, "%s.attention.key_length", a), gw_u32(w, k, UINT32_MAX);
	snprintf(k, sizeof k, "%s.ssm.inner_size", a), gw_u64(w, k, UINT64_MAX);
}

static void test_hostile_shapes_saturate(void **state)
{
	(void)state;
	/* absurd sizes never wrap to small figures, and are no plan at all:
	 * saturated sums are refused instead of shown as sizes */
	struct gguf_header *h = synthetic_heads("jamba", 4000, UINT32_MAX, huge_keys);
	char *argv[4] = {"-np", "65536", "-c", "1099511627776"};
	struct llama_flags f;
	struct estimate e;
	char err[256] = "";
	llama_flags_init(&f);
	assert_true(llama_flags_parse(&f, 4, argv, 0));
	assert_false(estimate_plan(h, &f, &e, err, sizeof err));
	assert_non_null(strstr(err, "overflow"));
	llama_flags_free(&f);
	llama_flags_init(&f);
	assert_int_equal(estimate_max_ctx(h, &f, 1ull << 40), 0);
	gguf_header_unref(h);
	/* more layers than we plan for: refused with a message */
	h = synthetic("llama", ARCH_MAX_LAYERS + 1, NULL);
	assert_false(estimate_plan(h, &f, &e, err, sizeof err));
	assert_non_null(strstr(err, "block_count"));
	gguf_header_unref(h);
}

static void kv_heads_over(struct gw *w, const char *a)
{
	char k[128];
	snprintf(k, sizeof k, "%s.attention.head_count_kv", a), gw_u32(w, k, UINT32_MAX);
}

static void kv_heads_5(struct gw *w, const char *a)
{
	char k[128];
	snprintf(k, sizeof k, "%s.attention.head_count_kv", a), gw_u32(w, k, 5);
}

static void kv_heads_0(struct gw *w, const char *a)
{
	char k[128];
	snprintf(k, sizeof k, "%s.attention.head_count_kv", a), gw_u32(w, k, 0);
}

/* deci-style per-layer arrays: a layer with no KV heads has no attention cache */
static void kv_heads_per_layer(struct gw *w, const char *a)
{
	char k[128];
	uint32_t kv[4] = {8, 0, 8, 0};
	snprintf(k, sizeof k, "%s.attention.head_count_kv", a), gw_arr_u32(w, k, kv, 4);
}

/* Plans h with llama-server's defaults; returns whether it planned, err set. */
static bool plan_default(const struct gguf_header *h, char *err, size_t n)
{
	struct llama_flags f;
	struct estimate e;
	llama_flags_init(&f);
	bool ok = estimate_plan(h, &f, &e, err, n);
	llama_flags_free(&f);
	return ok;
}

/* Head counts llama.cpp could not run with are refused, not planned as "no KV". */
static void test_impossible_heads(void **state)
{
	(void)state;
	static const struct {
		uint32_t n_head;
		void (*fn)(struct gw *, const char *);
		const char *err;
	} bad[] = {
		{0, NULL, "attention.head_count: missing"},
		{32, kv_heads_over, "4294967295 KV heads exceed the 32 attention heads"},
		{32, kv_heads_5, "5 KV heads do not divide the 32 attention heads"},
		{32, kv_heads_0, "0 KV heads for an attention layer"},
	};
	char err[256];
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		struct gguf_header *h = synthetic_heads("llama", 4, bad[i].n_head, bad[i].fn);
		err[0] = '\0';
		assert_false(plan_default(h, err, sizeof err));
		if (!strstr(err, bad[i].err))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].err);
		gguf_header_unref(h);
	}
	/* per-layer zeros (attention-free layers) and a dividing count still plan */
	struct gguf_header *h = synthetic_heads("llama", 4, 32, kv_heads_per_layer);
	struct estimate e = plan(h, "-c 4096 -np 1");
	assert_int_equal(e.n_kv_layers, 2);
	gguf_header_unref(h);
	/* non-causal encoders and recurrent models need no head counts: no KV, legitimately */
	h = synthetic_heads("bert", 4, 0, bert_keys);
	e = plan(h, "-c 512");
	assert_false(e.has_kv);
	gguf_header_unref(h);
	h = synthetic_heads("mamba2", 4, 0, mamba2_keys);
	e = plan(h, "-c 4096");
	assert_false(e.has_kv);
	assert_int_equal(e.n_rs_layers, 4);
	gguf_header_unref(h);
}

/* -c above llama.cpp's int is planned at the limit and said so, never silently. */
static void test_ctx_clamp_said(void **state)
{
	(void)state;
	struct gguf_header *h = synthetic("llama", 4, NULL);
	struct estimate e = plan(h, "-c 2147483647");
	assert_int_equal(e.ctx_clamped_from, 0); /* llama.cpp accepts it: planned as asked (padded) */
	assert_int_equal(e.n_ctx, 2147483648ull);
	e = plan(h, "-c 4294967296");
	assert_int_equal(e.ctx_clamped_from, 4294967296ull);
	assert_int_equal(e.n_ctx, 2147483648ull);
	bool said = false;
	for (size_t i = 0; i < e.n_notes; i++)
		said |= strstr(e.notes[i], "-c 4294967296 is above llama.cpp's limit") != NULL;
	assert_true(said);
	gguf_header_unref(h);
}

/* inspect's model object: no plan gives null figures; defaulted flags are
 * null with the defaults named; field names are the snapshot's. */
static void test_inspect_json_fields(void **state)
{
	(void)state;
	char path[512], err[256], *text = NULL;
	size_t text_len = 0;
	struct llama_flags f;
	struct inspect_model m;
	struct gw *w = gw_new();
	gw_str(w, "general.architecture", "llama");
	gw_u32(w, "llama.block_count", 4);
	gw_u32(w, "llama.context_length", 4096);
	gw_u32(w, "llama.embedding_length", 256);
	gw_tensor2(w, "token_embd.weight", GGML_T_F16, 256, 1000);
	snprintf(path, sizeof path, "%s/no-heads.gguf", tmp_dir);
	assert_int_equal(gw_write_file(w, path), 0);
	gw_free(w);
	llama_flags_init(&f);
	assert_true(inspect_model_load(&m, path, false, NULL, &f, err, sizeof err));
	assert_false(m.plan_ok);
	json_t *j = inspect_model_json(&m), *est = json_object_get(j, "estimate");
	assert_string_equal(json_string_value(json_object_get(est, "provenance")), "unavailable");
	assert_true(json_is_null(json_object_get(est, "gpu_total_bytes")));
	assert_true(json_is_null(json_object_get(est, "kv")));
	assert_non_null(strstr(json_string_value(json_object_get(est, "error")), "attention.head_count"));
	json_t *model = json_object_get(j, "model"), *flags = json_object_get(j, "flags");
	assert_string_equal(json_string_value(json_object_get(model, "arch")), "llama");
	assert_int_equal(json_integer_value(json_object_get(model, "context_train")), 4096);
	assert_true(json_is_null(json_object_get(model, "heads")));
	assert_true(json_is_null(json_object_get(model, "heads_kv")));
	assert_null(json_object_get(model, "architecture"));
	assert_true(json_is_null(json_object_get(flags, "n_gpu_layers")));
	assert_true(json_is_null(json_object_get(flags, "parallel")));
	assert_true(json_is_null(json_object_get(flags, "ctx_size")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(flags, "defaulted"), 0)), "-c");
	assert_non_null(strstr(json_string_value(json_object_get(flags, "defaults_assumed")), "-ngl (all layers"));
	json_decref(j);
	FILE *out = tu_memstream(&text, &text_len);
	inspect_model_print(out, &m);
	tu_memclose(out);
	assert_non_null(strstr(text, "Plan          N/A (attention.head_count: missing"));
	assert_null(strstr(text, "GPU total"));
	assert_null(strstr(text, "KV cache      none"));
	free(text);
	inspect_model_release(&m);
	llama_flags_free(&f);
	gguf_cache_clear();
}

static uint64_t fake_free;

static int fake_gpu(uint64_t *free_b, uint64_t *total, char *name, size_t n)
{
	*free_b = fake_free;
	*total = 2 * fake_free;
	snprintf(name, n, "Test GPU");
	return 0;
}

static void test_inspect_fit(void **state)
{
	(void)state;
	char path[512], err[256], *text = NULL;
	size_t text_len = 0;
	struct llama_flags f;
	struct inspect_model m;
	snprintf(path, sizeof path, "%s/fit-qwen3.gguf", tmp_dir);
	assert_int_equal(replica_write(&replica_qwen3_0_6b_q8_0, path), 0);
	llama_flags_init(&f);
	f.n_ctx = 4096;
	f.defaulted &= ~(unsigned)LF_DEF_CTX;
	/* unwired: the fit is not checked, and says so */
	assert_true(inspect_model_load(&m, path, false, NULL, &f, err, sizeof err));
	assert_false(m.have_gpu);
	json_t *j = inspect_model_json(&m);
	assert_true(json_is_null(json_object_get(j, "gpu")));
	json_decref(j);
	inspect_model_release(&m);
	/* free memory for the weights and 8192 cells of KV (the output buffer is host memory) */
	fake_free = 633495552ull + 8192ull * 114688;
	cmd_inspect_set_gpu_query(fake_gpu);
	assert_true(inspect_model_load(&m, path, false, NULL, &f, err, sizeof err));
	assert_true(m.have_gpu);
	assert_true(m.fits);
	assert_int_equal(m.max_ctx, 8192);
	j = inspect_model_json(&m);
	json_t *gpu = json_object_get(j, "gpu");
	assert_string_equal(json_string_value(json_object_get(gpu, "name")), "Test GPU");
	assert_true(json_is_true(json_object_get(gpu, "fits")));
	assert_int_equal(json_integer_value(json_object_get(gpu, "max_ctx")), 8192);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "estimate"), "weights_gpu_bytes")),
			 633495552);
	json_decref(j);
	FILE *out = tu_memstream(&text, &text_len);
	inspect_model_print(out, &m);
	tu_memclose(out);
	assert_non_null(strstr(text, "Test GPU"));
	assert_non_null(strstr(text, "fits          yes"));
	assert_non_null(strstr(text, "largest -c    8192"));
	free(text);
	inspect_model_release(&m);
	/* too little memory: does not fit */
	fake_free = 600ull << 20;
	assert_true(inspect_model_load(&m, path, false, NULL, &f, err, sizeof err));
	assert_false(m.fits);
	assert_int_equal(m.max_ctx, 0);
	inspect_model_release(&m);
	cmd_inspect_set_gpu_query(NULL);
	llama_flags_free(&f);
	gguf_cache_clear();
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
		cmocka_unit_test(test_qwen3_full_offload),
		cmocka_unit_test(test_qwen3_cpu_only_and_partial),
		cmocka_unit_test(test_quantized_kv),
		cmocka_unit_test(test_gemma3_270m_swa),
		cmocka_unit_test(test_moe_cpu_moe),
		cmocka_unit_test(test_max_ctx),
		cmocka_unit_test(test_recurrent_and_hybrid),
		cmocka_unit_test(test_encoder_mla_and_patterns),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_flags_command_line),
		cmocka_unit_test(test_bad_model),
		cmocka_unit_test(test_hostile_shapes_saturate),
		cmocka_unit_test(test_impossible_heads),
		cmocka_unit_test(test_ctx_clamp_said),
		cmocka_unit_test(test_inspect_json_fields),
		cmocka_unit_test(test_inspect_fit),
		cmocka_unit_test(test_real_logs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
