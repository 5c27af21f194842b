/* GGUF header parser: metadata and tensor infos, never tensor data.
 * Layout: ggml/include/gguf.h:1-66 and ggml/src/gguf.cpp:484-780 (llm-memory.md §1).
 *
 * The core is a pure function over a bounded buffer; gguf_read_file() reads
 * only the header of a file (pread, growing until the tensor infos end) and
 * gguf_cache_get() shares parsed headers keyed by (device, inode, size, mtime).
 * Every failure is a status plus a one-line message; nothing is allocated
 * beyond limits derived from the input's length. */
#ifndef GTM_GGUF_H
#define GTM_GGUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Metadata value types (gguf.h:54-66). */
enum gguf_vtype {
	GGUF_VT_U8 = 0, GGUF_VT_I8 = 1, GGUF_VT_U16 = 2, GGUF_VT_I16 = 3,
	GGUF_VT_U32 = 4, GGUF_VT_I32 = 5, GGUF_VT_F32 = 6, GGUF_VT_BOOL = 7,
	GGUF_VT_STRING = 8, GGUF_VT_ARRAY = 9, GGUF_VT_U64 = 10, GGUF_VT_I64 = 11,
	GGUF_VT_F64 = 12,
	GGUF_VT_COUNT
};

enum gguf_status {
	GGUF_OK = 0,
	GGUF_ERR_TRUNCATED,   /* the buffer/file ends inside the header */
	GGUF_ERR_MAGIC,       /* not a GGUF file */
	GGUF_ERR_VERSION,     /* v0 (invalid), v1 (dropped) or unknown version */
	GGUF_ERR_BIG_ENDIAN,  /* byte-swapped file: unsupported */
	GGUF_ERR_LIMIT,       /* a count, length or size beyond our limits */
	GGUF_ERR_FORMAT,      /* malformed (bad type id, nested array, bad dims ...) */
	GGUF_ERR_IO,          /* open/read/stat failed */
	GGUF_ERR_CHANGED,     /* file changed while reading */
};

/* Limits against hostile files. */
#define GGUF_MAX_HEADER_BYTES (64ull << 20)  /* metadata + tensor infos */
#define GGUF_MAX_KV 65536ull
#define GGUF_MAX_TENSORS 1048576ull
#define GGUF_MAX_STRING (16ull << 20)        /* one string's length */
#define GGUF_MAX_NAME 64                     /* tensor names < 64 chars (gguf.cpp) */
#define GGUF_SMALL_ARRAY 65536ull            /* numeric arrays up to this are kept */

struct gguf_kv {
	char *key;
	enum gguf_vtype type;
	/* scalar value, converted: unsigned/bool in u, signed in i, floats in f
	 * (all three are filled for numeric types where representable) */
	uint64_t u;
	int64_t i;
	double f;
	char *str;              /* GGUF_VT_STRING, NUL-terminated copy */
	uint64_t str_len;
	/* GGUF_VT_ARRAY: element type and count always; elements only for
	 * numeric/bool arrays of at most GGUF_SMALL_ARRAY elements (else NULL:
	 * vocabularies are skipped, not materialised). */
	enum gguf_vtype arr_type;
	uint64_t arr_n;
	int64_t *arr_i;         /* integer and bool elements */
	double *arr_f;          /* every numeric element as double */
	uint64_t offset;        /* byte offset of the key in the file */
};

struct gguf_tensor {
	char *name;
	uint32_t type;          /* ggml type id (valid: see ggml_types.h) */
	uint32_t n_dims;        /* 1..4 */
	uint64_t ne[4];         /* unused dims are 1 */
	uint64_t offset;        /* relative to the data start */
	uint64_t nbytes;        /* from the ggml type table */
	uint64_t n_elements;
};

struct gguf_header {
	uint32_t version;
	uint64_t n_kv;
	struct gguf_kv *kv;
	uint64_t n_tensors;
	struct gguf_tensor *tensors;
	uint32_t alignment;       /* general.alignment or 32 */
	uint64_t infos_end;       /* bytes of header (end of the tensor infos) */
	uint64_t data_offset;     /* absolute start of the tensor data */
	uint64_t data_bytes;      /* max tensor end, relative to data_offset */
	const char *arch;         /* general.architecture or "" */
	/* set by gguf_read_file / the cache */
	uint64_t file_size, dev, ino;
	int64_t mtime_ns;
	int refcount;             /* managed by gguf_header_ref/unref */
};

