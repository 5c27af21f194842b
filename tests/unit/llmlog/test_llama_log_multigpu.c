/* llama.cpp's per-device lines in every version shape: the quoted multi-GPU
 * lines (fixture inference-logs/llama-cpp-multi-gpu-lines-by-version.txt,
 * read in place; each "## " block parsed on its own, checked to the byte),
 * and written lines for what the quotes lack (-lv 4 CUDA layer placement,
 * Metal, RPC buffers, "(unknown id)", a ROCm device list). */
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

/* The lines of the fixture block whose "## " heading starts with title, as one
 * string (NULL when the fixture is absent). */
static char *fixture_block(const char *title)
{
	const char *dir = tu_shared_fixture("inference-logs");
	if (!dir)
		return NULL;
	char path[1024];
	snprintf(path, sizeof path, "%s/llama-cpp-multi-gpu-lines-by-version.txt", dir);
	return tu_fixture_block(path, title);
}

static struct llama_log *parse_block(const char *title)
{
	char *b = fixture_block(title);
	if (!b)
		return NULL;
	struct llama_log *lg = parse_str(b);
	free(b);
	return lg;
}

static uint64_t buf_bytes(const struct llog_load *l, enum llog_seg seg, const char *dev, int nth)
{
	for (int i = 0; i < l->n_buffers; i++)
		if (l->buffers[i].seg == seg && strcmp(l->buffers[i].device, dev) == 0 && nth-- == 0)
			return l->buffers[i].bytes;
	return UINT64_MAX;
}

static const struct llog_device *dev_named(const struct llog_load *l, const char *name)
{
	for (int i = 0; i < l->n_devices; i++)
		if (!strcmp(l->devices[i].name, name))
			return &l->devices[i];
	return NULL;
}

static const struct llog_layer_dev *layers_on(const struct llog_load *l, const char *dev)
{
	for (int i = 0; i < l->n_layer_devs; i++)
		if (!strcmp(l->layer_devs[i].device, dev))
			return &l->layer_devs[i];
	return NULL;
}

#define NEED(lg)                                                                                                       \
	do {                                                                                                           \
		if (!(lg))                                                                                             \
			skip();                                                                                        \
	} while (0)

static void test_2023_single_figure(void **state)
{
	(void)state;
	struct llama_log *lg = parse_block("2023-12");
	NEED(lg);
	struct llog_load *l = llama_log_last(lg);
	assert_non_null(l);
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "GPU", 0), MIB_F(11061.02));
	assert_int_equal(buf_bytes(l, LLOG_KV, "GPU", 0), MIB_F(32.00));
	assert_int_equal(l->layers_offloaded, 35);
	assert_int_equal(l->layers_total, 35);
	free(lg);
}

static void test_2024_two_4090(void **state)
{
	(void)state;
	struct llama_log *lg = parse_block("2024, two RTX 4090");
	NEED(lg);
	struct llog_load *l = llama_log_last(lg);
	assert_int_equal(lg->n_loads, 1);
	/* the startup list names both, in CUDA order, without a bus id or free memory */
	const struct llog_device *d0 = dev_named(l, "CUDA0"), *d1 = dev_named(l, "CUDA1");
	assert_non_null(d0);
	assert_non_null(d1);
	assert_string_equal(d0->desc, "NVIDIA GeForce RTX 4090");
	assert_string_equal(d1->desc, "NVIDIA GeForce RTX 4090");
	assert_string_equal(d0->pci, "");
	assert_int_equal(d0->free_mib, -1);
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "CPU", 0), MIB_F(137.94));
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "CUDA0", 0), MIB_F(104.91));
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "CUDA1", 0), MIB_F(226.06));
	assert_int_equal(buf_bytes(l, LLOG_KV, "CUDA0", 0), MIB_F(208.00));
	assert_int_equal(buf_bytes(l, LLOG_KV, "CUDA1", 0), MIB_F(176.00));
	assert_int_equal(buf_bytes(l, LLOG_OUTPUT, "CUDA_Host", 0), MIB_F(2.90));
	assert_int_equal(buf_bytes(l, LLOG_COMPUTE, "CUDA0", 0), MIB_F(1166.01));
	assert_int_equal(buf_bytes(l, LLOG_COMPUTE, "CUDA1", 0), MIB_F(1166.02));
	assert_int_equal(buf_bytes(l, LLOG_COMPUTE, "CUDA_Host", 0), MIB_F(257.77));
	assert_int_equal(l->n_buffers, 9);
	assert_int_equal(l->n_kv, 1);
	assert_int_equal(l->kv[0].bytes, MIB_F(384.00));
	assert_true(llog_device_is_host("CUDA_Host"));
	free(lg);
}

