/* wddm_telemetry_*: the vendor providers (wddm_provider.h) opened once, and
 * each adapter's readings from the provider device at its PCI location. A
 * provider measures its own vendor's cards only, and only the one device
 * that is the unique match of the adapter's location: none, several, or one
 * with other PCI ids leaves the readings N/A, never another card's. */
#include "wddm_adapters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "wddm_provider.h"

static const struct wddm_provider *const providers[] = {&wddm_nvml_provider, &wddm_adl_provider};
#define N_PROVIDERS ARRAY_LEN(providers)

struct wddm_telemetry {
	void *state[N_PROVIDERS];  /* NULL: absent or broken */
	char why[N_PROVIDERS][256]; /* why it is not open */
};

struct wddm_telemetry *wddm_telemetry_open(void)
{
	struct wddm_telemetry *t = xcalloc(1, sizeof *t);
	for (size_t i = 0; i < N_PROVIDERS; i++)
		t->state[i] = providers[i]->open(t->why[i], sizeof t->why[i]);
	return t;
}

/* The device of provider i at a's location, or -1 with why. */
static int match(const struct wddm_telemetry *t, size_t i, const struct wddm_adapter *a, enum wddm_join *why)
{
	int n = 0;
	const struct wddm_pci_cand *c = providers[i]->devices(t->state[i], &n);
	return wddm_pci_match(c, n, a, why);
}

void wddm_telemetry_fill(struct wddm_telemetry *t, const struct wddm_adapter *a, struct gtm_device *dev)
{
	enum wddm_join why;

	for (size_t i = 0; t && i < N_PROVIDERS; i++) {
		if (!t->state[i] || providers[i]->vendor_id != a->vendor_id)
			continue;
		int k = match(t, i, a, &why);
		if (k >= 0)
			providers[i]->fill(t->state[i], k, dev);
	}
}

/* Appends "name: text" as a line of out. */
static void add_line(char *out, size_t cap, const char *name, const char *text)
{
	size_t len = strlen(out);
	if (len < cap)
		snprintf(out + len, cap - len, "%s%s: %s", len ? "\n" : "", name, text);
}

void wddm_telemetry_describe(const struct wddm_telemetry *t, char *out, size_t cap)
{
	char line[320];

	if (cap)
		out[0] = '\0';
	for (size_t i = 0; t && i < N_PROVIDERS; i++) {
		if (t->state[i])
			providers[i]->describe(t->state[i], line, sizeof line);
		else
			str_copy(line, t->why[i], sizeof line);
		add_line(out, cap, providers[i]->name, line);
	}
}

void wddm_telemetry_explain(const struct wddm_telemetry *t, const struct wddm_adapter *a, char *out, size_t cap)
{
	enum wddm_join why;

	if (cap)
		out[0] = '\0';
	for (size_t i = 0; t && i < N_PROVIDERS; i++) {
		if (providers[i]->vendor_id != a->vendor_id)
			continue;
		if (!t->state[i]) {
			add_line(out, cap, providers[i]->name, t->why[i]);
			continue;
		}
		char line[320], note[200] = "";
		int k = match(t, i, a, &why);
		if (k >= 0 && providers[i]->note)
			providers[i]->note(t->state[i], k, note, sizeof note);
		snprintf(line, sizeof line, "%s%s%s", wddm_join_name(why), note[0] ? "; " : "", note);
		add_line(out, cap, providers[i]->name, line);
	}
}

void wddm_telemetry_close(struct wddm_telemetry *t)
{
	for (size_t i = 0; t && i < N_PROVIDERS; i++)
		if (t->state[i])
			providers[i]->close(t->state[i]);
	free(t);
}
