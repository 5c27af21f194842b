/* Test-only GGUF v3 writer: arbitrary metadata and tensor infos; files are
 * sparse (ftruncate to the full data size; tensor data is never written). */
#ifndef GTM_TEST_GGUF_WRITER_H
#define GTM_TEST_GGUF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gw;

struct gw *gw_new(void);
void gw_free(struct gw *w);
/* Header fields as written (defaults: version 3, alignment 32). */
void gw_set_version(struct gw *w, uint32_t version);
void gw_set_alignment(struct gw *w, uint32_t alignment); /* also writes general.alignment */

void gw_u8(struct gw *w, const char *key, uint8_t v);
void gw_i8(struct gw *w, const char *key, int8_t v);
void gw_u16(struct gw *w, const char *key, uint16_t v);
void gw_i16(struct gw *w, const char *key, int16_t v);
void gw_u32(struct gw *w, const char *key, uint32_t v);
void gw_i32(struct gw *w, const char *key, int32_t v);
void gw_u64(struct gw *w, const char *key, uint64_t v);
void gw_i64(struct gw *w, const char *key, int64_t v);
void gw_f32(struct gw *w, const char *key, float v);
void gw_f64(struct gw *w, const char *key, double v);
void gw_bool(struct gw *w, const char *key, bool v);
void gw_str(struct gw *w, const char *key, const char *v);
void gw_arr_u32(struct gw *w, const char *key, const uint32_t *v, size_t n);
void gw_arr_i32(struct gw *w, const char *key, const int32_t *v, size_t n);
void gw_arr_f32(struct gw *w, const char *key, const float *v, size_t n);
void gw_arr_bool(struct gw *w, const char *key, const bool *v, size_t n);
/* n strings "tok<i>" padded by i % 5 characters (a vocabulary). */
void gw_arr_vocab(struct gw *w, const char *key, size_t n);
/* Raw escape hatch for hostile files: key, type id, then raw value bytes. */
void gw_raw_kv(struct gw *w, const char *key, uint32_t type, const void *bytes, size_t n);
/* Raw bytes appended to the header stream wherever the call falls. */
void gw_raw(struct gw *w, const void *bytes, size_t n);

/* A tensor info with n_dims dims; offset is the running padded sum. */
void gw_tensor(struct gw *w, const char *name, uint32_t type, uint32_t n_dims, const uint64_t *ne);
void gw_tensor2(struct gw *w, const char *name, uint32_t type, uint64_t ne0, uint64_t ne1);
/* Overrides the declared counts (hostile files). */
void gw_force_counts(struct gw *w, uint64_t n_tensors, uint64_t n_kv);

/* The header bytes (magic through tensor infos, unpadded). Owned by w. */
const uint8_t *gw_header(struct gw *w, size_t *len);
/* Bytes of tensor data the file declares (sum of padded sizes). */
uint64_t gw_data_size(const struct gw *w);
/* Writes the header, pads it, and extends the file sparsely over the data. 0 on success. */
int gw_write_file(struct gw *w, const char *path);

#endif