static void test_2025_mixed_cards_no_bus_id(void **state)
{
	(void)state;
	struct llama_log *lg = parse_block("2025-06, mixed cards");
	NEED(lg);
	struct llog_load *l = llama_log_last(lg);
	const struct llog_device *d0 = dev_named(l, "CUDA0"), *d1 = dev_named(l, "CUDA1");
	assert_non_null(d0);
	assert_non_null(d1);
	assert_string_equal(d0->desc, "NVIDIA GeForce RTX 4090");
	assert_string_equal(d1->desc, "NVIDIA GeForce RTX 5090");
	assert_string_equal(d0->pci, "");
	assert_string_equal(d1->pci, "");
	assert_int_equal(d0->free_mib, 9862);
	assert_int_equal(d1->free_mib, 31518);
	free(lg);
}

static void test_2025_ollama_cuda0_cuda2(void **state)
{
	(void)state;
	struct llama_log *lg = parse_block("2025-08, Ollama's llama runner");
	NEED(lg);
	struct llog_load *l = llama_log_last(lg);
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "CUDA0", 0), MIB_F(24277.75));
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "CUDA2", 0), MIB_F(46151.91));
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "CPU_Mapped", 0), MIB_F(1064.62));
	assert_int_equal(l->layers_offloaded, 81);
	free(lg);
}

static void test_2025_unified_and_2026_timestamped(void **state)
{
	(void)state;
	struct llama_log *lg = parse_block("2025, llama_kv_cache_unified naming");
	NEED(lg);
	struct llog_load *l = llama_log_last(lg);
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "CUDA0", 0), MIB_F(4589.31));
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "CPU_Mapped", 0), MIB_F(315.30));
	assert_int_equal(buf_bytes(l, LLOG_KV, "CUDA0", 0), MIB_F(1152.00));
	assert_int_equal(buf_bytes(l, LLOG_COMPUTE, "CUDA0", 0), MIB_F(304.00));
	free(lg);
	lg = parse_block("2026, timestamped -lv 4 log");
	assert_non_null(lg);
	l = llama_log_last(lg);
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "CUDA1", 0), MIB_F(2740.75));
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "CPU_Mapped", 0), MIB_F(497.31));
	assert_int_equal(buf_bytes(l, LLOG_OUTPUT, "CUDA_Host", 0), MIB_F(3.79));
	assert_int_equal(buf_bytes(l, LLOG_KV, "CUDA1", 0), MIB_F(128.00));
	assert_int_equal(buf_bytes(l, LLOG_COMPUTE, "CUDA1", 0), MIB_F(68.02));
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "CUDA0", 0), UINT64_MAX);
	free(lg);
}

/* Each `using device` line of the block on its own: the bus id, the name
 * (which may hold spaces), the free MiB. */
