/* The records a fanotify group created with FAN_REPORT_DFID_NAME hands over
 * on read(2): a struct fanotify_event_metadata, then info records, each a
 * header (type, length) and a body; a DFID_NAME record holds the filesystem's
 * id, the directory's file handle and the file's NUL-terminated name
 * (include/uapi/linux/fanotify.h; fanotify(7)). Pure: every length is checked
 * against the bytes read, nothing outside the buffer is touched, pointers
 * point into it. */
#ifndef GTM_FANOTIFY_PARSE_H
#define GTM_FANOTIFY_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAN_PARSE_HANDLE_MAX 128 /* MAX_HANDLE_SZ: the kernel's bound on f_handle */

struct fan_event {
	uint64_t mask;          /* FAN_OPEN, FAN_Q_OVERFLOW, ... */
	int32_t fd;             /* FAN_NOFD in FID mode */
	int32_t pid;
	bool has_dfid_name;     /* the DFID_NAME record below was present and well formed */
	uint8_t fsid[8];        /* __kernel_fsid_t, as statfs(2)'s f_fsid */
	uint32_t handle_bytes;  /* at most FAN_PARSE_HANDLE_MAX */
	int32_t handle_type;
	const uint8_t *handle;  /* handle_bytes bytes, in the buffer */
	const char *name;       /* name_len bytes, no NUL inside, in the buffer */
	size_t name_len;
};

/* The event at buf[*off], at most len - *off bytes. Returns 1 with ev filled
 * and *off moved past it, 0 at the end of the buffer, -1 when the record is
 * malformed (a length that is short, runs past the buffer or is not the
 * version this was written for): the rest of the buffer is then not trusted. */
int fan_event_next(const uint8_t *buf, size_t len, size_t *off, struct fan_event *ev);

/* Model files by name: ".gguf", ".safetensors", ".onnx", ".bin", ".pt",
 * ".ggml" (case-insensitive). */
enum fan_model_kind {
	FAN_MODEL_NONE = 0,
	FAN_MODEL_GGUF,
	FAN_MODEL_SAFETENSORS,
	FAN_MODEL_ONNX,
	FAN_MODEL_BIN,   /* ambiguous: PyTorch, legacy GGML, or anything */
	FAN_MODEL_PT,
	FAN_MODEL_GGML,
};
enum fan_model_kind fan_model_kind_of_name(const char *name, size_t len);
/* How many leading bytes fan_model_magic_ok wants (it accepts fewer). */
#define FAN_MAGIC_BYTES 16
/* Whether a file of this kind starting with these n bytes is a model: the
 * suffix alone for the unambiguous ones, the format's magic where a suffix
 * is shared with other files (.bin, .pt) or cheap to check (.gguf). */
bool fan_model_magic_ok(enum fan_model_kind k, const uint8_t *b, size_t n);

#endif