/* Parses a complete header from buf[0..len). On success *out is a new header
 * (refcount 1; release with gguf_header_unref). On failure *out is NULL and err
 * holds one line ("unsupported GGUF version 1"). len may extend past the
 * header (tensor data is not looked at). */
enum gguf_status gguf_parse(const uint8_t *buf, size_t len, struct gguf_header **out,
			    char *err, size_t errlen);

/* Reads and parses the header of the file at path, never reading tensor data.
 * Error messages do not name the file; callers prefix the path. A file whose
 * size or mtime changed during the read is GGUF_ERR_CHANGED. */
enum gguf_status gguf_read_file(const char *path, struct gguf_header **out,
				char *err, size_t errlen);
/* The same from an open fd (left open); path is only passed on to the test hook. */
enum gguf_status gguf_read_fd(int fd, const char *path, struct gguf_header **out, char *err, size_t errlen);

/* True when the first bytes are the GGUF magic (either byte order). */
bool gguf_is_gguf_magic(const uint8_t *buf, size_t len);
/* Cheap check of a file of the observed system (under GPUTASKMAN_ROOT when
 * set, core/sysroot.h): opens it and reads 4 bytes. */
bool gguf_file_is_gguf(const char *path);

const char *gguf_status_name(enum gguf_status s);
const char *gguf_vtype_name(enum gguf_vtype t);

void gguf_header_ref(struct gguf_header *h);
void gguf_header_unref(struct gguf_header *h);

/* Shared parsed header for path, cached by (device, inode, size, mtime); the
 * caller owns one reference (gguf_header_unref when done). NULL on error with
 * err set (errors are not cached). Thread-safe. */
struct gguf_header *gguf_cache_get(const char *path, char *err, size_t errlen);
/* The same for a file of the observed system, which a process names (its
 * command line, its maps): under GPUTASKMAN_ROOT it is read inside the root
 * (core/sysroot.h); under "/" it is gguf_cache_get. gguf_cache_get itself
 * reads this machine's files (one named on gputaskman's command line). */
struct gguf_header *gguf_cache_get_observed(const char *path, char *err, size_t errlen);
void gguf_cache_clear(void);

/* Lookups. NULL / false when absent or of an incompatible type. */
const struct gguf_kv *gguf_find(const struct gguf_header *h, const char *key);
/* "{arch}.suffix", e.g. gguf_find_arch(h, "block_count"). */
const struct gguf_kv *gguf_find_arch(const struct gguf_header *h, const char *suffix);
/* Scalar integer (any int/bool type, non-negative) into *out. */
bool gguf_get_u64(const struct gguf_header *h, const char *key, uint64_t *out);
bool gguf_get_arch_u64(const struct gguf_header *h, const char *suffix, uint64_t *out);
/* Any scalar number into *out. */
bool gguf_get_f64(const struct gguf_header *h, const char *key, double *out);
bool gguf_get_bool(const struct gguf_header *h, const char *key, bool *out);
bool gguf_get_arch_bool(const struct gguf_header *h, const char *suffix, bool *out);
const char *gguf_get_str(const struct gguf_header *h, const char *key);
/* Element idx of a kept numeric array, or the scalar itself when the key is a
 * scalar (per-layer keys such as head_count_kv may be either). */
bool gguf_kv_elem_u64(const struct gguf_kv *kv, uint64_t idx, uint64_t *out);
const struct gguf_tensor *gguf_find_tensor(const struct gguf_header *h, const char *name);

/* Where the file must end to hold every tensor: data_offset + data_bytes
 * (the end of the tensor infos when there are no tensors). */
uint64_t gguf_data_end(const struct gguf_header *h);
/* Bytes of tensor data past the end of the file (a half-downloaded model):
 * llama.cpp refuses such a file ("tensor '%s' data is not within the file
 * bounds, model is corrupted or incomplete", llama-model-loader.h,
 * llama_tensor_weight). 0 when complete, or when the header was parsed from
 * a buffer (file_size 0: the file's length is unknown). */
uint64_t gguf_missing_bytes(const struct gguf_header *h);

#endif
