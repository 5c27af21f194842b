#include "core/snapshot.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void (*gtm_ident_free_hook)(struct gtm_ident *);
void (*gtm_explain_free_hook)(struct gtm_explain *);

const char *gtm_vendor_name(enum gtm_vendor v)
{
	static const char *const names[] = {"other", "nvidia", "amd", "intel", "apple"};
	return (unsigned)v < ARRAY_LEN(names) ? names[v] : "other";
}

const char *gtm_owner_name(enum gtm_owner o)
{
	static const char *const names[] = {"local", "matched", "guessed", "host", "none", "unattributed", "exited"};
	return (unsigned)o < ARRAY_LEN(names) ? names[o] : "none";
}

const char *gtm_mode_name(enum gtm_mode m)
{
	static const char *const names[] = {"native", "container", "wsl"};
	return (unsigned)m < ARRAY_LEN(names) ? names[m] : "native";
}

struct gtm_proc_detail *proc_detail_ref(struct gtm_proc_detail *d)
{
	if (d)
		atomic_fetch_add(&d->refs, 1);
	return d;
}

void proc_detail_unref(struct gtm_proc_detail *d)
{
	if (!d || atomic_fetch_sub(&d->refs, 1) != 1)
		return;
	for (int i = 0; i < d->argc; i++)
		free(d->argv[i]);
	free(d->argv);
	for (size_t i = 0; i < d->n_maps; i++)
		free(d->maps[i]);
	free(d->maps);
	free(d->exe);
	free(d->cwd);
	free(atomic_load(&d->env));
	free(d);
}

const struct gtm_proc_env *proc_detail_environ(const struct gtm_proc_detail *d)
{
	/* acquire: pairs with the release that published it on another thread */
	return d ? atomic_load_explicit(&d->env, memory_order_acquire) : NULL;
}

void proc_detail_set_environ(struct gtm_proc_detail *d, const char *blob, size_t len)
{
	struct gtm_proc_env *env = xmalloc(sizeof *env + len + 1), *none = NULL;

	env->len = len;
	if (len)
		memcpy(env->blob, blob, len);
	env->blob[len] = '\0';
	if (!atomic_compare_exchange_strong_explicit(&d->env, &none, env, memory_order_release, memory_order_relaxed))
		free(env);
}

const char *proc_detail_getenv(const struct gtm_proc_detail *d, const char *name)
{
	const struct gtm_proc_env *env = proc_detail_environ(d);
	size_t nl = strlen(name);
	const char *p, *end;

	if (!env)
		return NULL;
	p = env->blob;
	end = p + env->len;
	while (p < end) {
		size_t len = strnlen(p, (size_t)(end - p));
		if (len > nl && p[nl] == '=' && memcmp(p, name, nl) == 0)
			return p + nl + 1;
		p += len + 1;
	}
	return NULL;
}

struct gtm_snapshot *snapshot_new(void)
{
	struct gtm_snapshot *s = xcalloc(1, sizeof *s);
	s->schema_version = GTM_SCHEMA_VERSION;
	s->taken_at_ns = now_realtime_ns();
	s->monotonic_ns = now_monotonic_ns();
	return s;
}

void snapshot_free(struct gtm_snapshot *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n_processes; i++) {
		struct gtm_process *p = &s->processes[i];
		proc_detail_unref(p->detail);
		for (int k = 0; k < p->n_uses; k++)
			gpu_use_release(&p->uses[k]);
		free(p->uses);
		if (p->ident && gtm_ident_free_hook)
			gtm_ident_free_hook(p->ident);
		if (p->explain && gtm_explain_free_hook)
			gtm_explain_free_hook(p->explain);
	}
	free(s->processes);
	free(s->devices);
	for (int i = 0; i < s->n_notes; i++)
		free(s->notes[i]);
	free(s->notes);
	free(s);
}

/* Capacities are kept implicitly: grow_array doubles from 1, so an array
 * of n elements has the smallest power of two >= n. */
static size_t cap_of(int n)
{
	size_t c = 1;
	while (c < (size_t)n)
		c *= 2;
	return n == 0 ? 0 : c;
}

