/* A process's mapped files through the PROCMAP_QUERY ioctl of /proc/PID/maps
 * (Linux 6.11; Documentation/filesystems/proc.rst, include/uapi/linux/fs.h).
 * The text of maps costs the kernel a formatted line per range, anonymous
 * ones included, and a d_path per file-backed one (seq_path: about 1.3 us a
 * line on a VM). The ioctl hands over one range at a time as numbers, skips
 * the anonymous ones itself (PROCMAP_QUERY_FILE_BACKED_VMA), and gives the
 * path only when asked: a library's four or five ranges in a row share
 * (device, inode), so the path is asked for once a file. Asking costs a
 * d_path, so it is asked with the query only where a new file is likely to
 * start: first, and after a writable range (an ELF object's last, its data).
 * Anywhere else a new file takes a second query for its path. The paths are the
 * kernel's d_path, as in the text (" (deleted)" included), without the text's
 * escaping of '\n'. Older kernels answer ENOTTY, a fixture tree's regular
 * file too: the caller then reads the text from the same, unread fd. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include "proc_internal.h"
#include "proc_maps_spans.h"
#include "proc_parse.h"

/* struct procmap_query as of Linux 6.11 (104 bytes); a later kernel takes
 * this smaller size and leaves its newer fields alone. The C library's
 * linux/fs.h may predate it (Debian 12's does), so the ABI is written here. */
struct maps_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
_Static_assert(sizeof(struct maps_query) == 104, "struct procmap_query of Linux 6.11");

#define MAPS_QUERY_IOCTL _IOWR('f', 17, struct maps_query)
#define QUERY_COVERING_OR_NEXT 0x10u
#define QUERY_FILE_BACKED 0x20u
#define VMA_WRITABLE 0x2u /* vma_flags: PROCMAP_QUERY_VMA_WRITABLE */

static int query(int fd, uint64_t addr, uint64_t flags, char *name, size_t cap, struct maps_query *q)
{
	memset(q, 0, sizeof *q);
	q->size = sizeof *q;
	q->query_flags = flags | QUERY_FILE_BACKED;
	q->query_addr = addr;
	if (name) {
		q->vma_name_addr = (uint64_t)(uintptr_t)name;
		q->vma_name_size = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
	}
	return ioctl(fd, MAPS_QUERY_IOCTL, q);
}

/* a path the query wrote, if it is one the list keeps: its index, or SIZE_MAX */
static size_t add_path(const char *name, size_t cap, struct proc_path_list *l)
{
	size_t n = strnlen(name, cap);
	return n < cap && proc_maps_path_is_file(name, n) ? proc_path_list_add(l, name, n) : SIZE_MAX;
}

static bool same_file(const struct maps_query *a, const struct maps_query *b)
{
	return a->inode == b->inode && a->dev_major == b->dev_major && a->dev_minor == b->dev_minor;
}

/* The path of the range at start, added to l (*at: its index, or SIZE_MAX).
 * Returns 0, or -1 with errno. */
static int add_name(int fd, uint64_t start, char *name, size_t cap, struct proc_path_list *l, size_t *at)
{
	struct maps_query got;

	*at = SIZE_MAX;
	if (query(fd, start, 0, name, cap, &got) != 0)
		/* unmapped since (ENOENT), or a path longer than cap: that range only */
		return errno == ENOENT || errno == ENAMETOOLONG ? 0 : -1;
	*at = add_path(name, cap, l);
	return 0;
}

/* One step of the walk: the next file-backed range at or past addr, with
 * its path in name when with_name. A path too long for name fails the
 * query (ENAMETOOLONG); asked again without, the range is still walked. */
static int next_range(int fd, uint64_t addr, bool with_name, char *name, size_t cap, struct maps_query *q,
		      bool *named)
{
	*named = false;
	if (with_name) {
		if (query(fd, addr, QUERY_COVERING_OR_NEXT, name, cap, q) == 0) {
			*named = true;
			return 0;
		}
		if (errno != ENAMETOOLONG)
			return -1;
	}
	return query(fd, addr, QUERY_COVERING_OR_NEXT, NULL, 0, q);
}

