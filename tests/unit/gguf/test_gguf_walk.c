/* The multi-walker string-array walk against the serial walk: generated
 * vocabularies, strings whose bytes look like lengths, guesses that land mid
 * string, arrays shorter than the walkers' spacing, truncated buffers, hostile
 * lengths, a seeded property test, and whole headers parsed both ways (same
 * status, same message). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "gguf_writer.h"
#include "llm/ggml_types.h"
#include "llm/gguf.h"
#include "llm/gguf_internal.h"
#include "llm/gguf_walk.h"

struct sb {
	uint8_t *b;
	size_t len, cap;
};

static void sb_put(struct sb *s, const void *p, size_t n)
{
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2 + 64;
		s->b = xrealloc(s->b, s->cap);
	}
	if (n)
		memcpy(s->b + s->len, p, n);
	s->len += n;
}

static void sb_le64(struct sb *s, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	sb_put(s, b, 8);
}

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static unsigned rng_below(uint64_t *x, unsigned n)
{
	return (unsigned)(rng_next(x) % n);
}

/* count strings of 0..maxlen printable bytes */
static void gen_vocab(struct sb *s, size_t count, unsigned maxlen, uint64_t *x)
{
	uint8_t t[256];
	for (size_t i = 0; i < count; i++) {
		unsigned n = rng_below(x, maxlen + 1);
		for (unsigned j = 0; j < n; j++)
			t[j] = (uint8_t)(' ' + rng_below(x, 95));
		sb_le64(s, n);
		sb_put(s, t, n);
	}
}

/* strings whose bytes are themselves chains of short strings: a guess that
 * lands inside one finds a plausible boundary that is not a real one */
static void gen_lookalike(struct sb *s, size_t count, unsigned fakes, uint64_t *x)
{
	for (size_t i = 0; i < count; i++) {
		struct sb in = {0};
		unsigned k = 1 + rng_below(x, fakes);
		for (unsigned j = 0; j < k; j++) {
			unsigned n = rng_below(x, 12);
			sb_le64(&in, n);
			for (unsigned m = 0; m < n; m++)
				sb_put(&in, "\0\1\2\3\4\5\6\7" + (m & 7), 1);
		}
		if (rng_below(x, 3) == 0)
			sb_put(&in, "tail", 1 + rng_below(x, 4));
		sb_le64(s, in.len);
		sb_put(s, in.b, in.len);
		free(in.b);
	}
}

/* Both walks over an exact-size copy (ASan sees any overread). */
static void same_walk(const uint8_t *src, size_t len, uint64_t n, size_t spacing)
{
	uint8_t *b = xmalloc(len ? len : 1);
	uint64_t cs = 0, cm = 0;
	if (len)
		memcpy(b, src, len);
	size_t ps = gguf_walk_strings_serial(b, len, n, &cs);
	size_t pm = gguf_walk_strings(b, len, n, spacing, &cm);
	if (ps != pm || cs != cm)
		fail_msg("len %zu n %llu spacing %zu: serial %zu (%llu strings), walkers %zu (%llu)", len,
			 (unsigned long long)n, spacing, ps, (unsigned long long)cs, pm, (unsigned long long)cm);
	free(b);
}

static const size_t spacings[] = {1, 2, 3, 5, 8, 13, 40, 64, 200, 1000, 0};

/* every spacing, counts around the buffer's own, and every cut when small */
static void same_all(const uint8_t *b, size_t len)
{
	uint64_t all;
	gguf_walk_strings_serial(b, len, UINT64_MAX, &all);
	const uint64_t ns[] = {0, 1, 2, 3, all / 2, all - (all > 0), all, all + 1, UINT64_MAX};
	for (size_t s = 0; s < ARRAY_LEN(spacings); s++)
		for (size_t i = 0; i < ARRAY_LEN(ns); i++)
			same_walk(b, len, ns[i], spacings[s]);
	size_t step = len < 600 ? 1 : len / 100;
	for (size_t cut = 0; cut < len; cut += step)
		for (size_t s = 0; s < ARRAY_LEN(spacings); s += 3)
			same_walk(b, cut, UINT64_MAX, spacings[s]);
}

