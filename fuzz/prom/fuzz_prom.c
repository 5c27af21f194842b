/* libFuzzer target: the Prometheus text reader (explain/metrics.c) with a
 * label lookup on every sample, and the /metrics answer of each server kind
 * applied twice (the rates' second sample). */
#include <stddef.h>
#include <stdint.h>

#include "explain/server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool each(const struct prom_sample *s, void *arg)
{
	static const char *const keys[] = {"num_gpu_blocks", "block_size", "cache_dtype", "engine", "model_name", ""};
	char out[24];
	(void)arg;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		prom_label(s, keys[i], out, sizeof out);
	prom_label(s, "cache_dtype", out, 1);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *b = (const char *)data;
	double v;
	struct ex_server s;
	prom_each(b, size, each, NULL);
	prom_value(b, size, "vllm:kv_cache_usage_perc", &v);
	ex_server_init(&s, 1);
	server_apply_metrics(b, size, 1, &s);
	server_apply_metrics(b, size, 2000000000ull, &s);
	ex_server_clear_gauges(&s);
	return 0;
}