static struct maps_range range_of(const struct maps_query *q)
{
	return (struct maps_range){.start = q->vma_start, .end = q->vma_end, .offset = q->vma_offset,
				   .flags = q->vma_flags, .inode = q->inode, .dev_major = q->dev_major,
				   .dev_minor = q->dev_minor};
}

/* The run that starts at *at, stepped over to its last range where a run
 * of this file was learned and that range is where and what it was:
 * true, *at that last range. */
static bool step_over(int fd, struct maps_spans *spans, struct maps_query *at)
{
	struct maps_range first = range_of(at), want;
	struct maps_query got;

	if (!maps_spans_predict(spans, &first, &want) || query(fd, want.start, 0, NULL, 0, &got) != 0)
		return false;
	struct maps_range r = range_of(&got);
	if (r.start != want.start || r.end != want.end || r.offset != want.offset || r.flags != want.flags ||
	    r.inode != want.inode || r.dev_major != want.dev_major || r.dev_minor != want.dev_minor)
		return false;
	maps_spans_stepped(spans);
	*at = got;
	return true;
}

/* The walk's current run of one file's ranges. */
struct run {
	struct maps_range first, last;
	uint32_t n;
	bool stepped;
	size_t path;             /* its file's index in the list, SIZE_MAX if none */
};

/* The run is over: learned, if it was walked range by range, and its file
 * named as the one at ask->covering if the run spans that address (the
 * ranges inside a stepped-over run are taken as its file's). */
static void run_end(struct proc_maps_ask *ask, const struct run *r)
{
	if (!ask || !r->n)
		return;
	if (ask->spans && !r->stepped)
		maps_spans_learn(ask->spans, &r->first, &r->last, r->n);
	if (ask->covering && ask->covering_path == SIZE_MAX && ask->covering >= r->first.start &&
	    ask->covering < r->last.end)
		ask->covering_path = r->path;
}

int proc_maps_query(int fd, char *name, size_t cap, struct proc_path_list *l, struct proc_maps_ask *ask)
{
	struct maps_query q, last = {0};
	struct run run = {0};
	struct maps_spans *spans = ask ? ask->spans : NULL;
	uint64_t addr = 0;
	bool first = true, have_last = false, named;

	if (ask)
		ask->covering_path = SIZE_MAX;
	if (cap < 2)
		return 1;
	for (;;) {
		/* a new file likely starts here: first, or after a writable range */
		bool expect_new = !have_last || (last.vma_flags & VMA_WRITABLE);
		if (next_range(fd, addr, expect_new, name, cap, &q, &named) != 0) {
			if (errno == ENOENT) {
				run_end(ask, &run);
				return 0; /* no file-backed range at or past addr */
			}
			if (first && (errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP))
				return 1;
			return -1;
		}
		first = false;
		if (q.vma_end <= addr || q.vma_end <= q.vma_start) {
			errno = EIO; /* no progress: never loop on a kernel's odd answer */
			return -1;
		}
		addr = q.vma_end;
		bool same = have_last && same_file(&q, &last);
		last = q;
		have_last = true;
		if (same) {
			run.last = range_of(&q);
			run.n++;
			continue;
		}
		run_end(ask, &run);
		run = (struct run){.first = range_of(&q), .last = range_of(&q), .n = 1, .path = SIZE_MAX};
		if (named)
			run.path = add_path(name, cap, l);
		else if (add_name(fd, q.vma_start, name, cap, l, &run.path) != 0)
			return -1;
		if (l->n >= PROC_MAPS_MAX_PATHS)
			return 0;
		if (spans && step_over(fd, spans, &q)) {
			addr = q.vma_end;
			last = q;
			run.last = range_of(&q);
			run.stepped = true;
		}
	}
}
