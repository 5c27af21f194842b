/* fanotify's read(2) records and the model-file filter (fanotify_parse.h).
 * Layouts from include/uapi/linux/fanotify.h: fanotify_event_metadata is
 * event_len u32, vers u8, reserved u8, metadata_len u16, mask u64, fd s32,
 * pid s32 (24 bytes); an info record is info_type u8, pad u8, len u16, then
 * for DFID_NAME fsid (2 x s32), file_handle {handle_bytes u32, handle_type
 * s32, f_handle[]} and the name with its NUL. Fields are copied out with
 * memcpy: the buffer need not be aligned. */
#include "fanotify_parse.h"

#include <string.h>
#include <strings.h>

#define FAN_META_LEN 24u
#define FAN_VERSION 3u          /* FANOTIFY_METADATA_VERSION */
#define FAN_INFO_HDR_LEN 4u
#define FAN_INFO_DFID_NAME 2u   /* FAN_EVENT_INFO_TYPE_DFID_NAME */
#define FAN_FID_FIXED_LEN (FAN_INFO_HDR_LEN + 8u + 8u) /* header, fsid, handle's two words */

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* One DFID_NAME record's body (rec, n bytes with its header): the handle
 * inside the record, then a name that ends with a NUL inside it. */
static bool parse_dfid_name(const uint8_t *rec, size_t n, struct fan_event *ev)
{
	if (n < FAN_FID_FIXED_LEN)
		return false;
	uint32_t hb = rd32(rec + 12);
	if (hb == 0 || hb > FAN_PARSE_HANDLE_MAX || hb > n - FAN_FID_FIXED_LEN)
		return false;
	const uint8_t *name = rec + FAN_FID_FIXED_LEN + hb;
	size_t room = n - FAN_FID_FIXED_LEN - hb;
	const uint8_t *nul = room ? memchr(name, '\0', room) : NULL;
	if (!nul || nul == name)
		return false;
	memcpy(ev->fsid, rec + FAN_INFO_HDR_LEN, sizeof ev->fsid);
	ev->handle_bytes = hb;
	memcpy(&ev->handle_type, rec + 16, sizeof ev->handle_type);
	ev->handle = rec + FAN_FID_FIXED_LEN;
	ev->name = (const char *)name;
	ev->name_len = (size_t)(nul - name);
	ev->has_dfid_name = true;
	return true;
}

int fan_event_next(const uint8_t *buf, size_t len, size_t *off, struct fan_event *ev)
{
	if (*off >= len)
		return 0;
	const uint8_t *e = buf + *off;
	size_t left = len - *off;
	if (left < FAN_META_LEN)
		return -1;
	uint32_t event_len = rd32(e);
	uint16_t meta_len = rd16(e + 6);
	if (e[4] != FAN_VERSION || event_len < FAN_META_LEN || event_len > left || meta_len < FAN_META_LEN ||
	    meta_len > event_len)
		return -1;
	memset(ev, 0, sizeof *ev);
	memcpy(&ev->mask, e + 8, sizeof ev->mask);
	memcpy(&ev->fd, e + 16, sizeof ev->fd);
	memcpy(&ev->pid, e + 20, sizeof ev->pid);
	/* info records follow the metadata up to event_len; one we do not know is stepped over */
	for (size_t p = meta_len; p < event_len;) {
		if (event_len - p < FAN_INFO_HDR_LEN)
			return -1;
		uint16_t rlen = rd16(e + p + 2);
		if (rlen < FAN_INFO_HDR_LEN || rlen > event_len - p)
			return -1;
		if (e[p] == FAN_INFO_DFID_NAME && !ev->has_dfid_name)
			parse_dfid_name(e + p, rlen, ev);
		p += rlen;
	}
	*off += event_len;
	return 1;
}

/* Magic numbers: GGUF's "GGUF" (ggml/docs/gguf.md); the legacy GGML family's
 * u32 little-endian 'ggml', 'ggmf', 'ggjt' (llama.cpp's convert-llama-ggml-
 * to-gguf.py); PyTorch's zip ("PK\3\4", torch.save since 1.6) and its older
 * pickle (protocol 2+: 0x80 then the protocol number); safetensors' u64
 * header length then '{' (huggingface/safetensors' format). ONNX is a bare
 * protobuf with no magic: its suffix is all there is. */
static bool is_gguf(const uint8_t *b, size_t n)
{
	return n >= 4 && !memcmp(b, "GGUF", 4);
}

static bool is_ggml(const uint8_t *b, size_t n)
{
	return n >= 4 && (!memcmp(b, "lmgg", 4) || !memcmp(b, "fmgg", 4) || !memcmp(b, "tjgg", 4));
}

static bool is_torch(const uint8_t *b, size_t n)
{
	return (n >= 4 && !memcmp(b, "PK\3\4", 4)) || (n >= 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5);
}

static bool is_safetensors(const uint8_t *b, size_t n)
{
	if (n < 9 || b[8] != '{')
		return false;
	uint64_t hl = 0;
	for (int i = 7; i >= 0; i--)
		hl = hl << 8 | b[i];
	return hl >= 2 && hl <= 100u * 1024 * 1024; /* the reference reader's bound */
}

static bool is_any(const uint8_t *b, size_t n)
{
	(void)b;
	(void)n;
	return true;
}

static bool is_bin(const uint8_t *b, size_t n)
{
	return is_gguf(b, n) || is_ggml(b, n) || is_torch(b, n);
}

static bool is_ggml_file(const uint8_t *b, size_t n)
{
	return is_ggml(b, n) || is_gguf(b, n);
}

static const struct {
	const char *suffix;
	enum fan_model_kind kind;
	bool (*magic)(const uint8_t *b, size_t n);
} kinds[] = {
	{".gguf", FAN_MODEL_GGUF, is_gguf},
	{".safetensors", FAN_MODEL_SAFETENSORS, is_safetensors},
	{".onnx", FAN_MODEL_ONNX, is_any},
	{".bin", FAN_MODEL_BIN, is_bin},
	{".pt", FAN_MODEL_PT, is_torch},
	{".ggml", FAN_MODEL_GGML, is_ggml_file},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

enum fan_model_kind fan_model_kind_of_name(const char *name, size_t len)
{
	for (size_t i = 0; i < N_KINDS; i++) {
		size_t sl = strlen(kinds[i].suffix);
		if (len > sl && !strncasecmp(name + len - sl, kinds[i].suffix, sl))
			return kinds[i].kind;
	}
	return FAN_MODEL_NONE;
}

bool fan_model_magic_ok(enum fan_model_kind k, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < N_KINDS; i++)
		if (kinds[i].kind == k)
			return kinds[i].magic(b, n);
	return false;
}
