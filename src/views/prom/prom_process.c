/* Per-process families for the kept processes; the rest of each device's
 * processes fold into one pid="other" series and are counted. */
#include <string.h>

#include "identify/ident.h"
#include "views/prom/prom_internal.h"

static const struct prom_family f_info = {"gputaskman_process_info", "gauge",
	"A process using a GPU (value 1): its comm, runtime, how its owner was established (local, matched, guessed, host, "
	"windows, exited, unattributed) and category."};
static const struct prom_family f_mem = {"gputaskman_process_gpu_memory_bytes", "gauge",
	"GPU memory a process holds by pool: device (VRAM) or shared (spill to " PROM_HELP_POOL "). "
	"pid=\"other\" sums the measured memory of the processes beyond --max-processes. Under WSL2 the VM "
	"row (owner=\"windows\", process=\"vmwp.exe\") is the measured total of every Linux context; the "
	"processes matched to them are in gputaskman_process_gpu_memory_inferred_bytes, never here: "
	"a sum by gpu counts each byte once."};
static const struct prom_family f_inferred = {"gputaskman_process_gpu_memory_inferred_bytes", "gauge",
	"WSL2: a Linux process's share of the VM row's GPU memory, a vmwp.exe context matched "
	"(provenance=\"matched\") or guessed (provenance=\"guessed\") to it by size and order. Parts of the VM "
	"row's gputaskman_process_gpu_memory_bytes: never add the two."};
static const struct prom_family f_paged = {"gputaskman_process_gpu_memory_paged_bytes", "gauge",
	"Demand-paged or unified memory of a process, where a platform reports it per process (WSL2: the VM "
	"row's holds its matched processes', which have none here)."};
static const struct prom_family f_engine = {"gputaskman_process_engine_utilization_ratio", "gauge",
	"A process's load on a GPU engine (0-1): sm, encoder, decoder (NVML samples), graphics, copy, video (DRM)."};
static const struct prom_family f_folded = {"gputaskman_folded_processes", "gauge",
	"Processes on a GPU folded into pid=\"other\" by --max-processes."};

