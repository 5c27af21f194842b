/* llama.cpp log reader: the real build-10470 logs, default verbosity, the older
 * line formats (llm-memory.md §6), partial lines, runs and hostile input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/llama_log.h"
#include "testutil.h"

#define MIB_F(x) ((uint64_t)((x) * 1048576.0 + 0.5))

static struct llama_log *parse_str(const char *s)
{
	struct llama_log *lg = malloc(sizeof *lg);
	llama_log_init(lg);
	llama_log_parse(lg, s, strlen(s));
	return lg;
}

static struct llama_log *parse_fixture(const char *run)
{
	const char *dir = tu_shared_fixture("llama");
	if (!dir)
		return NULL;
	char path[1024];
	snprintf(path, sizeof path, "%s/%s/server.log", dir, run);
	size_t n;
	char *buf = tu_read_file(path, &n);
	struct llama_log *lg = malloc(sizeof *lg);
	llama_log_init(lg);
	assert_int_equal(llama_log_parse(lg, buf, n), n);
	free(buf);
	return lg;
}

static const struct llog_buffer *find_buf(const struct llog_load *l, enum llog_seg seg, const char *dev)
{
	for (int i = 0; i < l->n_buffers; i++)
		if (l->buffers[i].seg == seg && strcmp(l->buffers[i].device, dev) == 0)
			return &l->buffers[i];
	return NULL;
}

static void test_real_qwen3(void **state)
{
	(void)state;
	struct llama_log *lg = parse_fixture("qwen3-f16-c4096");
	if (!lg)
		skip();
	assert_int_equal(lg->n_loads, 1);
	assert_int_equal(lg->n_runs, 1);
	assert_int_equal(lg->verbosity, 4);
	const struct llog_load *l = &lg->loads[0];
	assert_string_equal(l->model, "/srv/models/tiny-qwen3-f16.gguf");
	assert_string_equal(l->build, "10470 (34af94cd9)");
	assert_int_equal(find_buf(l, LLOG_WEIGHTS, "CPU_Mapped")->bytes, MIB_F(13.78));
	assert_int_equal(find_buf(l, LLOG_KV, "CPU")->bytes, MIB_F(8.00));
	assert_int_equal(find_buf(l, LLOG_OUTPUT, "CPU")->bytes, MIB_F(0.77));
	assert_int_equal(find_buf(l, LLOG_COMPUTE, "CPU")->bytes, MIB_F(6.26));
	assert_int_equal(l->n_buffers, 4);
	assert_int_equal(l->n_kv, 1);
	assert_int_equal(l->kv[0].cells, 4096);
	assert_int_equal(l->kv[0].layers, 4);
	assert_int_equal(l->kv[0].seqs_used, 4);
	assert_int_equal(l->kv[0].seqs_max, 1);
	assert_string_equal(l->kv[0].type_k, "f16");
	assert_string_equal(l->kv[0].type_v, "f16");
	assert_int_equal(l->kv[0].k_bytes, MIB_F(4.00));
	assert_int_equal(l->kv[0].swa, -1);
	assert_int_equal(l->n_slots, 4);
	assert_int_equal(l->n_ctx_slot, 4096);
	assert_int_equal(l->kv_unified, 1);
	assert_int_equal(l->n_ctx, 4096);
	assert_int_equal(l->n_seq_max, 4);
	assert_int_equal(l->flash_attn, 2);
	assert_true(l->loaded);
	assert_true(l->exited);
	assert_int_equal(l->port, 18439);
	assert_true(l->t_rel_s > 0.004 && l->t_rel_s < 0.005);
	/* the fitting table (a projection) and the one printed at exit */
	assert_int_equal(l->bd_fit.n_rows, 1);
	assert_string_equal(l->bd_fit.rows[0].device, "Host");
	assert_int_equal(l->bd_fit.rows[0].self, 28);
	assert_int_equal(l->bd_fit.rows[0].model, 13);
	assert_int_equal(l->bd_fit.rows[0].context, 8);
	assert_int_equal(l->bd_fit.rows[0].compute, 6);
	assert_int_equal(l->bd_fit.rows[0].total, -1);
	assert_int_equal(l->bd_final.n_rows, 1);
	assert_int_equal(l->bd_final.rows[0].self, 28);
	free(lg);
}

