/* The walk over SystemProcessInformation's buffer (win_sysproc.h). The
 * offsets: Microsoft's winternl.h documents NextEntryOffset,
 * NumberOfThreads, ImageName, UniqueProcessId and WorkingSetSize around a
 * Reserved1[48] and a Reserved2 pointer; the Terminal Services protocol
 * ([MS-TSTS] 2.2.2.15.1, TS_SYS_PROCESS_INFORMATION) documents the same
 * entry with CreateTime as the last 8 bytes before the UserTime and
 * KernelTime that end Reserved1, and InheritedFromUniqueProcessId after
 * UniqueProcessId. mingw-w64's winternl.h agrees; proc_windows.c asserts
 * its offsets equal these for the build's bitness. */
#include "win_sysproc.h"

#include <stdbool.h>

const struct win_sysproc_layout win_sysproc_x64 = {.ptr_size = 8, .create_time = 0x20, .image_name = 0x38,
						   .pid = 0x50, .ppid = 0x58, .working_set = 0x90,
						   .entry_min = 0x98};
const struct win_sysproc_layout win_sysproc_x86 = {.ptr_size = 4, .create_time = 0x20, .image_name = 0x38,
						   .pid = 0x44, .ppid = 0x48, .working_set = 0x68,
						   .entry_min = 0x6C};

/* A little-endian field of size bytes at off; the caller has bounded it. */
static uint64_t le(const uint8_t *p, size_t off, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[off + i] << (8 * i);
	return v;
}

/* The name's place in the buffer, if its Length bytes at Buffer lie inside
 * it and are whole UTF-16 units; else none. */
static void read_name(const uint8_t *buf, size_t n, uint64_t base, size_t at, const struct win_sysproc_layout *l,
		      struct win_sysproc *e)
{
	size_t len = (size_t)le(buf, at + l->image_name, 2);
	uint64_t addr = le(buf, at + l->image_name + l->ptr_size, l->ptr_size);

	e->name_off = e->name_len = 0;
	if (len == 0 || len % 2 || addr < base || addr - base > n)
		return;
	uint64_t off = addr - base;
	if (n - off < len)
		return;
	e->name_off = (size_t)off;
	e->name_len = len;
}

long win_sysproc_walk(const uint8_t *buf, size_t n, uint64_t base, const struct win_sysproc_layout *l,
		      win_sysproc_fn fn, void *arg)
{
	size_t at = 0;
	long count = 0;

	for (;;) {
		if (n < l->entry_min || n - l->entry_min < at)
			return -1; /* the entry does not fit: a short or broken chain */
		struct win_sysproc e = {
			.pid = (uint32_t)le(buf, at + l->pid, l->ptr_size),
			.ppid = (uint32_t)le(buf, at + l->ppid, l->ptr_size),
			.create_time = le(buf, at + l->create_time, 8),
			.working_set = le(buf, at + l->working_set, l->ptr_size),
		};
		read_name(buf, n, base, at, l, &e);
		fn(&e, arg);
		count++;
		size_t next = (size_t)le(buf, at, 4);
		if (next == 0)
			return count;
		/* each step moves past a whole entry: the walk ends, and no two
		 * entries overlap */
		if (next < l->entry_min || n - at < next)
			return -1;
		at += next;
	}
}
