#include "core/dl_table.h"

#include <dlfcn.h>
#include <stdio.h>

/* Every symbol of syms from lib into its slot; the first missing one, or NULL. */
static const char *resolve_all(void *lib, const char *const *syms, void **const *slots)
{
	for (size_t i = 0; syms[i]; i++)
		if (!(*slots[i] = dlsym(lib, syms[i])))
			return syms[i];
	return NULL;
}

bool dl_table_open(const char *const *libs, const char *const *syms, void **const *slots, char *why, size_t n)
{
	snprintf(why, n, "no library to load");
	for (size_t k = 0; libs[k]; k++) {
		void *lib = dlopen(libs[k], RTLD_NOW | RTLD_LOCAL);
		const char *missing;
		if (!lib) {
			snprintf(why, n, "%s not loadable: %s", libs[k], dlerror());
			continue;
		}
		if (!(missing = resolve_all(lib, syms, slots)))
			return true;
		snprintf(why, n, "%s lacks %s", libs[k], missing);
		dlclose(lib);
	}
	for (size_t i = 0; syms[i]; i++)
		*slots[i] = NULL;
	return false;
}
