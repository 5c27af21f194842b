/* A scan's phases 1 and 2 (proc_scan_internal.h): the stat of each process
 * that needs one, read side by side, then taken by the cache in order. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "proc_scan_internal.h"

/* A stat read through the file kept open for this process (held_fd): fstat
 * for the owner, a pread at 0. STAT_GONE when it fails (the process exited:
 * ESRCH), and the caller opens by path. */
static enum stat_result read_held_stat(int fd, struct proc_stat *st, uid_t *uid)
{
	char buf[1024];
	struct stat sb;
	ssize_t k;

	if (fstat(fd, &sb) != 0)
		return STAT_GONE;
	do
		k = pread(fd, buf, sizeof buf - 1, 0);
	while (k < 0 && errno == EINTR);
	if (k <= 0 || proc_stat_parse(buf, (size_t)k, st) != 0)
		return STAT_GONE;
	*uid = sb.st_uid;
	return STAT_OK;
}

/* The steady path's only read: open, fstat for the owner, one read, close;
 * or the same through the file a live priority PID keeps open (held_fd >= 0). */
static enum stat_result read_stat(int procfd, uint32_t pid, int held_fd, struct proc_stat *st, uid_t *uid)
{
	char path[32], buf[1024];
	struct stat sb;
	ssize_t k;
	int fd;

	if (held_fd >= 0 && read_held_stat(held_fd, st, uid) == STAT_OK)
		return STAT_OK;
	proc_pid_file(path, sizeof path, pid, "stat");
	fd = sysroot_proc_openat(procfd, path, O_RDONLY | O_NOCTTY);
	if (fd < 0) /* exited since readdir, or hidden (mount option hidepid=1) */
		return errno == EACCES || errno == EPERM ? STAT_DENIED : STAT_GONE;
	if (fstat(fd, &sb) != 0) {
		close(fd);
		return STAT_GONE;
	}
	do
		k = read(fd, buf, sizeof buf - 1); /* the kernel writes the whole line at once */
	while (k < 0 && errno == EINTR);
	close(fd);
	if (k <= 0)
		return STAT_GONE;
	*uid = sb.st_uid;
	return proc_stat_parse(buf, (size_t)k, st) == 0 ? STAT_OK : STAT_GONE;
}

static bool rescan_due(const struct proc_entry *e, uint64_t rss, uint64_t now)
{
	uint64_t delta, age;

	if (!e->detailed)
		return true;
	age = now - e->detail_at_ns;
	if (age >= PROC_RESCAN_AGE_NS)
		return true;
	if (age < PROC_RESCAN_MIN_INTERVAL_NS)
		return false;
	delta = rss > e->detail_rss ? rss - e->detail_rss : e->detail_rss - rss;
	if (delta >= PROC_RESCAN_RSS_BYTES)
		return true;
	return delta > 0 && delta >= e->detail_rss / 100 * PROC_RESCAN_RSS_PERCENT;
}

/* A known process whose /proc inode is unchanged keeps its last stat for a
 * while (proc.h: PROC_STAT_PERIOD_NS); one that matters to no view (not a
 * priority PID, with details_priority_only) for as long as the inode stays. */
bool scan_stat_fresh(const struct scan_state *s, const struct proc_entry *e, ino_t ino)
{
	if (!s->trust_ino || !e || !e->have_stat || ino == 0 || e->ino != ino)
		return false;
	if (s->priority_only && !is_priority(s, e->pid))
		return true;
	return s->now - e->stat_at_ns < PROC_STAT_PERIOD_NS + (e->pid % 8) * PROC_STAT_STAGGER_NS;
}

/* Phase 1, per item and side by side: the stat of each process not fresh. */
void scan_stat_item(void *ctx, size_t i, int worker)
{
	struct scan_state *s = ctx;
	struct scan_item *it = &s->items[i];

	(void)worker;
	if (it->stat == ITEM_UNREAD) {
		struct item_stat *is = item_stat_of(s, it);
		it->stat = (uint8_t)read_stat(s->procfd, it->pid, it->held_slot - 1, &is->st, &is->uid);
	}
}

