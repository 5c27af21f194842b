/* The dashboard: per device a header (identity, memory bar with categories,
 * counters) and the history charts. */
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "views/host_line.h"
#include "views/tui/tui_draw.h"

#define HEADER_LINES 4

static int chart_count(const struct tui_view *v)
{
	return tui_state_n_drawn(&v->st);
}

int tui_dash_natural(const struct tui_view *v, int width)
{
	struct tui_grid g;
	const struct gtm_snapshot *s = v->snap;

	if (!s)
		return 1;
	if (s->n_devices == 0)
		return 2 + s->n_sources;
	tui_chart_grid(chart_count(v), width, &g);
	return s->n_devices * (HEADER_LINES + g.rows * g.cell_h);
}

/* Bytes on device d of rows matched to the WSL VM's contexts ('*'/'?'): the VM
 * row holds them already. */
static uint64_t inside_vm(const struct gtm_snapshot *s, const struct gtm_device *d)
{
	uint64_t n = 0;
	for (int i = 0; i < s->n_gpu_processes && i < s->n_processes; i++)
		for (int u = 0; u < s->processes[i].n_uses; u++) {
			const struct gtm_gpu_use *g = &s->processes[i].uses[u];
			if (g->dev_index == d->index && (g->vram.prov == GTM_MATCHED || g->vram.prov == GTM_GUESSED))
				n += g->vram.v;
		}
	return n;
}

/* VRAM on device d by category: GPU rows' VRAM there (the WSL VM row less what
 * its matched rows hold: never counted twice), plus what the device reports
 * used beyond the rows as unattributed. */
static void category_bytes(const struct gtm_snapshot *s, const struct gtm_device *d, uint64_t *cat)
{
	uint64_t rows = 0, matched = inside_vm(s, d);

	memset(cat, 0, TUI_CAT_COUNT * sizeof *cat);
	for (int i = 0; i < s->n_gpu_processes && i < s->n_processes; i++) {
		const struct gtm_process *p = &s->processes[i];
		for (int u = 0; u < p->n_uses; u++)
			if (p->uses[u].dev_index == d->index && gtm_u64_ok(p->uses[u].vram)) {
				uint64_t b = p->uses[u].vram.v;
				if (p->wsl_vm_row)
					b = b > matched ? b - matched : 0;
				cat[tui_process_cat(p)] += b;
				rows += b;
			}
	}
	if (gtm_u64_ok(d->mem_used) && d->mem_used.v > rows)
		cat[TUI_CAT_UNATTRIBUTED] += d->mem_used.v - rows;
}

static void draw_ident_line(const struct tui_view *v, int y, int x, int w, const struct gtm_device *d)
{
	char line[256];
	char drv[80];
	if (d->driver_version[0])
		snprintf(drv, sizeof drv, "%s%s%s", d->driver[0] ? d->driver : "", d->driver[0] ? " " : "", d->driver_version);
	else
		snprintf(drv, sizeof drv, "%s%s", d->driver[0] ? d->driver : "", d->driver[0] ? " (version N/A)" : "N/A");
	char hs[640];
	host_stream_words(&v->snap->host, hs, sizeof hs);
	snprintf(line, sizeof line, "GPU%d %s  driver %s%s%s  %s%s%s  %s", d->index, d->name, drv,
		 d->cuda_version[0] ? "  CUDA " : "", d->cuda_version, gtm_mode_name(v->snap->mode), hs[0] ? ", " : "",
		 hs, d->source);
	term_attr_on(tui_attr(v, TP_HEAD));
	tui_put(y, x, w, line);
	term_attr_off(tui_attr(v, TP_HEAD));
}

static const char cat_ascii[TUI_CAT_COUNT] = {'A', 'C', 'B', 'o', 'u'};

/* A glyph n times, as one run of cells (a call per cell cost a bar's width
 * in backend calls every frame). Returns the columns written. */
