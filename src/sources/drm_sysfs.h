/* Small typed reads of sysfs attribute files under the root prefix. */
#ifndef GTM_DRM_SYSFS_H
#define GTM_DRM_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The first line of the file, without its newline; false when unreadable or empty. */
bool drm_sysfs_str(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A decimal (or 0x-prefixed hex) unsigned integer; false when absent or not a number. */
bool drm_sysfs_u64(uint64_t *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses a decimal or 0x-hex unsigned integer followed only by whitespace. */
bool drm_parse_u64(const char *s, uint64_t *v);

#endif
