/* App folders from a process's environment, by the platform's table. */
#include "identify/app_folders.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sysroot.h"
#include "core/util.h"

int app_folders(const struct gtm_proc_detail *d, enum platform_folder f, char (*out)[APP_FOLDER_MAX], int max)
{
	int n = 0;
	for (size_t i = 0; i < platform_n_folder_rules && n < max; i++) {
		const struct platform_folder_rule *r = &platform_folder_rules[i];
		if (r->folder != f)
			continue;
		const char *v = r->env ? proc_detail_getenv(d, r->env) : "";
		/* a relative or empty value names no folder gputaskman could find */
		if (!v || (r->env && !os_path_absolute(v)))
			continue;
		if ((size_t)snprintf(out[n], APP_FOLDER_MAX, "%s%s", v, r->tail) < APP_FOLDER_MAX)
			n++;
	}
	return n;
}

bool app_folder_existing(const struct gtm_proc_detail *d, enum platform_folder f, char *out, size_t n)
{
	char places[APP_FOLDERS_MAX_RULES][APP_FOLDER_MAX];
	int k = app_folders(d, f, places, APP_FOLDERS_MAX_RULES);
	struct stat st;
	for (int i = 0; i < k; i++)
		if (sysroot_stat(&st, "%s", places[i]) == 0 && S_ISDIR(st.st_mode) &&
		    (size_t)snprintf(out, n, "%s", places[i]) < n)
			return true;
	return false;
}