static int put_repeated(int y, int x, const char *glyph, int n)
{
	char run[1024];
	size_t g = strlen(glyph), len = 0;
	int done = 0;

	while (done < n) {
		int k = 0;
		for (len = 0; done + k < n && len + g < sizeof run; k++, len += g)
			memcpy(run + len, glyph, g);
		term_put(y, x + done, run, (int)len);
		done += k;
	}
	return n > 0 ? n : 0;
}

/* The bar's scale: the device's total, or without one (a Windows adapter
 * known only by its PDH LUID) its use, so the rows still show their shares. */
static bool bar_scale(const struct gtm_device *d, uint64_t *scale)
{
	if (gtm_u64_ok(d->mem_total))
		*scale = d->mem_total.v;
	else if (gtm_u64_ok(d->mem_used) && d->mem_used.v > 0)
		*scale = d->mem_used.v;
	else
		return false;
	return true;
}

static void draw_bar(const struct tui_view *v, int y, int x, int w, const struct gtm_device *d, const uint64_t *cat)
{
	char used[32], total[32], sh[80], sa[32], sb[32], tail[160];
	int cells[TUI_CAT_COUNT], bw, used_cells, cx;
	bool norm;

	snprintf(sh, sizeof sh, "  shared %s/%s", fmt_bytes(sa, sizeof sa, d->shared_used),
		 fmt_bytes(sb, sizeof sb, d->shared_total));
	snprintf(tail, sizeof tail, " %s/%s%s", fmt_bytes(used, sizeof used, d->mem_used),
		 fmt_bytes(total, sizeof total, d->mem_total),
		 gtm_u64_ok(d->shared_total) || gtm_u64_ok(d->shared_used) ? sh : "");
	tui_put(y, x, w, "VRAM [");
	bw = w - 7 - (int)strlen(tail);
	uint64_t scale;
	bool scaled = bar_scale(d, &scale);
	if (bw < 4 || !scaled) {
		tui_put(y, x + 6, w - 6, scaled ? "]" : "N/A]");
		tui_put(y, x + (scaled ? 7 : 10), w - 10, tail);
		return;
	}
	used_cells = tui_bar_cells(cat, TUI_CAT_COUNT, scale, bw, cells, &norm);
	cx = x + 6;
	for (int c = 0; c < TUI_CAT_COUNT; c++) {
		char ch[2] = {cat_ascii[c], 0};
		term_attr_on(tui_cat_attr(v, (enum tui_cat)c));
		cx += put_repeated(y, cx, v->utf8 && v->color ? "\u2588" : ch, cells[c]);
		term_attr_off(tui_cat_attr(v, (enum tui_cat)c));
	}
	cx += put_repeated(y, cx, v->utf8 ? "\u00b7" : ".", bw - used_cells);
	term_put(y, cx, "]", -1);
	tui_put(y, cx + 1, x + w - cx - 1, tail);
}

