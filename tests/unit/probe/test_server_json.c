/* Server answer parsers: the real llama-server captures (read in place),
 * Ollama / LM Studio / vLLM / SGLang shapes from llm-memory.md §7, and hostile bodies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain.h"
#include "explain/server.h"
#include "views/explain_text.h"
#include "testutil.h"

/* A file of ../shared/fixtures/<area>/, or NULL when the fixtures are absent. */
static char *shared_file(const char *area, const char *run, const char *file, size_t *n)
{
	const char *dir = tu_shared_fixture(area);
	char path[1024];
	if (!dir)
		return NULL;
	snprintf(path, sizeof path, "%s/%s%s%s", dir, run, run[0] ? "/" : "", file);
	return tu_read_file(path, n);
}

static char *fixture(const char *run, const char *file, size_t *n)
{
	return shared_file("llama", run, file, n);
}

static void test_real_props_slots_models(void **state)
{
	(void)state;
	size_t n;
	char *b = fixture("qwen3-f16-c4096", "props.json", &n);
	if (!b)
		skip();
	struct ex_server s;
	ex_server_init(&s, 18439);
	assert_true(server_parse_props(b, n, &s));
	free(b);
	assert_string_equal(s.kind, "llama-server");
	assert_int_equal(s.n_ctx_slot.v, 4096);
	assert_int_equal(s.n_ctx_slot.prov, GTM_REPORTED);
	assert_int_equal(s.slots_total.v, 4);
	assert_string_equal(s.build, "b10470-34af94cd9");
	assert_int_equal(s.n_models, 1);
	assert_string_equal(s.models[0].path, "/srv/models/tiny-qwen3-f16.gguf");

	b = fixture("qwen3-f16-c4096", "slots.after.json", &n);
	assert_true(server_parse_slots(b, n, &s));
	free(b);
	assert_int_equal(s.slots_total.v, 4);
	assert_int_equal(s.slots_busy.v, 0);

	b = fixture("qwen3-f16-c4096", "v1_models.json", &n);
	assert_true(server_parse_v1_models(b, n, &s));
	free(b);
	assert_int_equal(s.n_models, 1); /* same id as the alias: merged */
	assert_int_equal(s.models[0].size.v, 14445312);
	assert_int_equal(s.models[0].n_ctx.v, 4096);

	b = fixture("qwen3-f16-c4096", "health.json", &n);
	assert_true(server_parse_health(b, n, 200, &s));
	free(b);
	assert_string_equal(s.health, "ok");
}

static void test_real_alias_and_disabled(void **state)
{
	(void)state;
	size_t n;
	char *b = fixture("llama-q8_0-alias-nometrics-noslots", "props.body.txt", &n);
	if (!b)
		skip();
	struct ex_server s;
	ex_server_init(&s, 18450);
	assert_true(server_parse_props(b, n, &s));
	free(b);
	assert_string_equal(s.models[0].name, "tiny-alias");
	assert_string_equal(s.models[0].path, "/srv/models/tiny-llama-q8_0.gguf");
	assert_int_equal(s.slots_total.v, 1);
	b = fixture("llama-q8_0-alias-nometrics-noslots", "metrics.body.txt", &n);
	assert_true(server_body_is_disabled(b, n));
	assert_false(server_apply_metrics(b, n, 1, &s));
	free(b);
	b = fixture("llama-q8_0-alias-nometrics-noslots", "slots.body.txt", &n);
	assert_true(server_body_is_disabled(b, n));
	assert_false(server_parse_slots(b, n, &s));
	free(b);
	b = fixture("llama-q8_0-alias-nometrics-noslots", "health.body.txt", &n);
	assert_false(server_body_is_disabled(b, n));
	free(b);
}

static bool near(gtm_f64 r, double want)
{
	return gtm_f64_ok(r) && r.v > want * (1 - 1e-9) - 1e-9 && r.v < want * (1 + 1e-9) + 1e-9;
}

/* The real server's counters before and after one 8-token /completion: its
 * own speed is Δtokens_predicted_total / Δtokens_predicted_seconds_total
 * (8 / 0.00386 s), not Δtokens per second of our probe interval. */
