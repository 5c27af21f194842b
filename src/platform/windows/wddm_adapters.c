#include "wddm_adapters.h"

#include <stdio.h>
#include <stdlib.h>

/* Placeholder until DXGI, D3DKMT, NVML and ADL are read (issue 13): no
 * adapter is listed and no telemetry is filled, so the WDDM source names
 * adapters by the LUIDs its counters carry. */
int wddm_adapters_list(struct wddm_adapter *out, int cap, char *why, size_t why_len)
{
	(void)out;
	(void)cap;
	snprintf(why, why_len, "DXGI adapters are not read yet");
	return -1;
}

struct wddm_telemetry {
	int unused;
};

struct wddm_telemetry *wddm_telemetry_open(void)
{
	return calloc(1, sizeof(struct wddm_telemetry));
}

void wddm_telemetry_fill(struct wddm_telemetry *t, const struct wddm_adapter *a, struct gtm_device *dev)
{
	(void)t;
	(void)a;
	(void)dev;
}

void wddm_telemetry_describe(const struct wddm_telemetry *t, char *out, size_t cap)
{
	(void)t;
	snprintf(out, cap, "no vendor telemetry read yet");
}

void wddm_telemetry_close(struct wddm_telemetry *t)
{
	free(t);
}
