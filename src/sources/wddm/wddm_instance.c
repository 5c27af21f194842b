#include "sources/wddm/wddm_instance.h"

#include <stdio.h>
#include <string.h>

struct cursor {
	const char *p, *end;
};

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Consumes the literal word (lower case) when it comes next, in any case. */
static bool take_word(struct cursor *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower(c->p[i]) != word[i])
			return false;
	c->p += n;
	return true;
}

/* 1..10 decimal digits that fit 32 bits. */
static bool take_dec(struct cursor *c, uint32_t *v)
{
	uint64_t x = 0;
	int digits = 0;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && digits < 11) {
		x = x * 10 + (uint64_t)(*c->p - '0');
		c->p++;
		digits++;
	}
	if (digits == 0 || digits > 10 || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static int hex_value(char c)
{
	c = lower(c);
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "0x" and 1..8 hex digits (captures print 8; fewer is still one number). */
static bool take_hex32(struct cursor *c, uint32_t *v)
{
	uint32_t x = 0;
	int digits = 0;

	if (!take_word(c, "0x"))
		return false;
	for (int h; c->p < c->end && (h = hex_value(*c->p)) >= 0; c->p++) {
		if (++digits > 8)
			return false;
		x = x << 4 | (uint32_t)h;
	}
	if (digits == 0)
		return false;
	*v = x;
	return true;
}

/* A trailing "#<digits>" (a duplicate instance, as some tools see them):
 * its number, and the name's length without it. */
static size_t strip_dup(const char *s, size_t n, uint32_t *dup)
{
	size_t i = n;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == n || i == 0 || s[i - 1] != '#')
		return n;
	struct cursor c = {s + i, s + n};
	if (!take_dec(&c, dup))
		return n;
	return i - 1;
}

/* The engine type: printable bytes to the end, at least one. */
static bool take_engtype(struct cursor *c, char *out)
{
	size_t n = (size_t)(c->end - c->p);

	if (n == 0 || n >= WDDM_ENGTYPE_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)c->p[i] < 0x20 || c->p[i] == 0x7f)
			return false;
	memcpy(out, c->p, n);
	out[n] = '\0';
	c->p = c->end;
	return true;
}

static bool parse_fields(struct cursor *c, struct wddm_instance *o)
{
	uint32_t hi, lo;

	if (take_word(c, "pid_")) {
		if (!take_dec(c, &o->pid) || !take_word(c, "_"))
			return false;
		o->has_pid = true;
	}
	if (!take_word(c, "luid_") || !take_hex32(c, &hi) || !take_word(c, "_") || !take_hex32(c, &lo))
		return false;
	o->luid = (uint64_t)hi << 32 | lo;
	if (!take_word(c, "_phys_") || !take_dec(c, &o->phys))
		return false;
	if (take_word(c, "_eng_")) {
		if (!take_dec(c, &o->eng) || !take_word(c, "_engtype_") || !take_engtype(c, o->engtype))
			return false;
		o->has_eng = true;
	} else if (take_word(c, "_part_")) {
		if (!take_dec(c, &o->part))
			return false;
		o->has_part = true;
	}
	return c->p == c->end;
}

int wddm_instance_parse(const char *s, size_t n, struct wddm_instance *out)
{
	memset(out, 0, sizeof *out);
	if (!s || n == 0 || n > WDDM_INSTANCE_MAX)
		return -1;
	n = strip_dup(s, n, &out->dup);
	struct cursor c = {s, s + n};
	if (!parse_fields(&c, out)) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	return 0;
}
