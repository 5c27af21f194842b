/* The per-process reads of proc_info_darwin.c (macOS only). */
#ifndef GTM_PROC_INFO_DARWIN_H
#define GTM_PROC_INFO_DARWIN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>

#include "core/snapshot.h"
#include "platform/platform_api.h"
#include "proc_darwin.h"

uint64_t darwin_ticks_of(const struct timeval *tv);
/* Arguments (and the environment when want_env) into d; false when refused. */
bool darwin_proc_args(uint32_t pid, struct gtm_proc_detail *d, bool want_env);
void darwin_proc_maps(uint32_t pid, struct gtm_proc_detail *d);
char *darwin_proc_cwd(uint32_t pid);
char *darwin_proc_exe(uint32_t pid);
bool darwin_proc_rss(uint32_t pid, uint64_t *rss);
/* The listening loopback (or wildcard) TCP ports of pid, at most cap; -1
 * when its descriptors cannot be listed. */
int darwin_proc_ports(uint32_t pid, uint16_t *ports, int cap);

#endif
