#include "views/explain_text.h"

#include <string.h>
#include <time.h>

#include "core/format.h"
#include "core/util.h"
#include "views/explain_kv.h"

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

/* Room for an escaped log or API string (fmt_safe returns clean ones as they are). */
#define SAFE_N 1024

/* A count the runtime reports with -1 (or any negative) for "none": N/A. */
static const char *count_or_na(char *buf, size_t n, int64_t v)
{
	if (v < 0)
		snprintf(buf, n, "N/A");
	else
		snprintf(buf, n, "%lld", (long long)v);
	return buf;
}

static void where(const struct ex_segment *s, char *buf, size_t n)
{
	char d[SAFE_N];
	const char *dev = fmt_safe(d, sizeof d, s->device);
	if (s->host)
		snprintf(buf, n, "host %s", dev);
	else if (s->gpu >= 0 && s->src == EX_SRC_REMAINDER)
		snprintf(buf, n, "GPU %d%s", s->gpu, ex_join_mark(s->join)); /* its device is that GPU's own name ("GPU0") */
	else if (s->gpu >= 0)
		snprintf(buf, n, "GPU %d%s %s", s->gpu, ex_join_mark(s->join), dev);
	else
		snprintf(buf, n, "%s", dev);
}

static void print_segments(FILE *out, const struct gtm_explain *e, const char *in, enum ex_src src, const char *title)
{
	bool any = false;
	for (int i = 0; i < e->n_segs; i++) {
		const struct ex_segment *s = &e->segs[i];
		char b[32], w[64], nt[SAFE_N];
		if (s->src != src)
			continue;
		if (!any)
			fprintf(out, "%s%s:", in, title);
		any = true;
		where(s, w, sizeof w);
		fprintf(out, "\n%s  %-16s %-22s %12s%s%s%s", in, ex_seg_name(s->seg), w, fmt_bytes(b, sizeof b, s->bytes),
			s->approx ? " ~" : "", s->note[0] ? "  " : "", fmt_safe(nt, sizeof nt, s->note));
	}
	if (any)
		fputc('\n', out);
}

static void print_log(FILE *out, const struct ex_log *g, const char *in)
{
	char t[32], a[24], b[24], c[24], s1[SAFE_N], s2[SAFE_N], s3[SAFE_N];
	if (!g->present)
		return;
	fprintf(out, "%slog (%s): %s [%s]", in, fmt_safe(s1, sizeof s1, g->kind), fmt_safe(s2, sizeof s2, g->path),
		fmt_safe(s3, sizeof s3, g->state));
	if (g->read_via_fd && g->read_fd == 2)
		fprintf(out, " read through the process's stderr");
	else if (g->read_via_fd)
		fprintf(out, " read through the process's fd %d", g->read_fd);
	if (!strcmp(g->state, "current"))
		fprintf(out, " model %s, loaded %s", g->model[0] ? fmt_safe(s1, sizeof s1, g->model) : "N/A",
			local_time(g->loaded_at_s, t, sizeof t));
	if (g->message[0])
		fprintf(out, " — %s", fmt_safe(s1, sizeof s1, g->message));
	fputc('\n', out);
	if (strcmp(g->state, "current") != 0)
		return;
	/* llama-server logs -1 for what it has not settled (n_slots before the slots exist) */
	if (g->n_slots >= 0 || g->n_ctx >= 0)
		fprintf(out, "%s  context %s, slots %s x %s per slot, unified KV %s\n", in, count_or_na(a, sizeof a, g->n_ctx),
			count_or_na(b, sizeof b, g->n_slots), count_or_na(c, sizeof c, g->n_ctx_slot),
			g->kv_unified < 0 ? "N/A" : g->kv_unified ? "yes" : "no");
}

/* Whether the server is busy with a request now (its /metrics or /slots say). */
static bool request_running(const struct ex_server *s)
{
	return (gtm_u64_ok(s->requests_running) && s->requests_running.v > 0) ||
	       (gtm_u64_ok(s->slots_busy) && s->slots_busy.v > 0);
}