static void draw_legend(const struct tui_view *v, int y, int x, int w, const struct gtm_device *d, const uint64_t *cat)
{
	char b[32], item[64];
	int cx = x, cells[TUI_CAT_COUNT];
	bool norm = false;
	uint64_t sum = 0, scale;

	for (int c = 0; c < TUI_CAT_COUNT; c++)
		sum += cat[c];
	if (bar_scale(d, &scale))
		tui_bar_cells(cat, TUI_CAT_COUNT, scale, 100, cells, &norm);
	if (sum == 0) {
		/* rows whose memory the driver withholds are not rows using none */
		bool withheld = false;
		for (int i = 0; i < v->snap->n_gpu_processes && i < v->snap->n_processes && !withheld; i++)
			for (int u = 0; u < v->snap->processes[i].n_uses; u++)
				withheld |= v->snap->processes[i].uses[u].dev_index == d->index &&
					    !gtm_u64_ok(v->snap->processes[i].uses[u].vram);
		tui_put(y, cx, w, withheld ? "per-process VRAM N/A (withheld by the driver or not attributable)"
					   : "no GPU memory charged to processes");
		return;
	}
	if (norm) {
		/* First, so a narrow terminal still says why the bar is full. */
		snprintf(item, sizeof item, "normalised: rows %s > %s  ", fmt_bytes_raw(b, sizeof b, sum),
			 gtm_u64_ok(d->mem_total) ? "total" : strcmp(d->source, "wddm") == 0 ? "used (shared surfaces)" : "used");
		term_attr_on(tui_attr(v, TP_WARN));
		tui_put(y, cx, w, item);
		term_attr_off(tui_attr(v, TP_WARN));
		cx += (int)strlen(item);
	} else if (gtm_u64_ok(d->mem_used) && sum > d->mem_used.v) {
		/* The bar is drawn from the rows, which may count shared buffers
		 * more than once: say when it shows more than the device's "used". */
		snprintf(item, sizeof item, "rows %s > used (shared %s count twice)  ", fmt_bytes_raw(b, sizeof b, sum),
			 strcmp(d->source, "wddm") == 0 ? "surfaces" : "buffers");
		term_attr_on(tui_attr(v, TP_WARN));
		tui_put(y, cx, w, item);
		term_attr_off(tui_attr(v, TP_WARN));
		cx += (int)strlen(item);
	}
	for (int c = 0; c < TUI_CAT_COUNT && cx < x + w; c++) {
		if (!cat[c])
			continue;
		snprintf(item, sizeof item, "%c %s %s  ", cat_ascii[c], tui_cat_name((enum tui_cat)c),
			 fmt_bytes_raw(b, sizeof b, cat[c]));
		term_attr_on(tui_cat_attr(v, (enum tui_cat)c));
		tui_put(y, cx, x + w - cx, item);
		term_attr_off(tui_cat_attr(v, (enum tui_cat)c));
		cx += (int)strlen(item);
	}
}

/* "a/b unit", "a unit (limit N/A)" or "N/A": a pair never prints N/A/N/A. */
static char *pair_text(char *buf, size_t n, gtm_f64 a, gtm_f64 b, const char *unit)
{
	if (gtm_f64_ok(a) && gtm_f64_ok(b))
		snprintf(buf, n, "%.0f/%.0f %s", a.v, b.v, unit);
	else if (gtm_f64_ok(a))
		snprintf(buf, n, "%.0f %s", a.v, unit);
	else
		snprintf(buf, n, "N/A");
	return buf;
}

static void draw_counters(int y, int x, int w, const struct gtm_device *d)
{
	char line[320], g[16], m[16], t[16], pw[32], sm[32], mc[24], link[32] = "N/A", tx[32] = "", rx[32];

	if (gtm_f64_ok(d->pcie_gen) || gtm_f64_ok(d->pcie_width))
		snprintf(link, sizeof link, "gen %s x%s", fmt_f64(g, sizeof g, d->pcie_gen, 0, ""),
			 fmt_f64(m, sizeof m, d->pcie_width, 0, ""));
	if (gtm_f64_ok(d->pcie_tx_bps) && gtm_f64_ok(d->pcie_rx_bps))
		snprintf(tx, sizeof tx, " tx %s/s", fmt_bytes_raw(rx, sizeof rx, (uint64_t)(d->pcie_tx_bps.v > 0 ? d->pcie_tx_bps.v : 0)));
	snprintf(line, sizeof line, "GPU %s  mem act %s  temp %s  power %s  SM %s  mem %s  PCIe %s%s%s%s%s",
		 fmt_f64(g, sizeof g, d->util_gpu_pct, 0, "%"), fmt_f64(m, sizeof m, d->util_mem_pct, 0, "%"),
		 fmt_f64(t, sizeof t, d->temp_c, 0, "C"), pair_text(pw, sizeof pw, d->power_w, d->power_limit_w, "W"),
		 pair_text(sm, sizeof sm, d->clock_sm_mhz, d->clock_sm_max_mhz, "MHz"),
		 fmt_f64(mc, sizeof mc, d->clock_mem_mhz, 0, " MHz"), link, tx, tx[0] ? " rx " : "",
		 tx[0] ? fmt_bytes_raw(rx, sizeof rx, (uint64_t)(d->pcie_rx_bps.v > 0 ? d->pcie_rx_bps.v : 0)) : "",
		 tx[0] ? "/s" : "");
	tui_put(y, x, w, line);
}

