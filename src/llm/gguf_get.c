/* Metadata and tensor lookups on a parsed GGUF header. */
#include <stdio.h>
#include <string.h>

#include "llm/gguf.h"

const struct gguf_kv *gguf_find(const struct gguf_header *h, const char *key)
{
	if (!h || !h->kv)
		return NULL;
	for (uint64_t i = 0; i < h->n_kv; i++)
		if (h->kv[i].key && strcmp(h->kv[i].key, key) == 0)
			return &h->kv[i];
	return NULL;
}

const struct gguf_kv *gguf_find_arch(const struct gguf_header *h, const char *suffix)
{
	char key[256];
	if (!h || !h->arch[0])
		return NULL;
	if ((size_t)snprintf(key, sizeof key, "%s.%s", h->arch, suffix) >= sizeof key)
		return NULL;
	return gguf_find(h, key);
}

static bool kv_is_number(const struct gguf_kv *kv)
{
	return kv && kv->type != GGUF_VT_STRING && kv->type != GGUF_VT_ARRAY;
}

static bool kv_is_integer(const struct gguf_kv *kv)
{
	return kv_is_number(kv) && kv->type != GGUF_VT_F32 && kv->type != GGUF_VT_F64;
}

static bool kv_u64(const struct gguf_kv *kv, uint64_t *out)
{
	if (!kv_is_integer(kv) || kv->i < 0)
		return false;
	*out = kv->u;
	return true;
}

bool gguf_get_u64(const struct gguf_header *h, const char *key, uint64_t *out)
{
	return kv_u64(gguf_find(h, key), out);
}

bool gguf_get_arch_u64(const struct gguf_header *h, const char *suffix, uint64_t *out)
{
	return kv_u64(gguf_find_arch(h, suffix), out);
}

bool gguf_get_f64(const struct gguf_header *h, const char *key, double *out)
{
	const struct gguf_kv *kv = gguf_find(h, key);
	if (!kv_is_number(kv))
		return false;
	*out = kv->f;
	return true;
}

static bool kv_bool(const struct gguf_kv *kv, bool *out)
{
	if (!kv_is_integer(kv))
		return false;
	*out = kv->u != 0;
	return true;
}

bool gguf_get_bool(const struct gguf_header *h, const char *key, bool *out)
{
	return kv_bool(gguf_find(h, key), out);
}

bool gguf_get_arch_bool(const struct gguf_header *h, const char *suffix, bool *out)
{
	return kv_bool(gguf_find_arch(h, suffix), out);
}

const char *gguf_get_str(const struct gguf_header *h, const char *key)
{
	const struct gguf_kv *kv = gguf_find(h, key);
	return kv && kv->type == GGUF_VT_STRING ? kv->str : NULL;
}

bool gguf_kv_elem_u64(const struct gguf_kv *kv, uint64_t idx, uint64_t *out)
{
	if (!kv)
		return false;
	if (kv->type != GGUF_VT_ARRAY)
		return kv_u64(kv, out);
	if (!kv->arr_i || idx >= kv->arr_n || kv->arr_i[idx] < 0)
		return false;
	*out = (uint64_t)kv->arr_i[idx];
	return true;
}

const struct gguf_tensor *gguf_find_tensor(const struct gguf_header *h, const char *name)
{
	if (!h || !h->tensors)
		return NULL;
	for (uint64_t i = 0; i < h->n_tensors; i++)
		if (h->tensors[i].name && strcmp(h->tensors[i].name, name) == 0)
			return &h->tensors[i];
	return NULL;
}

uint64_t gguf_data_end(const struct gguf_header *h)
{
	/* data_offset is within the header limit and data_bytes below INT64_MAX */
	return h->n_tensors ? h->data_offset + h->data_bytes : h->infos_end;
}

uint64_t gguf_missing_bytes(const struct gguf_header *h)
{
	uint64_t end = gguf_data_end(h);
	return h->file_size && end > h->file_size ? end - h->file_size : 0;
}
