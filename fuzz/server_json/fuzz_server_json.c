/* Fuzz target: every server answer parser (JSON and Prometheus text) over the same bytes. */
#include <stddef.h>
#include <stdint.h>

#include "explain/server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *b = (const char *)data;
	struct ex_server s;
	ex_server_init(&s, 1);
	server_parse_props(b, size, &s);
	server_parse_slots(b, size, &s);
	server_parse_v1_models(b, size, &s);
	server_parse_ollama_ps(b, size, &s);
	server_parse_lmstudio_v1(b, size, &s);
	server_parse_lmstudio_v0(b, size, &s);
	server_parse_health(b, size, 200, &s);
	server_body_is_disabled(b, size);
	server_apply_metrics(b, size, 1, &s);
	server_apply_metrics(b, size, 2000000000ull, &s);
	return 0;
}