static void test_2026_bus_ids(void **state)
{
	(void)state;
	char *b = fixture_block("2026, device lines with PCI bus ids");
	if (!b)
		skip();
	static const struct { const char *name, *desc, *pci; int64_t free; } want[] = {
		{"CUDA0", "NVIDIA GeForce RTX 3090", "0000:01:00.0", 23858},
		{"CUDA1", "NVIDIA GeForce RTX 3090", "0000:02:00.0", 13850},
		{"CUDA0", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "0000:16:00.0", 96727},
		{"CUDA1", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "0000:34:00.0", 96727},
	};
	char *line = b;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		char *nl = strchr(line, '\n');
		assert_non_null(nl);
		struct llama_log *lg = malloc(sizeof *lg);
		llama_log_init(lg);
		llama_log_line(lg, line, (size_t)(nl - line), -1);
		const struct llog_device *d = dev_named(llama_log_last(lg), want[i].name);
		assert_non_null(d);
		assert_string_equal(d->desc, want[i].desc);
		assert_string_equal(d->pci, want[i].pci);
		assert_int_equal(d->free_mib, want[i].free);
		free(lg);
		line = nl + 1;
	}
	/* all four in one go: the timestamped run's lines replace the untimestamped one's per name */
	struct llama_log *lg = parse_str(b);
	const struct llog_load *l = llama_log_last(lg);
	assert_int_equal(l->n_devices, 2);
	assert_string_equal(dev_named(l, "CUDA1")->pci, "0000:34:00.0");
	free(lg);
	free(b);
}

static void test_rpc_layer_assignment(void **state)
{
	(void)state;
	struct llama_log *lg = parse_block("DEBUG layer assignment");
	NEED(lg);
	const struct llog_load *l = llama_log_last(lg);
	assert_int_equal(l->n_layer_devs, 2);
	const struct llog_layer_dev *a = layers_on(l, "RPC[192.9.200.5:50052]"), *b = layers_on(l, "RPC[192.9.200.4:50052]");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->n_layers, 2);
	assert_int_equal(a->first, 0);
	assert_int_equal(a->last, 13);
	assert_int_equal(a->n_swa, 2);
	assert_int_equal(b->n_layers, 1);
	assert_int_equal(b->first, 14);
	free(lg);
}

static void test_dsa_two_kv_per_device(void **state)
{
	(void)state;
	struct llama_log *lg = parse_block("2026, 4 GPUs, DSA");
	NEED(lg);
	const struct llog_load *l = llama_log_last(lg);
	assert_int_equal(buf_bytes(l, LLOG_KV, "CUDA0", 0), MIB_F(46406.25));
	assert_int_equal(buf_bytes(l, LLOG_KV, "CUDA0", 1), MIB_F(3000.00));
	assert_int_equal(buf_bytes(l, LLOG_KV, "CUDA1", 0), MIB_F(7593.75));
	assert_int_equal(llog_load_seg_total(l, LLOG_KV), MIB_F(46406.25) + MIB_F(3000.00) + MIB_F(7593.75));
	free(lg);
}

/* Written lines of the printed formats, for what the quotes lack: a -lv 4
 * CUDA split with layers on three devices and the input layer on CPU,
 * "(unknown id)", RPC and Metal buffers, a ROCm device list. */