static void test_real_gemma3_iswa(void **state)
{
	(void)state;
	struct llama_log *lg = parse_fixture("gemma3-f16-c4096");
	if (!lg)
		skip();
	assert_int_equal(lg->n_loads, 1);
	const struct llog_load *l = &lg->loads[0];
	assert_int_equal(l->n_kv, 2);
	assert_int_equal(l->kv[0].swa, 0);
	assert_int_equal(l->kv[0].cells, 4096);
	assert_int_equal(l->kv[0].layers, 1);
	assert_int_equal(l->kv[1].swa, 1);
	assert_int_equal(l->kv[1].cells, 768);
	assert_int_equal(l->kv[1].layers, 5);
	/* iSWA: two KV buffers on one device, one per cache */
	assert_int_equal(llog_load_seg_total(l, LLOG_KV), MIB_F(1.00) + MIB_F(0.94));
	assert_int_equal(llog_load_seg_total(l, LLOG_WEIGHTS), MIB_F(9.89));
	free(lg);
}

static void test_real_default_verbosity(void **state)
{
	(void)state;
	struct llama_log *lg = parse_fixture("llama-f16-c4096-defaultverbosity");
	if (!lg)
		skip();
	assert_int_equal(lg->verbosity, 3);
	assert_int_equal(lg->n_loads, 1);
	const struct llog_load *l = &lg->loads[0];
	assert_string_equal(l->model, "/srv/models/tiny-llama-f16.gguf");
	assert_int_equal(l->n_buffers, 0);
	assert_int_equal(l->n_slots, 4);
	assert_int_equal(l->n_ctx_slot, 4096);
	assert_int_equal(l->kv_unified, 1);
	assert_true(l->loaded);
	assert_int_equal(l->port, 18443);
	free(lg);
}

static void test_real_alias_np1(void **state)
{
	(void)state;
	struct llama_log *lg = parse_fixture("llama-q8_0-alias-nometrics-noslots");
	if (!lg)
		skip();
	const struct llog_load *l = &lg->loads[0];
	assert_int_equal(l->n_slots, 1);
	assert_int_equal(l->kv_unified, 0);
	assert_int_equal(l->kv[0].seqs_used, 1);
	assert_int_equal(find_buf(l, LLOG_WEIGHTS, "CPU_Mapped")->bytes, MIB_F(8.90));
	free(lg);
}

/* Older formats, crafted from the table in llm-memory.md §6. */
static void test_older_formats(void **state)
{
	(void)state;
	struct llama_log *lg = parse_str(
		"llama_model_loader: loaded meta data with 19 key-value pairs and 291 tensors from /m/llama-2-7b.Q4_0.gguf (version GGUF V2)\n"
		"llm_load_tensors: offloading 32 repeating layers to GPU\n"
		"llm_load_tensors: offloaded 33/33 layers to GPU\n"
		"llm_load_tensors:        CPU buffer size =    70.31 MiB\n"
		"llm_load_tensors:      CUDA0 buffer size =  3577.56 MiB\n"
		"llama_kv_cache_init:      CUDA0 KV buffer size =   256.00 MiB\n"
		"llama_new_context_with_model: KV self size  =  256.00 MiB, K (f16):  128.00 MiB, V (f16):  128.00 MiB\n"
		"llama_new_context_with_model:  CUDA_Host  output buffer size =     0.12 MiB\n"
		"llama_new_context_with_model:      CUDA0 compute buffer size =    70.50 MiB\n"
		"llama_new_context_with_model:  CUDA_Host compute buffer size =     9.01 MiB\n"
		"~llama_context: CUDA_Host compute buffer size of 39.1719 MiB, does not match expectation of 15.3535 MiB\n");
	assert_int_equal(lg->n_loads, 1);
	const struct llog_load *l = &lg->loads[0];
	assert_string_equal(l->model, "/m/llama-2-7b.Q4_0.gguf");
	assert_int_equal(find_buf(l, LLOG_WEIGHTS, "CUDA0")->bytes, MIB_F(3577.56));
	assert_int_equal(find_buf(l, LLOG_WEIGHTS, "CPU")->bytes, MIB_F(70.31));
	assert_int_equal(find_buf(l, LLOG_KV, "CUDA0")->bytes, MIB_F(256.00));
	assert_int_equal(find_buf(l, LLOG_OUTPUT, "CUDA_Host")->bytes, MIB_F(0.12));
	assert_int_equal(find_buf(l, LLOG_COMPUTE, "CUDA0")->bytes, MIB_F(70.50));
	assert_int_equal(find_buf(l, LLOG_COMPUTE, "CUDA_Host")->bytes, MIB_F(9.01));
	assert_int_equal(l->n_buffers, 6);
	assert_int_equal(l->layers_offloaded, 33);
	assert_int_equal(l->layers_total, 33);
	assert_int_equal(l->n_kv, 1);
	assert_int_equal(l->kv[0].bytes, MIB_F(256.00));
	assert_int_equal(l->kv[0].cells, 0);
	assert_string_equal(l->kv[0].type_v, "f16");
	free(lg);

	lg = parse_str(
		"load_tensors:      Vulkan0 model buffer size =   604.15 MiB\n"
		"load_tensors:   CPU_Mapped model buffer size =   157.65 MiB\n"
		"llama_kv_cache_unified_iswa: creating non-SWA KV cache, size = 131072 cells\n"
		"llama_kv_cache_unified:      Vulkan0 KV buffer size =  3072.00 MiB\n"
		"llama_kv_cache_unified: size = 3072.00 MiB (131072 cells,  12 layers,  1/1 seqs), K (q8_0): 1536.00 MiB, V (q8_0): 1536.00 MiB\n"
		"llama_memory_recurrent:      CUDA0 RS buffer size =    11.38 MiB\n"
		"llama_context:      Vulkan0 compute buffer size =   264.04 MiB\n"
		"llama_prepare_model_devices: using device CUDA0 (NVIDIA GeForce RTX 4090 (D)) (0000:01:00.0) - 23811 MiB free\n");
	l = &lg->loads[0];
	assert_int_equal(find_buf(l, LLOG_WEIGHTS, "Vulkan0")->bytes, MIB_F(604.15));
	assert_int_equal(find_buf(l, LLOG_RS, "CUDA0")->bytes, MIB_F(11.38));
	assert_int_equal(find_buf(l, LLOG_COMPUTE, "Vulkan0")->bytes, MIB_F(264.04));
	assert_int_equal(l->kv[0].swa, 0);
	assert_int_equal(l->kv[0].cells, 131072);
	assert_string_equal(l->kv[0].type_k, "q8_0");
	assert_int_equal(l->n_devices, 1);
	assert_string_equal(l->devices[0].name, "CUDA0");
	assert_string_equal(l->devices[0].desc, "NVIDIA GeForce RTX 4090 (D)");
	assert_string_equal(l->devices[0].pci, "0000:01:00.0");
	assert_int_equal(l->devices[0].free_mib, 23811);
	free(lg);
}

