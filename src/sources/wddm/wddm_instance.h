/* PDH's GPU counter instance names (platforms.md 1.1), parsed into their
 * fields. Microsoft documents no grammar; the one read here is what real
 * captures and windows_exporter show:
 *   [pid_<pid>_]luid_0x<HIGH>_0x<LOW>_phys_<n>[_eng_<n>_engtype_<type>][_part_<n>][#<n>]
 * The engine type is everything after "engtype_" (it may hold '_' and
 * spaces: "Compute_0", "High Priority 3D"); hex digits and the literal words
 * are compared case-insensitively (PowerShell lowercases the names it prints).
 * Portable: the Windows source reads PDH with it, and a WSL host stream
 * reads vmwp.exe's contexts with it. */
#ifndef GTM_WDDM_INSTANCE_H
#define GTM_WDDM_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/wddm/wddm_adapter_info.h" /* wddm_luid_format */

#define WDDM_ENGTYPE_MAX 32
/* longer names are no counter instance of these sets */
#define WDDM_INSTANCE_MAX 160

struct wddm_instance {
	bool has_pid, has_eng, has_part;
	uint32_t pid;
	uint64_t luid;      /* HighPart << 32 | LowPart, as wddm_adapters.h's wddm_luid */
	uint32_t phys;      /* physical GPU inside a linked adapter */
	uint32_t eng;       /* engine index on that physical GPU */
	uint32_t part;      /* memory partition (the adapter sets) */
	uint32_t dup;       /* a "#<n>" duplicate suffix, 0 without one */
	char engtype[WDDM_ENGTYPE_MAX]; /* "" without an engine */
};

/* Parses n bytes (no NUL needed). Returns 0, or -1 for a name outside the
 * grammar (out is then zeroed). */
int wddm_instance_parse(const char *s, size_t n, struct wddm_instance *out);

#endif
