/* The diff as text: measured tables first, then under each process what the
 * runtime reported and what was estimated, never mixed into the measured columns. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "platform/platform_text.h"
#include "portable.h"
#include "views/diff.h"

#define MIB_F(x) ((double)(x) / (1024.0 * 1024.0))

/* "1.20 GiB", "N/A" (null), "not listed" (no row on that side). */
static const char *side(char *buf, size_t n, bool listed, struct snap_val v)
{
	if (!listed)
		snprintf(buf, n, "not listed");
	else if (!v.known)
		snprintf(buf, n, "N/A");
	else
		fmt_bytes_raw(buf, n, v.v);
	return buf;
}

/* "+1.20 GiB", "-512.00 MiB", "0 B", or "N/A" when either side is unknown. */
static const char *change(char *buf, size_t n, const struct diff_delta *d)
{
	char mag[32];
	uint64_t m;

	if (!d->known)
		return snprintf(buf, n, "N/A"), buf;
	m = d->delta < 0 ? (uint64_t)0 - (uint64_t)d->delta : (uint64_t)d->delta;
	snprintf(buf, n, "%s%s", d->delta > 0 ? "+" : d->delta < 0 ? "-" : "", fmt_bytes_raw(mag, sizeof mag, m));
	return buf;
}

static void line3(FILE *out, const char *indent, const char *what, const struct diff_delta *d)
{
	char b[32], a[32], c[32];
	fprintf(out, "%s%-22s %14s %14s %14s\n", indent, what, side(b, sizeof b, d->b_listed, d->b),
		side(a, sizeof a, d->a_listed, d->a), change(c, sizeof c, d));
}

static void count_line(FILE *out, const char *what, const struct diff_delta *d)
{
	char b[24] = "N/A", a[24] = "N/A", c[24] = "N/A";
	if (!d->b_listed)
		snprintf(b, sizeof b, "not listed");
	else if (d->b.known)
		snprintf(b, sizeof b, "%" PRIu64, d->b.v);
	if (!d->a_listed)
		snprintf(a, sizeof a, "not listed");
	else if (d->a.known)
		snprintf(a, sizeof a, "%" PRIu64, d->a.v);
	if (d->known)
		snprintf(c, sizeof c, d->delta ? "%+" PRId64 : "%" PRId64, d->delta);
	fprintf(out, "  %-22s %14s %14s %14s\n", what, b, a, c);
}

static bool any_known(const struct diff_delta *d)
{
	return (d->b_listed && d->b.known) || (d->a_listed && d->a.known);
}

static void print_devices(FILE *out, const struct diff_result *r)
{
	fprintf(out, "%-24s %14s %14s %14s\n", "GPUs (measured)", "before", "after", "change");
	if (r->n_devs == 0)
		fprintf(out, "  no GPU in either snapshot\n");
	for (int i = 0; i < r->n_devs; i++) {
		const struct diff_dev_row *row = &r->devs[i];
		const struct snap_dev *d = row->a ? row->a : row->b;
		fprintf(out, "GPU %d  %s  %s%s\n", d->index, d->name ? d->name : "(unnamed)",
			d->uuid ? d->uuid : d->pci_bus_id ? d->pci_bus_id : "",
			!row->b ? "  (after only)" : !row->a ? "  (before only)" : "");
		line3(out, "  ", "memory used", &row->used);
		line3(out, "  ", "memory free", &row->free);
		if (any_known(&row->reserved))
			line3(out, "  ", "driver reserved", &row->reserved);
		if (any_known(&row->shared_used))
			line3(out, "  ", "shared used", &row->shared_used);
		if (row->total.known && row->total.delta != 0)
			line3(out, "  ", "memory total", &row->total);
		count_line(out, "processes listed", &row->processes_listed);
	}
}

/* "llama-server 4242", "llama-server 4242 -> 5151", "H:77". */
static void proc_title(char *buf, size_t n, const struct diff_proc_row *row)
{
	const struct snap_proc *p = row->a ? row->a : row->b;
	const char *lb = row->b && row->b->label ? row->b->label : "?";
	const char *la = row->a && row->a->label ? row->a->label : "?";

	const char *name = p->name ? p->name : "", *sep = p->name ? " " : "";

	if (row->b && row->a && strcmp(lb, la))
		snprintf(buf, n, "%s%s%s -> %s", name, sep, lb, la);
	else
		snprintf(buf, n, "%s%s%s", name, sep, row->a ? la : lb);
}

