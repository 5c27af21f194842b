/* The live IOKit registry into the list of ioreg.h (macOS only): every
 * IOAccelerator service at depth 0 with its properties, and its
 * AGXDeviceUserClient children at depth 1 with theirs, CoreFoundation's
 * values turned into a property tree (cf_to_ptree). What reads it (agx.h)
 * is pure and tested on Linux from ioreg's output of the same registry. */
#ifndef GTM_IOKIT_READ_H
#define GTM_IOKIT_READ_H

#include <stddef.h>

#include "ioreg.h"

/* Fills l (initialised by the caller). Returns the accelerators found, or
 * -1 with why set when IOKit refused the match. */
int iokit_read_accelerators(struct ioreg_list *l, char *why, size_t cap);

#endif
