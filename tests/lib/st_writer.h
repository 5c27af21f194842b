/* Test-only safetensors writer: tensors laid out contiguously from offset 0
 * in the order added, sizes from the dtype's bits, the header padded with
 * spaces to 8 bytes as the reference writer does; files are sparse
 * (ftruncate to the full size, tensor data never written). Also writes the
 * Hugging Face cache layout (blobs, snapshot links, refs) the tests map. */
#ifndef GTM_TEST_ST_WRITER_H
#define GTM_TEST_ST_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct stw;

struct stw *stw_new(void);
void stw_free(struct stw *w);
void stw_meta(struct stw *w, const char *key, const char *value);
/* dims: n values; the size is prod(dims) x the dtype's bits / 8 (rounded down). */
void stw_tensor(struct stw *w, const char *name, const char *dtype, size_t n, const uint64_t *dims);
/* The 8-byte length and the JSON (malloc'd), the data size in *data_len. */
uint8_t *stw_header(struct stw *w, size_t *len, uint64_t *data_len);
/* The whole file; extra is added to (or, negative, taken from) its size. */
int stw_write_file(struct stw *w, const char *path, int64_t extra);

/* A Hugging Face cache entry: ROOT/models--ORG--NAME/blobs/<sha256 of
 * file name + rev> holding SRC's bytes (renamed), snapshots/REV/FILE a
 * relative link to it, refs/REF holding REV. Returns 0 on success and the
 * blob's path in blob (at least 4096 bytes) when blob is not NULL. */
int stw_hf_put(const char *root, const char *org, const char *name, const char *ref, const char *rev,
	       const char *file, const char *src, char *blob);

#endif
