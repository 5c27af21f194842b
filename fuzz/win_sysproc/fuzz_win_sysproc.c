/* Fuzzes the walk over SystemProcessInformation's buffer
 * (src/platform/windows/win_sysproc.c). The first byte picks the layout
 * (bit 0: x64 or x86); the rest is the buffer, at a fixed address so that
 * names can point into it. Invariants: nothing is read past the input
 * (ASan, on an exact copy), every name given lies inside the buffer in
 * whole UTF-16 units, and no more entries are given than whole entries fit. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/windows/win_sysproc.h"

#define BASE 0x10000u

struct check {
	size_t n;
	long seen;
};

static void each(const struct win_sysproc *e, void *arg)
{
	struct check *c = arg;
	c->seen++;
	if (e->name_len && (e->name_len % 2 || e->name_off > c->n || c->n - e->name_off < e->name_len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const struct win_sysproc_layout *l = data[0] & 1 ? &win_sysproc_x86 : &win_sysproc_x64;
	size_t n = size - 1;
	uint8_t *copy = malloc(n ? n : 1);
	memcpy(copy, data + 1, n);
	struct check c = {.n = n};
	long k = win_sysproc_walk(copy, n, BASE, l, each, &c);
	free(copy);
	if ((k >= 0 && k != c.seen) || c.seen > (long)(n / l->entry_min))
		abort();
	return 0;
}
