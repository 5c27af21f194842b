/* Fuzzes the pure half of the Windows environment reader
 * (src/platform/windows/win_env.c). The first byte picks the layout (bit 0:
 * x64 or WOW64's x86) and the output bound (the rest of it, in 16-byte
 * steps, 0 meaning the full PROC_ENVIRON_MAX); the remaining bytes are read
 * as PEB bytes, as process parameters and as a UTF-16 environment block,
 * as a hostile process could lay them out. Invariants: nothing is read
 * past the input, the output stays within its bound, ends after a whole
 * entry (a NUL) and is valid UTF-8. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform_api.h"
#include "platform/windows/win_env.h"

static char out[PROC_ENVIRON_MAX];

/* Whether s[0..n) is well-formed UTF-8 (no overlong forms, no surrogates). */
static bool valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i], k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		if (!k || i + k > n)
			return false;
		uint32_t cp = k == 1 ? c : c & (0x7Fu >> k);
		for (unsigned j = 1; j < k; j++) {
			if ((s[i + j] & 0xC0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3F);
		}
		static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
		if (cp < min[k] || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
			return false;
		i += k;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const struct win_peb_layout *l = data[0] & 1 ? &win_peb_x86 : &win_peb_x64;
	size_t cap = (size_t)(data[0] >> 1) * 16;
	if (cap == 0 || cap > sizeof out)
		cap = sizeof out;
	const uint8_t *b = data + 1;
	size_t n = size - 1;
	uint64_t params, env, env_size;
	/* exact copies, so ASan sees a read past the input */
	uint8_t *copy = malloc(n ? n : 1);
	memcpy(copy, b, n);
	(void)win_peb_params(copy, n, l, &params);
	(void)win_params_environment(copy, n, l, &env, &env_size);
	size_t k = win_environ_to_utf8(copy, n, out, cap);
	free(copy);
	if (k > cap || (k && out[k - 1] != '\0') || !valid_utf8((const unsigned char *)out, k))
		abort();
	return 0;
}
