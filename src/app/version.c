#include "app/version.h"

#include <dlfcn.h>
#include <limits.h>

#include "app/build_config.h"
#include "platform.h"
#include "explain/probe_backend.h"
#ifdef GTM_HAVE_NVML
#include "sources/nvml_lib.h"
#endif
#ifdef GTM_HAVE_SERVE
#include "serve/http.h"
#endif
#ifdef GTM_LOADS_TERM_ZSTD
#include "record/zstd_ep.h"
#include "views/tui/backend/curses/curses_ep.h"
#endif

/* The libraries loaded with dlopen when a part needs them, under the names
 * that part tries. */
static const struct {
	const char *part;
	const char *const *names;
} runtime_libs[] = {
#ifdef GTM_HAVE_NVML
	{"NVML (NVIDIA GPUs)", nvml_lib_sonames},
#endif
	{"HTTP (local API probes)", probe_backend_libs},
#ifdef GTM_HAVE_SERVE
	{"HTTP (serve)", http_libs},
#endif
#ifdef GTM_LOADS_TERM_ZSTD
	{"terminal (the live view)", curses_lib_names},
	{"zstd (record, replay)", zstd_lib_names},
#endif
};

/* The first of names that loads, or NULL; nothing stays loaded. */
static const char *first_loadable(const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		void *h = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
		if (h) {
			dlclose(h);
			return names[i];
		}
	}
	return NULL;
}

void version_print(FILE *out)
{
	fprintf(out, "gputaskman %s\n", GTM_VERSION);
	fprintf(out, "commit: %s\n", GTM_COMMIT);
#ifdef GTM_HAVE_SERVE
	const char *exporter = "built in";
#else
	const char *exporter = "not built (its HTTP server is POSIX only)";
#endif
	fprintf(out, "optional parts:\n  exporter (serve): %s\n", exporter);
	fprintf(out, "  recorder (record, replay, --record): built in\n");
	char helper[PATH_MAX + 96];
	platform_host_helper_describe(helper, sizeof helper);
	fprintf(out, "  Windows helper (WSL2): %s\n", helper);
	fprintf(out, "run-time libraries:\n");
	for (size_t i = 0; i < sizeof runtime_libs / sizeof runtime_libs[0]; i++) {
		const char *const *names = runtime_libs[i].names;
		const char *found = first_loadable(names);
		fprintf(out, "  %s: ", runtime_libs[i].part);
		if (found || !names[1]) {
			fprintf(out, "%s %s\n", found ? found : names[0], found ? "found" : "not found");
			continue;
		}
		/* Every alternative was tried: name them all, not just the first. */
		fprintf(out, "none found (tried");
		for (size_t k = 0; names[k]; k++)
			fprintf(out, "%s %s", k ? "," : "", names[k]);
		fprintf(out, ")\n");
	}
}
