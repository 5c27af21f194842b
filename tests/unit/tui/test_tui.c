/* The live view's pure parts on synthetic snapshots: column fitting, chart
 * grid, screen regions, bar normalisation, chart levels, sorting, keys,
 * history, text wrapping, inspector and help text, selection keeping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/snapshot.h"
#include "explain/explain.h"
#include "identify/ident.h"
#include "core/util.h"
#include "views/tui/tui_ident.h"
#include "views/tui/tui_inspect.h"
#include "views/tui/tui_layout.h"
#include "views/tui/tui_rows.h"
#include "views/tui/tui_state.h"
#include "views/tui/tui_view.h"

static bool has_col(const struct tui_columns *c, enum tui_col id)
{
	for (int i = 0; i < c->n; i++)
		if (c->id[i] == id)
			return true;
	return false;
}

/* "?:help q:quit" at every width; "]:more" whenever the dashboard is taller
 * and there is room for it beside them (80 columns leave 22 cells). */
static void test_status_hints(void **state)
{
	(void)state;
	for (int room = -5; room <= 200; room++)
		for (int more = 0; more <= 1; more++) {
			const char *h = tui_status_hints(room, more);
			int len = (int)strlen(h);
			assert_non_null(strstr(h, "?:help"));
			assert_non_null(strstr(h, "q:quit"));
			assert_true(len <= (room > 14 ? room : 14));
			if (more && room >= 21)
				assert_non_null(strstr(h, "]:more"));
			if (!more)
				assert_null(strstr(h, "]:more"));
			if (room >= (more ? 38 : 24))
				assert_non_null(strstr(h, "p:pause"));
		}
	assert_string_equal(tui_status_hints(22, true), " ]:more ?:help q:quit");
	assert_string_equal(tui_status_hints(22, false), " ?:help  q:quit");
}

static void check_columns_fit(int width)
{
	struct tui_columns c;
	tui_columns_fit(width, &c);
	assert_true(c.n >= 1);
	for (int i = 0; i < c.n; i++) {
		assert_true(c.w[i] >= 1);
		assert_true(c.x[i] + c.w[i] <= width);
		if (i)
			assert_true(c.x[i] > c.x[i - 1] + c.w[i - 1] - 1);
	}
}

static void test_columns(void **state)
{
	struct tui_columns c;
	(void)state;
	tui_columns_fit(80, &c);
	assert_true(has_col(&c, TUI_COL_PID) && has_col(&c, TUI_COL_NAME) && has_col(&c, TUI_COL_VRAM));
	assert_true(has_col(&c, TUI_COL_GPU) && has_col(&c, TUI_COL_INSIDE));
	assert_false(has_col(&c, TUI_COL_COPY));
	assert_int_equal(c.x[c.n - 1] + c.w[c.n - 1], 80); /* the last column takes what is left */
	tui_columns_fit(200, &c);
	assert_int_equal(c.n, TUI_COL_COUNT); /* a wide terminal shows all */
	assert_int_equal(c.x[c.n - 1] + c.w[c.n - 1], 200);
	for (int w = 1; w <= 240; w++)
		check_columns_fit(w < 9 ? 9 : w);
	tui_columns_fit(30, &c);
	assert_true(has_col(&c, TUI_COL_PID) && has_col(&c, TUI_COL_NAME));
	assert_false(has_col(&c, TUI_COL_INSIDE));
}

static void test_chart_grid(void **state)
{
	struct tui_grid g;
	(void)state;
	tui_chart_grid(TUI_M_COUNT, 40, &g);
	assert_int_equal(g.per_row, 1); /* narrow: charts stack */
	assert_int_equal(g.rows, 8);
	tui_chart_grid(TUI_M_COUNT, 80, &g);
	assert_int_equal(g.per_row, 2);
	assert_int_equal(g.rows, 4);
	assert_int_equal(g.cell_w, 40);
	tui_chart_grid(TUI_M_COUNT, 200, &g);
	assert_int_equal(g.per_row, 5);
	assert_int_equal(g.rows, 2);
	tui_chart_grid(1, 200, &g);
	assert_int_equal(g.per_row, 1);
	assert_int_equal(g.cell_w, 200);
	tui_chart_grid(TUI_M_COUNT, 10, &g);
	assert_int_equal(g.per_row, 1);
}

static void check_regions(int rows, int cols, int dash, int n, int insp)
{
	struct tui_regions r;
	tui_regions_fit(rows, cols, dash, n, insp, &r);
	assert_true(r.dash_h >= 0 && r.table_h >= 0 && r.insp_h >= 0);
	assert_true(r.dash_h <= dash);
	assert_int_equal(r.table_y, r.dash_y + r.dash_h);
	if (r.side_inspector) {
		assert_int_equal(r.table_y + r.table_h, rows);
		assert_int_equal(r.insp_x + r.insp_w, cols);
	} else {
		assert_int_equal(r.insp_y, r.table_y + r.table_h);
		assert_int_equal(r.insp_y + r.insp_h, rows);
	}
}