static void test_real_metrics_delta(void **state)
{
	(void)state;
	size_t n1, n2;
	char *a = fixture("qwen3-f16-c4096", "metrics.before.txt", &n1);
	if (!a)
		skip();
	char *b = fixture("qwen3-f16-c4096", "metrics.after.txt", &n2);
	struct ex_server s;
	ex_server_init(&s, 1);
	double v, secs;
	assert_true(prom_value(b, n2, "llamacpp:tokens_predicted_total", &v));
	assert_true(v == 8.0);
	assert_true(prom_value(b, n2, "llamacpp:tokens_predicted_seconds_total", &secs));
	assert_true(server_apply_metrics(a, n1, 1000000000ull, &s));
	/* one sample, and a server that has generated nothing yet: no rate, not 0 */
	assert_false(gtm_f64_ok(s.gen.tps));
	assert_false(gtm_f64_ok(s.gen.avg_tps));
	assert_false(gtm_f64_ok(s.gen.wall_tps));
	assert_true(server_apply_metrics(b, n2, 3000000000ull, &s));
	assert_true(near(s.gen.tps, 8.0 / secs));
	assert_int_equal(s.gen.tps.prov, GTM_REPORTED);
	assert_true(s.gen.tps.v > 2000 && s.gen.tps.v < 2100); /* 8 / 0.00386 s */
	assert_true(near(s.gen.avg_tps, 8.0 / secs));
	assert_true(near(s.gen.wall_tps, 8.0 / 2.0)); /* 2 s between the samples */
	assert_true(near(s.prompt.tps, 5.0 / 0.001435));
	assert_int_equal(s.requests_running.v, 0);
	assert_string_equal(s.kind, "llama-server");
	assert_false(gtm_f64_ok(s.kv_usage)); /* a current build exports no KV-cache ratio */
	/* the same counters 10 s later: nothing generated in between, so no
	 * current speed; the wall rate is a true 0; the average stays */
	assert_true(server_apply_metrics(b, n2, 13000000000ull, &s));
	assert_false(gtm_f64_ok(s.gen.tps));
	assert_true(near(s.gen.wall_tps, 0.0));
	assert_true(near(s.gen.avg_tps, 8.0 / secs));
	/* a request running meanwhile is in no counter until it ends
	 * (llama-server's on_prediction): the average is the finished requests' */
	assert_true(s.counted_at_end);
	s.requests_running = gtm_u64_of(1, GTM_REPORTED);
	struct gtm_explain *e = calloc(1, sizeof *e);
	e->servers[0] = s;
	e->n_servers = 1;
	char *txt = NULL;
	size_t tn = 0;
	FILE *m = tu_memstream(&txt, &tn);
	explain_text_print(m, e, "");
	tu_memclose(m);
	assert_non_null(strstr(txt, "tok/s avg, as of the last finished request"));
	assert_null(strstr(txt, "avg since start"));
	free(txt);
	free(e);
	/* a restarted server (counters back to zero) gives no rate at all */
	assert_true(server_apply_metrics(a, n1, 14000000000ull, &s));
	assert_false(gtm_f64_ok(s.gen.tps));
	assert_false(gtm_f64_ok(s.gen.wall_tps));
	free(a);
	free(b);
}

/* An older llama-server's llamacpp:kv_cache_usage_ratio is the KV-cache
 * usage; a value outside 0..1 is not one. */
static void test_llama_kv_ratio(void **state)
{
	static const char good[] = "# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total 10\n"
				   "llamacpp:kv_cache_usage_ratio 0.25\n";
	static const char bad[] = "llamacpp:tokens_predicted_total 10\nllamacpp:kv_cache_usage_ratio 1.5\n";
	struct ex_server s;
	(void)state;
	ex_server_init(&s, 1);
	assert_true(server_apply_metrics(good, sizeof good - 1, 1, &s));
	assert_true(near(s.kv_usage, 0.25));
	assert_int_equal(s.kv_usage.prov, GTM_REPORTED);
	ex_server_init(&s, 1);
	assert_true(server_apply_metrics(bad, sizeof bad - 1, 1, &s));
	assert_false(gtm_f64_ok(s.kv_usage));
}

/* A one-shot snapshot probes once: the server's average since it started is
 * there from the first sample. */