/* Whether this process's details are read at all: with priority_only, what
 * ps reads (its stat) is all a process that uses no GPU gets, and a detail
 * read while it mattered is dropped. */
static bool wants_detail(const struct scan_state *s, struct proc_entry *e)
{
	if (!s->priority_only || is_priority(s, e->pid))
		return true;
	proc_entry_release(e);
	e->detailed = false;
	e->denied = false;
	return false;
}

/* count_others: the priority PIDs' stats are in; their parents, counted so
 * far, get theirs (a handful: read on this thread). */
void scan_read_counted_parents(struct scan_state *s)
{
	scan_collect_parents(s);
	s->parents_known = true;
	for (size_t i = 0; i < s->n_items && s->n_parents; i++) {
		struct scan_item *it = &s->items[i];
		if (it->stat != ITEM_COUNTED || !bsearch(&it->pid, s->parents, s->n_parents, sizeof it->pid, pid_cmp))
			continue;
		const struct proc_entry *e = proc_cache_find(s->c, it->pid);
		it->stat = scan_stat_fresh(s, e, it->ino) ? ITEM_FRESH : ITEM_UNREAD;
		scan_item_give_stat(s, it);
		scan_stat_item(s, i, 0);
	}
}

static void scan_add_counted(struct proc_cache *c, uint32_t pid)
{
	if (c->counted_gen != c->gen) {
		c->counted_gen = c->gen;
		c->n_counted = 0;
	}
	c->counted = grow_array_raw(c->counted, sizeof *c->counted, &c->counted_cap, c->n_counted);
	c->counted[c->n_counted++] = pid;
}

/* Phase 2, in order: the cache takes the stats (inserting moves entries, so
 * items keep an index) and the due details are counted. */
size_t scan_apply_stats(struct scan_state *s)
{
	struct proc_cache *c = s->c;
	size_t due = 0;

	for (size_t i = 0; i < s->n_items; i++) {
		struct scan_item *it = &s->items[i];
		struct proc_entry *e = proc_cache_find(c, it->pid);

		it->detail = DETAIL_NONE;
		if (it->stat == ITEM_COUNTED) {
			/* listed (proc_cache_listed): a PID in the counted list, no
			 * entry (248 bytes each, most of a listing); one that mattered
			 * before keeps its entry, and what it held is dropped */
			if (!e) {
				scan_add_counted(c, it->pid);
				continue;
			}
			e->gen = c->gen;
			it->entry = (uint32_t)(e - c->entries);
			wants_detail(s, e);
			continue;
		}
		if (it->stat == ITEM_FRESH) {
			e->gen = c->gen;
			it->entry = (uint32_t)(e - c->entries);
			/* a known process that just started to matter (a GPU user now) */
			if (wants_detail(s, e) && !e->detailed) {
				item_stat_of(s, it)->st = e->last_stat;
				it->detail = DETAIL_DUE;
				due++;
			}
			continue;
		}
		c->stat_reads++;
		if (it->stat != STAT_OK)
			continue;
		const struct item_stat *is = item_stat_of(s, it);
		if (e && e->start_time != is->st.start_time)
			proc_entry_reset(e, is->st.start_time); /* the PID was reused */
		if (!e)
			e = proc_cache_insert(c, it->pid, is->st.start_time);
		e->gen = c->gen;
		e->stat_uid = is->uid;
		e->ino = it->ino;
		e->have_stat = true;
		e->stat_at_ns = s->now;
		e->last_stat = is->st;
		it->entry = (uint32_t)(e - c->entries);
		if (wants_detail(s, e) && rescan_due(e, rss_bytes(c, &is->st), s->now)) {
			it->detail = DETAIL_DUE;
			due++;
		}
	}
	/* /proc lists PIDs in ascending order; a replayed tree may not */
	for (size_t i = 1; c->counted_gen == c->gen && i < c->n_counted; i++)
		if (c->counted[i - 1] > c->counted[i]) {
			qsort(c->counted, c->n_counted, sizeof *c->counted, pid_cmp);
			break;
		}
	return due;
}
