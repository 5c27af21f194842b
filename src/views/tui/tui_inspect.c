#include "views/tui/tui_inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/util.h"
#include "views/tui/tui_ident.h"

#include "explain/explain.h"
#include "portable.h"
#include "identify/ident.h"
#include "views/explain_text.h"
#include "views/ident_text.h"
#include "views/tui/tui_layout.h"

/* "12.00 GiB (measured)"; "N/A". */
static char *bytes_prov(char *buf, size_t n, gtm_u64 r)
{
	char b[32];
	if (!gtm_u64_ok(r))
		snprintf(buf, n, "N/A");
	else
		snprintf(buf, n, "%s (%s)", fmt_bytes(b, sizeof b, r), gtm_prov_name(r.prov));
	return buf;
}

static void add_command(struct tui_text *t, const struct gtm_process *p)
{
	char cmd[600];
	size_t len = 0;
	const struct gtm_proc_detail *d = p->detail;

	if (!d) {
		if (p->pid)
			tui_text_add(t, TUI_ST_DIM, 2, "details unreadable (another user's process, or it exited)");
		return;
	}
	cmd[0] = '\0';
	for (int i = 0; i < d->argc && d->argv[i] && len + 2 < sizeof cmd; i++) {
		int w = snprintf(cmd + len, sizeof cmd - len, "%s%s", i ? " " : "", d->argv[i]);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (len >= sizeof cmd)
		len = sizeof cmd - 1;
	tui_text_add(t, TUI_ST_TEXT, 11, "command: %s", cmd[0] ? cmd : "(none)");
	if (d->exe)
		tui_text_add(t, TUI_ST_DIM, 11, "exe:     %s", d->exe);
}

/* WDDM: the driver's engine types ("3D 12 %  Compute_0 40 %"), the busiest
 * being the process's GPU %. */
static void add_engine_types(struct tui_text *t, const struct gtm_gpu_use *u)
{
	char line[400], pct[16];
	size_t len = 0;

	line[0] = '\0';
	for (int e = 0; e < u->n_engines && len + 40 < sizeof line; e++) {
		int w = snprintf(line + len, sizeof line - len, "%s%s %s", e ? "  " : "", u->engines[e].name,
				 fmt_f64(pct, sizeof pct, u->engines[e].busy_pct, 0, " %"));
		if (w > 0)
			len += (size_t)w;
	}
	tui_text_add(t, TUI_ST_TEXT, 4, "  GPU %s (busiest engine)  %s", fmt_f64(pct, sizeof pct, u->busy_pct, 0, " %"), line);
}

static void add_uses(struct tui_text *t, const struct gtm_process *p)
{
	char v[48], sp[48], pg[48], sm[16], enc[16], dec[16];

	for (int i = 0; i < p->n_uses; i++) {
		const struct gtm_gpu_use *u = &p->uses[i];
		tui_text_add(t, TUI_ST_TEXT, 4, "GPU %d%s%s: VRAM %s", u->dev_index, u->compute ? " compute" : "",
			     u->graphics ? " graphics" : "", bytes_prov(v, sizeof v, u->vram));
		tui_text_add(t, TUI_ST_TEXT, 4, "  spill %s  paged %s", bytes_prov(sp, sizeof sp, u->spill),
			     bytes_prov(pg, sizeof pg, u->paged));
		if (u->n_engines > 0) {
			add_engine_types(t, u);
		} else if (u->n_clients > 0) {
			/* a DRM client: engine classes, not NVIDIA's SM/encoder/decoder */
			char gfx[16], cp[16], vid[16];
			tui_text_add(t, TUI_ST_TEXT, 4, "  gfx %s  compute %s  copy %s  video %s",
				     fmt_f64(gfx, sizeof gfx, u->gfx_pct, 0, " %"), fmt_f64(sm, sizeof sm, u->sm_pct, 0, " %"),
				     fmt_f64(cp, sizeof cp, u->copy_pct, 0, " %"), fmt_f64(vid, sizeof vid, u->video_pct, 0, " %"));
		} else {
			tui_text_add(t, TUI_ST_TEXT, 4, "  SM %s  enc %s  dec %s", fmt_f64(sm, sizeof sm, u->sm_pct, 0, " %"),
				     fmt_f64(enc, sizeof enc, u->enc_pct, 0, " %"),
				     fmt_f64(dec, sizeof dec, u->dec_pct, 0, " %"));
		}
		if (!gtm_u64_ok(u->vram) && u->na_reason[0])
			tui_text_add(t, TUI_ST_DIM, 4, "  VRAM N/A: %s", u->na_reason);
		if (u->mem_note[0])
			tui_text_add(t, TUI_ST_DIM, 4, "  memory: %s", u->mem_note);
	}
}

static void add_model(struct tui_text *t, const struct gtm_ident *id, const struct ident_model *m)
{
	const char *alias = ident_model_alias(id, m);
	char ev[160], sz[32];
	size_t len = 0;

	ev[0] = '\0';
	for (int e = 0; e < MODEL_EV_COUNT; e++) {
		int w;
		if (!(m->evidence & (1u << e)) || len + 2 >= sizeof ev)
			continue;
		w = snprintf(ev + len, sizeof ev - len, "%s%s%s%s%s", len ? ", " : "", model_evidence_name((enum model_evidence)e),
			     m->evidence_detail[e] ? " (" : "", m->evidence_detail[e] ? m->evidence_detail[e] : "",
			     m->evidence_detail[e] ? ")" : "");
		if (w > 0)
			len += (size_t)w;
	}
	tui_text_add(t, TUI_ST_TEXT, 6, "%s%s%s%s [%s]%s", m->name ? m->name : (m->path ? path_base(m->path) : "?"),
		     alias ? " (alias " : "", alias ? alias : "", alias ? ")" : "",
		     model_role_name(m->role), ident_model_unproven(m) ? "  not proven loaded" : "");
	if (m->have_info)
		tui_text_add(t, TUI_ST_TEXT, 8, "  %s, %s %s, %llu layers, file %s", m->info.kind_label[0] ? m->info.kind_label : gguf_kind_text(m->info.kind),
			     m->info.arch, m->info.quant, (unsigned long long)m->info.n_layer,
			     fmt_bytes(sz, sizeof sz, m->file_size));
	else if (m->error)
		tui_text_add(t, TUI_ST_DIM, 8, "  header: %s", m->error);
	if (m->have_info && m->info.incomplete) {
		char inc[160];
		tui_text_add(t, TUI_ST_WARN, 8, "  incomplete file: %s; the plan is from its header", ident_text_incomplete(&m->info, inc, sizeof inc));
	}
	tui_text_add(t, TUI_ST_DIM, 8, "  evidence: %s", ev[0] ? ev : "none");
	if (m->path)
		tui_text_add(t, TUI_ST_DIM, 8, "  %s", m->path);
}

static void add_ident(struct tui_text *t, const struct gtm_process *p)
{
	const struct gtm_ident *id = p->ident;

	if (!id)
		return;
	tui_text_add(t, TUI_ST_HEAD, 2, "Category: %s%s%s", ident_category_text(id->category),
		     id->category_reason[0] ? " - " : "", id->category_reason);
	for (int i = 0; i < id->n_runtimes; i++) {
		const struct ident_runtime *r = &id->runtimes[i];
		tui_text_add(t, TUI_ST_TEXT, 6, "runtime %s%s%s", r->name ? r->name : r->id,
			     r->n_evidence ? ": " : "", r->n_evidence ? r->evidence[0] : "");
	}
	if (id->n_models)
		tui_text_add(t, TUI_ST_HEAD, 2, "Models (%d)", id->n_models);
	for (int i = 0; i < id->n_models; i++)
		add_model(t, id, &id->models[i]);
}

/* The breakdown bar's four parts; the explain segments they gather. */
enum bd_part { BD_WEIGHTS, BD_KV, BD_COMPUTE, BD_OTHER, BD_COUNT };
static const char bd_letter[BD_COUNT] = {'W', 'K', 'C', 'o'};
static const char *const bd_name[BD_COUNT] = {"weights", "KV cache", "compute", "other"};

static enum bd_part bd_part_of(enum ex_seg s)
{
	switch (s) {
	case EX_SEG_WEIGHTS: return BD_WEIGHTS;
	case EX_SEG_KV: case EX_SEG_RS: return BD_KV;
	case EX_SEG_COMPUTE: case EX_SEG_OUTPUT: return BD_COMPUTE;
	default: return BD_OTHER;
	}
}

/* One device's bar from reported segments and the measured remainder (the
 * estimate is listed beside it, never added in). */
static void add_breakdown(struct tui_text *t, const struct gtm_process *p, const struct gtm_explain *e, int dev)
{
	uint64_t part[BD_COUNT] = {0}, vram = 0;
	const char *src[BD_COUNT] = {NULL};
	char bar[128], legend[400], b[32];
	int cells[BD_COUNT], w = t->width > 30 ? t->width - 12 : 18, x = 0;
	size_t len = 0;
	bool norm, any = false;

	if (w > (int)sizeof bar - 1)
		w = (int)sizeof bar - 1;
	for (int i = 0; i < e->n_segs; i++) {
		const struct ex_segment *sg = &e->segs[i];
		enum bd_part k = bd_part_of(sg->seg);
		if (sg->host || sg->gpu != dev || sg->src == EX_SRC_ESTIMATE || !gtm_u64_ok(sg->bytes))
			continue;
		part[k] += sg->bytes.v;
		src[k] = !src[k] || !strcmp(src[k], ex_src_name(sg->src)) ? ex_src_name(sg->src) : "mixed";
		any = true;
	}
	if (!any)
		return;
	for (int i = 0; i < p->n_uses; i++)
		if (p->uses[i].dev_index == dev && gtm_u64_ok(p->uses[i].vram))
			vram += p->uses[i].vram.v;
	tui_bar_cells(part, BD_COUNT, vram, w, cells, &norm);
	for (int k = 0; k < BD_COUNT; k++)
		for (int c = 0; c < cells[k]; c++)
			bar[x++] = bd_letter[k];
	while (x < w)
		bar[x++] = '.';
	bar[x] = '\0';
	tui_text_add(t, TUI_ST_HEAD, 2, "GPU %d breakdown%s", dev, norm ? " (normalised: parts exceed measured VRAM)" : "");
	tui_text_add(t, TUI_ST_TEXT, 2, "  [%s]", bar);
	legend[0] = '\0';
	for (int k = 0; k < BD_COUNT && len + 2 < sizeof legend; k++) {
		int n;
		if (!src[k])
			continue;
		n = snprintf(legend + len, sizeof legend - len, "%c %s %s (%s)  ", bd_letter[k], bd_name[k],
			     fmt_bytes_raw(b, sizeof b, part[k]), src[k]);
		if (n > 0)
			len += (size_t)n;
	}
	tui_text_add(t, TUI_ST_TEXT, 4, "  %s", legend);
}

static void add_breakdowns(struct tui_text *t, const struct gtm_process *p)
{
	if (!p->explain)
		return;
	for (int i = 0; i < p->n_uses; i++) {
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= p->uses[j].dev_index == p->uses[i].dev_index;
		if (!seen)
			add_breakdown(t, p, p->explain, p->uses[i].dev_index);
	}
}

/* explain/ words the log, server facts and notes; captured once per snapshot
 * or selection, not per frame. */
static void add_explain(struct tui_text *t, const struct gtm_process *p)
{
	char *buf = NULL;
	size_t len = 0;
	struct os_memstream ms;
	FILE *f;

	if (!p->explain)
		return;
	f = os_memstream_open(&ms);
	if (!f)
		return;
	explain_text_print(f, p->explain, "");
	buf = os_memstream_close(&ms, &len);
	if (buf && len) {
		tui_text_add(t, TUI_ST_HEAD, 2, "What the runtime says");
		tui_text_add_block(t, TUI_ST_TEXT, buf);
	}
	free(buf);
}

/* Notes that explain a row's counters: a predicate and the sentence it earns. */
struct note_rule {
	bool (*applies)(const struct gtm_snapshot *s, const struct gtm_process *p);
	const char *text;
};

static bool any_use(const struct gtm_process *p, int field)
{
	for (int i = 0; i < p->n_uses; i++) {
		const struct gtm_gpu_use *u = &p->uses[i];
		gtm_u64 r = field == 0 ? u->spill : field == 1 ? u->paged : u->vram;
		if (field == 2 ? !gtm_u64_ok(r) : gtm_u64_ok(r))
			return true;
	}
	return false;
}

static bool has_spill(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return any_use(p, 0); }
/* paged as a driver measures it, or Windows' estimate (prov estimated) */
static bool paged_of(const struct gtm_process *p, bool estimated)
{
	for (int i = 0; i < p->n_uses; i++)
		if (gtm_u64_ok(p->uses[i].paged) && (p->uses[i].paged.prov == GTM_ESTIMATED) == estimated)
			return true;
	return false;
}
static bool has_paged(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return paged_of(p, false); }
static bool has_paged_estimate(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return paged_of(p, true); }
static bool vram_na(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return any_use(p, 2); }
static bool is_matched(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return p->owner == GTM_OWNER_MATCHED; }
static bool is_guessed(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return p->owner == GTM_OWNER_GUESSED; }
static bool is_host(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return p->owner == GTM_OWNER_HOST; }
static bool is_unattr(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return p->owner == GTM_OWNER_UNATTRIBUTED; }
static bool is_exited(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return p->owner == GTM_OWNER_EXITED; }
static bool is_compositor(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return tui_process_cat(p) == TUI_CAT_COMPOSITOR; }
static bool is_ai(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return tui_process_cat(p) == TUI_CAT_AI; }
/* a compositor whose rows come from Windows' PDH counters (which has a note
 * of its own, in place of the general one) */
static bool is_wddm_compositor(const struct gtm_snapshot *s, const struct gtm_process *p)
{
	if (!is_compositor(s, p))
		return false;
	for (int i = 0; i < p->n_uses; i++)
		for (int d = 0; d < s->n_devices; d++)
			if (s->devices[d].index == p->uses[i].dev_index && strcmp(s->devices[d].source, "wddm") == 0)
				return true;
	return false;
}
static bool is_other_compositor(const struct gtm_snapshot *s, const struct gtm_process *p)
{
	return is_compositor(s, p) && !is_wddm_compositor(s, p);
}
static bool is_wsl(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)p; return s->mode == GTM_MODE_WSL; }
static bool no_gpu(const struct gtm_snapshot *s, const struct gtm_process *p) { (void)s; return p->n_uses == 0; }

