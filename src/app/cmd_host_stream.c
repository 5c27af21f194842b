/* --host-stream's command line (cmd_host_stream.h); the stream itself is the
 * platform's (platform_host_stream): Windows streams, Linux says it is a
 * Windows mode. */
#include "app/cmd_host_stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

/* gputaskman's -i takes 0.1 to 3600 s, which wsl_helper.c passes on in ms. */
#define INTERVAL_MIN_MS 100
#define INTERVAL_MAX_MS 3600000
#define INTERVAL_DEFAULT_MS 1000

bool cmd_host_stream_asked(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--host-stream"))
			return true;
	return false;
}

static int parse_ms(const char *s, unsigned *out)
{
	char *end;
	errno = 0;
	long v = s ? strtol(s, &end, 10) : 0;
	if (!s || errno || end == s || *end || v < INTERVAL_MIN_MS || v > INTERVAL_MAX_MS)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int cmd_host_stream(int argc, char **argv)
{
	unsigned ms = INTERVAL_DEFAULT_MS;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		if (!strcmp(a, "--host-stream"))
			continue;
		if (!strcmp(a, "--interval-ms"))
			v = i + 1 < argc ? argv[++i] : NULL;
		else if (!strncmp(a, "--interval-ms=", 14))
			v = a + 14;
		else {
			fprintf(stderr, "gputaskman: --host-stream takes only --interval-ms N, not '%s'\n", a);
			return 2;
		}
		if (parse_ms(v, &ms) != 0) {
			fprintf(stderr, "gputaskman: --interval-ms: want milliseconds, %d to %d\n", INTERVAL_MIN_MS,
				INTERVAL_MAX_MS);
			return 2;
		}
	}
	return platform_host_stream(ms);
}
