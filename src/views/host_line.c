/* The host stream's header words (host_line.h), for the text and live views. */
#include "views/host_line.h"

#include <stdio.h>
#include <string.h>

#include "core/format.h"

/* "3 bad lines (last: V record without Non Local Usage)" */
static const char *bad_words(const struct gtm_host_stream *h, char *buf, size_t cap)
{
	char lb[256];
	snprintf(buf, cap, "%llu bad line%s (last: %s)", (unsigned long long)h->bad_lines, h->bad_lines == 1 ? "" : "s",
		 h->last_bad[0] ? fmt_safe(lb, sizeof lb, h->last_bad) : "?");
	return buf;
}

const char *host_stream_words(const struct gtm_host_stream *h, char *buf, size_t cap)
{
	char wb[512], hb[96], bb[320];

	if (!h->present) {
		buf[0] = '\0';
		return buf;
	}
	const char *why = fmt_safe(wb, sizeof wb, h->why), *what = fmt_safe(hb, sizeof hb, h->helper);
	if (!strcmp(h->state, "starting") && h->bad_lines) /* starting for ever: why */
		snprintf(buf, cap, "host: %s", bad_words(h, bb, sizeof bb));
	else if (!strcmp(h->state, "failed"))
		snprintf(buf, cap, "host: failed: %s", why[0] ? why : "unknown");
	else if (!strcmp(h->state, "on"))
		snprintf(buf, cap, "host: on (%s)", what[0] ? what : "helper");
	else if (why[0])
		snprintf(buf, cap, "host: %s (%s)", h->state, why);
	else
		snprintf(buf, cap, "host: %s", h->state);
	if (h->bad_lines && strcmp(h->state, "starting")) {
		size_t n = strlen(buf);
		snprintf(buf + n, cap > n ? cap - n : 0, ", %s", bad_words(h, bb, sizeof bb));
	}
	return buf;
}
