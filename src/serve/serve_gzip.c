/* zlib (Debian zlib1g, priority required: on every Debian system) through a
 * small dlsym table, compiled against the Debian <zlib.h> types, as
 * http_mhd.c does for libmicrohttpd. libmicrohttpd does not compress. */
#include "serve/serve_gzip.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/util.h"

static struct {
	void *lib;
	int (*init2)(z_streamp, int, int, int, int, int, const char *, int);
	int (*deflate)(z_streamp, int);
	int (*end)(z_streamp);
	uLong (*bound)(z_streamp, uLong);
	bool ok;
	char why[160];
} z;
static pthread_once_t z_once = PTHREAD_ONCE_INIT;

static void z_load(void)
{
	static const struct { const char *name; size_t off; } syms[] = {
		{"deflateInit2_", offsetof(__typeof__(z), init2)},
		{"deflate", offsetof(__typeof__(z), deflate)},
		{"deflateEnd", offsetof(__typeof__(z), end)},
		{"deflateBound", offsetof(__typeof__(z), bound)},
	};
	z.lib = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!z.lib) {
		snprintf(z.why, sizeof z.why, "libz.so.1 not loadable: %s", dlerror());
		return;
	}
	for (size_t i = 0; i < ARRAY_LEN(syms); i++) {
		void *f = dlsym(z.lib, syms[i].name);
		if (!f) {
			snprintf(z.why, sizeof z.why, "libz.so.1 lacks %s", syms[i].name);
			return;
		}
		memcpy((char *)&z + syms[i].off, &f, sizeof f);
	}
	z.ok = true;
}

bool serve_gzip_available(char *why, size_t n)
{
	pthread_once(&z_once, z_load);
	if (!z.ok && why)
		str_copy(why, z.why, n);
	return z.ok;
}

bool serve_gzip(const char *text, size_t len, char **out, size_t *out_len)
{
	z_stream st;
	*out = NULL;
	*out_len = 0;
	if (!serve_gzip_available(NULL, 0) || len > 0x7fffffffu)
		return false;
	memset(&st, 0, sizeof st);
	/* windowBits 15 + 16: a gzip header and trailer; level 1: the text is
	 * repetitive, and a faster level keeps the collection thread's cost low */
	if (z.init2(&st, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, (int)sizeof st) != Z_OK)
		return false;
	size_t cap = (size_t)z.bound(&st, (uLong)len) + 32;
	char *buf = xmalloc(cap);
	st.next_in = (Bytef *)(uintptr_t)text;
	st.avail_in = (uInt)len;
	st.next_out = (Bytef *)buf;
	st.avail_out = (uInt)cap;
	int r = z.deflate(&st, Z_FINISH);
	size_t n = cap - st.avail_out;
	z.end(&st);
	if (r != Z_STREAM_END) {
		free(buf);
		return false;
	}
	*out = buf;
	*out_len = n;
	return true;
}