static void test_real_metrics_first_sample_avg(void **state)
{
	(void)state;
	size_t n;
	char *b = fixture("qwen3-f16-c4096", "metrics.after.txt", &n);
	if (!b)
		skip();
	struct ex_server s;
	ex_server_init(&s, 1);
	assert_true(server_apply_metrics(b, n, 5000000000ull, &s));
	assert_false(gtm_f64_ok(s.gen.tps));
	assert_false(gtm_f64_ok(s.gen.wall_tps));
	assert_true(near(s.gen.avg_tps, 8.0 / 0.00386));
	assert_true(near(s.prompt.avg_tps, 5.0 / 0.001435));
	free(b);
}

/* SGLang's own throughput gauge, from its documented /metrics example. */
static void test_sglang_gen_throughput(void **state)
{
	(void)state;
	size_t n;
	char *b = shared_file("servers", "", "sglang-metrics-docs-example.prom", &n);
	if (!b)
		skip();
	struct ex_server s;
	ex_server_init(&s, 30000);
	assert_true(server_apply_metrics(b, n, 1, &s));
	assert_string_equal(s.kind, "sglang");
	assert_true(near(s.gen.tps, 86.50814177726902));
	assert_false(gtm_f64_ok(s.gen.wall_tps)); /* one sample */
	free(b);
}

static void test_ollama_ps(void **state)
{
	(void)state;
	const char *b = "{\"models\":[{\"name\":\"qwen3:14b\",\"model\":\"qwen3:14b\",\"size\":10737418240,"
			"\"size_vram\":8589934592,\"digest\":\"abc\",\"details\":{\"format\":\"gguf\"},"
			"\"expires_at\":\"2026-01-01T00:00:00Z\",\"context_length\":8192},"
			"{\"model\":\"llama3:8b\",\"size\":\"x\"},{\"size\":1}]}";
	struct ex_server s;
	ex_server_init(&s, 11434);
	assert_true(server_parse_ollama_ps(b, strlen(b), &s));
	assert_string_equal(s.kind, "ollama");
	assert_int_equal(s.n_models, 2);
	assert_int_equal(s.models[0].size.v, 10737418240ull);
	assert_int_equal(s.models[0].size_vram.v, 8589934592ull);
	assert_int_equal(s.models[0].n_ctx.v, 8192);
	assert_false(gtm_u64_ok(s.models[1].size)); /* a string is not a size */
	const char *empty = "{\"models\":[]}";
	ex_server_init(&s, 11434);
	assert_true(server_parse_ollama_ps(empty, strlen(empty), &s));
	assert_int_equal(s.n_models, 0);
}

static void test_lmstudio(void **state)
{
	(void)state;
	const char *v1 = "{\"models\":[{\"type\":\"llm\",\"key\":\"qwen/qwen3-4b\",\"size_bytes\":2500000000,"
			 "\"loaded_instances\":[{\"id\":\"qwen/qwen3-4b\",\"config\":{\"context_length\":4096,\"parallel\":4}}]},"
			 "{\"type\":\"llm\",\"key\":\"other\",\"loaded_instances\":[]}]}";
	struct ex_server s;
	ex_server_init(&s, 1234);
	assert_true(server_parse_lmstudio_v1(v1, strlen(v1), &s));
	assert_string_equal(s.kind, "lmstudio");
	assert_int_equal(s.n_models, 1);
	assert_string_equal(s.models[0].state, "loaded");
	assert_int_equal(s.models[0].n_ctx.v, 4096);
	assert_int_equal(s.models[0].size.v, 2500000000ull);
	const char *v0 = "{\"data\":[{\"id\":\"a\",\"object\":\"model\",\"type\":\"llm\",\"state\":\"loaded\","
			 "\"max_context_length\":32768,\"loaded_context_length\":8192},"
			 "{\"id\":\"b\",\"state\":\"not-loaded\",\"max_context_length\":4096}],\"object\":\"list\"}";
	ex_server_init(&s, 1234);
	assert_true(server_parse_lmstudio_v0(v0, strlen(v0), &s));
	assert_int_equal(s.n_models, 1);
	assert_string_equal(s.models[0].name, "a");
	assert_int_equal(s.models[0].n_ctx.v, 8192);
}

