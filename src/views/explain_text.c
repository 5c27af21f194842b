#include "views/explain_text.h"

#include <string.h>
#include <time.h>

#include "core/format.h"
#include "core/util.h"

static const char *local_time(int64_t t, char *buf, size_t n)
{
	if (t <= 0)
		return "N/A";
	time_t tt = (time_t)t;
	struct tm tm;
	localtime_r(&tt, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

static void where(const struct ex_segment *s, char *buf, size_t n)
{
	if (s->host)
		snprintf(buf, n, "host %s", s->device);
	else if (s->gpu >= 0)
		snprintf(buf, n, "GPU %d %s", s->gpu, s->device);
	else
		snprintf(buf, n, "%s", s->device);
}

static void print_segments(FILE *out, const struct gtm_explain *e, const char *in, enum ex_src src, const char *title)
{
	bool any = false;
	for (int i = 0; i < e->n_segs; i++) {
		const struct ex_segment *s = &e->segs[i];
		char b[32], w[64];
		if (s->src != src)
			continue;
		if (!any)
			fprintf(out, "%s%s:", in, title);
		any = true;
		where(s, w, sizeof w);
		fprintf(out, "\n%s  %-16s %-22s %12s%s%s%s", in, ex_seg_name(s->seg), w, fmt_bytes(b, sizeof b, s->bytes),
			s->approx ? " ~" : "", s->note[0] ? "  " : "", s->note);
	}
	if (any)
		fputc('\n', out);
}

static void print_log(FILE *out, const struct ex_log *g, const char *in)
{
	char t[32];
	if (!g->present)
		return;
	fprintf(out, "%slog (%s): %s [%s]", in, g->kind, g->path, g->state);
	if (!strcmp(g->state, "current"))
		fprintf(out, " model %s, loaded %s", g->model[0] ? g->model : "N/A", local_time(g->loaded_at_s, t, sizeof t));
	if (g->message[0])
		fprintf(out, " — %s", g->message);
	fputc('\n', out);
	if (strcmp(g->state, "current") != 0)
		return;
	if (g->n_slots >= 0 || g->n_ctx >= 0)
		fprintf(out, "%s  context %lld, slots %lld x %lld per slot, unified KV %s\n", in, (long long)g->n_ctx,
			(long long)g->n_slots, (long long)g->n_ctx_slot,
			g->kv_unified < 0 ? "N/A" : g->kv_unified ? "yes" : "no");
}

static void print_server(FILE *out, const struct ex_server *s, const char *in)
{
	char a[32], b[32], c[32];
	fprintf(out, "%sapi :%u %s%s", in, s->port, s->kind[0] ? s->kind : "unknown", s->reachable ? "" : " (no answer)");
	for (int i = 0; i < s->n_models; i++)
		fprintf(out, "%s %s%s", i ? "," : " model", s->models[i].path[0] ? s->models[i].path : s->models[i].name,
			s->models[i].loaded ? "" : " (not loaded)");
	if (gtm_u64_ok(s->slots_total))
		fprintf(out, "; slots %s busy of %llu", gtm_u64_ok(s->slots_busy) ? fmt_f64(a, sizeof a, gtm_f64_of((double)s->slots_busy.v, GTM_REPORTED), 0, "") : "N/A",
			(unsigned long long)s->slots_total.v);
	if (gtm_u64_ok(s->n_ctx_slot))
		fprintf(out, "; ctx/slot %llu", (unsigned long long)s->n_ctx_slot.v);
	if (gtm_f64_ok(s->gen_tps))
		fprintf(out, "; %s tok/s", fmt_f64(b, sizeof b, s->gen_tps, 1, ""));
	if (gtm_f64_ok(s->kv_usage))
		fprintf(out, "; KV cache %s used", fmt_f64(c, sizeof c, gtm_f64_of(s->kv_usage.v * 100, GTM_REPORTED), 0, "%"));
	for (int i = 0; i < s->n_models; i++)
		if (gtm_u64_ok(s->models[i].size_vram))
			fprintf(out, "; %s in VRAM of %s", fmt_bytes(a, sizeof a, s->models[i].size_vram),
				fmt_bytes(b, sizeof b, s->models[i].size));
	for (int i = 0; i < s->n_eps; i++)
		if (s->eps[i].state != EP_OK && s->eps[i].state != EP_NOT_PROBED)
			fprintf(out, "; %s %s", s->eps[i].path, ex_ep_state_name(s->eps[i].state));
	fputc('\n', out);
}

void explain_text_print(FILE *out, const struct gtm_explain *e, const char *in)
{
	print_log(out, &e->log, in);
	for (int i = 0; i < e->n_servers; i++)
		print_server(out, &e->servers[i], in);
	print_segments(out, e, in, EX_SRC_LOG, "reported by the log (allocated at load time)");
	print_segments(out, e, in, EX_SRC_API, "reported by the API");
	print_segments(out, e, in, EX_SRC_REMAINDER, "rest of the measured VRAM");
	print_segments(out, e, in, EX_SRC_ESTIMATE, "estimate (model header + flags)");
	for (int i = 0; i < e->n_notes; i++)
		fprintf(out, "%snote: %s\n", in, e->notes[i]);
	if (e->app.present && e->app.selected_model[0])
		fprintf(out, "%s%s: selected model %s (a setting, not load evidence)\n", in, e->app.app, e->app.selected_model);
}

static void print_full_extra(FILE *out, const struct gtm_explain *e, const char *in)
{
	const struct ex_log *g = &e->log;
	char t[32], b[32];
	for (int i = 0; g->present && i < g->n_kv; i++)
		fprintf(out, "%s  KV cache%s: %s, %llu cells, %u layers, %u/%u seqs, K %s, V %s\n", in,
			g->kv[i].swa < 0 ? "" : g->kv[i].swa ? " (SWA)" : " (non-SWA)", fmt_bytes_raw(b, sizeof b, g->kv[i].bytes),
			(unsigned long long)g->kv[i].cells, g->kv[i].layers, g->kv[i].seqs_used, g->kv[i].seqs_max,
			g->kv[i].type_k[0] ? g->kv[i].type_k : "N/A", g->kv[i].type_v[0] ? g->kv[i].type_v : "N/A");
	if (g->present && g->has_bd) {
		fprintf(out, "%s  memory breakdown [MiB]%s: device total free self = model + context + compute, unaccounted\n",
			in, g->bd_is_projection ? " (projection while fitting)" : "");
		for (int i = 0; i < g->n_bd; i++) {
			/* llama.cpp prints -1 where it has no figure (the Host row's total and free) */
			char v[7][24];
			long long x[7] = {g->bd[i].total, g->bd[i].free, g->bd[i].self, g->bd[i].model,
					  g->bd[i].context, g->bd[i].compute, g->bd[i].unaccounted};
			for (int k = 0; k < 7; k++)
				snprintf(v[k], sizeof v[k], x[k] == -1 ? "N/A" : "%lld", x[k]);
			fprintf(out, "%s    %-12s %s %s %s = %s + %s + %s, %s\n", in, g->bd[i].device, v[0], v[1], v[2],
				v[3], v[4], v[5], v[6]);
		}
	}
	for (int i = 0; g->present && i < g->n_history; i++)
		fprintf(out, "%s  history: %s at %s (%s), %s reported\n", in, g->history[i].model[0] ? g->history[i].model : "N/A",
			local_time(g->history[i].at_s, t, sizeof t), g->history[i].other_run ? "earlier process" : "this process",
			fmt_bytes_raw(b, sizeof b, g->history[i].total_bytes));
	for (int s = 0; s < e->n_servers; s++)
		for (int i = 0; i < e->servers[s].n_eps; i++)
			fprintf(out, "%s  :%u %-15s %s (HTTP %d, %u ms)\n", in, e->servers[s].port, e->servers[s].eps[i].path,
				ex_ep_state_name(e->servers[s].eps[i].state), e->servers[s].eps[i].http_status, e->servers[s].eps[i].ms);
	for (int i = 0; e->app.present && i < e->app.n_events; i++)
		fprintf(out, "%s  %s log: %s %s %s (history, not residency)\n", in, e->app.app,
			local_time(e->app.events[i].at_s, t, sizeof t), e->app.events[i].kind, e->app.events[i].detail);
}

void explain_text_print_full(FILE *out, const struct gtm_explain *e, const char *in)
{
	explain_text_print(out, e, in);
	print_full_extra(out, e, in);
}