static void test_generated_vocabularies(void **state)
{
	(void)state;
	const size_t counts[] = {0, 1, 2, 5, 31, 300, 3000};
	const unsigned maxlens[] = {0, 1, 7, 24, 200};
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t c = 0; c < ARRAY_LEN(counts); c++)
		for (size_t m = 0; m < ARRAY_LEN(maxlens); m++) {
			struct sb s = {0};
			if (counts[c] * maxlens[m] > 100000)
				continue; /* a few hundred KiB walked ~1,500 times: slow under ASan, adds nothing */
			gen_vocab(&s, counts[c], maxlens[m], &x);
			same_all(s.b, s.len);
			free(s.b);
		}
}

/* a vocabulary of the size the default spacing walks with five walkers:
 * the production path, counted to the end, short of it and past it */
static void test_default_spacing(void **state)
{
	(void)state;
	uint64_t x = 42, all;
	struct sb s = {0};
	gen_vocab(&s, 60000, 24, &x);
	gen_lookalike(&s, 2000, 6, &x); /* what follows the array looks like strings too */
	gguf_walk_strings_serial(s.b, s.len, UINT64_MAX, &all);
	assert_int_equal(all, 62000);
	const uint64_t ns[] = {1, 255, 256, 1000, 59999, 60000, 60001, 61999, 62000, UINT64_MAX};
	for (size_t i = 0; i < ARRAY_LEN(ns); i++)
		same_walk(s.b, s.len, ns[i], 0);
	for (size_t cut = s.len - 4000; cut < s.len; cut += 97)
		same_walk(s.b, cut, UINT64_MAX, 0);
	free(s.b);
}

static void test_lookalike_lengths(void **state)
{
	(void)state;
	uint64_t x = 7;
	for (unsigned fakes = 1; fakes <= 9; fakes += 4)
		for (size_t count = 1; count <= 400; count *= 20) {
			struct sb s = {0};
			gen_lookalike(&s, count, fakes, &x);
			same_all(s.b, s.len);
			free(s.b);
		}
	/* a real chain interleaved with strings that are exactly one fake string */
	struct sb s = {0};
	for (int i = 0; i < 500; i++) {
		sb_le64(&s, 13);
		sb_put(&s, "\5\0\0\0\0\0\0\0abcde", 13);
		sb_le64(&s, 3);
		sb_put(&s, "xyz", 3);
	}
	same_all(s.b, s.len);
	free(s.b);
}

/* an all-zero buffer is a chain of empty strings from every byte: every
 * guess is plausible, and most are off the real chain */
static void test_zero_strings(void **state)
{
	(void)state;
	const size_t lens[] = {0, 7, 8, 9, 64, 1001, 4096, 50000};
	for (size_t i = 0; i < ARRAY_LEN(lens); i++) {
		uint8_t *b = calloc(1, lens[i] + 1);
		same_all(b, lens[i]);
		free(b);
	}
}

/* long strings full of short fake chains: each guess lands mid string */
static void test_guesses_mid_string(void **state)
{
	(void)state;
	struct sb s = {0};
	for (int i = 0; i < 60; i++) {
		struct sb in = {0};
		while (in.len < 300 + (size_t)i) {
			sb_le64(&in, 2);
			sb_put(&in, "ab", 2);
		}
		sb_le64(&s, in.len);
		sb_put(&s, in.b, in.len);
		free(in.b);
	}
	same_all(s.b, s.len);
	free(s.b);
}

/* lengths the serial walk stops at, placed where a guessed walker meets them
 * first: past the end by one, over the string limit, near 2^64 (overflow) */