static void test_regions(void **state)
{
	struct tui_regions r;
	(void)state;
	tui_regions_fit(24, 80, 44, 3, 20, &r);
	assert_false(r.side_inspector);
	assert_int_equal(r.table_h, 4);  /* title + three rows */
	assert_true(r.insp_h >= 6);      /* the inspector keeps room */
	assert_true(r.dash_h >= 10);     /* the dashboard gets the rest and scrolls */
	check_regions(24, 80, 44, 3, 20);
	tui_regions_fit(60, 200, 24, 30, 40, &r);
	assert_true(r.side_inspector);
	assert_int_equal(r.dash_h, 24);
	assert_int_equal(r.insp_y, r.table_y);
	/* A short inspector gives its rows back to the dashboard. */
	tui_regions_fit(40, 80, 30, 2, 3, &r);
	assert_int_equal(r.insp_h, 3);
	for (int rows = 1; rows < 70; rows += 3)
		for (int cols = 20; cols < 240; cols += 37)
			check_regions(rows, cols, 44, 12, 15);
}

static void test_bar_cells(void **state)
{
	uint64_t v[3] = {25, 25, 0};
	int cells[3];
	bool norm;
	(void)state;
	assert_int_equal(tui_bar_cells(v, 3, 100, 40, cells, &norm), 20);
	assert_false(norm);
	assert_int_equal(cells[0], 10);
	assert_int_equal(cells[1], 10);
	assert_int_equal(cells[2], 0);
	/* Rows adding up to more than the device: normalised to fit. */
	v[0] = 90, v[1] = 60, v[2] = 50;
	assert_int_equal(tui_bar_cells(v, 3, 100, 40, cells, &norm), 40);
	assert_true(norm);
	assert_int_equal(cells[0] + cells[1] + cells[2], 40);
	assert_int_equal(cells[0], 18);
	/* No total known and nothing in use. */
	v[0] = v[1] = v[2] = 0;
	assert_int_equal(tui_bar_cells(v, 3, 0, 40, cells, &norm), 0);
	assert_false(norm);
	v[0] = UINT64_MAX / 2, v[1] = UINT64_MAX / 2;
	assert_int_equal(tui_bar_cells(v, 2, 100, 10, cells, &norm), 10);
}

static void test_chart_level(void **state)
{
	(void)state;
	assert_int_equal(tui_chart_level(false, 50, 100, 4), -1); /* missing: blank */
	assert_int_equal(tui_chart_level(true, 0, 100, 4), 0);    /* zero: baseline */
	assert_int_equal(tui_chart_level(true, 0.01, 100, 4), 1); /* tiny but visible */
	assert_int_equal(tui_chart_level(true, 50, 100, 4), 16);
	assert_int_equal(tui_chart_level(true, 100, 100, 4), 32);
	assert_int_equal(tui_chart_level(true, 500, 100, 4), 32);
	assert_int_equal(tui_chart_level(true, 5, 0, 4), 32);     /* unknown scale */
	assert_int_equal(tui_chart_cell_eighths(12, 0), 8);
	assert_int_equal(tui_chart_cell_eighths(12, 1), 4);
	assert_int_equal(tui_chart_cell_eighths(12, 2), 0);
	assert_int_equal(tui_scroll_follow(0, 12, 10, 40), 3);
	assert_int_equal(tui_scroll_follow(5, 2, 10, 40), 2);
	assert_int_equal(tui_scroll_clamp(50, 10, 40), 30);
	assert_int_equal(tui_scroll_clamp(5, 10, 4), 0);
}

/* A device and processes with chosen VRAM / GPU % / spill (negative = N/A). */
static struct gtm_snapshot *synth(void)
{
	static const struct { const char *name; uint32_t pid; long vram_mib, gpu, spill; enum gtm_owner owner; } rows[] = {
		{"llama-server", 100, 9000, 80, -1, GTM_OWNER_LOCAL},
		{"Xorg", 200, 300, 5, 12, GTM_OWNER_LOCAL},
		{"python3", 300, -1, -1, -1, GTM_OWNER_MATCHED},
		{"firefox", 400, 700, 30, 100, GTM_OWNER_LOCAL},
		{"", 0, 50, -1, -1, GTM_OWNER_HOST},
	};
	struct gtm_snapshot *s = snapshot_new();
	struct gtm_device *d = snapshot_add_device(s);

