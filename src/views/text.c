#include "views/text.h"
#include "views/host_line.h"

#include <string.h>
#include <time.h>

#include "core/format.h"
#include "views/json.h"

#include "views/ident_text.h"
#include "views/explain_text.h"
#include "platform/platform_text.h"

/* Room for an escaped driver, /proc or log string (see fmt_safe). */
#define SAFE_N 512

static void print_device(FILE *out, const struct gtm_device *d)
{
	char a[32], b[32], c[32], e[32], f[32], g[32], h[32], s1[SAFE_N], s2[SAFE_N];

	fprintf(out, "GPU %d  %s  [%s]  %s", d->index, d->name[0] ? fmt_safe(s1, sizeof s1, d->name) : "(unnamed)",
		d->pci_bus_id[0] ? fmt_safe(s2, sizeof s2, d->pci_bus_id) : "no bus id", gtm_vendor_name(d->vendor));
	if (d->driver_version[0])
		fprintf(out, "  driver %s", fmt_safe(s1, sizeof s1, d->driver_version));
	if (d->cuda_version[0])
		fprintf(out, "  CUDA %s", fmt_safe(s1, sizeof s1, d->cuda_version));
	fprintf(out, "%s\n", d->is_apu ? "  (APU: system memory is its memory)" : "");
	fprintf(out, "  memory    %s used / %s total   free %s   reserved %s\n",
		fmt_bytes(a, sizeof a, d->mem_used), fmt_bytes(b, sizeof b, d->mem_total),
		fmt_bytes(c, sizeof c, d->mem_free), fmt_bytes(e, sizeof e, d->mem_reserved));
	if (gtm_u64_ok(d->shared_total) || gtm_u64_ok(d->shared_used))
		fprintf(out, "  shared    %s used / %s (GPU-accessible system RAM)\n",
			fmt_bytes(a, sizeof a, d->shared_used), fmt_bytes(b, sizeof b, d->shared_total));
	if (d->mem_note[0])
		fprintf(out, "  memory    %s\n", fmt_safe(s1, sizeof s1, d->mem_note));
	fprintf(out, "  load      GPU %s  memory activity %s  encoder %s  decoder %s\n",
		fmt_f64(a, sizeof a, d->util_gpu_pct, 0, " %"), fmt_f64(b, sizeof b, d->util_mem_pct, 0, " %"),
		fmt_f64(c, sizeof c, d->enc_pct, 0, " %"), fmt_f64(e, sizeof e, d->dec_pct, 0, " %"));
	fprintf(out, "  sensors   %s  power %s / %s  fan %s\n", fmt_f64(a, sizeof a, d->temp_c, 0, " C"),
		fmt_f64(b, sizeof b, d->power_w, 1, " W"), fmt_f64(c, sizeof c, d->power_limit_w, 1, " W"),
		fmt_f64(e, sizeof e, d->fan_pct, 0, " %"));
	fprintf(out, "  clocks    SM %s  memory %s  video %s\n", fmt_f64(a, sizeof a, d->clock_sm_mhz, 0, " MHz"),
		fmt_f64(b, sizeof b, d->clock_mem_mhz, 0, " MHz"), fmt_f64(c, sizeof c, d->clock_video_mhz, 0, " MHz"));
	gtm_f64 tx = d->pcie_tx_bps, rx = d->pcie_rx_bps;
	tx.v /= 1048576.0;
	rx.v /= 1048576.0;
	if (gtm_f64_ok(d->pcie_gen) || gtm_f64_ok(d->pcie_width))
		snprintf(h, sizeof h, "gen %s x%s", fmt_f64(a, sizeof a, d->pcie_gen, 0, ""),
			 fmt_f64(b, sizeof b, d->pcie_width, 0, ""));
	else
		snprintf(h, sizeof h, "link N/A");
	fprintf(out, "  PCIe      %s  TX %s  RX %s\n", h, fmt_f64(f, sizeof f, tx, 1, " MiB/s"),
		fmt_f64(g, sizeof g, rx, 1, " MiB/s"));
	if (d->n_processes_seen < 0)
		fprintf(out, "  processes N/A: the driver gives no process list, so per-process use is unavailable\n");
	if (d->n_engines > 0) {
		fprintf(out, "  engines  ");
		for (int i = 0; i < d->n_engines && i < GTM_MAX_ENGINES; i++)
			fprintf(out, " %s %s", fmt_safe(s1, sizeof s1, d->engines[i].name), fmt_f64(h, sizeof h, d->engines[i].busy_pct, 0, " %"));
		fputc('\n', out);
	}
}

