/* A file's first bytes read in place through a read-only mapping, where a
 * copy into a buffer (pread) would cost more: on a VM here a 6 MB GGUF
 * header's pages mapped and touched took 36 us, its pread 350 us. Linux and
 * macOS (map_read.c); Windows has none (os_map_read says false: read it). */
#ifndef GTM_MAP_READ_H
#define GTM_MAP_READ_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct os_map {
	const uint8_t *p;
	size_t len;               /* bytes asked for */
	size_t mapped, page;      /* whole pages mapped */
	volatile sig_atomic_t faulted; /* a page past the file's end was touched: zeros were read from there on */
};

/* Maps fd's bytes [0, len) read-only for this thread's reading until
 * os_map_release; one mapping a thread at a time. Pages are read as they are
 * touched. False (nothing mapped) where mapping fails: read the file instead. */
bool os_map_read(int fd, size_t len, struct os_map *m);
void os_map_release(struct os_map *m);

#endif
