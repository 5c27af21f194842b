/* Every process with what ps shows of it but the user, listed once per
 * scan: one NtQuerySystemInformation(SystemProcessInformation) call (PID,
 * parent, image name, creation time, working set; win_sysproc.c walks its
 * buffer), or Toolhelp where that call is missing or fails (PID, parent,
 * image name only: the start time and working set are then read from a
 * handle on each process, four system calls each). proc_windows.c and the
 * WSL helper's host stream (host_stream_procs.c) list through this. */
#ifndef GTM_WIN_PROC_LIST_H
#define GTM_WIN_PROC_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct win_proc {
	uint32_t pid, ppid;
	uint64_t start_time; /* creation time, FILETIME ticks; 0 from Toolhelp */
	uint64_t rss;        /* working set, bytes; 0 from Toolhelp */
	char name[64];       /* image name, UTF-8, cut at a whole character */
	bool name_cut;       /* the name was longer than name holds */
};

struct win_proc_list {
	struct win_proc *v;
	size_t n, cap;
	bool basic;          /* start_time and rss are the listing's (not Toolhelp) */
	char why[96];        /* with Toolhelp: why SystemProcessInformation was not used */
	unsigned char *buf;  /* SystemProcessInformation's buffer, kept between scans */
	unsigned long cap_buf;
};

/* Lists every process now into l (reusing its arrays); false when neither
 * way gave a list (l->n is then 0). GTM_PROC_LISTING=toolhelp in the
 * environment takes the fallback, so that tests compare both. */
bool win_proc_list_read(struct win_proc_list *l);
void win_proc_list_free(struct win_proc_list *l);

#endif
