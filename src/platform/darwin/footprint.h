/* The output of macOS's footprint(1), pure: the text form
 * (`footprint -p PID`: sizes in B/KB/MB/GB) and the exact one
 * (`footprint -f bytes`, with --noCategories, several -p in one run). Each
 * process starts with `NAME [PID]: 64-bit    Footprint: SIZE (N bytes per
 * page)` (a single process may print only `Footprint: SIZE`), then a
 * table `Dirty Clean Reclaimable Regions Category`, then `Auxiliary data:`
 * with phys_footprint and phys_footprint_peak. A PID it may not read prints
 * `footprint: Unable to analyze process with pid N (try as root?)` and the
 * others still print. Shapes: ../fixtures/macos (quoted by public tests). */
#ifndef GTM_FOOTPRINT_H
#define GTM_FOOTPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FP_MAX_PROCS 64

struct fp_proc {
	uint32_t pid;            /* 0 when the output named none (a single process) */
	char name[64];
	uint64_t footprint;      /* the header's Footprint */
	bool exact;              /* sizes in bytes (-f bytes), not rounded to KB/MB/GB */
	bool has_phys, has_peak;
	uint64_t phys_footprint, phys_footprint_peak;
	/* the categories' Dirty column: every "(graphics)" category summed (the
	 * GPU's own: IOAccelerator, owned unmapped), and llama.cpp's untagged
	 * VM_ALLOCATE, where its Metal buffers are */
	uint64_t graphics_dirty, untagged_vm_dirty;
	int n_categories;
};

struct fp_result {
	struct fp_proc procs[FP_MAX_PROCS];
	size_t n;
	uint32_t denied[FP_MAX_PROCS]; /* PIDs footprint could not analyze */
	size_t n_denied;
};

/* Parses the output into out (cleared first). Returns the processes found,
 * or -1 when there is neither a process nor a refusal. */
int footprint_parse(const char *buf, size_t n, struct fp_result *out);

/* "18 GB", "9678 KB", "214434824 B", "1.5 MB": bytes into *out (1024-based,
 * as footprint counts), *exact when the unit is B. Returns the characters
 * read, 0 when s starts with no size. */
size_t footprint_size(const char *s, const char *end, uint64_t *out, bool *exact);

#endif