	d->index = 0;
	str_copy(d->name, "Test GPU", sizeof d->name);
	str_copy(d->uuid, "GPU-test", sizeof d->uuid);
	d->mem_total = gtm_u64_of(16 * GIB, GTM_MEASURED);
	d->mem_used = gtm_u64_of(11 * GIB, GTM_MEASURED);
	d->util_gpu_pct = gtm_f64_of(60, GTM_MEASURED);
	d->temp_c = GTM_F64_NA;
	for (size_t i = 0; i < ARRAY_LEN(rows); i++) {
		struct gtm_process *p = snapshot_add_process(s);
		struct gtm_gpu_use *u = process_add_use(p);
		p->pid = rows[i].pid;
		p->host_pid = rows[i].pid ? 0 : 4242;
		p->owner = rows[i].owner;
		p->start_time = 1000 + i;
		str_copy(p->name, rows[i].name, sizeof p->name);
		snprintf(p->label, sizeof p->label, rows[i].owner == GTM_OWNER_HOST ? "H:4242" :
			 rows[i].owner == GTM_OWNER_MATCHED ? "*%u" : "%u", rows[i].pid);
		u->dev_index = 0;
		u->vram = rows[i].vram_mib < 0 ? GTM_U64_NA : gtm_u64_of((uint64_t)rows[i].vram_mib * MIB, GTM_MEASURED);
		u->sm_pct = rows[i].gpu < 0 ? GTM_F64_NA : gtm_f64_of((double)rows[i].gpu, GTM_MEASURED);
		u->spill = rows[i].spill < 0 ? GTM_U64_NA : gtm_u64_of((uint64_t)rows[i].spill * MIB, GTM_MEASURED);
		u->paged = GTM_U64_NA;
		u->enc_pct = u->dec_pct = u->gfx_pct = u->copy_pct = u->video_pct = GTM_F64_NA;
		if (!gtm_u64_ok(u->vram))
			str_copy(u->na_reason, "driver did not report it", sizeof u->na_reason);
		s->n_gpu_processes++;
	}
	/* One collected process without a GPU (only in the all view). */
	struct gtm_process *p = snapshot_add_process(s);
	p->pid = 500;
	str_copy(p->label, "500", sizeof p->label);
	str_copy(p->name, "bash", sizeof p->name);
	p->owner = GTM_OWNER_NONE;
	return s;
}

static void names_in_order(const struct gtm_snapshot *s, const int *idx, int n, char *out, size_t cap)
{
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		strncat(out, s->processes[idx[i]].name[0] ? s->processes[idx[i]].name : "-", cap - strlen(out) - 1);
		strncat(out, " ", cap - strlen(out) - 1);
	}
}

static void test_sort(void **state)
{
	struct gtm_snapshot *s = synth();
	int idx[8], n;
	char order[200];
	struct tui_rows_scratch sc = {0};
	(void)state;

	n = tui_rows_select(s, false, TUI_SORT_VRAM, idx, NULL);
	assert_int_equal(n, 5);
	names_in_order(s, idx, n, order, sizeof order);
	assert_string_equal(order, "llama-server firefox Xorg - python3 "); /* N/A last */
	n = tui_rows_select(s, false, TUI_SORT_GPU, idx, NULL);
	names_in_order(s, idx, n, order, sizeof order);
	assert_string_equal(order, "llama-server firefox Xorg - python3 ");
	n = tui_rows_select(s, false, TUI_SORT_SPILL, idx, &sc);
	names_in_order(s, idx, n, order, sizeof order);
	assert_string_equal(order, "firefox Xorg - llama-server python3 ");
	n = tui_rows_select(s, true, TUI_SORT_NAME, idx, &sc);
	assert_int_equal(n, 6);
	names_in_order(s, idx, n, order, sizeof order);
	assert_string_equal(order, "- Xorg bash firefox llama-server python3 ");
	assert_int_equal(tui_rows_find(s, idx, n, 300, 1002, "*300"), 5);
	assert_int_equal(tui_rows_find(s, idx, n, 300, 999, "*300"), -1); /* reused PID: not the same process */
	tui_rows_scratch_free(&sc);
	snapshot_free(s);
}

/* 600 rows, sorted twice with one scratch: monotone, N/A last, every row once. */
static void test_sort_many(void **state)
{
	struct gtm_snapshot *s = snapshot_new();
	struct tui_rows_scratch sc = {0};
	static int idx[600];
	bool seen[600] = {false};
	struct tui_row_metrics prev, m;
	(void)state;

	for (int i = 0; i < 600; i++) {
		struct gtm_process *p = snapshot_add_process(s);
		struct gtm_gpu_use *u = process_add_use(p);
		p->pid = (uint32_t)(1000 + i);
		snprintf(p->label, sizeof p->label, "%u", p->pid);
		snprintf(p->name, sizeof p->name, "p%03d", (i * 7) % 600);
		u->vram = i % 10 == 3 ? GTM_U64_NA : gtm_u64_of((uint64_t)((i * 37) % 600) * MIB, GTM_MEASURED);
		u->spill = u->paged = GTM_U64_NA;
		u->sm_pct = u->enc_pct = u->dec_pct = u->gfx_pct = u->copy_pct = u->video_pct = GTM_F64_NA;
		s->n_gpu_processes++;
	}
	for (int round = 0; round < 2; round++) {
		assert_int_equal(tui_rows_select(s, false, TUI_SORT_VRAM, idx, &sc), 600);
		for (int i = 0; i < 600; i++) {
			tui_row_metrics(&s->processes[idx[i]], &m);
			if (i) {
				assert_false(!gtm_u64_ok(prev.vram) && gtm_u64_ok(m.vram));
				if (gtm_u64_ok(m.vram))
					assert_true(prev.vram.v >= m.vram.v);
			}
			if (!round) {
				assert_false(seen[idx[i]]);
				seen[idx[i]] = true;
			}
			prev = m;
		}
	}
	tui_rows_scratch_free(&sc);
	snapshot_free(s);
}

