/* Keeping a row's ports across a change of the listening loopback sockets
 * that only removed some (proc_ports.c): on a shared machine other programs
 * open and close listeners all the time, and each change made every GPU
 * row read its fd folder again (an open, a listing and a readlink an fd). */
#ifndef GTM_PROC_PORTS_H
#define GTM_PROC_PORTS_H

#include <stdbool.h>
#include <stdint.h>

#include "proc_internal.h"

/* Whether now holds only listeners of before (the same inode on the same
 * port), and no listener that left was on one of the n ports a process had
 * at before: then its ports are still those n (it holds no new listener,
 * since none appeared, and lost none it had). A full port list
 * (PROC_MAX_PORTS) may have left ports out: false. Pure. */
bool proc_listeners_removed_only(const struct proc_listeners *before, const struct proc_listeners *now,
				 const uint16_t *ports, int n);
/* The same against the set before the last change proc_listeners_load saw,
 * when that set's sig is before_sig; false when it is not known. */
bool proc_listeners_kept_since(uint64_t before_sig, const struct proc_listeners *now, const uint16_t *ports, int n);

#endif
