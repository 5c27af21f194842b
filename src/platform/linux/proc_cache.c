/* The process cache: entries keyed by PID with the start time that makes a
 * PID one process (proc(5) stat field 22), an open-addressing index over
 * them, and the per-scan state (listeners, users, one I/O buffer). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "proc_internal.h"
#include "proc_maps_spans.h"

struct proc_cache *proc_cache_new(void)
{
	struct proc_cache *c = xcalloc(1, sizeof *c);
	long ps = sysconf(_SC_PAGESIZE);

	c->io = xmalloc(PROC_IO_BUF);
	c->worker_io[0] = c->io;
	c->page_size = ps > 0 ? ps : 4096;
	c->clock = now_monotonic_ns;
	c->kept_procfd = -1;
	c->root_dirs = -1;
	c->spans = maps_spans_new();
	return c;
}

void proc_entry_release(struct proc_entry *e)
{
	proc_detail_unref(e->detail);
	e->detail = NULL;
	proc_entry_drop_fds(e);
}

void proc_entry_drop_fds(struct proc_entry *e)
{
	if (e->pidfd_slot > 0)
		close(e->pidfd_slot - 1);
	if (e->stat_fd_slot > 0)
		close(e->stat_fd_slot - 1);
	e->pidfd_slot = e->stat_fd_slot = 0;
}

static void entries_clear(struct proc_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		proc_entry_release(&c->entries[i]);
	c->n = 0;
	for (size_t i = 0; i < c->n_index; i++)
		c->index[i] = -1;
}

void proc_cache_free(struct proc_cache *c)
{
	if (!c)
		return;
	entries_clear(c);
	free(c->entries);
	free(c->index);
	proc_listeners_free(&c->listeners);
	proc_users_clear(&c->users);
	if (c->kept_procfd >= 0)
		close(c->kept_procfd);
	for (int k = 1; k < PARALLEL_MAX_WORKERS; k++)
		free(c->worker_io[k]);
	free(c->io);
	free(c->items);
	free(c->item_stats);
	free(c->counted);
	free(c->parents);
	free(c->pfds);
	maps_spans_free(c->spans);
	free(c);
}

/* Fibonacci hashing of the PID (Knuth, TAOCP vol. 3, 6.4). */
static size_t slot_of(uint32_t pid, size_t n_index)
{
	return (size_t)(pid * 2654435761u) & (n_index - 1);
}

static void index_rebuild(struct proc_cache *c, size_t n_index)
{
	if (n_index != c->n_index) {
		free(c->index);
		c->index = xmalloc(n_index * sizeof *c->index);
		c->n_index = n_index;
	}
	for (size_t i = 0; i < n_index; i++)
		c->index[i] = -1;
	for (size_t k = 0; k < c->n; k++) {
		size_t i = slot_of(c->entries[k].pid, n_index);
		while (c->index[i] >= 0)
			i = (i + 1) & (n_index - 1);
		c->index[i] = (int32_t)k;
	}
}

struct proc_entry *proc_cache_find(struct proc_cache *c, uint32_t pid)
{
	if (c->n_index == 0)
		return NULL;
	for (size_t i = slot_of(pid, c->n_index); c->index[i] >= 0; i = (i + 1) & (c->n_index - 1))
		if (c->entries[c->index[i]].pid == pid)
			return &c->entries[c->index[i]];
	return NULL;
}

struct proc_entry *proc_cache_insert(struct proc_cache *c, uint32_t pid, uint64_t start_time)
{
	struct proc_entry *e;

	/* zeroed here, one at a time: a slot is touched only when used */
	c->entries = grow_array_raw(c->entries, sizeof *c->entries, &c->cap, c->n);
	e = &c->entries[c->n++];
	memset(e, 0, sizeof *e);
	e->pid = pid;
	e->start_time = start_time;
	if (c->n * 2 > c->n_index) {
		index_rebuild(c, c->n_index ? c->n_index * 2 : 256);
	} else {
		size_t i = slot_of(pid, c->n_index);
		while (c->index[i] >= 0)
			i = (i + 1) & (c->n_index - 1);
		c->index[i] = (int32_t)(c->n - 1);
	}
	return e;
}

void proc_cache_reserve(struct proc_cache *c, size_t more)
{
	if (c->n + more > c->cap) {
		c->entries = xrealloc(c->entries, (c->n + more) * sizeof *c->entries);
		c->cap = c->n + more;
	}
}

/* A PID now names another process: forget everything about the old one. */
void proc_entry_reset(struct proc_entry *e, uint64_t start_time)
{
	uint32_t pid = e->pid;

	proc_entry_release(e);
	memset(e, 0, sizeof *e);
	e->pid = pid;
	e->start_time = start_time;
}

/* Drops the entries the last scan did not see (exited processes). */
void proc_cache_evict(struct proc_cache *c)
{
	proc_cache_evict_before(c, c->gen);
}

void proc_cache_evict_before(struct proc_cache *c, uint64_t gen)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (c->entries[i].gen < gen) {
			proc_entry_release(&c->entries[i]);
			continue;
		}
		if (k != i)
			c->entries[k] = c->entries[i];
		k++;
	}
	if (k == c->n)
		return;
	c->n = k;
	index_rebuild(c, c->n_index);
}

/* Fixture trees change between test cases: entries from another root mean
 * nothing here. */
void proc_cache_check_root(struct proc_cache *c)
{
	const char *root = sysroot_prefix();

	if (strcmp(root, c->root) == 0)
		return;
	entries_clear(c);
	proc_users_clear(&c->users);
	c->listeners.loaded = false;
	if (c->kept_procfd >= 0)
		close(c->kept_procfd);
	c->kept_procfd = -1;
	c->stat_refusal = 0;
	c->mount_flags_known = false;
	c->countable = 0;
	c->pidfd_uid = 0;
	c->root_dirs = -1;
	c->evict_gen = c->evict_at_ns = 0;
	str_copy(c->root, root, sizeof c->root);
}

int proc_cache_procfd(struct proc_cache *c)
{
	proc_cache_check_root(c);
	if (c->kept_procfd < 0)
		c->kept_procfd = sysroot_open(O_RDONLY | O_DIRECTORY, "/proc");
	return c->kept_procfd;
}

void proc_cache_worker_io(struct proc_cache *c, int workers)
{
	for (int k = 1; k < workers && k < PARALLEL_MAX_WORKERS; k++)
		if (!c->worker_io[k])
			c->worker_io[k] = xmalloc(PROC_IO_BUF);
}

const struct proc_listeners *proc_cache_listeners(struct proc_cache *c, int procfd)
{
	if (!c->listeners.loaded || c->listeners.gen != c->gen) {
		proc_listeners_load(&c->listeners, procfd, c->io, PROC_IO_BUF);
		c->listeners.gen = c->gen;
	}
	return &c->listeners;
}