static const struct note_rule note_rules[] = {
	{has_spill, "Spill is GPU-accessible system RAM (Linux's GTT, Windows's shared GPU memory) the process holds: the GPU reaches it over PCIe, "
		    "much slower than VRAM. Growing spill usually means VRAM is full."},
	{has_paged, "Paged is demand-paged (unified) memory the driver moves between system RAM and the GPU."},
	{has_paged_estimate, "Paged (Windows, estimated): what the process committed on the GPU that is resident in "
			     "neither segment group, Total Committed - Local - Non Local Usage: evicted, or not yet made "
			     "resident. An inference from three counters, not a number Windows reports."},
	{vram_na, "N/A means the driver does not say, not zero: nothing was measured for this process."},
	{is_matched, "'*': the driver reported a host PID; it was paired with this process and only one "
		     "explanation fits."},
	{is_guessed, "'?': a guess. More than one process could own this GPU context; the pairing may be wrong."},
	{is_host, "H: a host PID with no process in this PID namespace: nothing more can be read about it here."},
	{is_exited, "x: the process paired with this host PID ('*x' certain, '?x' guessed), or one of this PID "
		    "namespace the driver listed by its own PID ('*x'), has exited; the driver still lists the PID, so "
		    "its memory is not released yet. The row stays until the driver drops the PID, which is never given "
		    "to another process."},
	{is_unattr, "Unattributed: GPU buffers no process can be charged with (shared or driver-owned buffers)."},
	{is_other_compositor, "A compositor's number includes surfaces it shares with the windows it draws; on some "
			"platforms (Windows/WSL, some DRM drivers) shared buffers are counted in every process "
			"that maps them, so it looks bigger than what it alone owns."},
	{is_wddm_compositor, "Windows: VRAM here is PDH's Local Usage, what of this process's memory resides in the "
			     "adapter's local segment group. Dedicated Usage (Task Manager's \"Dedicated GPU memory\") "
			     "also counts the surfaces it shares with every window it composes, so dwm.exe and "
			     "csrss.exe look as large as the windows together. Rows may add up past the adapter's use: "
			     "the adapter's own counters are the total."},
	{is_ai, "A mapped runtime library names the runtime, never the model; a mapped model file shows the "
		"process holds it, not that its weights are on the GPU. Estimates and runtime-reported segments "
		"are never added into measured totals."},
	{is_wsl, "Under WSL the Linux driver lists no processes: rows come from the Windows host's counters, "
		 "matched to Linux processes ('*' certain, '?' guessed)."},
	{no_gpu, "This process uses no GPU in this snapshot (shown because all processes are listed)."},
};