static void test_metrics(void **state)
{
	struct gtm_snapshot *s = synth();
	struct tui_row_metrics m;
	struct gtm_gpu_use *u2;
	(void)state;

	tui_row_metrics(&s->processes[2], &m);
	assert_false(gtm_u64_ok(m.vram)); /* N/A stays N/A, never 0 */
	assert_false(gtm_f64_ok(m.gpu));
	u2 = process_add_use(&s->processes[0]);
	u2->dev_index = 1;
	u2->vram = gtm_u64_of(1000 * MIB, GTM_MEASURED);
	u2->sm_pct = gtm_f64_of(95, GTM_MEASURED);
	u2->spill = u2->paged = GTM_U64_NA;
	tui_row_metrics(&s->processes[0], &m);
	assert_int_equal(m.vram.v, 10000 * MIB);
	assert_int_equal(m.vram.prov, GTM_MEASURED);
	assert_true(m.gpu.v == 95);
	tui_row_metrics(&s->processes[5], &m);
	assert_false(gtm_u64_ok(m.vram));
	snapshot_free(s);
}

static void test_keys(void **state)
{
	struct tui_state st;
	(void)state;
	tui_state_init(&st);
	for (int i = 0; i < TUI_SORT_COUNT; i++) {
		assert_int_equal(st.sort, i);
		assert_true(tui_state_key(&st, 's', 5) & TUI_ACT_RESORT);
	}
	assert_int_equal(st.sort, TUI_SORT_VRAM);
	assert_int_equal(st.chart, TUI_M_COUNT);
	tui_state_key(&st, 'c', 5);
	assert_int_equal(st.chart, TUI_M_GPU);
	for (int i = 0; i < TUI_M_COUNT; i++)
		tui_state_key(&st, 'c', 5);
	assert_int_equal(st.chart, TUI_M_COUNT);
	assert_true(tui_state_key(&st, TUI_KEY_DOWN, 5) & TUI_ACT_INSPECT);
	assert_int_equal(st.sel, 1);
	tui_state_key(&st, TUI_KEY_END, 5);
	assert_int_equal(tui_state_key(&st, TUI_KEY_DOWN, 5), TUI_ACT_NONE);
	assert_int_equal(st.sel, 4);
	tui_state_key(&st, '?', 5);
	assert_int_equal(st.overlay, TUI_OVL_HELP);
	tui_state_key(&st, 's', 5); /* help swallows other keys */
	assert_int_equal(st.sort, TUI_SORT_VRAM);
	tui_state_key(&st, TUI_KEY_ESC, 5);
	assert_int_equal(st.overlay, TUI_OVL_NONE);
	assert_true(tui_state_key(&st, 'p', 5) & TUI_ACT_PAUSE);
	assert_true(st.paused);
	tui_state_key(&st, 'p', 5);
	assert_false(st.paused);
	tui_state_key(&st, 'a', 5);
	assert_true(st.all);
	tui_state_key(&st, 'm', 5);
	assert_int_equal(st.overlay, TUI_OVL_MENU);
	tui_state_key(&st, TUI_KEY_DOWN, 5);
	tui_state_key(&st, TUI_KEY_DOWN, 5);
	tui_state_key(&st, TUI_KEY_ENTER, 5);
	assert_int_equal(st.overlay, TUI_OVL_NONE);
	assert_int_equal(st.chart, TUI_M_SMCLK);
	assert_true(tui_state_key(&st, 'q', 5) & TUI_ACT_QUIT);
	tui_state_key(&st, '?', 5);
	assert_true(tui_state_key(&st, 'q', 5) & TUI_ACT_QUIT); /* q quits from help too */
	assert_int_equal(tui_state_key(&st, TUI_KEY_DOWN, 0), TUI_ACT_REDRAW); /* help scrolls */
}

/* macOS offers the GPU and memory charts only (platform_charts): 'c' cycles
 * through them and all, the menu has three entries, all draws two. */