/* "45 %", "71 C", "250 W", "1980 MHz", "12.50 GiB"; N/A when missing. */
static char *metric_text(char *buf, size_t n, enum tui_metric m, gtm_f64 r, bool short_form)
{
	static const char *const unit[TUI_M_COUNT] = {" %", " MHz", "", " %", " C", " W", " %", " %"};
	static const char *const unit_short[TUI_M_COUNT] = {"%", "M", "", "%", "C", "W", "%", "%"};
	if (m == TUI_M_VRAM && gtm_f64_ok(r)) {
		if (short_form)
			snprintf(buf, n, "%.0fG", r.v / (1024.0 * 1024.0 * 1024.0));
		else
			fmt_bytes_raw(buf, n, (uint64_t)r.v);
		return buf;
	}
	return fmt_f64(buf, n, r, 0, short_form ? unit_short[m] : unit[m]);
}

static const char *const eighths_utf8[9] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
					     "\u2585", "\u2586", "\u2587", "\u2588"};

/* The glyph of one plot cell (one column). */
static const char *plot_glyph(const struct tui_view *v, int level, int row)
{
	int e = tui_chart_cell_eighths(level, row);
	if (level < 0)
		return " ";
	if (level == 0)
		return row == 0 ? "_" : " ";
	if (v->utf8)
		return eighths_utf8[e];
	return e >= 4 ? "#" : e > 0 ? "." : " ";
}

/* The level of each of the n newest samples (tui_chart_level), oldest
 * first: computed once a chart, not once a plot row. */
static void plot_levels(struct tui_view *v, const struct tui_dev_history *dh, enum tui_metric m, double max,
			int n, int *level)
{
	for (int col = 0; col < n; col++) {
		double val = 0;
		bool ok = tui_history_sample(&v->hist, dh, m, n - 1 - col, &val);
		level[col] = tui_chart_level(ok, val, max, TUI_CHART_H - 1);
	}
}

/* One row of a plot from its columns' levels, a run of equal glyphs at a
 * time (a row is mostly long runs: full blocks below the line, blanks above). */
static void draw_plot_row(struct tui_view *v, const int *level, int y, int x, int plot_w, int row)
{
	for (int col = 0; col < plot_w;) {
		const char *g = plot_glyph(v, level[col], row);
		int end = col + 1;
		while (end < plot_w && plot_glyph(v, level[end], row) == g)
			end++;
		put_repeated(y, x + col, g, end - col);
		col = end;
	}
}

/* "%6s|" of an axis label, without printf (once a plot row). */
static void axis_text(char *out, size_t n, const char *label)
{
	size_t len = strlen(label), pad = len < 6 ? 6 - len : 0;

	if (pad + len + 2 > n)
		len = n > pad + 2 ? n - pad - 2 : 0;
	memset(out, ' ', pad);
	memcpy(out + pad, label, len);
	out[pad + len] = '|';
	out[pad + len + 1] = '\0';
}

