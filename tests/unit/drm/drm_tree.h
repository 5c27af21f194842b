/* Builds /sys and /proc fixture trees for the DRM source at test time, in a
 * temp folder used as GPUTASKMAN_ROOT. fdinfo bodies come from the real
 * captures in ../shared/fixtures/drm (read in place) or are written with the
 * same keys. */
#ifndef GTM_TEST_DRM_TREE_H
#define GTM_TEST_DRM_TREE_H

#include <stddef.h>
#include <stdint.h>

/* A DRM device: /sys/devices/<slot> with uevent, and /sys/class/drm/card<card>
 * and renderD<render> (-1: none) linking to it. */
void dt_device(const char *root, int card, int render, const char *slot, const char *driver, uint16_t vendor,
	       uint16_t device);
/* An attribute file of a device: /sys/devices/<slot>/<rel> (rel may hold '/'). */
void dt_attr(const char *root, const char *slot, const char *rel, const char *value);
/* A process: /proc/<pid>/stat with start time and comm. */
void dt_proc(const char *root, uint32_t pid, uint64_t start_time, const char *comm);
/* An fd: /proc/<pid>/fd/<fd> -> target, and /proc/<pid>/fdinfo/<fd> = body
 * (body NULL: a generic non-DRM fdinfo). */
void dt_fd(const char *root, uint32_t pid, int fd, const char *target, const char *body);
/* n ordinary fds (files, sockets, pipes) starting at fd first. */
void dt_plain_fds(const char *root, uint32_t pid, int first, int n);
/* Removes an fd (closed between two refreshes). */
void dt_close_fd(const char *root, uint32_t pid, int fd);

/* The body of capture `name` under ../shared/fixtures/drm without its '#'
 * header lines; NULL when the folder is absent. Caller frees. */
char *dt_capture(const char *name);
/* Like dt_capture, but exits 77 (skip) when the captures are absent. */
char *dt_capture_or_skip(const char *name);

#endif