static void test_vllm_sglang_metrics(void **state)
{
	(void)state;
	const char *vm = "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n"
			 "# TYPE vllm:kv_cache_usage_perc gauge\n"
			 "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 0.25\n"
			 "vllm:num_requests_running{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 2.0\n"
			 "vllm:num_requests_waiting{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 1.0\n"
			 "vllm:cache_config_info{block_size=\"16\",cache_dtype=\"auto\",num_gpu_blocks=\"27000\",gpu_memory_utilization=\"0.9\"} 1.0\n"
			 "vllm:generation_tokens_total{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 100.0\n";
	struct ex_server s;
	ex_server_init(&s, 8000);
	assert_true(server_apply_metrics(vm, strlen(vm), 1, &s));
	assert_string_equal(s.kind, "vllm");
	assert_true(s.kv_usage.v == 0.25);
	assert_int_equal(s.kv_capacity_tokens.v, 27000 * 16);
	assert_int_equal(s.requests_running.v, 2);
	assert_int_equal(s.requests_waiting.v, 1);
	const char *vmodels = "{\"object\":\"list\",\"data\":[{\"id\":\"Qwen/Qwen3-8B\",\"object\":\"model\",\"owned_by\":\"vllm\",\"root\":\"Qwen/Qwen3-8B\",\"max_model_len\":40960}]}";
	assert_true(server_parse_v1_models(vmodels, strlen(vmodels), &s));
	assert_int_equal(s.models[0].n_ctx.v, 40960);

	const char *sg = "sglang:token_usage{model_name=\"m\"} 0.5\nsglang:num_used_tokens{model_name=\"m\"} 1000\n"
			 "sglang:max_total_num_tokens{model_name=\"m\"} 2000\nsglang:num_running_reqs{model_name=\"m\"} 3\n"
			 "sglang:num_queue_reqs{model_name=\"m\"} 0\n";
	ex_server_init(&s, 30000);
	assert_true(server_apply_metrics(sg, strlen(sg), 1, &s));
	assert_string_equal(s.kind, "sglang");
	assert_true(s.kv_usage.v == 0.5);
	assert_int_equal(s.kv_used_tokens.v, 1000);
	assert_int_equal(s.kv_capacity_tokens.v, 2000);
	assert_int_equal(s.requests_running.v, 3);
	/* vLLM's and SGLang's /health: 200 with no body */
	assert_true(server_parse_health("", 0, 200, &s));
	assert_string_equal(s.health, "ok");
	assert_false(server_parse_health("", 0, 500, &s));
	assert_false(server_parse_health("<html>", 6, 200, &s));
}

/* vllm:cache_config_info's labels: blocks, block size, KV dtype; labels that
 * are no whole number, and a gauge per engine, leave them N/A. */
static void test_vllm_cache_config(void **state)
{
	(void)state;
	struct ex_server s;
	const char *ok = "vllm:cache_config_info{block_size=\"32\",cache_dtype=\"fp8_e4m3\",num_gpu_blocks=\"10947\"} 1.0\n"
			 "vllm:kv_cache_usage_perc{engine=\"0\"} 0.5\n";
	ex_server_init(&s, 8000);
	assert_true(server_apply_metrics(ok, strlen(ok), 1, &s));
	assert_int_equal(s.kv_blocks.v, 10947);
	assert_int_equal(s.kv_block_size.v, 32);
	assert_string_equal(s.kv_cache_dtype, "fp8_e4m3");
	assert_int_equal(s.kv_usage_engines, 1);
	static const char *const bad[] = {
		"vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"None\"} 1\n",
		"vllm:cache_config_info{block_size=\"16x\",num_gpu_blocks=\"100\"} 1\n",
		"vllm:cache_config_info{block_size=\"-16\",num_gpu_blocks=\"100\"} 1\n",
		"vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"99999999999999999999\"} 1\n",
		"vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"100\",cache_dtype=\"a b\"} 1\n"
		"vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"200\"} 1\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ex_server_init(&s, 8000);
		server_apply_metrics(bad[i], strlen(bad[i]), 1, &s);
		assert_false(gtm_u64_ok(s.kv_blocks));
		assert_false(gtm_u64_ok(s.kv_capacity_tokens));
		assert_string_equal(s.kv_cache_dtype, "");
	}
	const char *two = "vllm:kv_cache_usage_perc{engine=\"0\"} 0.5\nvllm:kv_cache_usage_perc{engine=\"1\"} 0.25\n";
	ex_server_init(&s, 8000);
	assert_true(server_apply_metrics(two, strlen(two), 1, &s));
	assert_false(gtm_f64_ok(s.kv_usage));
	assert_int_equal(s.kv_usage_engines, 2);
	const char *old = "vllm:gpu_cache_usage_perc{model_name=\"m\"} 0.125\n";
	ex_server_init(&s, 8000);
	assert_true(server_apply_metrics(old, strlen(old), 1, &s));
	assert_true(s.kv_usage.v == 0.125);
	ex_server_clear_gauges(&s);
	assert_false(gtm_f64_ok(s.kv_usage));
}