static void draw_chart(struct tui_view *v, const struct tui_clip *c, int vline, int x, int w,
		       const struct gtm_device *d, enum tui_metric m)
{
	const struct tui_dev_history *dh = tui_history_find(&v->hist, d);
	char cur[32], top[32], title[96], axis[40];
	int level[TUI_HIST_LEN];
	bool from_limit;
	double max = tui_metric_scale(d, dh, v->hist.count, m, &from_limit);
	int plot_h = TUI_CHART_H - 1, plot_w = w - 8, y;
	/* columns older than the kept history are blank, on the left */
	int kept = plot_w < TUI_HIST_LEN ? plot_w : TUI_HIST_LEN, lead = plot_w - kept;

	if (max > 0)
		metric_text(top, sizeof top, m, gtm_f64_of(max, GTM_MEASURED), false);
	snprintf(title, sizeof title, "%s %s  0-%s%s", tui_metric_title(m), metric_text(cur, sizeof cur, m, tui_metric_value(d, m), false),
		 max > 0 ? top : "?", from_limit ? "" : " (max seen)");
	if ((y = tui_clip_y(c, vline)) >= 0) {
		term_attr_on(tui_attr(v, TP_HEAD));
		tui_put(y, x, w - 1, title);
		term_attr_off(tui_attr(v, TP_HEAD));
	}
	if (kept > 0)
		plot_levels(v, dh, m, max, kept, level);
	for (int r = 0; r < plot_h; r++) {
		int row = plot_h - 1 - r; /* 0 = bottom */
		if ((y = tui_clip_y(c, vline + 1 + r)) < 0)
			continue;
		term_attr_on(tui_attr(v, TP_DIM));
		axis_text(axis, sizeof axis, r > 0 ? (row == 0 ? "0" : "")
					: max > 0 ? metric_text(top, sizeof top, m, gtm_f64_of(max, GTM_MEASURED), true) : "?");
		term_put(y, x, axis, -1);
		term_attr_off(tui_attr(v, TP_DIM));
		term_attr_on(tui_attr(v, TP_CHART));
		if (lead > 0)
			put_repeated(y, x + 7, " ", lead);
		if (kept > 0)
			draw_plot_row(v, level, y, x + 7 + lead, kept, row);
		term_attr_off(tui_attr(v, TP_CHART));
	}
}

static int draw_device(struct tui_view *v, const struct tui_clip *c, int vline, const struct gtm_device *d)
{
	uint64_t cat[TUI_CAT_COUNT];
	struct tui_grid g;
	int y, n = chart_count(v);

	category_bytes(v->snap, d, cat);
	if ((y = tui_clip_y(c, vline)) >= 0)
		draw_ident_line(v, y, c->x0, c->w, d);
	if ((y = tui_clip_y(c, vline + 1)) >= 0)
		draw_bar(v, y, c->x0, c->w, d, cat);
	if ((y = tui_clip_y(c, vline + 2)) >= 0)
		draw_legend(v, y, c->x0 + 5, c->w - 5, d, cat);
	if ((y = tui_clip_y(c, vline + 3)) >= 0)
		draw_counters(y, c->x0, c->w, d);
	vline += HEADER_LINES;
	tui_chart_grid(n, c->w, &g);
	for (int i = 0; i < n; i++) {
		enum tui_metric m = tui_state_drawn(&v->st, i);
		draw_chart(v, c, vline + (i / g.per_row) * g.cell_h, c->x0 + (i % g.per_row) * g.cell_w, g.cell_w, d, m);
	}
	return HEADER_LINES + g.rows * g.cell_h;
}

static void draw_no_gpu(struct tui_view *v, const struct tui_clip *c)
{
	const struct gtm_snapshot *s = v->snap;
	int y;

	if ((y = tui_clip_y(c, 0)) >= 0) {
		term_attr_on(tui_attr(v, TP_WARN));
		tui_put(y, c->x0, c->w, "No GPU is shown:");
		term_attr_off(tui_attr(v, TP_WARN));
	}
	for (int i = 0; i < s->n_sources; i++) {
		char line[300];
		snprintf(line, sizeof line, "  %s: %s", s->sources[i].name,
			 s->sources[i].message[0] ? s->sources[i].message : (s->sources[i].available ? "no devices" : "unavailable"));
		if ((y = tui_clip_y(c, 1 + i)) >= 0)
			tui_put(y, c->x0, c->w, line);
	}
	if (s->n_sources == 0 && (y = tui_clip_y(c, 1)) >= 0)
		tui_put(y, c->x0, c->w, "  no GPU source is available in this build");
}

void tui_dash_draw(struct tui_view *v, const struct tui_clip *c)
{
	int vline = 0;

	if (!v->snap) {
		if (tui_clip_y(c, 0) >= 0)
			tui_put(c->y0, c->x0, c->w, "Collecting the first snapshot...");
		return;
	}
	if (v->snap->n_devices == 0) {
		draw_no_gpu(v, c);
		return;
	}
	for (int i = 0; i < v->snap->n_devices; i++)
		vline += draw_device(v, c, vline, &v->snap->devices[i]);
}
