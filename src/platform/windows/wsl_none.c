/* Windows has no WSL of its own to look into: the WSL side of the platform
 * interface is absent here (platform_api.h). */
#include "platform.h"

struct platform_wsl *platform_wsl_open(const struct platform_wsl_opts *o)
{
	(void)o;
	return NULL;
}

int platform_wsl_holders(struct platform_wsl *w, struct wsl_proc *out, int max)
{
	(void)w, (void)out, (void)max;
	return 0;
}

bool platform_wsl_sample(struct platform_wsl *w, struct wsl_host_sample *out, struct gtm_host_stream *st)
{
	(void)w, (void)out, (void)st;
	return false;
}

void platform_wsl_boot_id(struct platform_wsl *w, char *out, size_t cap)
{
	(void)w;
	if (cap)
		out[0] = '\0';
}

size_t platform_wsl_hints_load(struct platform_wsl *w, const char *boot_id, uint64_t *sizes, size_t max)
{
	(void)w, (void)boot_id, (void)sizes, (void)max;
	return 0;
}

void platform_wsl_hints_save(struct platform_wsl *w, const char *boot_id, const uint64_t *sizes, size_t n)
{
	(void)w, (void)boot_id, (void)sizes, (void)n;
}

void platform_wsl_close(struct platform_wsl *w)
{
	(void)w;
}
