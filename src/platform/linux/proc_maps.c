/* /proc/PID/maps line parser (proc(5): "/proc/pid/maps"; fs/proc/task_mmu.c
 * show_map_vma(): the path is padded to a fixed column and runs to the end of
 * the line, with " (deleted)" appended for an unlinked file). */
#include "proc_parse.h"

#include <string.h>


/* Paths the kernel prints for mappings that are not files anyone could open:
 * memfd_create() and SysV shm segments, shared anonymous memory, AIO rings. */
static const struct {
	const char *prefix;
	size_t len;
} not_a_file[] = {{"/memfd:", 7}, {"/SYSV", 5}, {"/dev/zero", 9}, {"/[aio]", 6}};

static const char deleted_suffix[] = " (deleted)";

const char *proc_maps_line_path(const char *line, size_t len, size_t *path_len)
{
	const char *p = line, *end = line + len, *path;
	size_t n;

	*path_len = 0;
	/* address range, perms, offset, dev, inode: five fields, each ended by a
	 * space (show_map_vma() writes one between fields and pads to the path's
	 * column with more spaces). memchr finds each end at once: every process
	 * maps a few dozen lines whose path only starts past column 73. */
	for (int i = 0; i < 5; i++) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p == '\n')
			return NULL;
		p = memchr(p, ' ', (size_t)(end - p));
		if (!p)
			return NULL; /* no space after the field: no path follows */
	}
	if (memchr(line, '\n', (size_t)(p - line)))
		return NULL; /* the line ended inside the fields */
	/* the padding to the path's column: eight spaces at a time, then one */
	while (end - p >= 8 && memcmp(p, "        ", 8) == 0)
		p += 8;
	while (p < end && *p == ' ')
		p++;
	path = p;
	n = (size_t)(end - p);
	while (n > 0 && (path[n - 1] == '\n' || path[n - 1] == '\r'))
		n--;
	/* a second line glued to this one means the caller split badly: stop there */
	const char *nl = memchr(path, '\n', n);
	if (nl)
		n = (size_t)(nl - path);
	if (!proc_maps_path_is_file(path, n))
		return NULL;
	*path_len = n;
	return path;
}

bool proc_maps_path_is_file(const char *path, size_t n)
{
	if (n == 0 || path[0] != '/')
		return false; /* anonymous, [heap], [stack], [vdso], [anon:x], anon_inode:x */
	for (size_t i = 0; i < sizeof not_a_file / sizeof not_a_file[0]; i++)
		if (n >= not_a_file[i].len && path[1] == not_a_file[i].prefix[1] &&
		    memcmp(path, not_a_file[i].prefix, not_a_file[i].len) == 0)
			return false;
	return true;
}

bool proc_maps_path_deleted(const char *path, size_t len)
{
	size_t k = sizeof deleted_suffix - 1;
	return len >= k && memcmp(path + len - k, deleted_suffix, k) == 0;
}