void text_print_source_status(FILE *out, const struct gtm_snapshot *s)
{
	char m[SAFE_N];
	for (int i = 0; i < s->n_sources; i++) {
		const struct gtm_source_status *st = &s->sources[i];
		if ((!st->available || st->failed) && st->message[0])
			fprintf(out, "%s: %s\n", st->name, fmt_safe(m, sizeof m, st->message));
	}
}

/* The load column: a process's SM (compute) or busiest engine share. */
static gtm_f64 use_load(const struct gtm_gpu_use *u)
{
	const gtm_f64 *cand[] = {&u->sm_pct, &u->gfx_pct, &u->video_pct, &u->copy_pct, &u->enc_pct, &u->dec_pct,
				 &u->busy_pct};
	gtm_f64 best = GTM_F64_NA;
	for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
		if (gtm_f64_ok(*cand[i]) && (!gtm_f64_ok(best) || cand[i]->v > best.v))
			best = *cand[i];
	return best;
}

static void print_process(FILE *out, const struct gtm_process *p)
{
	char lb[128], vram[32], spill[32], load[16], rss[32], nm[SAFE_N], why[SAFE_N], note[SAFE_N];
	const char *name = p->name[0] ? fmt_safe(nm, sizeof nm, p->name) : (p->owner == GTM_OWNER_HOST ? "(host process)" : "?");
	const char *label = p->label[0] ? fmt_safe(lb, sizeof lb, p->label) : "-";

	/* the unattributed row has no process, so no name: its label alone (a '?' would read as a guessed owner) */
	if (p->owner == GTM_OWNER_UNATTRIBUTED)
		name = "";
	if (p->n_uses == 0) {
		fprintf(out, "%-10s %-16.16s %-4s %11s %11s %6s  rss %s\n", label, name, "-", "-", "-", "-",
			fmt_bytes(rss, sizeof rss, p->rss));
	}
	for (int i = 0; i < p->n_uses; i++) {
		const struct gtm_gpu_use *u = &p->uses[i];
		char dev[8];
		snprintf(dev, sizeof dev, "%d", u->dev_index);
		fprintf(out, "%-10s %-16.16s %-4s %11s %11s %6s  %s%s%s%s%s%s\n", i ? "" : label, i ? "" : name, dev,
			fmt_bytes(vram, sizeof vram, u->vram), fmt_bytes(spill, sizeof spill, u->spill),
			fmt_f64(load, sizeof load, use_load(u), 0, "%"), u->compute ? "C" : "", u->graphics ? "G" : "",
			gtm_u64_ok(u->vram) || !u->na_reason[0] ? "" : "  vram N/A: ",
			gtm_u64_ok(u->vram) ? "" : fmt_safe(why, sizeof why, u->na_reason),
			u->mem_note[0] ? "  memory: " : "", u->mem_note[0] ? fmt_safe(note, sizeof note, u->mem_note) : "");
	}
	if (p->owner == GTM_OWNER_EXITED)
		fprintf(out, "           exited (PID %u); the driver still lists its %sPID %u\n", p->exited_pid,
			p->exited_pairing == GTM_OWNER_LOCAL ? "" : "host ", p->host_pid);
	if (p->ident)
		ident_text_print(out, p->ident, "           ");
	if (p->explain)
		explain_text_print(out, p->explain, "           ");
}

