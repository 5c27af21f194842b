/* /proc/PID/maps line parser (proc(5): "/proc/pid/maps"; fs/proc/task_mmu.c
 * show_map_vma(): the path is padded to a fixed column and runs to the end of
 * the line, with " (deleted)" appended for an unlinked file). */
#include "proc/proc_parse.h"

#include <string.h>

#include "proc/proc_lex.h"

/* Paths the kernel prints for mappings that are not files anyone could open:
 * memfd_create() and SysV shm segments, shared anonymous memory, AIO rings. */
static const char *const not_a_file[] = {"/memfd:", "/SYSV", "/dev/zero", "/[aio]"};

static const char deleted_suffix[] = " (deleted)";

const char *proc_maps_line_path(const char *line, size_t len, size_t *path_len)
{
	struct lex l = {line, line + len};
	const char *path;
	size_t n;

	*path_len = 0;
	/* address range, perms, offset, dev, inode */
	for (int i = 0; i < 5; i++)
		if (!lex_skip_field(&l))
			return NULL;
	lex_skip_blank(&l);
	path = l.p;
	n = (size_t)(l.end - l.p);
	while (n > 0 && (path[n - 1] == '\n' || path[n - 1] == '\r'))
		n--;
	/* a second line glued to this one means the caller split badly: stop there */
	const char *nl = memchr(path, '\n', n);
	if (nl)
		n = (size_t)(nl - path);
	if (n == 0 || path[0] != '/')
		return NULL; /* anonymous, [heap], [stack], [vdso], [anon:x], anon_inode:x */
	for (size_t i = 0; i < sizeof not_a_file / sizeof not_a_file[0]; i++) {
		size_t k = strlen(not_a_file[i]);
		if (n >= k && memcmp(path, not_a_file[i], k) == 0)
			return NULL;
	}
	*path_len = n;
	return path;
}

bool proc_maps_path_deleted(const char *path, size_t len)
{
	size_t k = sizeof deleted_suffix - 1;
	return len >= k && memcmp(path + len - k, deleted_suffix, k) == 0;
}