static void test_written_shapes(void **state)
{
	(void)state;
	struct llama_log *lg = parse_str(
		"ggml_cuda_init: found 2 ROCm devices:\n"
		"  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32\n"
		"  Device 1: AMD Radeon PRO W7900, gfx1100 (0x1100), VMM: no, Wave Size: 32\n"
		"0.00.010.000 I llama_prepare_model_devices: using device CUDA0 (NVIDIA A100-SXM4-80GB (rev a1)) (0000:3b:00.0) - 80000 MiB free\n"
		"0.00.010.001 I llama_prepare_model_devices: using device CUDA1 (NVIDIA A100-SXM4-80GB) (unknown id) - 79000 MiB free\n"
		"0.00.011.000 D load_tensors: layer   0 assigned to device CPU, is_swa = 0\n"
		"0.00.011.001 D load_tensors: layer   1 assigned to device CUDA0, is_swa = 0\n"
		"0.00.011.002 D load_tensors: layer   2 assigned to device CUDA0, is_swa = 0\n"
		"0.00.011.003 D load_tensors: layer   3 assigned to device CUDA1, is_swa = 0\n"
		"0.00.011.004 D load_tensors: layer   4 assigned to device CUDA2, is_swa = 0\n"
		"0.00.012.000 I load_tensors: RPC[10.0.0.2:50052] model buffer size =   100.50 MiB\n"
		"0.00.012.001 I load_tensors:   MTL0_Mapped model buffer size =    12.25 MiB\n"
		"0.00.012.002 I llama_kv_cache:       MTL0 KV buffer size =    64.00 MiB\n"
		"Device 3: not a device list line\n");
	const struct llog_load *l = llama_log_last(lg);
	assert_int_equal(lg->n_loads, 1);
	const struct llog_device *r0 = dev_named(l, "ROCm0"), *c0 = dev_named(l, "CUDA0"), *c1 = dev_named(l, "CUDA1");
	assert_non_null(r0);
	assert_string_equal(r0->desc, "AMD Radeon RX 7900 XTX");
	assert_string_equal(dev_named(l, "ROCm1")->desc, "AMD Radeon PRO W7900");
	assert_null(dev_named(l, "ROCm3"));
	assert_string_equal(c0->desc, "NVIDIA A100-SXM4-80GB (rev a1)");
	assert_string_equal(c0->pci, "0000:3b:00.0");
	assert_string_equal(c1->pci, ""); /* "(unknown id)" is no bus id */
	assert_int_equal(c1->free_mib, 79000);
	assert_int_equal(layers_on(l, "CPU")->n_layers, 1);
	assert_int_equal(layers_on(l, "CUDA0")->n_layers, 2);
	assert_int_equal(layers_on(l, "CUDA0")->first, 1);
	assert_int_equal(layers_on(l, "CUDA0")->last, 2);
	assert_int_equal(layers_on(l, "CUDA2")->first, 4);
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "RPC[10.0.0.2:50052]", 0), MIB_F(100.50));
	assert_int_equal(buf_bytes(l, LLOG_WEIGHTS, "MTL0_Mapped", 0), MIB_F(12.25));
	assert_int_equal(buf_bytes(l, LLOG_KV, "MTL0", 0), MIB_F(64.00));
	assert_false(llog_device_is_host("RPC[10.0.0.2:50052]"));
	free(lg);
	/* near-misses: no number, a number too big, no device */
	lg = parse_str("load_tensors: layer x assigned to device CUDA0, is_swa = 0\n"
		       "load_tensors: layer 99999999999 assigned to device CUDA0\n"
		       "load_tensors: layer 3 assigned to device \n"
		       "llm_load_tensors: VRAM used: lots MB\n"
		       "  Device 0: no comma and no list\n");
	l = llama_log_last(lg);
	assert_true(!l || (l->n_layer_devs == 0 && l->n_buffers == 0 && l->n_devices == 0));
	free(lg);
}

/* A second load of the same run keeps the startup device list; a new
 * ggml_cuda_init list replaces it. */
static void test_device_list_per_load(void **state)
{
	(void)state;
	struct llama_log *lg = parse_str(
		"ggml_cuda_init: found 2 CUDA devices:\n"
		"  Device 0: NVIDIA L4, compute capability 8.9, VMM: yes\n"
		"  Device 1: NVIDIA T4, compute capability 7.5, VMM: yes\n"
		"srv    load_model: loading model 'a.gguf'\n"
		"load_tensors:        CUDA1 model buffer size =  10.00 MiB\n"
		"srv  llama_server: model loaded\n"
		"srv    load_model: loading model 'b.gguf'\n"
		"load_tensors:        CUDA0 model buffer size =  20.00 MiB\n");
	assert_int_equal(lg->n_loads, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(lg->loads[i].n_devices, 2);
		assert_string_equal(dev_named(&lg->loads[i], "CUDA1")->desc, "NVIDIA T4");
	}
	free(lg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2023_single_figure),
		cmocka_unit_test(test_2024_two_4090),
		cmocka_unit_test(test_2025_mixed_cards_no_bus_id),
		cmocka_unit_test(test_2025_ollama_cuda0_cuda2),
		cmocka_unit_test(test_2025_unified_and_2026_timestamped),
		cmocka_unit_test(test_2026_bus_ids),
		cmocka_unit_test(test_rpc_layer_assignment),
		cmocka_unit_test(test_dsa_two_kv_per_device),
		cmocka_unit_test(test_written_shapes),
		cmocka_unit_test(test_device_list_per_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
