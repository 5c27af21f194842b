#include "nvml_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/nvml.h"
#include "testutil.h"

static char *dir;
static int generation;

void nt_write_scenario(const char *text)
{
	char tmp[512], path[512];

	if (!dir)
		dir = tu_tempdir();
	snprintf(tmp, sizeof tmp, "%s/scenario.%d", dir, generation++);
	snprintf(path, sizeof path, "%s/scenario", dir);
	tu_write_file(tmp, text, strlen(text));
	if (rename(tmp, path) != 0)
		abort();
	setenv("GTM_FAKE_NVML_SCENARIO", path, 1);
}

void nt_cleanup(void)
{
	if (dir) {
		tu_rmrf(dir);
		free(dir);
		dir = NULL;
	}
}

void *nt_open(struct gtm_source_status *st)
{
	struct gtm_source_opts o = {.one_shot = true};
	memset(st, 0, sizeof *st);
	return nvml_source_ops.open(&o, st);
}

void nt_sample(void *priv, struct nt_sample *s)
{
	memset(s, 0, sizeof *s);
	s->snap = snapshot_new();
	s->rc = nvml_source_ops.sample(priv, s->snap, &s->uses, &s->st);
}

void nt_sample_free(struct nt_sample *s)
{
	snapshot_free(s->snap);
	raw_uses_free(&s->uses);
}

const struct gtm_raw_use *nt_find_use(const struct nt_sample *s, uint32_t pid, int dev_index)
{
	for (size_t i = 0; i < s->uses.n; i++)
		if (s->uses.v[i].pid == pid && s->uses.v[i].use.dev_index == dev_index)
			return &s->uses.v[i];
	return NULL;
}
