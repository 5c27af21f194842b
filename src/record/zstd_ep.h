/* The libzstd calls the recorder makes, through one table of entry points,
 * so that only record, replay and --record pay for the library: a Linux
 * build that links it shared loads libzstd.so.1 with dlopen at the first
 * recording opened (zstd_dl.c); a build that links it statically (macOS,
 * Windows, the portable tarballs) fills the table with the linked functions
 * (zstd_linked.c). Mapping and relocating a linked library costs every run
 * about a dozen page faults at start, which is most of a one-shot run's
 * CPU on a VM where a fault costs 15 us (docs/benchmarks.md). */
#ifndef GTM_ZSTD_EP_H
#define GTM_ZSTD_EP_H

#include <stdbool.h>
#include <stddef.h>
#include <zstd.h>

/* Every libzstd name rec_reader.c and rec_writer.c use (zstd_names.h
 * points each at its slot). */
#define ZSTD_EP_NAMES(X)                                                                                   \
	X(ZSTD_createCCtx) X(ZSTD_freeCCtx) X(ZSTD_CCtx_reset) X(ZSTD_CCtx_setParameter) X(ZSTD_compressStream2) \
	X(ZSTD_CStreamOutSize) X(ZSTD_createDCtx) X(ZSTD_freeDCtx) X(ZSTD_DCtx_reset) X(ZSTD_DCtx_setParameter)  \
	X(ZSTD_decompressStream) X(ZSTD_findFrameCompressedSize) X(ZSTD_isError) X(ZSTD_getErrorName)

/* One slot a name, of the type <zstd.h> declares. */
struct zstd_ep {
#define ZSTD_EP_SLOT(name) __typeof__(name) *name;
	ZSTD_EP_NAMES(ZSTD_EP_SLOT)
#undef ZSTD_EP_SLOT
};
extern struct zstd_ep zstd_ep;

/* The library's soname(s) the build loads, NULL-terminated; empty (just
 * NULL) when it is linked. */
extern const char *const zstd_lib_names[];

/* Makes every slot usable; false with why ("libzstd.so.1 not loadable: ...")
 * when the library is absent or lacks an entry point. Thread-safe, loads
 * once; a call after a success costs a load and a branch. */
bool zstd_ep_load(char *why, size_t n);

#endif