static void test_charts_offered(void **state)
{
	static const char *const mac[] = {"gpu", "vram", NULL};
	static const char *const all[] = {NULL};
	struct tui_state st;
	enum tui_metric m[TUI_M_COUNT];
	(void)state;

	assert_int_equal(tui_metrics_named(all, m), TUI_M_COUNT);
	assert_int_equal(tui_metrics_named((const char *const[]){"vram", "nonsense", "gpu", NULL}, m), 2);
	assert_int_equal(m[0], TUI_M_GPU); /* in the charts' order */
	assert_int_equal(m[1], TUI_M_VRAM);
	tui_state_init(&st);
	st.n_charts = tui_metrics_named(mac, st.charts);
	assert_int_equal(tui_state_n_drawn(&st), 2);
	assert_int_equal(tui_state_drawn(&st, 1), TUI_M_VRAM);
	tui_state_key(&st, 'c', 5);
	assert_int_equal(st.chart, TUI_M_GPU);
	tui_state_key(&st, 'c', 5);
	assert_int_equal(st.chart, TUI_M_VRAM); /* not SM clock */
	assert_int_equal(tui_state_n_drawn(&st), 1);
	tui_state_key(&st, 'c', 5);
	assert_int_equal(st.chart, TUI_M_COUNT);
	tui_state_key(&st, 'm', 5);
	assert_int_equal(st.menu_sel, 0);
	tui_state_key(&st, TUI_KEY_UP, 5); /* wraps to the last of three entries */
	assert_int_equal(st.menu_sel, 2);
	tui_state_key(&st, TUI_KEY_ENTER, 5);
	assert_int_equal(st.chart, TUI_M_VRAM);
	tui_state_pick_chart(&st, 5); /* past the menu: all */
	assert_int_equal(st.chart, TUI_M_COUNT);
}

static void test_history(void **state)
{
	struct tui_history h = {0};
	struct gtm_snapshot *s = synth();
	const struct tui_dev_history *dh;
	double v;
	bool lim;
	(void)state;

	for (int i = 0; i < TUI_HIST_LEN + 10; i++) {
		s->devices[0].util_gpu_pct = i % 3 ? gtm_f64_of(i, GTM_MEASURED) : GTM_F64_NA;
		tui_history_push(&h, s);
	}
	dh = tui_history_find(&h, &s->devices[0]);
	assert_non_null(dh);
	assert_int_equal(h.count, TUI_HIST_LEN);
	assert_true(tui_history_sample(&h, dh, TUI_M_GPU, 0, &v));
	assert_true(v == TUI_HIST_LEN + 9);
	assert_false(tui_history_sample(&h, dh, TUI_M_GPU, 1, &v)); /* N/A kept as missing */
	assert_false(tui_history_sample(&h, dh, TUI_M_TEMP, 0, &v));
	assert_false(tui_history_sample(&h, dh, TUI_M_GPU, TUI_HIST_LEN, &v));
	assert_true(tui_metric_scale(&s->devices[0], dh, h.count, TUI_M_TEMP, &lim) == 120.0);
	assert_true(tui_metric_scale(&s->devices[0], dh, h.count, TUI_M_VRAM, &lim) == (double)(16 * GIB));
	assert_true(lim);
	/* No power limit: the scale is the largest power seen. */
	s->devices[0].power_w = gtm_f64_of(250, GTM_MEASURED);
	tui_history_push(&h, s);
	assert_true(tui_metric_scale(&s->devices[0], dh, h.count, TUI_M_POWER, &lim) == 250.0);
	assert_false(lim);
	s->devices[0].power_limit_w = gtm_f64_of(700, GTM_MEASURED);
	assert_true(tui_metric_scale(&s->devices[0], dh, h.count, TUI_M_POWER, &lim) == 700.0);
	tui_history_free(&h);
	snapshot_free(s);
}

static bool text_has(const struct tui_text *t, const char *needle)
{
	for (size_t i = 0; i < t->n; i++)
		if (strstr(tui_text_line(t, i, NULL), needle))
			return true;
	return false;
}

static void test_text_wrap(void **state)
{
	struct tui_text t = {0};
	(void)state;
	tui_text_reset(&t, 20);
	tui_text_add(&t, TUI_ST_TEXT, 2, "%s", "one two three four five six seven eight nine ten eleven");
	assert_true(t.n >= 3);
	for (size_t i = 0; i < t.n; i++)
		assert_true(strlen(tui_text_line(&t, i, NULL)) <= 20);
	tui_text_add(&t, TUI_ST_TEXT, 0, "%s", "averyveryverylongwordwithoutanyspaceatall");
	for (size_t i = 0; i < t.n; i++)
		assert_true(strlen(tui_text_line(&t, i, NULL)) <= 20);
	tui_text_reset(&t, 0);
	assert_int_equal(t.n, 0);
	tui_text_add_block(&t, TUI_ST_TEXT, "a\n  b\nc");
	assert_int_equal(t.n, 3);
	tui_text_free(&t);
}

