/* The macOS platform (Apple Silicon): processes through sysctl(KERN_PROC)
 * and libproc (proc_pidinfo, proc_pidpath, region walks), listening ports
 * through the process's socket descriptors, and the GPU through the IOKit
 * registry (iokit_source.c: IOAccelerator and its AGXDeviceUserClient
 * children, read into a property tree whose rules, agx.h, are pure). What
 * macOS refuses (another user's process without root) is left empty and
 * counted as not inspectable. */
#ifndef GTM_PLATFORM_H
#define GTM_PLATFORM_H

#include "platform/platform_api.h"

#endif
