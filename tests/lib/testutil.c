#include <stdarg.h>
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "portable.h"

static char fixture_buf[PATH_MAX];

const char *tu_shared_fixture(const char *sub)
{
	const char *base = getenv("GTM_SHARED_FIXTURES");
	struct stat st;

	if (!base)
		base = "../shared/fixtures";
	snprintf(fixture_buf, sizeof fixture_buf, "%s/%s", base, sub);
	if (stat(fixture_buf, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return fixture_buf;
}

const char *tu_shared_fixture_or_skip(const char *sub)
{
	const char *p = tu_shared_fixture(sub);
	if (!p) {
		printf("shared fixture folder %s/%s is absent: skipped\n",
		       getenv("GTM_SHARED_FIXTURES") ? getenv("GTM_SHARED_FIXTURES") : "../shared/fixtures", sub);
		exit(77);
	}
	return p;
}

char *tu_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f) {
		fprintf(stderr, "tu_read_file %s: %s\n", path, strerror(errno));
		abort();
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

char *tu_fixture_block(const char *path, const char *title)
{
	char *buf = tu_read_file(path, NULL), head[160];
	snprintf(head, sizeof head, "\n## %s", title);
	char *h = strstr(buf, head), *start = h ? strchr(h + 1, '\n') : NULL;
	if (!start) {
		fprintf(stderr, "tu_fixture_block %s: no block \"%s\"\n", path, title);
		abort();
	}
	start++;
	char *end = strstr(start, "\n## ");
	size_t len = end ? (size_t)(end - start) + 1 : strlen(start);
	char *out = malloc(len + 1);
	if (!out)
		abort();
	memcpy(out, start, len);
	out[len] = 0;
	free(buf);
	return out;
}

void tu_mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	mkdir(tmp, 0755);
}

void tu_write_file(const char *path, const void *data, size_t len)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		tu_mkdirs(dir);
	}
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len) {
		fprintf(stderr, "tu_write_file %s: %s\n", path, strerror(errno));
		abort();
	}
	fclose(f);
}

char *tu_tempdir(void)
{
	char tmpl[] = "/tmp/gtm-test-XXXXXX";
	char *d = mkdtemp(tmpl);
	if (!d)
		abort();
	return strdup(d);
}

const char *tu_source_root(void)
{
	const char *r = getenv("GTM_SOURCE_ROOT");
	return r ? r : ".";
}

const char *tu_build_root(void)
{
	const char *r = getenv("GTM_BUILD_ROOT");
	return r ? r : ".";
}

static int check_failures;

void tu_check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	check_failures++;
	fprintf(stderr, "FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int tu_failures(void)
{
	return check_failures;
}

static struct {
	struct os_memstream ms;
	char **text;
	size_t *len;
} memstreams[8];

FILE *tu_memstream(char **text, size_t *len)
{
	for (size_t i = 0; i < sizeof memstreams / sizeof memstreams[0]; i++) {
		if (memstreams[i].text)
			continue;
		FILE *f = os_memstream_open(&memstreams[i].ms);
		if (f) {
			memstreams[i].text = text;
			memstreams[i].len = len;
		}
		return f;
	}
	return NULL;
}

void tu_memclose(FILE *f)
{
	for (size_t i = 0; i < sizeof memstreams / sizeof memstreams[0]; i++) {
		if (!memstreams[i].text || memstreams[i].ms.f != f)
			continue;
		size_t n = 0;
		*memstreams[i].text = os_memstream_close(&memstreams[i].ms, &n);
		*memstreams[i].len = n;
		memstreams[i].text = NULL;
		return;
	}
	fprintf(stderr, "tu_memclose: not a tu_memstream\n");
	abort();
}