static void test_inspector_text(void **state)
{
	struct gtm_snapshot *s = synth();
	struct tui_text t = {0};
	(void)state;

	t.width = 70;
	tui_inspect_build(&t, s, &s->processes[2]);
	assert_true(text_has(&t, "*300 python3"));
	assert_true(text_has(&t, "VRAM N/A: driver did not report it"));
	assert_true(text_has(&t, "not zero"));
	assert_true(text_has(&t, "'*'"));
	tui_inspect_build(&t, s, &s->processes[3]);
	assert_true(text_has(&t, "spill 100.00 MiB (measured)"));
	assert_true(text_has(&t, "Spill is GPU-accessible system RAM"));
	tui_inspect_build(&t, s, &s->processes[4]);
	assert_true(text_has(&t, "H: a host PID"));
	tui_inspect_build(&t, s, NULL);
	assert_true(text_has(&t, "No process selected"));
	for (size_t i = 0; i < t.n; i++)
		assert_true(strlen(tui_text_line(&t, i, NULL)) <= 70);
	tui_help_build(&t, s);
	assert_true(text_has(&t, "What can be known about GPU memory?"));
	assert_true(text_has(&t, "debugger"));
	assert_true(text_has(&t, "Unavailable"));
	assert_false(text_has(&t, "W:<pid>"));
	snapshot_add_note(s, "a note from the %s", "collector");
	s->n_procs_total = 42;
	tui_help_build(&t, s);
	assert_true(text_has(&t, "42 processes seen"));
	assert_true(text_has(&t, "- a note from the collector"));
	s->mode = GTM_MODE_WSL;
	tui_help_build(&t, s);
	assert_true(text_has(&t, "platform: wsl"));
	assert_true(text_has(&t, "W:<pid>"));
	assert_true(text_has(&t, "debugger")); /* the common parts stay */
	tui_text_free(&t);
	snapshot_free(s);
}

/* An exited owner's row: the inspector says what x means; the container
 * help names the marker. */
static void test_inspector_exited(void **state)
{
	struct gtm_snapshot *s = synth();
	struct tui_text t = {0};
	(void)state;

	t.width = 70;
	struct gtm_process *p = &s->processes[4];
	p->owner = GTM_OWNER_EXITED;
	p->exited_pid = 4100;
	p->exited_pairing = GTM_OWNER_MATCHED;
	snprintf(p->label, sizeof p->label, "*x4100");
	tui_inspect_build(&t, s, p);
	assert_true(text_has(&t, "*x4100"));
	assert_true(text_has(&t, "owner exited"));
	assert_true(text_has(&t, "has exited; the driver"));
	assert_false(text_has(&t, "H: a host PID"));
	s->mode = GTM_MODE_CONTAINER;
	tui_help_build(&t, s);
	assert_true(text_has(&t, "*x<pid> / ?x<pid>"));
	tui_text_free(&t);
	snapshot_free(s);
}

/* A llama-server row with identify and explain data: models with evidence,
 * the breakdown bar from reported segments (the estimate beside, never in). */
static void test_inspector_ident_explain(void **state)
{
	struct gtm_snapshot *s = synth();
	struct gtm_process *p = &s->processes[0];
	struct gtm_ident *id = ident_new();
	struct gtm_explain *e = xcalloc(1, sizeof *e);
	struct tui_text t = {0};
	static const struct { enum ex_seg seg; enum ex_src src; uint64_t mib; } segs[] = {
		{EX_SEG_WEIGHTS, EX_SRC_LOG, 6000}, {EX_SEG_KV, EX_SRC_LOG, 2000}, {EX_SEG_COMPUTE, EX_SRC_LOG, 500},
		{EX_SEG_OVERHEAD, EX_SRC_REMAINDER, 500}, {EX_SEG_WEIGHTS, EX_SRC_ESTIMATE, 7000},
	};
	(void)state;

	gtm_ident_free_hook = ident_free;
	gtm_explain_free_hook = explain_free;
	id->category = IDENT_CAT_AI;
	str_copy(id->category_reason, "AI runtime llama.cpp", sizeof id->category_reason);
	ident_add_model_evidence_detail(id, "qwen3:14b", MODEL_EV_API, "/api/ps");
	p->ident = id;
	for (size_t i = 0; i < ARRAY_LEN(segs); i++) {
		struct ex_segment *sg = ex_add_seg(e, segs[i].seg, segs[i].src, "CUDA0");
		sg->gpu = 0;
		sg->bytes = gtm_u64_of(segs[i].mib * MIB, segs[i].src == EX_SRC_LOG ? GTM_REPORTED : GTM_ESTIMATED);
	}
	p->explain = e;
	t.width = 60;
	tui_inspect_build(&t, s, p);
	assert_true(text_has(&t, "Category: AI - AI runtime llama.cpp"));
	assert_true(text_has(&t, "qwen3:14b"));
	assert_true(text_has(&t, "api (/api/ps)"));
	assert_true(text_has(&t, "GPU 0 breakdown"));
	/* 9000 MiB of reported + remainder in 9000 MiB measured, 48 cells: edges
	 * at 6000, 8000, 8500, 9000 MiB round to 32, 43, 45, 48. The 7000 MiB
	 * estimate is not in the bar. */
	assert_true(text_has(&t, "[WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWKKKKKKKKKKKCCooo]"));
	assert_true(text_has(&t, "W weights 5.86 GiB (log)"));
	assert_true(text_has(&t, "o other 500.00 MiB (remainder)"));
	assert_false(text_has(&t, "6.84 GiB (log)"));
	assert_true(text_has(&t, "mapped runtime library names the runtime"));
	for (size_t i = 0; i < t.n; i++)
		assert_true(strlen(tui_text_line(&t, i, NULL)) <= 60);
	tui_text_free(&t);
	snapshot_free(s);
}