static void test_breakdown_device_rows(void **state)
{
	(void)state;
	struct llama_log *lg = parse_str(
		"load_tensors:        CUDA0 model buffer size = 28609.00 MiB\n"
		"llama_memory_breakdown_print: | memory breakdown [MiB] | total   free     self   model   context   compute    unaccounted |\n"
		"llama_memory_breakdown_print: |   - CUDA0 (RTX 5090)   | 32606 = 1057 + (29365 = 28609 +     397 +     358) +        2183 |\n"
		"llama_memory_breakdown_print: |   - CUDA1 (RTX 5060 Ti) | 15841 = 15630 + (15302 = 14736 +      72 +     493) + 17592186029324 |\n"
		"llama_memory_breakdown_print: |   - Host               |                 30956 = 30940 +       0 +      16                |\n"
		"llama_memory_breakdown_print: |   - HTP0-REPACK        |                  504 =   504 +       0 +       0                |\n"
		"ggml_metal_free: deallocating\n");
	const struct llog_load *l = &lg->loads[0];
	assert_int_equal(l->bd_fit.n_rows, 0);
	assert_int_equal(l->bd_final.n_rows, 4);
	const struct llog_bd_row *r = &l->bd_final.rows[0];
	assert_string_equal(r->device, "CUDA0");
	assert_string_equal(r->desc, "RTX 5090");
	assert_int_equal(r->total, 32606);
	assert_int_equal(r->free, 1057);
	assert_int_equal(r->self, 29365);
	assert_int_equal(r->model, 28609);
	assert_int_equal(r->context, 397);
	assert_int_equal(r->compute, 358);
	assert_int_equal(r->unaccounted, 2183);
	assert_int_equal(l->bd_final.rows[1].unaccounted, -1); /* underflow printed as a huge number */
	assert_string_equal(l->bd_final.rows[2].device, "Host");
	assert_int_equal(l->bd_final.rows[2].self, 30956);
	assert_string_equal(l->bd_final.rows[3].device, "HTP0-REPACK");
	free(lg);
}