/* The server's own speed (its timing of the tokens), else its average since
 * it started; the wall-clock rate of its counter apart, named as such. A
 * server that counts a request's tokens when it ends (llama-server) shows,
 * while one runs, the average as of the last finished request. */
static void print_rate(FILE *out, const char *what, const struct ex_server *s, const struct ex_rate *r)
{
	char b[32];
	if (gtm_f64_ok(r->tps))
		fprintf(out, "; %s %s tok/s (reported)", what, fmt_f64(b, sizeof b, r->tps, 1, ""));
	else if (gtm_f64_ok(r->avg_tps) && s->counted_at_end && request_running(s))
		fprintf(out, "; %s %s tok/s avg, as of the last finished request (reported; the running one counts when it "
			     "ends)",
			what, fmt_f64(b, sizeof b, r->avg_tps, 1, ""));
	else if (gtm_f64_ok(r->avg_tps))
		fprintf(out, "; %s %s tok/s avg since start (reported)", what, fmt_f64(b, sizeof b, r->avg_tps, 1, ""));
	if (gtm_f64_ok(r->wall_tps))
		fprintf(out, "; %s wall %s tok/s", what, fmt_f64(b, sizeof b, r->wall_tps, 1, ""));
}

/* Why a port's server is unknown: nothing answered, or what answered was not HTTP. */
static const char *server_unreached(const struct ex_server *s)
{
	if (s->reachable)
		return "";
	for (int i = 0; i < s->n_eps; i++)
		if (s->eps[i].state == EP_GARBAGE)
			return " (answers not HTTP)";
	return " (no answer)";
}

static void print_server(FILE *out, const struct ex_server *s, const char *in)
{
	char a[32], b[32], c[32], k[SAFE_N];
	fprintf(out, "%sapi :%u %s%s", in, s->port, s->kind[0] ? fmt_safe(k, sizeof k, s->kind) : "unknown",
		server_unreached(s));
	for (int i = 0; i < s->n_models; i++) {
		const struct ex_server_model *m = &s->models[i];
		/* the name it serves the file under (llama-server's --alias), when not the path itself */
		bool named = m->path[0] && m->name[0] && strcmp(m->name, m->path) != 0;
		fprintf(out, "%s %s", i ? "," : " model", fmt_safe(k, sizeof k, m->path[0] ? m->path : m->name));
		fprintf(out, "%s%s%s%s", named ? " (as " : "", named ? fmt_safe(k, sizeof k, m->name) : "", named ? ")" : "",
			m->loaded ? "" : " (not loaded)");
	}
	if (gtm_u64_ok(s->slots_total))
		fprintf(out, "; slots %s busy of %llu", gtm_u64_ok(s->slots_busy) ? fmt_f64(a, sizeof a, gtm_f64_of((double)s->slots_busy.v, GTM_REPORTED), 0, "") : "N/A",
			(unsigned long long)s->slots_total.v);
	if (gtm_u64_ok(s->n_ctx_slot))
		fprintf(out, "; ctx/slot %llu", (unsigned long long)s->n_ctx_slot.v);
	print_rate(out, "generation", s, &s->gen);
	print_rate(out, "prompt", s, &s->prompt);
	if (gtm_f64_ok(s->kv_usage))
		fprintf(out, "; KV cache %s used", fmt_f64(c, sizeof c, gtm_f64_of(s->kv_usage.v * 100, GTM_REPORTED), 0, "%"));
	for (int i = 0; i < s->n_models; i++)
		if (gtm_u64_ok(s->models[i].size_vram))
			fprintf(out, "; %s in VRAM of %s", fmt_bytes(a, sizeof a, s->models[i].size_vram),
				fmt_bytes(b, sizeof b, s->models[i].size));
	for (int i = 0; i < s->n_eps; i++)
		if (s->eps[i].state != EP_OK && s->eps[i].state != EP_NOT_PROBED)
			fprintf(out, "; %s %s", fmt_safe(k, sizeof k, s->eps[i].path), ex_ep_state_name(s->eps[i].state));
	fputc('\n', out);
}

