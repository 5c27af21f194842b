/* The Apple GPU source (macOS): devices and per-process GPU time from the
 * IOKit registry (iokit_read.h -> agx.h), per-process graphics memory from
 * the task's VM ledger (proc_darwin.h). */
#ifndef GTM_IOKIT_SOURCE_H
#define GTM_IOKIT_SOURCE_H

#include "sources/source.h"

extern const struct gtm_source_ops iokit_source_ops;

#endif
