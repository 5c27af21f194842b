/* The host stream's header words (host_line.h), for the text and live views. */
#include "views/host_line.h"

#include <stdio.h>
#include <string.h>

#include "core/format.h"

const char *host_stream_words(const struct gtm_host_stream *h, char *buf, size_t cap)
{
	char wb[512], hb[96];

	if (!h->present) {
		buf[0] = '\0';
		return buf;
	}
	const char *why = fmt_safe(wb, sizeof wb, h->why), *what = fmt_safe(hb, sizeof hb, h->helper);
	if (!strcmp(h->state, "failed"))
		snprintf(buf, cap, "host: failed: %s", why[0] ? why : "unknown");
	else if (!strcmp(h->state, "on"))
		snprintf(buf, cap, "host: on (%s)", what[0] ? what : "helper");
	else if (why[0])
		snprintf(buf, cap, "host: %s (%s)", h->state, why);
	else
		snprintf(buf, cap, "host: %s", h->state);
	return buf;
}
