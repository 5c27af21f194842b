/* Linux's way to find libnvidia-ml: dlopen by soname through the normal
 * search path. Windows loads nvml.dll by full path instead
 * (src/platform/windows/wddm_nvml.c) and hands it to nvml_lib_open_loaded. */
#include "sources/nvml_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

const char *const nvml_lib_sonames[] = {"libnvidia-ml.so.1", "libnvidia-ml.so", NULL};

/* dlopen through the normal search path (LD_LIBRARY_PATH, ld.so.cache). */
static int load(struct nvml_lib *lib, char *msg, size_t msg_len)
{
	char first_err[200] = "";

	for (size_t i = 0; nvml_lib_sonames[i]; i++) {
		lib->dl = dlopen(nvml_lib_sonames[i], RTLD_NOW | RTLD_LOCAL);
		if (lib->dl) {
			str_copy(lib->soname, nvml_lib_sonames[i], sizeof lib->soname);
			return 0;
		}
		const char *e = dlerror();
		if (i == 0 && e)
			str_copy(first_err, e, sizeof first_err);
	}
	/* Absent is the normal state on machines without an NVIDIA driver; a library
	 * that exists but will not load is worth its loader message. */
	if (first_err[0] == '\0' || strstr(first_err, "No such file"))
		snprintf(msg, msg_len, "no NVIDIA driver: libnvidia-ml.so.1 not found");
	else
		snprintf(msg, msg_len, "libnvidia-ml.so.1 could not be loaded: %s", first_err);
	return first_err[0] == '\0' || strstr(first_err, "No such file") ? -1 : -2;
}

int nvml_lib_open(struct nvml_lib *lib, char *msg, size_t msg_len)
{
	memset(lib, 0, sizeof *lib);
	int r_load = load(lib, msg, msg_len);
	if (r_load < 0)
		return r_load;
	char name[sizeof lib->soname];
	str_copy(name, lib->soname, sizeof name);
	return nvml_lib_open_loaded(lib, lib->dl, name, msg, msg_len);
}