struct gtm_device *snapshot_add_device(struct gtm_snapshot *s)
{
	size_t cap = cap_of(s->n_devices);
	s->devices = grow_array(s->devices, sizeof *s->devices, &cap, (size_t)s->n_devices);
	struct gtm_device *d = &s->devices[s->n_devices];
	memset(d, 0, sizeof *d);
	d->index = s->n_devices++;
	d->driver_index = -1;
	d->energy_mj = d->pcie_replays = d->ecc_corrected = d->ecc_uncorrected = d->throttle_reasons = GTM_U64_NA;
	return d;
}

struct gtm_process *snapshot_add_process(struct gtm_snapshot *s)
{
	size_t cap = cap_of(s->n_processes);
	s->processes = grow_array(s->processes, sizeof *s->processes, &cap, (size_t)s->n_processes);
	struct gtm_process *p = &s->processes[s->n_processes++];
	memset(p, 0, sizeof *p);
	p->rss = GTM_U64_NA;
	p->owner = GTM_OWNER_NONE;
	return p;
}

struct gtm_gpu_use *process_add_use(struct gtm_process *p)
{
	size_t cap = cap_of(p->n_uses);
	p->uses = grow_array(p->uses, sizeof *p->uses, &cap, (size_t)p->n_uses);
	struct gtm_gpu_use *u = &p->uses[p->n_uses++];
	memset(u, 0, sizeof *u);
	u->vram = u->spill = u->paged = GTM_U64_NA;
	u->sm_pct = u->enc_pct = u->dec_pct = GTM_F64_NA;
	u->gfx_pct = u->copy_pct = u->video_pct = GTM_F64_NA;
	return u;
}

void gpu_use_set_engines(struct gtm_gpu_use *u, const struct gtm_engine *e, int n)
{
	gpu_use_release(u);
	if (n <= 0)
		return;
	if (n > GTM_MAX_ENGINES)
		n = GTM_MAX_ENGINES;
	u->engines = xmalloc((size_t)n * sizeof *u->engines);
	memcpy(u->engines, e, (size_t)n * sizeof *u->engines);
	u->n_engines = n;
}

void gpu_use_copy(struct gtm_gpu_use *dst, const struct gtm_gpu_use *src)
{
	*dst = *src;
	dst->engines = NULL;
	dst->n_engines = 0;
	gpu_use_set_engines(dst, src->engines, src->n_engines);
}

void gpu_use_release(struct gtm_gpu_use *u)
{
	free(u->engines);
	u->engines = NULL;
	u->n_engines = 0;
}

void snapshot_add_note(struct gtm_snapshot *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	size_t cap = cap_of(s->n_notes);
	s->notes = grow_array(s->notes, sizeof *s->notes, &cap, (size_t)s->n_notes);
	s->notes[s->n_notes++] = xstrdup(buf);
}

struct gtm_source_status *snapshot_add_source(struct gtm_snapshot *s, const char *name)
{
	if (s->n_sources >= (int)ARRAY_LEN(s->sources))
		return &s->sources[ARRAY_LEN(s->sources) - 1];
	struct gtm_source_status *st = &s->sources[s->n_sources++];
	memset(st, 0, sizeof *st);
	str_copy(st->name, name, sizeof st->name);
	return st;
}

gtm_u64 process_vram_total(const struct gtm_process *p)
{
	gtm_u64 t = GTM_U64_NA;
	for (int i = 0; i < p->n_uses; i++) {
		if (!gtm_u64_ok(p->uses[i].vram))
			continue;
		t.v += p->uses[i].vram.v;
		/* measured only when every part is: a matched part (WSL's '*'/'?') says so, a guess most */
		enum gtm_prov q = p->uses[i].vram.prov;
		if (q == GTM_MATCHED || q == GTM_GUESSED)
			t.prov = t.prov == GTM_GUESSED ? GTM_GUESSED : q;
		else if (t.prov == GTM_UNAVAILABLE)
			t.prov = GTM_MEASURED;
	}
	return t;
}
