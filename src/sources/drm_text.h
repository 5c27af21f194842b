/* Line walking over a bounded, not necessarily NUL-terminated buffer. */
#ifndef GTM_DRM_TEXT_H
#define GTM_DRM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The next line at *pos (without its '\n'); false at the end of the buffer. */
static inline bool drm_next_line(const char *buf, size_t len, size_t *pos, const char **line, size_t *n)
{
	if (*pos >= len)
		return false;
	const char *s = buf + *pos;
	const char *nl = memchr(s, '\n', len - *pos);
	*n = nl ? (size_t)(nl - s) : len - *pos;
	*line = s;
	*pos += *n + 1;
	return true;
}

#endif
