/* e2e: a process mapping safetensors shards through a Hugging Face cache
 * written here (its maps show only blobs/<hash>), read back by
 * `gputaskman inspect PID --json`: format, repo@ref, file, shard, header.
 * Args: gputaskman stand-in-mapper */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "st_writer.h"
#include "testutil.h"

static char *tmp;
static pid_t standin = -1;

static void cleanup(void)
{
	if (standin > 0) {
		kill(standin, SIGKILL);
		waitpid(standin, NULL, 0);
	}
	tu_rmrf(tmp);
}

static void shard(const char *path, int first, int n)
{
	char name[64];
	struct stw *w = stw_new();
	stw_meta(w, "format", "pt");
	for (int i = first; i < first + n; i++) {
		snprintf(name, sizeof name, "model.layers.%d.mlp.weight", i);
		stw_tensor(w, name, "BF16", 2, (const uint64_t[]){256, 512});
	}
	tu_check(stw_write_file(w, path, 0) == 0, "cannot write %s", path);
	stw_free(w);
}

/* Runs cmd with its stdout into a file of tmp; the output (malloc'd). */
static char *output_of(const char *cmd)
{
	char full[8192], out[700];
	snprintf(out, sizeof out, "%s/out", tmp);
	snprintf(full, sizeof full, "%s > '%s'", cmd, out);
	tu_check(system(full) == 0, "`%s` failed", cmd);
	return tu_read_file(out, NULL);
}

static json_t *model_with_file(json_t *models, const char *file)
{
	size_t i;
	json_t *m;
	json_array_foreach(models, i, m) {
		const char *f = json_string_value(json_object_get(json_object_get(m, "hf"), "file"));
		if (f && !strcmp(f, file))
			return m;
	}
	return NULL;
}

static void check(json_t *models, const char *file, unsigned shard_no, uint64_t params)
{
	json_t *m = model_with_file(models, file);
	tu_check(m != NULL, "no model for %s", file);
	if (!m)
		return;
	json_t *hf = json_object_get(m, "hf"), *st = json_object_get(m, "safetensors");
	tu_check(!strcmp(json_string_value(json_object_get(m, "format")) ?: "", "safetensors"), "%s: format", file);
	tu_check(!strcmp(json_string_value(json_object_get(m, "name")) ?: "", "acme/tiny-st"), "%s: name", file);
	tu_check(!strcmp(json_string_value(json_object_get(hf, "repo_revision")) ?: "", "acme/tiny-st@main"),
		 "%s: repo_revision", file);
	tu_check(json_integer_value(json_object_get(hf, "shard")) == shard_no &&
			 json_integer_value(json_object_get(hf, "shards")) == 2, "%s: shard", file);
	tu_check((uint64_t)json_integer_value(json_object_get(st, "params")) == params, "%s: params", file);
	tu_check(!strcmp(json_string_value(json_object_get(st, "main_dtype")) ?: "", "BF16"), "%s: dtype", file);
	tu_check(json_is_false(json_object_get(st, "incomplete")), "%s: incomplete", file);
	tu_check(strstr(json_string_value(json_object_get(m, "path")) ?: "", "/blobs/") != NULL, "%s: path is not the blob",
		 file);
}

int main(int argc, char **argv)
{
	char hub[600], src[700], blob1[4096], blob2[4096], link1[1200], link2[1200], ready[700], cmd[4096];
	if (argc != 3)
		return 1;
	tmp = tu_tempdir();
	atexit(cleanup);
	snprintf(hub, sizeof hub, "%s/hub", tmp);
	const char *rev = "0123456789abcdef0123456789abcdef01234567";
	snprintf(src, sizeof src, "%s/s1", tmp);
	shard(src, 0, 2);
	tu_check(stw_hf_put(hub, "acme", "tiny-st", "main", rev, "model-00001-of-00002.safetensors", src, blob1) == 0,
		 "hf layout 1");
	snprintf(src, sizeof src, "%s/s2", tmp);
	shard(src, 2, 1);
	tu_check(stw_hf_put(hub, "acme", "tiny-st", NULL, rev, "model-00002-of-00002.safetensors", src, blob2) == 0,
		 "hf layout 2");
	/* an older revision linking the same first blob, named by no ref */
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/models--acme--tiny-st/snapshots/0000old' && ln -s "
		 "'../../blobs/%s' '%s/models--acme--tiny-st/snapshots/0000old/model-00001-of-00002.safetensors'",
		 hub, strrchr(blob1, '/') + 1, hub);
	tu_check(system(cmd) == 0, "old revision");
	snprintf(link1, sizeof link1, "%s/models--acme--tiny-st/snapshots/%s/model-00001-of-00002.safetensors", hub, rev);
	snprintf(link2, sizeof link2, "%s/models--acme--tiny-st/snapshots/%s/model-00002-of-00002.safetensors", hub, rev);
	snprintf(ready, sizeof ready, "%s/ready", tmp);
	standin = fork();
	if (standin == 0) {
		execl(argv[2], argv[2], "--map", link1, "--map", link2, "--ready", ready, (char *)NULL);
		_exit(127);
	}
	struct stat st;
	for (int i = 0; i < 1200 && stat(ready, &st) != 0; i++) /* 60 s at most */
		usleep(50000);
	tu_check(stat(ready, &st) == 0, "stand-in not ready");
	/* what the kernel shows: the blobs, never the snapshot names */
	snprintf(cmd, sizeof cmd, "cat /proc/%d/maps", (int)standin); /* procfs files stat as empty */
	char *maps = output_of(cmd);
	tu_check(strstr(maps, blob1) && !strstr(maps, "model-0000"), "maps do not show blob names only");
	free(maps);
	snprintf(cmd, sizeof cmd, "'%s' inspect %d --json --no-probe", argv[1], (int)standin);
	char *out = output_of(cmd);
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	tu_check(j != NULL, "inspect --json is not JSON: %s (%.300s)", je.text, out);
	json_t *models = json_object_get(j, "models");
	check(models, "model-00001-of-00002.safetensors", 1, 2 * 256 * 512);
	check(models, "model-00002-of-00002.safetensors", 2, 256 * 512);
	/* the text view names them too */
	snprintf(cmd, sizeof cmd, "'%s' inspect %d --no-probe", argv[1], (int)standin);
	char *text = output_of(cmd);
	tu_check(strstr(text, "acme/tiny-st@main model-00001-of-00002.safetensors (shard 1 of 2)") != NULL,
		 "text lacks the shard line: %.2000s", text);
	free(text);
	json_decref(j);
	free(out);
	return tu_failures() ? 1 : 0;
}
