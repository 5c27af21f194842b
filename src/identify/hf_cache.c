/* Hugging Face cache: blob → snapshot file, revision and ref (hf_cache.h). */
#include "identify/hf_cache.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "portable.h"

bool hf_shard_of(const char *name, unsigned *shard, unsigned *n_shards)
{
	/* the last "-DIGITS-of-DIGITS" in the name */
	for (const char *p = strstr(name, "-of-"); p; p = strstr(p + 1, "-of-")) {
		const char *a = p;
		while (a > name && a[-1] >= '0' && a[-1] <= '9')
			a--;
		char *end;
		if (a == p || a == name || a[-1] != '-' || p - a > 6)
			continue;
		unsigned long k = strtoul(a, NULL, 10), n = strtoul(p + 4, &end, 10);
		if (end == p + 4 || end - (p + 4) > 6 || k == 0 || n == 0 || k > n)
			continue;
		*shard = (unsigned)k;
		*n_shards = (unsigned)n;
		return true;
	}
	return false;
}

const char *hf_cache_label(const struct hf_cache_file *f, char *buf, size_t n)
{
	snprintf(buf, n, "%s@%.*s", f->repo, f->ref[0] ? 63 : 12, f->ref[0] ? f->ref : f->revision);
	return buf;
}

/* "models--org--name" → "org/name". */
static void repo_name(const char *folder, size_t len, char *out, size_t n)
{
	const char *c = folder + strlen("models--");
	size_t k = len - strlen("models--");
	const char *sep = memmem(c, k, "--", 2);
	if (sep)
		snprintf(out, n, "%.*s/%.*s", (int)(sep - c), c, (int)(k - (size_t)(sep - c) - 2), sep + 2);
	else
		snprintf(out, n, "%.*s", (int)k, c);
}

/* The ref naming a commit: main first, then others in name order (refs/pr/N
 * are one level deeper). */
static void find_ref(const char *repo, const char *rev, char *out, size_t n)
{
	char buf[128];
	out[0] = '\0';
	if (sysroot_read(buf, sizeof buf, "%s/refs/main", repo) > 0) {
		buf[strcspn(buf, "\r\n")] = '\0';
		if (!strcmp(buf, rev)) {
			snprintf(out, n, "main");
			return;
		}
	}
	DIR *d = sysroot_opendir("%s/refs", repo);
	struct dirent *de;
	int seen = 0;
	while (d && seen++ < HF_CACHE_MAX_ENTRIES && (de = readdir(d))) {
		if (de->d_name[0] == '.' || sysroot_read(buf, sizeof buf, "%s/refs/%s", repo, de->d_name) <= 0)
			continue;
		buf[strcspn(buf, "\r\n")] = '\0';
		if (!strcmp(buf, rev) && (!out[0] || strcmp(de->d_name, out) < 0))
			snprintf(out, n, "%s", de->d_name);
	}
	if (d)
		closedir(d);
}

/* Whether a link's target ends in blobs/<hash>. */
static bool links_to(const char *target, const char *hash)
{
	size_t t = strlen(target), h = strlen(hash);
	return t > h + 6 && !strcmp(target + t - h, hash) && !strncmp(target + t - h - 6, "blobs/", 6);
}

/* Looks for a link to hash in one snapshot folder (and its subfolders one
 * level down); the file's path inside the snapshot into file. */
static bool scan_snapshot(const char *dir, const char *prefix, const char *hash, int depth, char *file, size_t n)
{
	char target[4096], sub[4096];
	DIR *d = sysroot_opendir("%s", dir);
	struct dirent *de;
	bool found = false;
	int seen = 0;
	while (d && !found && seen++ < HF_CACHE_MAX_ENTRIES && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (sysroot_readlink(target, sizeof target, "%s/%s", dir, de->d_name) > 0) {
			if (links_to(target, hash) && (size_t)snprintf(file, n, "%s%s", prefix, de->d_name) < n)
				found = true;
		} else if (depth == 0 && (size_t)snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name) < sizeof sub) {
			char pre[600];
			snprintf(pre, sizeof pre, "%s/", de->d_name);
			found = scan_snapshot(sub, pre, hash, 1, file, n);
		}
	}
	if (d)
		closedir(d);
	return found;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every snapshot linking to the blob; the one a ref names wins (main first). */
static bool find_blob(const char *repo, const char *hash, struct hf_cache_file *out)
{
	char *revs[HF_CACHE_MAX_REVISIONS], dir[4096], file[512];
	size_t nr = 0;
	bool found = false;
	DIR *d = sysroot_opendir("%s/snapshots", repo);
	struct dirent *de;
	while (d && nr < HF_CACHE_MAX_REVISIONS && (de = readdir(d)))
		if (de->d_name[0] != '.')
			revs[nr++] = xstrdup(de->d_name);
	if (d)
		closedir(d);
	if (nr)
		qsort(revs, nr, sizeof *revs, cmp_str);
	for (size_t i = 0; i < nr; i++) {
		char ref[64];
		snprintf(dir, sizeof dir, "%s/snapshots/%s", repo, revs[i]);
		if (!scan_snapshot(dir, "", hash, 0, file, sizeof file))
			continue;
		find_ref(repo, revs[i], ref, sizeof ref);
		/* the first match, unless a later one has a ref and this one has none (or not main) */
		bool better = !found || (ref[0] && (!out->ref[0] || (!strcmp(ref, "main") && strcmp(out->ref, "main"))));
		if (better) {
			found = true;
			str_copy(out->revision, revs[i], sizeof out->revision);
			str_copy(out->ref, ref, sizeof out->ref);
			str_copy(out->file, file, sizeof out->file);
			str_copy(out->snapshot, dir, sizeof out->snapshot);
		}
	}
	for (size_t i = 0; i < nr; i++)
		free(revs[i]);
	return found;
}

bool hf_cache_identify(const char *path, struct hf_cache_file *out)
{
	const char *m = NULL;
	for (const char *p = path_find(path, "/models--"); p; p = path_find(p + 1, "/models--"))
		m = p;
	memset(out, 0, sizeof *out);
	if (!m)
		return false;
	const char *folder = m + 1, *end = path_next_sep(folder);
	if (!end || (size_t)(end - folder) <= strlen("models--") || (size_t)(end - path) >= sizeof out->snapshot)
		return false;
	char repo[4096];
	snprintf(repo, sizeof repo, "%.*s", (int)(end - path), path);
	repo_name(folder, (size_t)(end - folder), out->repo, sizeof out->repo);
	const char *rest = end + 1;
	if (str_starts(rest, "blobs/") && !path_next_sep(rest + 6) && strlen(rest + 6) >= 40 && !strstr(rest, "..")) {
		out->is_blob = true;
		if (!find_blob(repo, rest + 6, out))
			return false;
	} else if (str_starts(rest, "snapshots/")) {
		const char *rev = rest + strlen("snapshots/"), *rend = path_next_sep(rev);
		if (!rend || rend == rev || (size_t)(rend - rev) >= sizeof out->revision || !rend[1])
			return false;
		snprintf(out->revision, sizeof out->revision, "%.*s", (int)(rend - rev), rev);
		str_copy(out->file, rend + 1, sizeof out->file);
		snprintf(out->snapshot, sizeof out->snapshot, "%.*s", (int)(rend - path), path);
		find_ref(repo, out->revision, out->ref, sizeof out->ref);
	} else {
		return false;
	}
	hf_shard_of(path_base(out->file), &out->shard, &out->n_shards);
	return true;
}
