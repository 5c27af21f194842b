/* Fuzzes the streaming JSON writer with what it is fed from outside: command
 * lines, paths and names are arbitrary bytes. Whatever the bytes, the
 * document must parse as JSON, and each string must come back as the input,
 * byte for byte, but for '?' in place of a byte that is not part of
 * well-formed UTF-8. The input is split at NUL bytes into strings, written as
 * an array and as the values of an object nested a few levels deep; its first
 * eight bytes are also written as a double (NaN and infinities are null, and
 * anything else, to the largest double, must parse back). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/json_writer.h"

static struct jw w;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *text = NULL;
	size_t text_len = 0;
	FILE *mem = open_memstream(&text, &text_len);

	if (!in || !mem)
		abort();
	memcpy(in, data, size);
	in[size] = '\0';
	jw_init(&w, mem);
	jw_begin_object(&w, NULL);
	jw_begin_array(&w, "strings");
	size_t n_strings = 0;
	for (size_t off = 0; off <= size; off += strlen(in + off) + 1, n_strings++)
		jw_str(&w, NULL, in + off);
	jw_end_array(&w);
	jw_begin_object(&w, "nested");
	jw_begin_array(&w, "deeper");
	jw_begin_object(&w, NULL);
	jw_str(&w, "first", in);
	jw_u64(&w, "size", gtm_u64_of(size, GTM_MEASURED));
	jw_f64(&w, "ratio", gtm_f64_of(size ? (double)n_strings / (double)size : 0.0, GTM_MEASURED));
	/* the first eight bytes as a double: any value a reading could hold */
	double raw = 0.0;
	if (size >= sizeof raw)
		memcpy(&raw, data, sizeof raw);
	jw_f64(&w, "raw", gtm_f64_of(raw, GTM_MEASURED));
	jw_u64(&w, "raw_u64", gtm_u64_of((uint64_t)size << 40 | size, GTM_MEASURED));
	jw_end_object(&w);
	jw_end_array(&w);
	jw_end_object(&w);
	jw_end_object(&w);
	if (jw_finish(&w) != 0)
		abort();
	fclose(mem);

	json_error_t err;
	json_t *j = json_loadb(text, text_len, 0, &err);
	if (!j)
		abort(); /* the writer wrote something that is not JSON */
	json_t *arr = json_object_get(j, "strings");
	if (json_array_size(arr) != n_strings)
		abort();
	size_t off = 0;
	for (size_t i = 0; i < n_strings; i++) {
		const char *got = json_string_value(json_array_get(arr, i));
		size_t len = strlen(in + off);
		/* an empty string is null (jw_str's rule); otherwise byte for byte the
		 * input, but for '?' in place of a byte of broken UTF-8 */
		if (len == 0) {
			if (!json_is_null(json_array_get(arr, i)))
				abort();
		} else {
			if (!got || strlen(got) != len)
				abort();
			for (size_t k = 0; k < len; k++)
				if (got[k] != in[off + k] && !(got[k] == '?' && (unsigned char)in[off + k] >= 0x80))
					abort();
		}
		off += len + 1;
	}
	json_decref(j);
	free(text);
	free(in);
	return 0;
}