/* The pools of process_gpu_memory_bytes: VRAM, then spill. */
static const char *const pool[2] = {"device", "shared"};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A process's labels; with u, the GPU's too (its driver index first, its
 * uuid, PCI address and MIG instance after the process's). */
static void proc_labels(struct prom_out *o, const struct prom_proc *pp, const struct prom_use *u)
{
	const struct prom_container *c = pp->container;
	if (u)
		prom_add_label_int(o, "gpu", u->dev ? prom_gpu_number(u->dev) : u->gpu);
	prom_add_label(o, "pid", pp->pid);
	prom_add_label(o, "process", pp->p->name);
	prom_add_label(o, "runtime", pp->runtime);
	prom_add_label(o, "owner", pp->owner);
	if (c) {
		prom_add_label(o, "container_id", c->container_id);
		prom_add_label(o, "pod", c->pod);
		prom_add_label(o, "namespace", c->ns);
		prom_add_label(o, "container", c->container);
	}
	if (u)
		prom_use_identity(o, u);
}

static void write_info(const struct prom_selection *sel, struct prom_out *o)
{
	prom_family(o, &f_info);
	for (int i = 0; i < sel->kept; i++) {
		const struct prom_proc *pp = &sel->procs[i];
		proc_labels(o, pp, NULL);
		if (pp->p->ident)
			prom_add_label(o, "category", ident_category_name(pp->p->ident->category));
		prom_write(o, 1);
	}
}

/* The kept processes' memory: the measured (inferred false) or the WSL
 * matched/guessed (inferred true, labelled with its provenance). */
static void write_kept_memory(const struct prom_selection *sel, struct prom_out *o, bool inferred)
{
	for (int i = 0; i < sel->kept; i++) {
		const struct prom_proc *pp = &sel->procs[i];
		for (int k = 0; k < pp->n_uses; k++) {
			const gtm_u64 v[2] = {pp->uses[k].vram, pp->uses[k].spill};
			if (pp->uses[k].inferred != inferred)
				continue;
			for (int j = 0; j < 2; j++) {
				if (!gtm_u64_ok(v[j]))
					continue;
				proc_labels(o, pp, &pp->uses[k]);
				prom_add_label(o, "pool", pool[j]);
				if (inferred)
					prom_add_label(o, "provenance", gtm_prov_name(v[j].prov));
				prom_write_u64(o, v[j].v);
			}
		}
	}
}

static void write_memory(const struct gtm_snapshot *s, const struct prom_selection *sel, struct prom_out *o)
{
	prom_family(o, &f_mem);
	write_kept_memory(sel, o, false);
	/* the folded rest, per device: the sum of what is measured (a matched
	 * row's bytes are in the VM row already, kept or folded) */
	for (int d = 0; d < s->n_devices; d++) {
		int gpu = s->devices[d].index;
		gtm_u64 sum[2] = {GTM_U64_NA, GTM_U64_NA};
		for (int i = sel->kept; i < sel->n; i++)
			for (int k = 0; k < sel->procs[i].n_uses; k++) {
				const struct prom_use *u = &sel->procs[i].uses[k];
				const gtm_u64 v[2] = {u->vram, u->spill};
				for (int j = 0; j < 2; j++)
					if (u->gpu == gpu && !u->inferred && gtm_u64_ok(v[j]) && v[j].prov == GTM_MEASURED)
						sum[j] = gtm_u64_of(sat_add(gtm_u64_ok(sum[j]) ? sum[j].v : 0, v[j].v),
								    GTM_MEASURED);
			}
		for (int j = 0; j < 2; j++) {
			if (!gtm_u64_ok(sum[j]))
				continue;
			prom_add_label_int(o, "gpu", prom_gpu_number(&s->devices[d]));
			prom_add_label(o, "pid", "other");
			prom_add_label(o, "process", "other");
			prom_add_label(o, "pool", pool[j]);
			prom_use_identity(o, &(struct prom_use){.gpu = gpu, .dev = &s->devices[d]});
			prom_write_u64(o, sum[j].v);
		}
	}
	prom_family(o, &f_inferred);
	write_kept_memory(sel, o, true);
}

static void write_paged(const struct prom_selection *sel, struct prom_out *o)
{
	prom_family(o, &f_paged);
	for (int i = 0; i < sel->kept; i++)
		for (int k = 0; k < sel->procs[i].n_uses; k++) {
			if (!gtm_u64_ok(sel->procs[i].uses[k].paged) || sel->procs[i].uses[k].inferred)
				continue;
			proc_labels(o, &sel->procs[i], &sel->procs[i].uses[k]);
			prom_write_u64(o, sel->procs[i].uses[k].paged.v);
		}
}

static void write_engines(const struct prom_selection *sel, struct prom_out *o)
{
	prom_family(o, &f_engine);
	for (int i = 0; i < sel->kept; i++)
		for (int k = 0; k < sel->procs[i].n_uses; k++) {
			const struct gtm_gpu_use *u = sel->procs[i].uses[k].first;
			const struct { const char *name; gtm_f64 v; } e[] = {
				{"sm", u->sm_pct}, {"encoder", u->enc_pct}, {"decoder", u->dec_pct},
				{"graphics", u->gfx_pct}, {"copy", u->copy_pct}, {"video", u->video_pct},
			};
			for (size_t j = 0; j < sizeof e / sizeof e[0]; j++) {
				if (!gtm_f64_ok(e[j].v))
					continue;
				proc_labels(o, &sel->procs[i], &sel->procs[i].uses[k]);
				prom_add_label(o, "engine", e[j].name);
				prom_write(o, e[j].v.v / 100.0);
			}
		}
}

static void write_folded(const struct gtm_snapshot *s, const struct prom_selection *sel, struct prom_out *o)
{
	prom_family(o, &f_folded);
	for (int d = 0; d < s->n_devices; d++) {
		int n = 0;
		for (int i = sel->kept; i < sel->n; i++)
			for (int k = 0; k < sel->procs[i].n_uses; k++)
				n += sel->procs[i].uses[k].gpu == s->devices[d].index;
		prom_device_labels(o, &s->devices[d]);
		prom_write(o, n);
	}
}

void prom_render_processes(const struct gtm_snapshot *s, const struct prom_selection *sel, struct prom_out *o)
{
	write_info(sel, o);
	write_memory(s, sel, o);
	write_paged(sel, o);
	write_engines(sel, o);
	write_folded(s, sel, o);
}