static const char *join_words(enum ex_join j)
{
	static const char *const words[] = {
		[EX_JOIN_NONE] = "", [EX_JOIN_PCI] = "by PCI bus id", [EX_JOIN_UUID] = "by GPU UUID",
		[EX_JOIN_ENV] = "by CUDA_VISIBLE_DEVICES in PCI order", [EX_JOIN_ONLY] = "its one GPU",
		[EX_JOIN_NAME] = "by name, matched", [EX_JOIN_GUESS] = "a guess by order",
	};
	return (unsigned)j < ARRAY_LEN(words) ? words[j] : "";
}

/* One line per GPU of a process on several: what the runtime reported there
 * and the rest of the driver's measurement, which alone is measured. */
static void print_devices(FILE *out, const struct gtm_explain *e, const char *in)
{
	if (e->n_devs < 2)
		return;
	fprintf(out, "%sper GPU (reported at load time + rest = the driver's measurement):\n", in);
	for (int i = 0; i < e->n_devs; i++) {
		const struct ex_device *d = &e->devs[i];
		char w[32], k[32], c[32], o[32], r[32], m[32], dev[SAFE_N];
		fprintf(out, "%s  GPU %d%s", in, d->gpu, ex_join_mark(d->join));
		if (d->runtime_dev[0])
			fprintf(out, " %s (%s)", fmt_safe(dev, sizeof dev, d->runtime_dev), join_words(d->join));
		fputc(':', out);
		if (d->layers >= 0)
			fprintf(out, " %d layers (%d-%d);", d->layers, d->first_layer, d->last_layer);
		if (d->reported)
			fprintf(out, " weights %s + KV %s + compute %s + other %s (reported%s) +",
				fmt_bytes_raw(w, sizeof w, d->weights), fmt_bytes_raw(k, sizeof k, d->kv),
				fmt_bytes_raw(c, sizeof c, d->compute), fmt_bytes_raw(o, sizeof o, d->other),
				d->api ? ", API" : "");
		else
			fprintf(out, " nothing reported;");
		fprintf(out, " rest %s (%s) = %s measured\n", fmt_bytes(r, sizeof r, d->rest),
			gtm_u64_ok(d->rest) ? gtm_prov_name(d->rest.prov) : "N/A", fmt_bytes(m, sizeof m, d->measured));
	}
}

void explain_text_print(FILE *out, const struct gtm_explain *e, const char *in)
{
	char a[SAFE_N], b[SAFE_N];
	print_log(out, &e->log, in);
	for (int i = 0; i < e->n_servers; i++)
		print_server(out, &e->servers[i], in);
	print_segments(out, e, in, EX_SRC_LOG, "reported by the log (allocated at load time)");
	print_segments(out, e, in, EX_SRC_API, "reported by the API");
	print_segments(out, e, in, EX_SRC_REMAINDER, "rest of the measured VRAM");
	print_segments(out, e, in, EX_SRC_ESTIMATE, "estimate (model header + flags)");
	explain_kv_text(out, e, in);
	print_devices(out, e, in);
	for (int i = 0; i < e->n_notes; i++)
		fprintf(out, "%snote: %s\n", in, fmt_safe(a, sizeof a, e->notes[i]));
	if (e->app.present && e->app.selected_model[0])
		fprintf(out, "%s%s: selected model %s (a setting, not load evidence)\n", in, fmt_safe(a, sizeof a, e->app.app),
			fmt_safe(b, sizeof b, e->app.selected_model));
}

static void print_kv_caches(FILE *out, const struct ex_log *g, const char *in)
{
	char b[32], k[SAFE_N], v[SAFE_N];
	for (int i = 0; g->present && i < g->n_kv; i++)
		fprintf(out, "%s  KV cache%s: %s, %llu cells, %u layers, %u/%u seqs, K %s, V %s\n", in,
			g->kv[i].swa < 0 ? "" : g->kv[i].swa ? " (SWA)" : " (non-SWA)", fmt_bytes_raw(b, sizeof b, g->kv[i].bytes),
			(unsigned long long)g->kv[i].cells, g->kv[i].layers, g->kv[i].seqs_used, g->kv[i].seqs_max,
			g->kv[i].type_k[0] ? fmt_safe(k, sizeof k, g->kv[i].type_k) : "N/A",
			g->kv[i].type_v[0] ? fmt_safe(v, sizeof v, g->kv[i].type_v) : "N/A");
}

