#include "record/rec_format.h"

#include <string.h>

static const char header_tag[8] = {'G', 'T', 'M', 'R', 'E', 'C', 'R', 'D'};
static const char entry_tag[4] = {'G', 'T', 'M', 'I'};

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* FNV-1a, 32 bits: enough to tell a whole entry from a torn one. */
static uint32_t fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

void rec_header_encode(const struct rec_header *h, uint8_t out[REC_HEADER_BYTES])
{
	put32(out, REC_MAGIC_HEADER);
	put32(out + 4, REC_HEADER_PAYLOAD);
	memcpy(out + 8, header_tag, sizeof header_tag);
	put32(out + 16, h->version);
	put32(out + 20, h->flags);
	put64(out + 24, h->created_ns);
}

bool rec_is_recording(const uint8_t *buf, size_t len)
{
	return len >= 16 && get32(buf) == REC_MAGIC_HEADER && !memcmp(buf + 8, header_tag, sizeof header_tag);
}

int rec_header_decode(const uint8_t *buf, size_t len, struct rec_header *h)
{
	if (!rec_is_recording(buf, len))
		return -1;
	/* a newer version may have a longer header; the size says how long */
	if (len < REC_HEADER_BYTES || get32(buf + 4) < REC_HEADER_PAYLOAD || get32(buf + 4) > 4096)
		return -2;
	h->version = get32(buf + 16);
	h->flags = get32(buf + 20);
	h->created_ns = get64(buf + 24);
	return 0;
}

/* Payload: tag[4] flags[4] first_ns[8] last_ns[8] n_samples[4] checksum[4] frame_len[8]. */
void rec_entry_encode(const struct rec_entry *e, uint8_t out[REC_ENTRY_BYTES])
{
	uint8_t *p = out + REC_SKIP_HEAD;

	put32(out, REC_MAGIC_ENTRY);
	put32(out + 4, REC_ENTRY_PAYLOAD);
	memcpy(p, entry_tag, sizeof entry_tag);
	put32(p + 4, e->closed ? 1u : 0u);
	put64(p + 8, e->first_ns);
	put64(p + 16, e->last_ns);
	put32(p + 24, e->n_samples);
	put32(p + 28, 0);
	put64(p + 32, e->frame_len);
	put32(p + 28, fnv1a(p, REC_ENTRY_PAYLOAD));
}

int rec_entry_decode(const uint8_t *buf, size_t len, struct rec_entry *e)
{
	uint8_t p[REC_ENTRY_PAYLOAD];

	if (len < REC_ENTRY_BYTES || get32(buf) != REC_MAGIC_ENTRY || get32(buf + 4) != REC_ENTRY_PAYLOAD ||
	    memcmp(buf + REC_SKIP_HEAD, entry_tag, sizeof entry_tag))
		return -1;
	memcpy(p, buf + REC_SKIP_HEAD, sizeof p);
	uint32_t sum = get32(p + 28);
	put32(p + 28, 0);
	if (fnv1a(p, sizeof p) != sum || get32(p + 4) > 1)
		return -2;
	e->closed = get32(p + 4) == 1;
	e->first_ns = get64(p + 8);
	e->last_ns = get64(p + 16);
	e->n_samples = get32(p + 24);
	e->frame_len = get64(p + 32);
	return 0;
}