static const char *rule_text(const struct diff_proc_row *row)
{
	switch (row->rule) {
	case DIFF_RULE_NAME_PORTS: return "restarted (same name and ports)";
	case DIFF_RULE_UNIQUE_NAME: return "restarted (only process of that name)";
	case DIFF_RULE_NONE: return row->a ? "not listed before" : "not listed after";
	default: return "";
	}
}

static void print_uses(FILE *out, const struct diff_proc_row *row)
{
	char what[48];
	if (row->n_uses < 2 && !any_known(&row->spill_total) && !any_known(&row->paged_total))
		return;
	for (int i = 0; row->n_uses > 1 && i < row->n_uses; i++) {
		const struct diff_use_row *u = &row->uses[i];
		snprintf(what, sizeof what, "VRAM on GPU %d", u->index_a >= 0 ? u->index_a : u->index_b);
		line3(out, "    ", what, &u->vram);
	}
	if (any_known(&row->spill_total)) {
		snprintf(what, sizeof what, "spill (%s)", platform_spill_pool);
		line3(out, "    ", what, &row->spill_total);
	}
	if (any_known(&row->paged_total))
		line3(out, "    ", "paged", &row->paged_total);
}

static void print_segments(FILE *out, const struct diff_proc_row *row)
{
	char what[200], b[32], a[32], c[32];
	if (row->n_segs == 0)
		return;
	fprintf(out, "    not measured (runtime-reported or estimated; never added to the totals above):\n");
	for (int i = 0; i < row->n_segs; i++) {
		const struct diff_seg_row *s = &row->segs[i];
		const struct snap_seg *seg = s->a ? s->a : s->b;
		snprintf(what, sizeof what, "%s [%s]", seg->label, seg->source);
		fprintf(out, "      %-40s %12s -> %-12s %s\n", what, side(b, sizeof b, s->b != NULL, s->bytes.b),
			side(a, sizeof a, s->a != NULL, s->bytes.a), change(c, sizeof c, &s->bytes));
	}
}

static void print_models(FILE *out, const struct diff_proc_row *row)
{
	static const char *const mark[] = {[DIFF_MODEL_KEPT] = "  ", [DIFF_MODEL_ADDED] = "+ ", [DIFF_MODEL_REMOVED] = "- "};
	static const char *const word[] = {[DIFF_MODEL_KEPT] = "", [DIFF_MODEL_ADDED] = "  (new in after)",
					   [DIFF_MODEL_REMOVED] = "  (not in after)"};
	if (row->n_models == 0)
		return;
	fprintf(out, "    model files (evidence the process holds them, not GPU growth):\n");
	for (int i = 0; i < row->n_models; i++) {
		const struct diff_model_row *m = &row->models[i];
		const struct snap_model *dm = m->a ? m->a : m->b;
		fprintf(out, "      %s%s  [%s%s%s]%s\n", mark[m->change], dm->name,
			dm->evidence ? dm->evidence : "no evidence listed", dm->status ? ", " : "",
			dm->status ? dm->status : "", word[m->change]);
	}
}

static const char *flag_text(char *buf, size_t n, const json_t *v)
{
	if (!v)
		snprintf(buf, n, "default");
	else if (json_is_integer(v))
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
	else if (json_is_string(v))
		snprintf(buf, n, "%s", json_string_value(v));
	else
		snprintf(buf, n, "%s", json_is_true(v) ? "on" : "off");
	return buf;
}

/* "    llama.cpp flags: -c 4096 -> 8192, -ngl default -> 99" */
static void print_flags(FILE *out, const struct diff_proc_row *row)
{
	char b[64], a[64];
	if (row->n_flags == 0)
		return;
	fprintf(out, "    llama.cpp flags:");
	for (int i = 0; i < row->n_flags; i++)
		fprintf(out, "%s %s %s -> %s", i ? "," : "", snap_flags[row->flags[i].which].flag,
			flag_text(b, sizeof b, row->flags[i].b), flag_text(a, sizeof a, row->flags[i].a));
	fputc('\n', out);
}

/* One sentence, broken at spaces so no line passes `width` (a longer word stays whole). */
static void print_wrapped(FILE *out, const char *indent, const char *text, size_t width)
{
	while (*text) {
		size_t n = strlen(text), cut = n;
		if (n > width) {
			for (cut = width; cut > 0 && text[cut] != ' '; cut--)
				;
			if (cut == 0)
				cut = strcspn(text, " ");
		}
		fprintf(out, "%s%.*s\n", indent, (int)cut, text);
		text += cut;
		text += *text == ' ';
	}
}