static void print_breakdown(FILE *out, const struct ex_log *g, const char *in)
{
	char d[SAFE_N];
	if (!g->present || !g->has_bd)
		return;
	fprintf(out, "%s  memory breakdown [MiB]%s: device total free self = model + context + compute, unaccounted\n",
		in, g->bd_is_projection ? " (projection while fitting)" : "");
	for (int i = 0; i < g->n_bd; i++) {
		/* llama.cpp prints -1 where it has no figure (the Host row's total and free) */
		char v[7][24];
		long long x[7] = {g->bd[i].total, g->bd[i].free, g->bd[i].self, g->bd[i].model,
				  g->bd[i].context, g->bd[i].compute, g->bd[i].unaccounted};
		for (int k = 0; k < 7; k++)
			count_or_na(v[k], sizeof v[k], x[k]);
		fprintf(out, "%s    %-12s %s %s %s = %s + %s + %s, %s\n", in, fmt_safe(d, sizeof d, g->bd[i].device), v[0],
			v[1], v[2], v[3], v[4], v[5], v[6]);
	}
}

/* When a load in the log happened: the wall clock the line carries, else how
 * long after its process started, else "time unknown". */
static const char *history_when(const struct ex_log_history *h, char *buf, size_t n)
{
	char t[32];
	if (h->at_s > 0)
		snprintf(buf, n, "at %s", local_time(h->at_s, t, sizeof t));
	else if (h->rel_s >= 0)
		snprintf(buf, n, "%.1f s after its process started", h->rel_s);
	else
		snprintf(buf, n, "time unknown");
	return buf;
}

static void print_history(FILE *out, const struct ex_log *g, const char *in)
{
	char w[64], b[32], m[SAFE_N];
	for (int i = 0; g->present && i < g->n_history; i++)
		fprintf(out, "%s  history: %s %s (%s), %s reported\n", in,
			g->history[i].model[0] ? fmt_safe(m, sizeof m, g->history[i].model) : "N/A",
			history_when(&g->history[i], w, sizeof w), g->history[i].other_run ? "earlier process" : "this process",
			fmt_bytes_raw(b, sizeof b, g->history[i].total_bytes));
}

static void print_endpoints(FILE *out, const struct gtm_explain *e, const char *in)
{
	char p[SAFE_N], st[32];
	for (int s = 0; s < e->n_servers; s++)
		for (int i = 0; i < e->servers[s].n_eps; i++) {
			const struct ex_endpoint *ep = &e->servers[s].eps[i];
			/* http_status 0: no HTTP answer (refused, timed out), so no status to show */
			if (ep->http_status > 0)
				snprintf(st, sizeof st, "HTTP %d, ", ep->http_status);
			else
				st[0] = '\0';
			fprintf(out, "%s  :%u %-15s %s (%s%u ms)\n", in, e->servers[s].port, fmt_safe(p, sizeof p, ep->path),
				ex_ep_state_name(ep->state), st, ep->ms);
		}
}

static void print_app_events(FILE *out, const struct ex_app *a, const char *in)
{
	char t[32], n[SAFE_N], k[SAFE_N], d[SAFE_N];
	for (int i = 0; a->present && i < a->n_events; i++)
		fprintf(out, "%s  %s log: %s %s %s (history, not residency)\n", in, fmt_safe(n, sizeof n, a->app),
			local_time(a->events[i].at_s, t, sizeof t), fmt_safe(k, sizeof k, a->events[i].kind),
			fmt_safe(d, sizeof d, a->events[i].detail));
}

static void print_full_extra(FILE *out, const struct gtm_explain *e, const char *in)
{
	print_kv_caches(out, &e->log, in);
	print_breakdown(out, &e->log, in);
	print_history(out, &e->log, in);
	print_endpoints(out, e, in);
	print_app_events(out, &e->app, in);
}

void explain_text_print_full(FILE *out, const struct gtm_explain *e, const char *in)
{
	explain_text_print(out, e, in);
	print_full_extra(out, e, in);
}
