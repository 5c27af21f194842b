/* Passing over a GGUF string array's elements. Each length says where the
 * next string starts, so one walker is a chain of dependent loads (the load's
 * latency and an add a string); five walkers over five parts of the buffer,
 * taking turns in one loop, keep five chains in flight. Only the first starts
 * at a known boundary: the others start at guesses (a position from which a
 * few plausible lengths chain), and a guess counts only when the exact walk
 * lands on it, so hostile bytes can make the walk slower, never different. */
#include "llm/gguf_walk.h"

#include <endian.h>
#include <stdbool.h>
#include <string.h>

#include "llm/gguf.h"

#define WALKERS 5 /* 5 and 6 were the fastest on x86-64 (4: 25 % slower, 8: 35 %) */
#define DEFAULT_SPACING (16u * 1024u) /* below this a walker's start-up costs more than it saves */
#define MIN_STRINGS 256u              /* arrays shorter than this are walked serially */
#define GUESS_SCAN 512u               /* bytes searched for a plausible boundary past a guess */
#define GUESS_HOPS 3                  /* lengths that must chain from a guessed boundary */
#define GUESS_MAX_LEN 65535u          /* and the most each may be (vocabulary strings are short) */
#define NO_STOP SIZE_MAX

static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return le64toh(v);
}

/* The serial walk from pos, until max strings are counted in *c, pos reaches
 * stop, or a string is not whole in buf or too long. */
static size_t walk_from(const uint8_t *buf, size_t len, size_t pos, size_t stop, uint64_t max, uint64_t *c)
{
	while (*c < max && pos < stop && len - pos >= 8) {
		uint64_t l = load_le64(buf + pos);
		if (l > GGUF_MAX_STRING || l > len - pos - 8)
			break;
		pos += 8 + (size_t)l;
		(*c)++;
	}
	return pos;
}

size_t gguf_walk_strings_serial(const uint8_t *buf, size_t len, uint64_t n, uint64_t *count)
{
	*count = 0;
	return walk_from(buf, len, 0, NO_STOP, n, count);
}

/* Whether GUESS_HOPS short strings chain from p, all whole in buf. */
static bool plausible_boundary(const uint8_t *buf, size_t len, size_t p)
{
	for (int i = 0; i < GUESS_HOPS; i++) {
		if (len - p < 8)
			return false;
		uint64_t l = load_le64(buf + p);
		if (l > GUESS_MAX_LEN || l > len - p - 8)
			return false;
		p += 8 + (size_t)l;
	}
	return true;
}

/* The first plausible boundary in [from, limit), or NO_STOP. */
static size_t guess_boundary(const uint8_t *buf, size_t len, size_t from, size_t limit)
{
	size_t end = limit - from > GUESS_SCAN ? from + GUESS_SCAN : limit;
	for (size_t p = from; p < end; p++)
		if (plausible_boundary(buf, len, p))
			return p;
	return NO_STOP;
}

struct walker {
	size_t start, stop, end; /* walks [start, stop); end: where it stopped */
	uint64_t hops;
};

/* One hop of walker k if it is still inside its part; t is its stop, clipped
 * so that 8 bytes can be loaded, and set to 0 when it meets a string that is
 * not whole or too long (the exact walk stops there too). */
