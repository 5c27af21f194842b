/* safetensors header parser: the 8-byte little-endian length, the JSON header
 * (tensor infos and the optional string-to-string "__metadata__"), never the
 * tensor data. The checks are the reference reader's
 * (huggingface/safetensors, safetensors/src/tensor.rs: read_metadata and
 * Metadata::validate): header length at most 100,000,000 bytes, UTF-8 JSON
 * starting with '{', tensors sorted by offsets each beginning where the one
 * before ended (from 0, no gaps), sizes from the dtype's bits (F4 and F6_*
 * are sub-byte types: shape x bits must be a whole number of bytes), and
 * last end + 8 + length = file size. A file shorter than that is a partial
 * download ("incomplete"); the reference reader refuses both a shorter and a
 * longer file, which the header keeps as missing or extra bytes.
 *
 * st_header_parse is a pure function over a bounded buffer; st_read_file()
 * reads only the first 8 + length bytes of a file. st_index_parse reads a
 * sharded model's model.safetensors.index.json. */
#ifndef GTM_SAFETENSORS_H
#define GTM_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ST_MAX_HEADER 100000000ull       /* MAX_HEADER_SIZE of the reference reader */
#define ST_MAX_TENSORS (1u << 20)
#define ST_MAX_META 4096u
#define ST_MAX_INDEX_BYTES (64u << 20)   /* an index.json: a few MB for the largest models */
#define ST_MAX_SHARDS 4096u
#define ST_MAX_SHARD_NAME 255u

/* Dtypes by the reference reader's names (Dtype::bitsize). */
enum st_dtype {
	ST_BOOL, ST_F4, ST_F6_E2M3, ST_F6_E3M2, ST_U8, ST_I8, ST_F8_E5M2, ST_F8_E4M3, ST_F8_E8M0,
	ST_F8_E4M3FNUZ, ST_F8_E5M2FNUZ, ST_I16, ST_U16, ST_F16, ST_BF16, ST_I32, ST_U32, ST_F32,
	ST_C64, ST_F64, ST_I64, ST_U64,
	ST_DTYPE_COUNT
};

/* "F16" ...; NULL past the table. */
const char *st_dtype_name(enum st_dtype d);
/* Bits per element: 4 for F4, 6 for F6_*, 8 for BOOL and F8_*. */
unsigned st_dtype_bits(enum st_dtype d);
/* The dtype of a name (exact, as the reference reader spells it), or -1. */
int st_dtype_lookup(const char *name, size_t len);

enum st_status {
	ST_OK = 0,
	ST_ERR_TOO_SMALL,   /* fewer than 8 bytes (HeaderTooSmall) */
	ST_ERR_TOO_LARGE,   /* length above ST_MAX_HEADER (HeaderTooLarge) */
	ST_ERR_TRUNCATED,   /* the buffer or file ends inside the header (InvalidHeaderLength) */
	ST_ERR_START,       /* the header does not start with '{' (InvalidHeaderStart) */
	ST_ERR_JSON,        /* not UTF-8 JSON, or not of the header's shape (InvalidHeaderDeserialization) */
	ST_ERR_DTYPE,       /* a dtype the reference reader does not know */
	ST_ERR_OFFSETS,     /* a gap, an overlap, or end < begin (InvalidOffset) */
	ST_ERR_MISALIGNED,  /* shape x bits not a whole number of bytes (MisalignedSlice) */
	ST_ERR_SIZE,        /* end - begin differs from shape x bits / 8 (TensorInvalidInfo) */
	ST_ERR_OVERFLOW,    /* shape or size overflows 64 bits (ValidationOverflow) */
	ST_ERR_LIMIT,       /* more tensors or metadata entries than our bounds */
	ST_ERR_IO,          /* open/read/stat failed */
	ST_ERR_CHANGED,     /* the file changed while reading */
};

struct st_tensor {
	char *name;
	enum st_dtype dtype;
	uint32_t n_dims;
	uint64_t n_elements;
	uint64_t begin, end;   /* relative to the end of the header */
};

struct st_meta {
	char *key, *value;
};

struct st_dtype_share {
	uint64_t n_tensors, n_params, bytes;
};

struct st_header {
	uint64_t header_len;    /* the JSON's length (the first 8 bytes) */
	uint64_t data_len;      /* the last tensor's end */
	uint64_t file_size;     /* as given to the parser */
	uint64_t missing_bytes; /* 8 + header_len + data_len - file_size when positive */
	uint64_t extra_bytes;   /* file_size - (8 + header_len + data_len) when positive */
	size_t n_tensors;
	struct st_tensor *tensors; /* in offset order */
	size_t n_meta;
	struct st_meta *meta;      /* "__metadata__", in file order */
	struct st_dtype_share by_dtype[ST_DTYPE_COUNT];
	uint64_t n_params;
};

/* The header length from the first 8 bytes of a file of file_size bytes:
 * ST_OK, ST_ERR_TOO_SMALL, ST_ERR_TOO_LARGE or ST_ERR_TRUNCATED. */
enum st_status st_header_len(const uint8_t *buf, size_t n, uint64_t file_size, uint64_t *len);
/* Whether the bytes look like a safetensors file (a sane length and '{'
 * after it): the sniff for a file with no telling name (a Hugging Face blob). */
bool st_is_safetensors_magic(const uint8_t *buf, size_t n, uint64_t file_size);
/* Parses buf (the file's first n bytes, at least 8 + header length) of a
 * file of file_size bytes. On ST_OK *out is allocated (st_header_free);
 * otherwise err holds one line naming the check that failed. */
enum st_status st_header_parse(const uint8_t *buf, size_t n, uint64_t file_size, struct st_header **out, char *err,
			       size_t errlen);
void st_header_free(struct st_header *h);
/* A file's value for a metadata key, or NULL. */
const char *st_header_meta(const struct st_header *h, const char *key);
/* Whether the reference reader would load the file: no missing or extra bytes. */
bool st_header_complete(const struct st_header *h);

/* Reads and parses a file's header. observed: the path is a process's view,
 * read under GPUTASKMAN_ROOT; otherwise this machine's own path. */
enum st_status st_read_file(const char *path, bool observed, struct st_header **out, char *err, size_t errlen);
/* The first 9 bytes of a file by st_is_safetensors_magic (observed as above). */
bool st_file_is_safetensors(const char *path, bool observed);

/* model.safetensors.index.json: the shard files its weight_map names. */
struct st_index {
	size_t n_shards;
	char **shards;           /* sorted, unique, plain file names */
	uint64_t *shard_tensors; /* tensors weight_map puts in each shard */
	size_t n_tensors;        /* weight_map entries */
	bool have_total_size;
	uint64_t total_size;     /* metadata.total_size */
};
/* Pure over the bounded buffer; false with err set for a malformed index or
 * a shard name that is not a plain file name (no separator, not "..").
 * Release with st_index_free. */
bool st_index_parse(const char *buf, size_t n, struct st_index *out, char *err, size_t errlen);
void st_index_free(struct st_index *ix);

#endif