static void test_hostile_lengths(void **state)
{
	(void)state;
	const uint64_t bad[] = {GGUF_MAX_STRING, GGUF_MAX_STRING + 1, 1ull << 40, UINT64_MAX - 7, UINT64_MAX, 0};
	uint64_t x = 99;
	for (size_t k = 0; k < ARRAY_LEN(bad); k++)
		for (size_t at = 0; at < 3000; at += 397) {
			struct sb s = {0};
			gen_vocab(&s, at, 12, &x);
			size_t before = s.len;
			sb_le64(&s, bad[k] ? bad[k] : 0);
			gen_vocab(&s, 500, 12, &x);
			if (bad[k] == 0) /* a length that reaches exactly one byte past the end */
				for (int i = 0; i < 8; i++)
					s.b[before + i] = (uint8_t)((s.len - before - 7) >> (8 * i));
			same_all(s.b, s.len);
			free(s.b);
		}
}

/* Vocabularies large enough for the default spacing, where the walkers go
 * eight short hops (lengths under 256) between checks: strings of 255 bytes,
 * the longest short hop; one length of 256 or more, or one whose low byte is
 * small and whose other bytes are not zero, put where the rounds meet it (the
 * walkers must go back and take the checked rounds); and cuts near the end. */
static void test_short_rounds(void **state)
{
	(void)state;
	const uint64_t longer[] = {256, 257, 300, 4000, (1ull << 32) | 5, 1ull << 8 << 48, GGUF_MAX_STRING + 1, UINT64_MAX};
	const size_t ats[] = {0, 1, 700, 2500, 4100, 5999};
	const uint64_t ns[] = {255, 3000, 6000, UINT64_MAX};
	uint64_t x = 11;
	struct sb s = {0};
	gen_vocab(&s, 1500, 255, &x);
	for (size_t i = 0; i < ARRAY_LEN(ns); i++)
		same_walk(s.b, s.len, ns[i], 0);
	free(s.b);
	for (size_t k = 0; k < ARRAY_LEN(longer); k++)
		for (size_t a = 0; a < ARRAY_LEN(ats); a++) {
			struct sb v = {0};
			gen_vocab(&v, ats[a], 24, &x);
			sb_le64(&v, longer[k]);
			for (uint64_t j = 0; j < longer[k] && j < 4000; j++)
				sb_put(&v, "L", 1);
			gen_vocab(&v, 6000 - ats[a], 24, &x);
			for (size_t i = 0; i < ARRAY_LEN(ns); i++)
				same_walk(v.b, v.len, ns[i], 0);
			for (size_t cut = v.len - 3000; cut < v.len; cut += 331)
				same_walk(v.b, cut, UINT64_MAX, 0);
			free(v.b);
		}
}

/* arrays of fewer strings, or fewer bytes, than the walkers' spacing */
static void test_short_arrays(void **state)
{
	(void)state;
	uint64_t x = 3;
	for (size_t count = 0; count < 12; count++) {
		struct sb s = {0};
		gen_vocab(&s, count, 5, &x);
		for (size_t sp = 0; sp < ARRAY_LEN(spacings); sp++)
			for (uint64_t n = 0; n <= count + 1; n++)
				same_walk(s.b, s.len, n, spacings[sp]);
		free(s.b);
	}
}

/* Random compositions of the pieces above, random counts, spacings, cuts. */
static void test_property(void **state)
{
	(void)state;
	uint64_t x = 0x2545f4914f6cdd1dull;
	for (int iter = 0; iter < 1500; iter++) {
		struct sb s = {0};
		int pieces = 1 + rng_below(&x, 5);
		for (int p = 0; p < pieces; p++) {
			switch (rng_below(&x, 5)) {
			case 0:
				gen_vocab(&s, rng_below(&x, 800), 1 + rng_below(&x, 40), &x);
				break;
			case 1:
				gen_lookalike(&s, rng_below(&x, 100), 1 + rng_below(&x, 8), &x);
				break;
			case 2: {
				uint8_t z[64] = {0};
				sb_put(&s, z, rng_below(&x, 64));
				break;
			}
			case 3:
				for (unsigned j = rng_below(&x, 64); j > 0; j--) {
					uint8_t c = (uint8_t)rng_next(&x);
					sb_put(&s, &c, 1);
				}
				break;
			default:
				sb_le64(&s, rng_next(&x) >> rng_below(&x, 64));
			}
		}
		uint64_t all;
		gguf_walk_strings_serial(s.b, s.len, UINT64_MAX, &all);
		uint64_t n = rng_below(&x, 4) == 0 ? UINT64_MAX : rng_below(&x, (unsigned)all + 2);
		size_t cut = rng_below(&x, 3) == 0 && s.len ? rng_below(&x, (unsigned)s.len) : s.len;
		size_t sp = spacings[rng_below(&x, ARRAY_LEN(spacings))];
		same_walk(s.b, cut, n, sp);
		same_walk(s.b, cut, n, 1 + rng_below(&x, 100));
		free(s.b);
	}
}

