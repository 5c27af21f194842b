/* What the macOS files share: a PID's start time as the process scan
 * counts it, and a process's graphics memory (macOS only). */
#ifndef GTM_PROC_DARWIN_H
#define GTM_PROC_DARWIN_H

#include <stdbool.h>
#include <stdint.h>

/* Start times count 1/100 s (sysconf(_SC_CLK_TCK) on macOS) from the Unix
 * epoch: proc_start_epoch_s is 0. */
#define DARWIN_TICKS_PER_SECOND 100u

/* The start time of a live PID (sysctl KERN_PROC_PID, readable for every
 * process), 0 when it is gone. */
uint64_t darwin_proc_start_time(uint32_t pid);

enum darwin_gfx { DARWIN_GFX_OK, DARWIN_GFX_DENIED, DARWIN_GFX_GONE, DARWIN_GFX_UNSUPPORTED,
		  DARWIN_GFX_PENDING /* footprint's thread has no answer yet */ };
/* The graphics footprint of a process: task_name_for_pid (self, same user,
 * root) then task_info(TASK_VM_INFO)'s ledger_tag_graphics_footprint
 * (xnu's osfmk/mach/task_info.h, revision 3 and later). */
enum darwin_gfx darwin_graphics_footprint(uint32_t pid, uint64_t *bytes);

#endif