static void add_notes(struct tui_text *t, const struct gtm_snapshot *s, const struct gtm_process *p)
{
	bool head = false;

	for (size_t i = 0; i < ARRAY_LEN(note_rules); i++) {
		if (!note_rules[i].applies(s, p))
			continue;
		if (!head)
			tui_text_add(t, TUI_ST_HEAD, 2, "Notes");
		head = true;
		tui_text_add(t, TUI_ST_DIM, 4, "- %s", note_rules[i].text);
	}
}

void tui_inspect_build(struct tui_text *t, const struct gtm_snapshot *s, const struct gtm_process *p)
{
	char rss[32], ports[128];
	size_t len = 0;

	tui_text_reset(t, t->width);
	if (!p) {
		tui_text_add(t, TUI_ST_DIM, 0, "No process selected.");
		return;
	}
	tui_text_add(t, TUI_ST_HEAD, 2, "%s %s  user %s  owner %s", p->label, p->name, p->user[0] ? p->user : "?",
		     gtm_owner_name(p->owner));
	if (p->owner_reason[0])
		tui_text_add(t, TUI_ST_DIM, 4, "  %s", p->owner_reason);
	add_command(t, p);
	ports[0] = '\0';
	for (int i = 0; i < p->n_ports && i < 16 && len + 8 < sizeof ports; i++)
		len += (size_t)snprintf(ports + len, sizeof ports - len, "%s%u", i ? ", " : "", p->ports[i]);
	tui_text_add(t, TUI_ST_TEXT, 4, "RSS %s%s%s", fmt_bytes(rss, sizeof rss, p->rss), ports[0] ? "  listening " : "",
		     ports);
	add_uses(t, p);
	add_ident(t, p);
	add_breakdowns(t, p);
	add_explain(t, p);
	add_notes(t, s, p);
}
