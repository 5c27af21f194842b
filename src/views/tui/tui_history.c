#include "views/tui/tui_history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

const char *tui_metric_title(enum tui_metric m)
{
	static const char *const t[TUI_M_COUNT] = {"GPU", "SM clock", "VRAM", "Memory activity",
						    "Temperature", "Power", "Encoder", "Decoder"};
	return (unsigned)m < TUI_M_COUNT ? t[m] : "";
}

int tui_metrics_named(const char *const *names, enum tui_metric out[TUI_M_COUNT])
{
	static const char *const key[TUI_M_COUNT] = {"gpu", "smclk", "vram", "memact", "temp", "power", "enc", "dec"};
	int n = 0;

	for (int m = 0; m < TUI_M_COUNT; m++) {
		bool named = !names || !names[0];
		for (int i = 0; names && names[i] && !named; i++)
			named = strcmp(names[i], key[m]) == 0;
		if (named)
			out[n++] = (enum tui_metric)m;
	}
	return n;
}

gtm_f64 tui_metric_value(const struct gtm_device *d, enum tui_metric m)
{
	switch (m) {
	case TUI_M_GPU: return d->util_gpu_pct;
	case TUI_M_SMCLK: return d->clock_sm_mhz;
	case TUI_M_VRAM: return gtm_u64_ok(d->mem_used) ? gtm_f64_of((double)d->mem_used.v, d->mem_used.prov)
							 : GTM_F64_NA;
	case TUI_M_MEMACT: return d->util_mem_pct;
	case TUI_M_TEMP: return d->temp_c;
	case TUI_M_POWER: return d->power_w;
	case TUI_M_ENC: return d->enc_pct;
	case TUI_M_DEC: return d->dec_pct;
	default: return GTM_F64_NA;
	}
}

static double largest_seen(const struct tui_dev_history *h, int count, enum tui_metric m)
{
	double top = 0;
	if (!h)
		return 0;
	for (int i = 0; i < count && i < TUI_HIST_LEN; i++)
		if (h->ok[m][i] && h->v[m][i] > top)
			top = h->v[m][i];
	return top;
}

double tui_metric_scale(const struct gtm_device *d, const struct tui_dev_history *h, int count,
			enum tui_metric m, bool *from_limit)
{
	gtm_f64 lim = GTM_F64_NA;

	*from_limit = true;
	switch (m) {
	case TUI_M_TEMP: return 120.0;
	case TUI_M_SMCLK: lim = d->clock_sm_max_mhz; break;
	case TUI_M_POWER: lim = d->power_limit_w; break;
	case TUI_M_VRAM:
		if (gtm_u64_ok(d->mem_total))
			lim = gtm_f64_of((double)d->mem_total.v, d->mem_total.prov);
		break;
	default: return 100.0;
	}
	if (gtm_f64_ok(lim) && lim.v > 0)
		return lim.v;
	*from_limit = false;
	return largest_seen(h, count, m);
}

static void device_key(const struct gtm_device *d, char *out, size_t n)
{
	if (d->uuid[0])
		str_copy(out, d->uuid, n);
	else
		snprintf(out, n, "#%d", d->index);
}

const struct tui_dev_history *tui_history_find(const struct tui_history *h, const struct gtm_device *d)
{
	char key[96];
	device_key(d, key, sizeof key);
	for (int i = 0; i < h->n_devs; i++)
		if (!strcmp(h->devs[i].key, key))
			return &h->devs[i];
	return NULL;
}

void tui_history_push(struct tui_history *h, const struct gtm_snapshot *s)
{
	int slot = h->count ? (h->head + 1) % TUI_HIST_LEN : 0;

	/* Every known device gets a slot this step; absent ones stay missing. */
	for (int i = 0; i < h->n_devs; i++)
		for (int m = 0; m < TUI_M_COUNT; m++)
			h->devs[i].ok[m][slot] = false;
	for (int i = 0; i < s->n_devices; i++) {
		const struct gtm_device *d = &s->devices[i];
		struct tui_dev_history *dh = (struct tui_dev_history *)tui_history_find(h, d);
		if (!dh) {
			h->devs = grow_array(h->devs, sizeof *h->devs, &h->cap, (size_t)h->n_devs);
			dh = &h->devs[h->n_devs++];
			memset(dh, 0, sizeof *dh);
			device_key(d, dh->key, sizeof dh->key);
		}
		for (int m = 0; m < TUI_M_COUNT; m++) {
			gtm_f64 r = tui_metric_value(d, (enum tui_metric)m);
			dh->ok[m][slot] = gtm_f64_ok(r);
			dh->v[m][slot] = r.v;
		}
	}
	h->head = slot;
	if (h->count < TUI_HIST_LEN)
		h->count++;
}

bool tui_history_sample(const struct tui_history *h, const struct tui_dev_history *dh, enum tui_metric m,
			int age, double *v)
{
	int slot;
	if (!dh || age < 0 || age >= h->count || (unsigned)m >= TUI_M_COUNT)
		return false;
	slot = (h->head - age + TUI_HIST_LEN) % TUI_HIST_LEN;
	if (!dh->ok[m][slot])
		return false;
	*v = dh->v[m][slot];
	return true;
}

void tui_history_free(struct tui_history *h)
{
	free(h->devs);
	*h = (struct tui_history){0};
}
