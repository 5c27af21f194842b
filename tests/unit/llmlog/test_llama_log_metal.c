/* llama.cpp's Metal lines into the breakdown (src/llm/llama_log.c): on
 * Apple Silicon its buffers are vm_allocate'd and wrapped for the GPU
 * (ggml-metal-device.m), so footprint files them as untagged VM, and the
 * log is where their sizes are. MTL0_Mapped is the mmap'd weights (the
 * model file's pages), MTL0 without it a copy; KV and compute follow. A
 * --verbose run first prints a dry-run pass with every buffer at 0.00 MiB:
 * the last pass is what holds memory. Lines written in llama.cpp's formats
 * (llama-model.cpp, llama-kv-cache.cpp, llama-context.cpp, llama.cpp's
 * llama_prepare_model_devices); no Mac log is among the fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "llm/llama_log.h"

#define MIB_F(x) ((uint64_t)((x) * 1048576.0 + 0.5))

static struct llama_log *parse_str(const char *s)
{
	struct llama_log *lg = malloc(sizeof *lg);
	llama_log_init(lg);
	llama_log_parse(lg, s, strlen(s));
	return lg;
}

static const struct llog_buffer *find_buf(const struct llog_load *l, enum llog_seg seg, const char *dev)
{
	for (int i = 0; i < l->n_buffers; i++)
		if (l->buffers[i].seg == seg && strcmp(l->buffers[i].device, dev) == 0)
			return &l->buffers[i];
	return NULL;
}

static const char metal_mmap[] =
	"llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from /Users/a/m/qwen3-8b-q4_k_m.gguf (version GGUF V3 (latest))\n"
	"llama_prepare_model_devices: using device MTL0 (Apple M4) - 10922 MiB free\n"
	"load_tensors: offloaded 37/37 layers to GPU\n"
	"load_tensors:   CPU_Mapped model buffer size =   333.84 MiB\n"
	"load_tensors:  MTL0_Mapped model buffer size =  4455.35 MiB\n"
	"llama_context:        CPU  output buffer size =     0.58 MiB\n"
	"llama_kv_cache:       MTL0 KV buffer size =   576.00 MiB\n"
	"llama_kv_cache: size =  576.00 MiB (  4096 cells,  36 layers,  1/1 seqs), K (f16):  288.00 MiB, V (f16):  288.00 MiB\n"
	"llama_context:       MTL0 compute buffer size =   304.00 MiB\n"
	"llama_context:        CPU compute buffer size =    16.01 MiB\n";

static void mapped_weights(void **state)
{
	(void)state;
	struct llama_log *lg = parse_str(metal_mmap);
	assert_int_equal(lg->n_loads, 1);
	const struct llog_load *l = &lg->loads[0];
	assert_int_equal(find_buf(l, LLOG_WEIGHTS, "MTL0_Mapped")->bytes, MIB_F(4455.35));
	assert_false(llog_device_is_host("MTL0_Mapped")); /* the GPU's, though the file's pages */
	assert_true(llog_device_is_host("CPU_Mapped"));
	assert_int_equal(find_buf(l, LLOG_KV, "MTL0")->bytes, MIB_F(576.00));
	assert_int_equal(find_buf(l, LLOG_COMPUTE, "MTL0")->bytes, MIB_F(304.00));
	assert_int_equal(find_buf(l, LLOG_OUTPUT, "CPU")->bytes, MIB_F(0.58));
	assert_int_equal(l->n_devices, 1);
	assert_string_equal(l->devices[0].name, "MTL0");
	assert_string_equal(l->devices[0].desc, "Apple M4");
	assert_int_equal(l->devices[0].free_mib, 10922);
	assert_int_equal(l->layers_offloaded, 37);
	free(lg);
}

/* --no-mmap: the weights copied into an MTL0 buffer. */
static void copied_weights(void **state)
{
	(void)state;
	struct llama_log *lg = parse_str("load_tensors:         MTL0 model buffer size = 17280.00 MiB\n"
					 "load_tensors:          CPU model buffer size =   417.66 MiB\n");
	const struct llog_load *l = &lg->loads[0];
	assert_int_equal(find_buf(l, LLOG_WEIGHTS, "MTL0")->bytes, MIB_F(17280.00));
	assert_null(find_buf(l, LLOG_WEIGHTS, "MTL0_Mapped"));
	free(lg);
}

/* A --verbose dry run at 0.00 MiB, then the real pass: the totals are the
 * real pass's. */
static void dry_run_then_real(void **state)
{
	(void)state;
	struct llama_log *lg = parse_str(
		"llama_prepare_model_devices: using device MTL0 (Apple M4) - 10922 MiB free\n"
		"load_tensors:  MTL0_Mapped model buffer size =     0.00 MiB\n"
		"llama_kv_cache:       MTL0 KV buffer size =     0.00 MiB\n"
		"llama_context:       MTL0 compute buffer size =     0.00 MiB\n"
		"load_tensors:  MTL0_Mapped model buffer size =  4455.35 MiB\n"
		"llama_kv_cache:       MTL0 KV buffer size =   576.00 MiB\n"
		"llama_context:       MTL0 compute buffer size =   304.00 MiB\n");
	const struct llog_load *l = llama_log_last(lg);
	assert_non_null(l);
	assert_int_equal(llog_load_seg_total(l, LLOG_WEIGHTS), MIB_F(4455.35));
	assert_int_equal(llog_load_seg_total(l, LLOG_KV), MIB_F(576.00));
	assert_int_equal(llog_load_seg_total(l, LLOG_COMPUTE), MIB_F(304.00));
	free(lg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(mapped_weights), cmocka_unit_test(copied_weights),
					   cmocka_unit_test(dry_run_then_real)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
