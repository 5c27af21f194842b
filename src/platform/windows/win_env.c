/* The PEB's environment fields and the UTF-16 → UTF-8 conversion of its
 * block (win_env.h). Offsets: Geoff Chappell's RTL_USER_PROCESS_PARAMETERS
 * and PEB pages, System Informer's phnt (ntpebteb.h, ntrtl.h) agree; x86
 * Environment 0x48 and EnvironmentSize 0x290, x64 0x80 and 0x3F0. */
#include "win_env.h"

#include <string.h>

const struct win_peb_layout win_peb_x64 = {.ptr_size = 8, .peb_params = 0x20, .params_env = 0x80,
					   .params_env_size = 0x3F0};
const struct win_peb_layout win_peb_x86 = {.ptr_size = 4, .peb_params = 0x10, .params_env = 0x48,
					   .params_env_size = 0x290};

size_t win_peb_bytes(const struct win_peb_layout *l)
{
	return (size_t)l->peb_params + l->ptr_size;
}

size_t win_params_bytes(const struct win_peb_layout *l)
{
	size_t env = (size_t)l->params_env + l->ptr_size, size = (size_t)l->params_env_size + l->ptr_size;
	return env > size ? env : size;
}

/* A little-endian pointer-sized field (the target's bitness, not ours). */
static bool read_ptr(const uint8_t *buf, size_t n, size_t off, uint8_t ptr_size, uint64_t *out)
{
	if (off > n || n - off < ptr_size)
		return false;
	uint64_t v = 0;
	for (unsigned i = 0; i < ptr_size; i++)
		v |= (uint64_t)buf[off + i] << (8 * i);
	*out = v;
	return true;
}

bool win_peb_params(const uint8_t *peb, size_t n, const struct win_peb_layout *l, uint64_t *params)
{
	return read_ptr(peb, n, l->peb_params, l->ptr_size, params) && *params != 0;
}

bool win_params_environment(const uint8_t *params, size_t n, const struct win_peb_layout *l, uint64_t *env,
			    uint64_t *size)
{
	return read_ptr(params, n, l->params_env, l->ptr_size, env) && *env != 0 &&
	       read_ptr(params, n, l->params_env_size, l->ptr_size, size);
}

static unsigned unit_at(const uint8_t *blk, size_t i)
{
	return (unsigned)blk[2 * i] | (unsigned)blk[2 * i + 1] << 8;
}

/* The UTF-8 of one code point into out (4 bytes of room). */
static size_t put_utf8(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* The code point at unit *i (a surrogate pair takes two), advancing *i. */
static uint32_t next_code_point(const uint8_t *blk, size_t units, size_t *i)
{
	unsigned u = unit_at(blk, (*i)++);
	if (u >= 0xD800 && u < 0xDC00 && *i < units) {
		unsigned lo = unit_at(blk, *i);
		if (lo >= 0xDC00 && lo < 0xE000) {
			(*i)++;
			return 0x10000 + ((uint32_t)(u - 0xD800) << 10) + (lo - 0xDC00);
		}
	}
	return u >= 0xD800 && u < 0xE000 ? 0xFFFD : u;
}

size_t win_environ_to_utf8(const uint8_t *blk, size_t n, char *out, size_t cap)
{
	size_t units = n / 2, done = 0, w = 0, i = 0;

	while (i < units && unit_at(blk, i) != 0) {
		/* one entry, up to its NUL: kept only whole */
		for (;;) {
			if (i == units)
				return done; /* cut by the bound: no NUL */
			uint32_t cp = next_code_point(blk, units, &i);
			char enc[4];
			size_t k = cp ? put_utf8(cp, enc) : 1;
			if (cap - w < k)
				return done;
			if (!cp) {
				out[w++] = '\0';
				break;
			}
			memcpy(out + w, enc, k);
			w += k;
		}
		done = w;
	}
	return done;
}