/* A whole header parsed with one walker, with the walkers closest together
 * and with the defaults: the same status, message and header. */
static void same_parse(const uint8_t *src, size_t len)
{
	const size_t modes[] = {SIZE_MAX, 1, 0};
	enum gguf_status st[3];
	char err[3][256];
	uint64_t end[3];
	uint8_t *b = xmalloc(len ? len : 1);
	if (len)
		memcpy(b, src, len);
	for (int m = 0; m < 3; m++) {
		struct gguf_header *h;
		gguf_walk_spacing = modes[m];
		st[m] = gguf_parse(b, len, &h, err[m], sizeof err[m]);
		end[m] = h ? h->infos_end : 0;
		gguf_header_unref(h);
	}
	gguf_walk_spacing = 0;
	free(b);
	for (int m = 1; m < 3; m++) {
		assert_int_equal(st[m], st[0]);
		assert_string_equal(err[m], err[0]);
		assert_int_equal(end[m], end[0]);
	}
}

static void test_parse_same_errors(void **state)
{
	(void)state;
	struct gw *w = gw_new();
	size_t len;
	gw_str(w, "general.architecture", "qwen3");
	gw_arr_vocab(w, "tokenizer.ggml.tokens", 4000);
	gw_arr_vocab(w, "tokenizer.ggml.merges", 3000);
	gw_tensor2(w, "token_embd.weight", GGML_T_Q8_0, 64, 4000);
	const uint8_t *full = gw_header(w, &len);
	uint8_t *b = xmalloc(len);
	memcpy(b, full, len);
	same_parse(b, len);
	for (size_t cut = 0; cut < len; cut += 1 + cut / 50)
		same_parse(b, cut);
	/* one length made hostile at a time, in both arrays */
	const uint64_t bad[] = {GGUF_MAX_STRING + 1, 1ull << 62, 5000, 0};
	uint64_t x = 5;
	for (int i = 0; i < 40; i++) {
		size_t at = 64 + rng_below(&x, (unsigned)(len - 80)), p = at;
		while (p < len - 16 && !(b[p] > 0 && b[p] < 16 && memcmp(b + p + 1, "\0\0\0\0\0\0\0", 7) == 0))
			p++; /* the next length field (lengths here are 3 to 14) */
		uint8_t keep[8];
		memcpy(keep, b + p, 8);
		uint64_t v = bad[i % ARRAY_LEN(bad)];
		for (int k = 0; k < 8; k++)
			b[p + k] = (uint8_t)(v >> (8 * k));
		same_parse(b, len);
		memcpy(b + p, keep, 8);
	}
	free(b);
	gw_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_vocabularies),
		cmocka_unit_test(test_default_spacing),
		cmocka_unit_test(test_lookalike_lengths),
		cmocka_unit_test(test_zero_strings),
		cmocka_unit_test(test_guesses_mid_string),
		cmocka_unit_test(test_hostile_lengths),
		cmocka_unit_test(test_short_rounds),
		cmocka_unit_test(test_short_arrays),
		cmocka_unit_test(test_property),
		cmocka_unit_test(test_parse_same_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
