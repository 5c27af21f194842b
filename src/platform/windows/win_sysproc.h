/* The pure half of listing every process with one
 * NtQuerySystemInformation(SystemProcessInformation) call: the walk over
 * the buffer it fills, a chain of SYSTEM_PROCESS_INFORMATION entries linked
 * by NextEntryOffset, each naming its image through a UNICODE_STRING whose
 * Buffer points into the same buffer. No Windows header: the Linux unit
 * tests and the fuzz target build this file too (win_sysproc.c);
 * proc_windows.c makes the call. */
#ifndef GTM_WIN_SYSPROC_H
#define GTM_WIN_SYSPROC_H

#include <stddef.h>
#include <stdint.h>

/* Where the fields sit in an entry, per bitness of the caller (the buffer
 * is laid out for the process that asks). */
struct win_sysproc_layout {
	uint8_t ptr_size;          /* 8 (x64) or 4 (x86) */
	uint16_t create_time;      /* the creation time, FILETIME ticks */
	uint16_t image_name;       /* UNICODE_STRING: Length, MaximumLength, Buffer */
	uint16_t pid, ppid;        /* UniqueProcessId, InheritedFromUniqueProcessId */
	uint16_t working_set;      /* WorkingSetSize (bytes) */
	uint16_t entry_min;        /* bytes of an entry that hold every field above */
};
extern const struct win_sysproc_layout win_sysproc_x64, win_sysproc_x86;

/* One entry as read. The image name is given as its place in the buffer
 * (name_len bytes of UTF-16LE from name_off); name_len 0 when the entry
 * names none (the idle process) or its name lies outside the buffer. */
struct win_sysproc {
	uint32_t pid, ppid;
	uint64_t create_time, working_set;
	size_t name_off, name_len;
};

typedef void (*win_sysproc_fn)(const struct win_sysproc *e, void *arg);

/* Calls fn for each entry of the n bytes at buf, which sat at address
 * base in the caller's memory (the names' Buffer pointers are addresses).
 * Every offset and every name is bounded by n; an entry whose
 * NextEntryOffset is shorter than an entry, or leads past the buffer, ends
 * the walk as broken. Returns how many entries fn got, or -1 when the chain
 * is broken (the entries before the break were given). */
long win_sysproc_walk(const uint8_t *buf, size_t n, uint64_t base, const struct win_sysproc_layout *l,
		      win_sysproc_fn fn, void *arg);

#endif
