/* Row order: GPU rows first, by VRAM descending (unavailable last), then the
 * rest as they were. */
#include "collect/attribute_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct rank {
	int row;
	bool has_vram;
	uint64_t vram;
	uint32_t pid;
};

static int rank_cmp(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;
	if (x->has_vram != y->has_vram)
		return x->has_vram ? -1 : 1;
	if (x->vram != y->vram)
		return x->vram > y->vram ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->row - y->row;
}

void attribute_order_rows(struct attribute_state *st, struct gtm_snapshot *snap)
{
	size_t n = (size_t)snap->n_processes, n_gpu = 0, w = 0;
	struct rank *gpu = xcalloc(n + 1, sizeof *gpu);

	st->reorder = grow_array(st->reorder, sizeof *st->reorder, &st->cap_reorder, n);
	struct gtm_process *out = st->reorder;

	for (size_t i = 0; i < n; i++) {
		const struct gtm_process *p = &snap->processes[i];
		if (p->n_uses == 0)
			continue;
		gtm_u64 v = process_vram_total(p);
		gpu[n_gpu++] = (struct rank){(int)i, gtm_u64_ok(v), v.v, p->pid ? p->pid : p->host_pid};
	}
	qsort(gpu, n_gpu, sizeof *gpu, rank_cmp);
	for (size_t i = 0; i < n_gpu; i++)
		out[w++] = snap->processes[gpu[i].row];
	for (size_t i = 0; i < n; i++)
		if (snap->processes[i].n_uses == 0)
			out[w++] = snap->processes[i];
	if (n > 0)
		memcpy(snap->processes, out, n * sizeof *out);
	snap->n_gpu_processes = (int)n_gpu;
	free(gpu);
}
