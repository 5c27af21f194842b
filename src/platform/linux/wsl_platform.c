/* Linux's WSL side of the platform interface (platform_api.h): the signals,
 * the host stream, the /dev/dxg holders, the boot id and the hint cache. */
#include "platform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "sources/wsl_proto.h"
#include "wsl_detect.h"
#include "wsl_dxg.h"
#include "wsl_stream.h"

#define ONCE_WAIT_NS (5ull * 1000000000ull) /* --once waits this long for the first sample */
/* --once's helper samples every half second, and its first line has no
 * engine loads (a load is a Running Time delta): the second line, waited
 * for this long at most, has them, as the other sources' second sample. */
#define ONCE_INTERVAL_S 0.5
#define ONCE_SECOND_WAIT_NS (1500ull * 1000000ull)

struct platform_wsl {
	struct wsl_signals sig;
	struct wsl_stream *stream;   /* NULL: off */
	struct gtm_host_stream off;  /* the status when off */
};

/* A first line listing Windows processes: their loads come with the next. */
static void wait_for_loads(struct wsl_stream *st)
{
	struct wsl_host_sample *first = xcalloc(1, sizeof *first);
	struct gtm_host_stream status;

	if (wsl_stream_get(st, first, &status) && first->n_procs > 0)
		wsl_stream_wait_after(st, first->seq, ONCE_SECOND_WAIT_NS);
	free(first);
}

struct platform_wsl *platform_wsl_open(const struct platform_wsl_opts *o)
{
	struct platform_wsl *w = xcalloc(1, sizeof *w);

	wsl_detect(&w->sig);
	w->off.present = true;
	str_copy(w->off.state, "off", sizeof w->off.state);
	if (o->no_host)
		str_copy(w->off.why, "--no-host", sizeof w->off.why);
	else if (!w->sig.interop_enabled)
		str_copy(w->off.why, "WSL interop is disabled", sizeof w->off.why);
	else
		w->stream = wsl_stream_start(o->one_shot ? ONCE_INTERVAL_S : o->interval_s);
	if (w->stream && o->one_shot && wsl_stream_wait(w->stream, ONCE_WAIT_NS))
		wait_for_loads(w->stream);
	return w;
}

int platform_wsl_holders(struct platform_wsl *w, struct wsl_proc *out, int max)
{
	(void)w;
	return wsl_dxg_holders(out, max);
}

bool platform_wsl_sample(struct platform_wsl *w, struct wsl_host_sample *out, struct gtm_host_stream *st)
{
	if (!w->stream) {
		*st = w->off;
		return false;
	}
	return wsl_stream_get(w->stream, out, st);
}

void platform_wsl_boot_id(struct platform_wsl *w, char *out, size_t cap)
{
	(void)w;
	if (sysroot_read(out, cap, "/proc/sys/kernel/random/boot_id") <= 0)
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

/* ~/.cache/gputaskman/wsl-hints-BOOTID: this machine's cache, not the observed
 * system's (XDG_CACHE_HOME when set). The boot id is checked to be a UUID. */
static int hints_path(const char *boot_id, char *out, size_t cap, bool make)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char dir[4096];

	if (strspn(boot_id, "0123456789abcdef-") != strlen(boot_id) || !boot_id[0] || strlen(boot_id) > 36)
		return -1;
	if (xdg && xdg[0])
		snprintf(dir, sizeof dir, "%s/gputaskman", xdg);
	else if (home && home[0])
		snprintf(dir, sizeof dir, "%s/.cache/gputaskman", home);
	else
		return -1;
	if (make) {
		char parent[4096];
		str_copy(parent, dir, sizeof parent);
		*strrchr(parent, '/') = '\0';
		if ((mkdir(parent, 0700) != 0 && errno != EEXIST) || (mkdir(dir, 0700) != 0 && errno != EEXIST))
			return -1;
	}
	return (size_t)snprintf(out, cap, "%s/wsl-hints-%s", dir, boot_id) < cap ? 0 : -1;
}

size_t platform_wsl_hints_load(struct platform_wsl *w, const char *boot_id, uint64_t *sizes, size_t max)
{
	char path[4200];
	unsigned long long v;
	size_t n = 0;
	(void)w;

	if (hints_path(boot_id, path, sizeof path, false) != 0)
		return 0;
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	while (n < max && fscanf(f, "%llu", &v) == 1)
		sizes[n++] = v;
	fclose(f);
	return n;
}

void platform_wsl_hints_save(struct platform_wsl *w, const char *boot_id, const uint64_t *sizes, size_t n)
{
	char path[4200], tmp[4300];
	(void)w;

	if (hints_path(boot_id, path, sizeof path, true) != 0)
		return;
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "we");
	if (!f)
		return;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%llu\n", (unsigned long long)sizes[i]);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		remove(tmp);
}

void platform_wsl_close(struct platform_wsl *w)
{
	if (!w)
		return;
	wsl_stream_stop(w->stream);
	free(w);
}