/* A second process run appended to the same file: timestamps restart. */
static void test_runs_and_reloads(void **state)
{
	(void)state;
	struct llama_log *lg = parse_str(
		"0.00.002.443 I cmn  common_param: common_params_print_info: build 100 (aaa) with GNU\n"
		"0.00.004.073 I srv    load_model: loading model '/m/a.gguf'\n"
		"0.00.138.300 I load_tensors:        CUDA0 model buffer size =   100.00 MiB\n"
		"0.00.150.300 I srv  llama_server: model loaded\n"
		"5.00.000.000 I srv    load_model: loading model '/m/b.gguf'\n"
		"5.00.100.000 I load_tensors:        CUDA0 model buffer size =   200.00 MiB\n"
		"0.00.001.000 I cmn  common_param: common_params_print_info: build 101 (bbb) with GNU\n"
		"0.00.004.000 I srv    load_model: loading model '/m/c.gguf'\n"
		"0.00.100.000 I load_tensors:        CUDA0 model buffer size =   300.00 MiB\n"
		"0.00.100.500 I load_tensors:        CUDA0 model buffer size =   3");
	assert_int_equal(lg->n_runs, 2);
	assert_int_equal(lg->n_loads, 3);
	assert_int_equal(lg->loads[0].run, 0);
	assert_int_equal(lg->loads[1].run, 0);
	assert_string_equal(lg->loads[1].model, "/m/b.gguf");
	assert_true(lg->loads[1].t_rel_s > 299.9 && lg->loads[1].t_rel_s < 300.1);
	assert_int_equal(lg->loads[2].run, 1);
	assert_string_equal(lg->loads[2].build, "101 (bbb)");
	/* the partial last line was not taken */
	assert_int_equal(lg->loads[2].buffers[0].bytes, MIB_F(300.0));
	free(lg);
}

static void test_many_loads_bounded(void **state)
{
	(void)state;
	struct llama_log *lg = malloc(sizeof *lg);
	llama_log_init(lg);
	char line[256];
	for (int i = 0; i < 50; i++) {
		int n = snprintf(line, sizeof line, "srv load_model: loading model '/m/%d.gguf'\n", i);
		llama_log_parse(lg, line, (size_t)n);
		for (int k = 0; k < 40; k++) {
			n = snprintf(line, sizeof line, "load_tensors: DEV%d model buffer size = 1.00 MiB\n", k);
			llama_log_parse(lg, line, (size_t)n);
		}
	}
	assert_int_equal(lg->n_loads, LLOG_MAX_LOADS);
	assert_int_equal(lg->dropped_loads, 50 - LLOG_MAX_LOADS);
	assert_string_equal(lg->loads[LLOG_MAX_LOADS - 1].model, "/m/49.gguf");
	assert_int_equal(lg->loads[0].n_buffers, LLOG_MAX_BUFFERS);
	free(lg);
}

static void test_hostile(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"load_tensors: CUDA0 model buffer size = -5.00 MiB\n",
		"load_tensors: CUDA0 model buffer size = 99999999999999999999.00 MiB\n",
		"load_tensors: model buffer size = 5.00 MiB\n",
		" model buffer size = 1 MiB\n",
		"llama_kv_cache: size = \n",
		"llama_kv_cache: size = 1.00 MiB (\n",
		"|   - \n",
		"| memory breakdown [MiB] |\n|   - X | ( ( ( |\n|   - Y | 1 = 2 + ( 3 = 4 + 5 + 6 ) + 7 + 8 + 9 |\n",
		"using device \n",
		"using device CUDA0 ((((((( - 5 MiB free\n",
		"using device CUDA0 (a) (b:) - \n",
		"loading model '\n",
		"listening on http://:\n",
		"offloaded 99999999999999999999999/ layers to GPU\n",
		"llama_context: n_ctx = 99999999999999999999999999\n",
		/* issue 11: "size =" before "creating " (parse_iswa added 6 to NULL) */
		"llama_kv_cache_iswa: KV cache, size = 1 creating SWA\n",
		"creating KV cache, size =",
		"creating SWA KV cache, size =",
		"creating non-SWA KV cache, size",
		"build",
		"main: build = ",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct llama_log *lg = parse_str(bad[i]);
		for (int k = 0; k < lg->n_loads; k++)
			for (int b = 0; b < lg->loads[k].n_buffers; b++)
				assert_true(lg->loads[k].buffers[b].bytes < (1ull << 50));
		free(lg);
	}
	/* NUL bytes inside a line */
	static const char nul[] = "load_tensors: CUDA0 model\0buffer size = 1.00 MiB\nload_tensors: CUDA0 model buffer size = 2.00 MiB\n";
	struct llama_log *lg = malloc(sizeof *lg);
	llama_log_init(lg);
	llama_log_parse(lg, nul, sizeof nul - 1);
	assert_int_equal(lg->loads[0].n_buffers, 1);
	assert_int_equal(lg->loads[0].buffers[0].bytes, MIB_F(2.0));
	free(lg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_qwen3),
		cmocka_unit_test(test_real_gemma3_iswa),
		cmocka_unit_test(test_real_default_verbosity),
		cmocka_unit_test(test_real_alias_np1),
		cmocka_unit_test(test_older_formats),
		cmocka_unit_test(test_breakdown_device_rows),
		cmocka_unit_test(test_runs_and_reloads),
		cmocka_unit_test(test_many_loads_bounded),
		cmocka_unit_test(test_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