static void print_kv(FILE *out, const struct diff_kv_check *kv)
{
	char e[32], m[32];
	struct diff_delta de = {.known = true, .delta = kv->estimate_delta};
	struct diff_delta dm = {.known = true, .delta = kv->measured_delta};
	const char *note = diff_kv_note(kv->direction);
	if (!kv->present)
		return;
	fprintf(out, "    KV cache estimate changed by %s; measured VRAM changed by %s", change(e, sizeof e, &de),
		change(m, sizeof m, &dm));
	if (kv->has_ratio)
		fprintf(out, " (%.2fx the estimate)", kv->ratio);
	fprintf(out, ".\n");
	char text[320];
	snprintf(text, sizeof text, "%s%s%s.", note ? note : "", note ? ". " : "", DIFF_KV_ADVICE);
	print_wrapped(out, "      ", text, 88);
}

static void print_process(FILE *out, const struct diff_proc_row *row)
{
	char title[160], b[32], a[32], c[32], rss[32];
	fprintf(out, "%-34s %12s %12s %12s %12s  %s\n", (proc_title(title, sizeof title, row), title),
		side(b, sizeof b, row->vram_total.b_listed, row->vram_total.b),
		side(a, sizeof a, row->vram_total.a_listed, row->vram_total.a), change(c, sizeof c, &row->vram_total),
		change(rss, sizeof rss, &row->rss), rule_text(row));
	print_uses(out, row);
	print_flags(out, row);
	print_segments(out, row);
	print_models(out, row);
	print_kv(out, &row->kv);
}

static void print_processes(FILE *out, const struct diff_result *r, bool show_all, uint64_t hide_below)
{
	bool one_sided = false;
	int shown = 0;
	fprintf(out, "\nProcesses (measured)%14s %12s %12s %12s %12s\n", "", "VRAM before", "VRAM after", "change",
		"RAM change");
	for (int i = 0; i < r->n_procs; i++) {
		if (r->procs[i].hidden && !show_all)
			continue;
		print_process(out, &r->procs[i]);
		one_sided |= r->procs[i].rule == DIFF_RULE_NONE;
		shown++;
	}
	if (r->n_procs == 0)
		fprintf(out, "  no process in either snapshot\n");
	else if (shown == 0)
		fprintf(out, "  no process moved by %.0f MiB or more\n", MIB_F(hide_below));
	if (r->n_hidden && !show_all)
		fprintf(out, "%d process%s moved by less than %.0f MiB and %s hidden (--all shows them; --json lists all).\n",
			r->n_hidden, r->n_hidden == 1 ? "" : "es", MIB_F(hide_below), r->n_hidden == 1 ? "is" : "are");
	if (one_sided)
		fprintf(out, "not listed: the process was not running then, or used too little to be listed.\n");
}

static void print_text(FILE *out, const struct diff_result *r, const char *before_name, const char *after_name,
		       bool show_all);

/* Every name in a diff comes from a file someone may have crafted: the report
 * is written to memory, then each line goes out with control characters
 * escaped (core/format.h fmt_safe), so no escape sequence reaches a terminal. */
void diff_print_text(FILE *out, const struct diff_result *r, const char *before_name, const char *after_name,
		     bool show_all)
{
	struct os_memstream ms;
	size_t len = 0;
	FILE *mem = os_memstream_open(&ms);

	if (!mem) {
		print_text(out, r, before_name, after_name, show_all);
		return;
	}
	print_text(mem, r, before_name, after_name, show_all);
	char *text = os_memstream_close(&ms, &len);
	for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *esc = malloc(strlen(line) * 4 + 1);
		if (esc) {
			size_t k = fmt_safe_copy(esc, line, strlen(line));
			fwrite(esc, 1, k, out);
			free(esc);
		}
		if (nl)
			fputc('\n', out);
	}
	free(text);
}

static void print_text(FILE *out, const struct diff_result *r, const char *before_name, const char *after_name,
		       bool show_all)
{
	const struct snap_rows *b = r->before, *a = r->after;
	fprintf(out, "gputaskman diff\n  before: %s  (%s, %s)\n  after:  %s  (%s, %s)\n", before_name,
		b->taken_at ? b->taken_at : "time N/A", b->hostname ? b->hostname : "host N/A", after_name,
		a->taken_at ? a->taken_at : "time N/A", a->hostname ? a->hostname : "host N/A");
	for (int i = 0; i < r->n_warnings; i++)
		fprintf(out, "warning: %s\n", r->warnings[i]);
	fputc('\n', out);
	print_devices(out, r);
	print_processes(out, r, show_all, r->hide_below);
}
