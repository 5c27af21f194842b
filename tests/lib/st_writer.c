/* Test-only safetensors writer (st_writer.h). */
#include "st_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
	const char *name;
	unsigned bits;
} bits_of[] = {
	{"BOOL", 8}, {"F4", 4}, {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8}, {"I8", 8}, {"F8_E5M2", 8}, {"F8_E4M3", 8},
	{"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16}, {"U16", 16}, {"F16", 16}, {"BF16", 16},
	{"I32", 32}, {"U32", 32}, {"F32", 32}, {"C64", 64}, {"F64", 64}, {"I64", 64}, {"U64", 64},
};

struct stw {
	char *json;
	size_t len, cap;
	uint64_t off;
	int n_items;
	char *meta;
	size_t meta_len, meta_cap;
};

static void put(char **b, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*b = realloc(*b, *cap);
	}
	memcpy(*b + *len, s, n + 1);
	*len += n;
}

struct stw *stw_new(void)
{
	return calloc(1, sizeof(struct stw));
}

void stw_free(struct stw *w)
{
	if (!w)
		return;
	free(w->json);
	free(w->meta);
	free(w);
}

void stw_meta(struct stw *w, const char *key, const char *value)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s\"%s\":\"%s\"", w->meta_len ? "," : "", key, value);
	put(&w->meta, &w->meta_len, &w->meta_cap, buf);
}

void stw_tensor(struct stw *w, const char *name, const char *dtype, size_t n, const uint64_t *dims)
{
	char buf[1024];
	unsigned bits = 0;
	uint64_t el = 1;
	for (size_t i = 0; i < sizeof bits_of / sizeof bits_of[0]; i++)
		if (!strcmp(bits_of[i].name, dtype))
			bits = bits_of[i].bits;
	snprintf(buf, sizeof buf, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[", w->n_items++ ? "," : "", name, dtype);
	put(&w->json, &w->len, &w->cap, buf);
	for (size_t i = 0; i < n; i++) {
		el *= dims[i];
		snprintf(buf, sizeof buf, "%s%llu", i ? "," : "", (unsigned long long)dims[i]);
		put(&w->json, &w->len, &w->cap, buf);
	}
	uint64_t size = el * bits / 8;
	snprintf(buf, sizeof buf, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)w->off,
		 (unsigned long long)(w->off + size));
	put(&w->json, &w->len, &w->cap, buf);
	w->off += size;
}

uint8_t *stw_header(struct stw *w, size_t *len, uint64_t *data_len)
{
	size_t n = 2 + (w->meta_len ? w->meta_len + 17 : 0) + w->len + 1;
	char *j = malloc(n + 8);
	int k = snprintf(j, n + 8, "{%s%s%s%s%s}", w->meta_len ? "\"__metadata__\":{" : "", w->meta_len ? w->meta : "",
			 w->meta_len ? "}" : "", w->meta_len && w->len ? "," : "", w->len ? w->json : "");
	size_t jl = (size_t)k;
	while (jl % 8) /* the reference writer pads with spaces */
		j[jl++] = ' ';
	uint8_t *out = malloc(jl + 8);
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)((uint64_t)jl >> (8 * i));
	memcpy(out + 8, j, jl);
	free(j);
	*len = jl + 8;
	*data_len = w->off;
	return out;
}

int stw_write_file(struct stw *w, const char *path, int64_t extra)
{
	size_t len;
	uint64_t data;
	uint8_t *h = stw_header(w, &len, &data);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int rc = fd >= 0 && write(fd, h, len) == (ssize_t)len &&
			 ftruncate(fd, (off_t)((int64_t)(len + data) + extra)) == 0
		     ? 0
		     : -1;
	if (fd >= 0)
		close(fd);
	free(h);
	return rc;
}

static int mkdirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int stw_hf_put(const char *root, const char *org, const char *name, const char *ref, const char *rev,
	       const char *file, const char *src, char *blob)
{
	char repo[4096], path[4096], target[4096], hex[65];
	uint64_t h = 1469598103934665603ull;
	for (const char *s = file; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	for (const char *s = rev; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	for (int i = 0; i < 64; i++)
		hex[i] = "0123456789abcdef"[(h >> ((i % 16) * 4)) & 15];
	hex[64] = '\0';
	snprintf(repo, sizeof repo, "%s/models--%s--%s", root, org, name);
	snprintf(path, sizeof path, "%s/blobs", repo);
	if (mkdirs(path) != 0)
		return -1;
	snprintf(path, sizeof path, "%s/blobs/%s", repo, hex);
	if (rename(src, path) != 0)
		return -1;
	if (blob)
		snprintf(blob, 4096, "%s", path);
	snprintf(path, sizeof path, "%s/snapshots/%s", repo, rev);
	if (mkdirs(path) != 0)
		return -1;
	/* a file in a subfolder of the snapshot climbs one more level */
	int depth = 0;
	for (const char *s = file; *s; s++)
		depth += *s == '/';
	snprintf(target, sizeof target, "%s../../blobs/%s", depth ? "../" : "", hex);
	snprintf(path, sizeof path, "%s/snapshots/%s/%s", repo, rev, file);
	if (depth) {
		char sub[4096];
		snprintf(sub, sizeof sub, "%s", path);
		*strrchr(sub, '/') = '\0';
		mkdirs(sub);
	}
	unlink(path);
	if (symlink(target, path) != 0)
		return -1;
	if (ref) {
		snprintf(path, sizeof path, "%s/refs", repo);
		mkdirs(path);
		snprintf(path, sizeof path, "%s/refs/%s", repo, ref);
		FILE *f = fopen(path, "w");
		if (!f || fputs(rev, f) < 0 || fclose(f) != 0)
			return -1;
	}
	return 0;
}
