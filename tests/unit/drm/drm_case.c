#include "drm_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysroot.h"
#include "sources/drm.h"
#include "testutil.h"

void dc_begin(struct drm_case *c)
{
	memset(c, 0, sizeof *c);
	c->root = tu_tempdir();
	setenv("GPUTASKMAN_ROOT", c->root, 1);
	sysroot_reset();
}

int dc_sample(struct drm_case *c, bool one_shot, uint64_t budget_ns)
{
	struct gtm_source_opts o = {.one_shot = one_shot, .scan_budget_ns = budget_ns};
	if (!c->priv) {
		c->priv = drm_source_ops.open(&o, &c->st);
		if (!c->priv)
			return -2;
	}
	snapshot_free(c->snap);
	c->snap = snapshot_new();
	raw_uses_clear(&c->uses);
	/* the options are the source's from open(); a new budget needs a new open */
	return drm_source_ops.sample(c->priv, c->snap, &c->uses, &c->st);
}

void dc_end(struct drm_case *c)
{
	if (c->priv)
		drm_source_ops.close(c->priv);
	snapshot_free(c->snap);
	raw_uses_free(&c->uses);
	tu_rmrf(c->root);
	free(c->root);
	unsetenv("GPUTASKMAN_ROOT");
	sysroot_reset();
	memset(c, 0, sizeof *c);
}

const struct gtm_raw_use *dc_use(const struct drm_case *c, uint32_t pid, int dev)
{
	for (size_t i = 0; i < c->uses.n; i++)
		if (c->uses.v[i].pid == pid && c->uses.v[i].use.dev_index == dev)
			return &c->uses.v[i];
	return NULL;
}

int dc_dev(const struct drm_case *c, const char *slot)
{
	for (int i = 0; i < c->snap->n_devices; i++)
		if (strcmp(c->snap->devices[i].pci_bus_id, slot) == 0)
			return c->snap->devices[i].index;
	return -1;
}

bool dc_note(const struct drm_case *c, const char *text)
{
	for (int i = 0; i < c->snap->n_notes; i++)
		if (strstr(c->snap->notes[i], text))
			return true;
	return false;
}

char *dc_replace(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	if (!at)
		abort();
	size_t n = strlen(s) - strlen(from) + strlen(to);
	char *out = malloc(n + 1);
	size_t pre = (size_t)(at - s);
	memcpy(out, s, pre);
	strcpy(out + pre, to);
	strcat(out, at + strlen(from));
	return out;
}