#define HOP(k)                                                                                      \
	if (p##k < t##k) {                                                                          \
		uint64_t l = load_le64(buf + p##k);                                                 \
		if (l <= GGUF_MAX_STRING && l <= len - 8 - p##k) {                                  \
			p##k += 8 + (size_t)l;                                                      \
			c##k++;                                                                     \
			live = true;                                                                \
		} else {                                                                            \
			t##k = 0;                                                                   \
		}                                                                                   \
	}

#define EACH(X) X(0) X(1) X(2) X(3) X(4) /* one X(k) a walker: WALKERS of them */

/* Short rounds: while every walker is at least SHORT_ROUNDS short hops
 * before its stop, SHORT_ROUNDS rounds at a time in which a hop adds only
 * the length's low byte (a load and an add on each chain of loads, nothing
 * compared); the lengths' other bytes are ORed together aside and tested
 * once after the rounds. All zero: every length was under 256, so each hop
 * was the exact walk's, inside the buffer and short of the walker's stop.
 * Not: the walkers go back to where those rounds began, and the checked
 * rounds take over from there. p[k]: walker k's position, moved on; t[k]:
 * its stop, clipped (walk_parts). Returns the rounds made. */
#define SHORT_HOP (8u + 255u) /* the farthest one hop goes when its length fits a byte */
#define SHORT_ROUNDS 8u
#define SHORT_SPAN ((size_t)SHORT_ROUNDS * SHORT_HOP)
static uint64_t short_rounds(const uint8_t *buf, size_t *p, const size_t *t)
{
	uint64_t rounds = 0;
#define SPTR(k)                                                                                     \
	const uint8_t *q##k = buf + p[k];                                                           \
	const uint8_t *e##k = buf + (t[k] > SHORT_SPAN ? t[k] - SHORT_SPAN : 0);
#define SROOM(k) &(q##k < e##k)
#define SSAVE(k) const uint8_t *s##k = q##k;
#define SHOP(k) high |= load_le64(q##k), q##k += 8 + (size_t)q##k[0];
#define SBACK(k) q##k = s##k;
#define SPOS(k) p[k] = (size_t)(q##k - buf);
	EACH(SPTR)
	while (1 EACH(SROOM)) {
		EACH(SSAVE)
		uint64_t high = 0;
		for (unsigned i = 0; i < SHORT_ROUNDS; i++) {
			EACH(SHOP)
		}
		if (high >> 8) {
			EACH(SBACK)
			break;
		}
		rounds += SHORT_ROUNDS;
	}
	EACH(SPOS)
	return rounds;
#undef SPTR
#undef SROOM
#undef SSAVE
#undef SHOP
#undef SBACK
#undef SPOS
}

/* Checked rounds, at most max of them: while every walker is inside its
 * part and meets strings under 1 MiB, a round of hops costs one branch (the
 * parts are of about equal bytes, so most rounds are such). p, t as for
 * short_rounds. Returns the rounds made. */
static uint64_t checked_rounds(const uint8_t *buf, size_t *p, const size_t *t, uint64_t max)
{
	uint64_t rounds = 0;
#define INIT(k) size_t p##k = p[k], t##k = t[k];
#define INSIDE(k) &&p##k < t##k
#define LOAD(k)                                                                                     \
	uint64_t l##k = load_le64(buf + p##k);                                                      \
	size_t n##k = p##k + 8 + (size_t)l##k;
#define LONG(k) | l##k
#define PAST(k) | (n##k >= t##k)
#define MOVE(k) p##k = n##k;
#define BACK(k) p[k] = p##k;
	EACH(INIT)
	if (1 EACH(INSIDE)) {
		while (rounds < max) {
			EACH(LOAD)
			if ((0 EACH(LONG)) >> 20 EACH(PAST))
				break;
			EACH(MOVE)
			rounds++;
		}
	}
	EACH(BACK)
	return rounds;
#undef INIT
#undef INSIDE
#undef LOAD
#undef LONG
#undef PAST
#undef MOVE
#undef BACK
}

/* All walkers to the ends of their parts, taking turns: the chains of loads
 * are independent, so the CPU runs them side by side. Short rounds while
 * they last, then checked ones, SHORT_ROUNDS at a time, then short ones
 * again (one string of 256 bytes or more, or a walker on a false chain,
 * costs a few rounds, not the rest of the part); when a walker is past its
 * stop or meets a string of 1 MiB or more, each walker on its own to the end
 * of its part. */
static void walk_parts(const uint8_t *buf, size_t len, struct walker *w)
{
	size_t last = len - 7; /* a walker at p < last can load 8 bytes */
	size_t ps[WALKERS], ts[WALKERS];
	uint64_t rounds = 0, n;
	bool live = true;
#define SETUP(k) ps[k] = w[k].start, ts[k] = w[k].stop < last ? w[k].stop : last;
	EACH(SETUP)
	do {
		rounds += short_rounds(buf, ps, ts);
		n = checked_rounds(buf, ps, ts, SHORT_ROUNDS);
		rounds += n;
	} while (n == SHORT_ROUNDS);
#define INIT(k) size_t p##k = ps[k], t##k = ts[k];
#define COUNT(k) uint64_t c##k = rounds;
	EACH(INIT)
	EACH(COUNT)
	while (live) {
		live = false;
		EACH(HOP)
	}
#define END(k) w[k].end = p##k, w[k].hops = c##k;
	EACH(END)
#undef SETUP
#undef INIT
#undef COUNT
#undef END
}

/* Sets the walkers' parts of [from, upto): walker 0 from `from`, walker i
 * from the first plausible boundary past i parts; a walker without one is
 * left idle (start == stop) and its part joins the one before. The last
 * part ends at upto. */
static void place_walkers(const uint8_t *buf, size_t len, size_t from, size_t upto, size_t part, struct walker *w)
{
	size_t prev = 0;
	w[0].start = from;
	for (size_t i = 1; i < WALKERS; i++) {
		size_t g = guess_boundary(buf, len, from + i * part, from + (i + 1) * part);
		if (g == NO_STOP) {
			w[i].start = w[i].stop = 0;
			continue;
		}
		w[i].start = g;
		w[prev].stop = g;
		prev = i;
	}
	w[prev].stop = upto;
}

/* The serial walk from pos to stop (at most n strings in all, *c so far),
 * from the walkers' parts: a part whose start the exact walk lands on is
 * taken whole; otherwise the exact walk goes over that part itself. */
static size_t walk_block(const uint8_t *buf, size_t len, size_t pos, size_t stop, size_t part, uint64_t n,
			 uint64_t *c)
{
	struct walker w[WALKERS];
	place_walkers(buf, len, pos, stop, part, w);
	walk_parts(buf, len, w);
	for (size_t i = 0; i < WALKERS; i++) {
		if (w[i].start == w[i].stop)
			continue; /* idle */
		if (pos != w[i].start) {
			pos = walk_from(buf, len, pos, w[i].stop, n, c);
		} else if (w[i].hops > n - *c) {
			/* the n-th string is in this part: count it out */
			pos = walk_from(buf, len, pos, w[i].stop, n, c);
		} else {
			pos = w[i].end;
			*c += w[i].hops;
		}
		if (*c == n || pos < w[i].stop)
			break; /* counted out, or stopped at a string the serial walk stops at */
	}
	return pos;
}

size_t gguf_walk_strings(const uint8_t *buf, size_t len, uint64_t n, size_t spacing, uint64_t *count)
{
	uint64_t min_n = 2;
	if (spacing == 0)
		spacing = DEFAULT_SPACING, min_n = MIN_STRINGS;
	*count = 0;
	if (len / WALKERS < spacing || n < min_n || len < 8)
		return walk_from(buf, len, 0, NO_STOP, n, count);
	/* block by block, each split among the walkers: the walk goes at most
	 * a block past the array's end, and only the part that holds the
	 * array's last string is counted out serially. The last block takes
	 * what is left, up to twice a block. */
	size_t pos = 0, block = WALKERS * spacing;
	while (*count < n) {
		size_t left = len - pos;
		if (left / WALKERS < spacing || left < 8)
			return walk_from(buf, len, pos, NO_STOP, n, count);
		if (left < 2 * block)
			return walk_block(buf, len, pos, NO_STOP, left / WALKERS, n, count);
		size_t stop = pos + block, at = walk_block(buf, len, pos, stop, spacing, n, count);
		if (at < stop)
			return at; /* stopped where the serial walk stops */
		pos = at;
	}
	return pos;
}