void text_print_snapshot(FILE *out, const struct gtm_snapshot *s, bool all)
{
	char when[32];
	time_t t = (time_t)(s->taken_at_ns / 1000000000ull);
	struct tm tm;
	int listed = 0, hidden = 0, local = 0;

	localtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	char host[SAFE_N];
	char hs[640];
	host_stream_words(&s->host, hs, sizeof hs);
	fprintf(out, "gputaskman %s  %s  %s%s%s  %s\n\n", GTM_VERSION, fmt_safe(host, sizeof host, s->hostname),
		gtm_mode_name(s->mode), hs[0] ? ", " : "", hs, when);
	for (int i = 0; i < s->n_devices; i++) {
		print_device(out, &s->devices[i]);
		fputc('\n', out);
	}
	if (s->n_devices == 0)
		fprintf(out, "No GPU shown.\n");
	text_print_source_status(out, s);
	if (s->n_devices == 0 || s->n_sources)
		fputc('\n', out);

	fprintf(out, "%-10s %-16s %-4s %11s %11s %6s  %s\n", "PID", "NAME", "GPU", "VRAM", "SPILL", "LOAD", "LISTS");
	for (int i = 0; i < s->n_processes; i++) {
		local += s->processes[i].pid != 0;
		if (!view_lists_process(s, i, all)) {
			hidden++;
			continue;
		}
		print_process(out, &s->processes[i]);
		listed++;
	}
	if (listed == 0)
		fprintf(out, "(no process is using a GPU that gputaskman can see)\n");
	if (s->procs_unlisted)
		fprintf(out, "\nprocesses seen N/A: /proc could not be listed");
	else
		fprintf(out, "\n%d process%s seen, %d not inspectable (%s)%s",
			s->n_procs_total, s->n_procs_total == 1 ? "" : "es", s->n_procs_uninspectable,
			platform_uninspectable_why,
			s->partial_scan ? ", scan cut short (partial)" : "");
	/* the scan gives no row to a process no view lists (but with --all) */
	if (!s->procs_unlisted && s->n_procs_total > local)
		hidden += s->n_procs_total - local;
	if (hidden)
		fprintf(out, "; %d without GPU use not listed (--all lists them)", hidden);
	fprintf(out, ".\nMarks: *PID owner matched, ?PID owner guessed, *xPID/?xPID that owner exited while the"
		     " driver still lists it%s; C compute, G graphics; N/A unavailable, never 0.\n",
		platform_outside_marks);
	if (s->mode == GTM_MODE_WSL)
		fprintf(out, "WSL2: W:PID a Windows process (the WSL VM's row, vmwp.exe, holds every Linux context;"
			     " */? rows are its contexts matched to processes here and are not added to it again).\n");
	for (int i = 0; i < s->n_notes; i++)
		fprintf(out, "note: %s\n", fmt_safe(host, sizeof host, s->notes[i]));
}

void text_print_gpu_list(FILE *out, const struct gtm_snapshot *s)
{
	char mem[32], nm[SAFE_N], bus[SAFE_N];
	for (int i = 0; i < s->n_devices; i++) {
		const struct gtm_device *d = &s->devices[i];
		fprintf(out, "%d  %-7s %-36s %-14s %s", d->index, gtm_vendor_name(d->vendor), fmt_safe(nm, sizeof nm, d->name),
			d->pci_bus_id[0] ? fmt_safe(bus, sizeof bus, d->pci_bus_id) : "-", fmt_bytes(mem, sizeof mem, d->mem_total));
		/* Windows: the adapter's LUID, the name PDH's counters give it; absent elsewhere */
		if (d->luid[0])
			fprintf(out, "  LUID %s", fmt_safe(nm, sizeof nm, d->luid));
		fputc('\n', out);
	}
	if (s->n_devices == 0) {
		fprintf(out, "No GPU found.\n");
		text_print_source_status(out, s);
	}
}