/* A model whose tensor data ends past the end of its file: the table's cell
 * and the inspector say so, with the bytes missing. */
static void test_inspector_incomplete_model(void **state)
{
	struct gtm_snapshot *s = synth();
	struct gtm_process *p = &s->processes[0];
	struct gtm_ident *id = ident_new();
	struct tui_text t = {0};
	char cell[128];
	(void)state;

	gtm_ident_free_hook = ident_free;
	id->category = IDENT_CAT_AI;
	struct ident_model *m = ident_add_model_evidence_detail(id, "/m/partial.gguf", MODEL_EV_MAPPED, NULL);
	m->have_info = true;
	m->info.kind = GGUF_KIND_LLM;
	m->info.file_size = 100 * MIB;
	m->info.data_end = 300 * MIB;
	m->info.missing_bytes = 200 * MIB;
	m->info.incomplete = true;
	p->ident = id;
	assert_non_null(strstr(tui_process_inside(p, cell, sizeof cell), "(incomplete file)"));
	t.width = 200;
	tui_inspect_build(&t, s, p);
	assert_true(text_has(&t, "incomplete file: 200.00 MiB of tensor data missing (the header needs 300.00 MiB, "
				 "the file has 100.00 MiB)"));
	m->info.incomplete = false;
	assert_null(strstr(tui_process_inside(p, cell, sizeof cell), "incomplete"));
	tui_text_free(&t);
	snapshot_free(s);
}

static void test_view_keeps_selection(void **state)
{
	struct tui_view v;
	(void)state;

	tui_view_init(&v, false, false);
	tui_view_take(&v, synth());
	assert_string_equal(tui_view_selected(&v)->name, "llama-server");
	tui_view_key(&v, TUI_KEY_DOWN);
	assert_string_equal(tui_view_selected(&v)->name, "firefox");
	/* Sorting by name moves firefox; the selection follows it. */
	tui_view_key(&v, 's');
	tui_view_key(&v, 's');
	tui_view_key(&v, 's');
	tui_view_key(&v, 's');
	assert_int_equal(v.st.sort, TUI_SORT_NAME);
	assert_string_equal(tui_view_selected(&v)->name, "firefox");
	/* A new snapshot where firefox has gone: the cursor stays in range. */
	{
		struct gtm_snapshot *s = synth();
		s->processes[3].pid = 401;
		tui_view_take(&v, s);
		assert_non_null(tui_view_selected(&v));
		assert_true(v.st.sel < v.n_rows);
	}
	tui_view_take(&v, synth());
	tui_view_key(&v, 'a');
	assert_int_equal(v.n_rows, 6);
	tui_view_free(&v);
}

/* A DRM client's video engine (amdgpu's unified VCN ring) has its own VID
 * column; NVIDIA's encoder and decoder stay in ENC and DEC, and neither
 * borrows the other's figure. */
