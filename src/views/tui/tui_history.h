/* Per-device history of the charted readings, one sample per snapshot.
 * Unavailable readings are kept as missing samples (drawn blank), never 0. */
#ifndef GTM_TUI_HISTORY_H
#define GTM_TUI_HISTORY_H

#include <stdbool.h>

#include "core/snapshot.h"

enum tui_metric {
	TUI_M_GPU, TUI_M_SMCLK, TUI_M_VRAM, TUI_M_MEMACT, TUI_M_TEMP, TUI_M_POWER, TUI_M_ENC, TUI_M_DEC,
	TUI_M_COUNT
};
const char *tui_metric_title(enum tui_metric m);
/* The metrics named in names (NULL-ended; platform_charts' names), in
 * tui_metric order, into out; none named: all. Returns how many. */
int tui_metrics_named(const char *const *names, enum tui_metric out[TUI_M_COUNT]);

#define TUI_HIST_LEN 256

struct tui_dev_history {
	char key[96];            /* uuid, or "#<index>" */
	double v[TUI_M_COUNT][TUI_HIST_LEN];
	bool ok[TUI_M_COUNT][TUI_HIST_LEN];
};

struct tui_history {
	struct tui_dev_history *devs;
	int n_devs;
	size_t cap;
	int head;                /* slot of the newest sample */
	int count;               /* samples pushed, capped at TUI_HIST_LEN */
};

/* The reading a chart plots for a device (bytes for VRAM). */
gtm_f64 tui_metric_value(const struct gtm_device *d, enum tui_metric m);

/* The top of a chart's scale: 100 %, 120 °C, the device's power limit, SM
 * clock limit and VRAM size; when a limit is N/A, the largest sample seen
 * (*from_limit false). 0 when nothing is known. */
double tui_metric_scale(const struct gtm_device *d, const struct tui_dev_history *h, int count,
			enum tui_metric m, bool *from_limit);

void tui_history_push(struct tui_history *h, const struct gtm_snapshot *s);
/* The history of device d, or NULL before its first sample. */
const struct tui_dev_history *tui_history_find(const struct tui_history *h, const struct gtm_device *d);
/* Sample `age` steps back (0 = newest). false when missing or older than kept. */
bool tui_history_sample(const struct tui_history *h, const struct tui_dev_history *dh, enum tui_metric m,
			int age, double *v);
void tui_history_free(struct tui_history *h);

#endif