static void test_prom_labels_and_garbage(void **state)
{
	(void)state;
	struct ex_server s;
	ex_server_init(&s, 1);
	static const char *const bad[] = {
		"", "\n\n", "# only comments\n", "llamacpp:tokens_predicted_total\n",
		"llamacpp:tokens_predicted_total{a=\"b\n", "llamacpp:tokens_predicted_total nan\n",
		"vllm:kv_cache_usage_perc 7\n", "<html>hello</html>", "{\"json\":true}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		server_apply_metrics(bad[i], strlen(bad[i]), 1, &s);
		assert_false(gtm_f64_ok(s.kv_usage));
	}
	const char *l = "m{a=\"x\\\"y\",b=\"2\"} 1";
	double v;
	assert_true(prom_value(l, strlen(l), "m", &v));
	assert_false(prom_value(l, strlen(l), "mm", &v));
}

static void test_malformed_and_oversized_json(void **state)
{
	(void)state;
	struct ex_server s;
	ex_server_init(&s, 1);
	static const char *const bad[] = {
		"", "{", "[]", "null", "{\"models\":{}}", "{\"data\":\"x\"}", "[1,2,\"x\",{}]",
		"{\"default_generation_settings\":[],\"model_path\":7}", "\xff\xfe",
		"{\"a\":1,\"a\":2}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		size_t n = strlen(bad[i]);
		server_parse_props(bad[i], n, &s);
		server_parse_v1_models(bad[i], n, &s);
		server_parse_ollama_ps(bad[i], n, &s);
		server_parse_lmstudio_v0(bad[i], n, &s);
		server_parse_lmstudio_v1(bad[i], n, &s);
		server_parse_health(bad[i], n, 200, &s);
		assert_false(server_body_is_disabled(bad[i], n));
	}
	assert_false(server_parse_props("{", 1, &s));
	/* deep nesting */
	size_t depth = 100000;
	char *deep = malloc(depth * 2 + 1);
	memset(deep, '[', depth);
	memset(deep + depth, ']', depth);
	deep[depth * 2] = 0;
	assert_false(server_parse_props(deep, depth * 2, &s));
	free(deep);
	/* over the 1 MiB bound: refused without parsing */
	size_t big = EX_MAX_BODY + 10;
	char *huge = malloc(big);
	memset(huge, ' ', big);
	memcpy(huge, "{\"models\":[]}", 13);
	assert_false(server_parse_ollama_ps(huge, big, &s));
	free(huge);
	/* many models: bounded */
	char *many = malloc(200000);
	size_t o = (size_t)sprintf(many, "{\"models\":[");
	for (int i = 0; i < 100; i++)
		o += (size_t)sprintf(many + o, "%s{\"name\":\"m%d\",\"size\":1}", i ? "," : "", i);
	sprintf(many + o, "]}");
	ex_server_init(&s, 1);
	assert_true(server_parse_ollama_ps(many, strlen(many), &s));
	assert_int_equal(s.n_models, EX_MAX_SERVER_MODELS);
	free(many);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_props_slots_models),
		cmocka_unit_test(test_real_alias_and_disabled),
		cmocka_unit_test(test_real_metrics_delta),
		cmocka_unit_test(test_llama_kv_ratio),
		cmocka_unit_test(test_real_metrics_first_sample_avg),
		cmocka_unit_test(test_sglang_gen_throughput),
		cmocka_unit_test(test_ollama_ps),
		cmocka_unit_test(test_lmstudio),
		cmocka_unit_test(test_vllm_sglang_metrics),
		cmocka_unit_test(test_vllm_cache_config),
		cmocka_unit_test(test_prom_labels_and_garbage),
		cmocka_unit_test(test_malformed_and_oversized_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