static void test_cells_video_engine(void **state)
{
	struct gtm_process amd = {0}, nv = {0};
	struct gtm_gpu_use ua = {0}, un = {0};
	struct tui_row_metrics m;
	char buf[32];
	(void)state;

	ua.vram = un.vram = GTM_U64_NA;
	ua.spill = un.spill = ua.paged = un.paged = GTM_U64_NA;
	ua.sm_pct = ua.enc_pct = ua.dec_pct = GTM_F64_NA;
	ua.gfx_pct = gtm_f64_of(12, GTM_MEASURED);
	ua.copy_pct = gtm_f64_of(3, GTM_MEASURED);
	ua.video_pct = gtm_f64_of(37, GTM_MEASURED);
	un.sm_pct = gtm_f64_of(50, GTM_MEASURED);
	un.enc_pct = gtm_f64_of(20, GTM_MEASURED);
	un.dec_pct = gtm_f64_of(0, GTM_MEASURED);
	un.gfx_pct = un.copy_pct = un.video_pct = GTM_F64_NA;
	amd.uses = &ua;
	amd.n_uses = 1;
	nv.uses = &un;
	nv.n_uses = 1;
	tui_row_metrics(&amd, &m);
	tui_row_cell_text(&amd, &m, TUI_COL_VIDEO, buf, sizeof buf);
	assert_string_equal(buf, "37");
	tui_row_cell_text(&amd, &m, TUI_COL_ENC, buf, sizeof buf);
	assert_string_equal(buf, "N/A");
	tui_row_metrics(&nv, &m);
	tui_row_cell_text(&nv, &m, TUI_COL_VIDEO, buf, sizeof buf);
	assert_string_equal(buf, "N/A");
	tui_row_cell_text(&nv, &m, TUI_COL_ENC, buf, sizeof buf);
	assert_string_equal(buf, "20");
	assert_string_equal(tui_col_spec(TUI_COL_VIDEO)->title, "VID");
}

/* In the all-processes view a process without GPU use shows "-" in the
 * per-GPU columns (as --once does); N/A stays for a measurement that is
 * unavailable. */
static void test_cells_no_gpu_dash(void **state)
{
	struct gtm_snapshot *s = synth();
	const struct gtm_process *bash = &s->processes[s->n_processes - 1];
	const struct gtm_process *py = &s->processes[2];
	struct tui_row_metrics m;
	char buf[64];
	(void)state;

	assert_int_equal(bash->n_uses, 0);
	tui_row_metrics(bash, &m);
	for (int c = TUI_COL_VRAM; c <= TUI_COL_VIDEO; c++) {
		tui_row_cell_text(bash, &m, (enum tui_col)c, buf, sizeof buf);
		assert_string_equal(buf, "-");
	}
	tui_row_cell_text(bash, &m, TUI_COL_NAME, buf, sizeof buf);
	assert_string_equal(buf, "bash");
	tui_row_metrics(py, &m);
	tui_row_cell_text(py, &m, TUI_COL_VRAM, buf, sizeof buf);
	assert_string_equal(buf, "N/A");
	snapshot_free(s);
}

static void assert_no_esc(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		assert_false(c < 0x20 || c == 0x7f || c == 0x9b);
		assert_false(c == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f);
	}
}

/* A process name, command line or log line with ESC/BEL never reaches the
 * screen raw: the table cells and the inspector text carry escapes. */
static void test_escapes_outside_strings(void **state)
{
	struct gtm_snapshot *s = synth();
	struct gtm_process *p = &s->processes[0];
	struct tui_text t = {0};
	struct tui_row_metrics m;
	char buf[160];
	(void)state;

	str_copy(p->name, "\x1b]0;pwned\x07\xc2\x9b" "2J", sizeof p->name);
	tui_row_metrics(p, &m);
	tui_row_cell_text(p, &m, TUI_COL_NAME, buf, sizeof buf);
	assert_string_equal(buf, "\\x1b]0;pwned\\x07\\xc2\\x9b2J");
	t.width = 40;
	tui_inspect_build(&t, s, p);
	for (size_t i = 0; i < t.n; i++)
		assert_no_esc(tui_text_line(&t, i, NULL));
	assert_true(text_has(&t, "\\x1b]0;pwned\\x07"));
	tui_text_reset(&t, 20);
	tui_text_add(&t, TUI_ST_TEXT, 2, "log %s", "\x1b[31mred\x1b[0m and a long tail that wraps");
	tui_text_add_block(&t, TUI_ST_TEXT, "block \x1b]8;;http://x\x07link\x9b\nnext line\n");
	for (size_t i = 0; i < t.n; i++) {
		assert_no_esc(tui_text_line(&t, i, NULL));
		assert_true(strlen(tui_text_line(&t, i, NULL)) <= 20);
	}
	assert_true(text_has(&t, "\\x1b[31mred"));
	assert_true(text_has(&t, "next line"));
	tui_text_free(&t);
	snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_chart_grid),
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_bar_cells),
		cmocka_unit_test(test_chart_level),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_sort_many),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_charts_offered),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_text_wrap),
		cmocka_unit_test(test_inspector_text),
		cmocka_unit_test(test_inspector_exited),
		cmocka_unit_test(test_inspector_ident_explain),
		cmocka_unit_test(test_inspector_incomplete_model),
		cmocka_unit_test(test_view_keeps_selection),
		cmocka_unit_test(test_cells_no_gpu_dash),
		cmocka_unit_test(test_cells_video_engine),
		cmocka_unit_test(test_escapes_outside_strings),
		cmocka_unit_test(test_status_hints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
