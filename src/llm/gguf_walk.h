/* Passing over the elements of a GGUF string array (a u64 length, then that
 * many bytes, gguf.cpp gguf_reader::read(std::string&)) without materialising
 * them: the vocabulary and merges, most of a header's bytes. Pure functions
 * over a bounded buffer (not a public API: the parser core and its tests). */
#ifndef GTM_GGUF_WALK_H
#define GTM_GGUF_WALK_H

#include <stddef.h>
#include <stdint.h>

/* From buf[0], passes over at most n strings, each whole in buf[0..len) and
 * no longer than GGUF_MAX_STRING; stops at the first one that is not (the
 * parser's slow path then reads more of the file or reports it). Returns the
 * offset after the last string passed over; *count gets how many. */
size_t gguf_walk_strings_serial(const uint8_t *buf, size_t len, uint64_t n, uint64_t *count);

/* Exactly gguf_walk_strings_serial's result, from several walkers at once:
 * one from buf[0] and others from guessed boundaries further on, so that the
 * chains of dependent loads overlap. A guessed start counts only when the
 * exact walk lands on it; on any mismatch the exact walk goes on by itself.
 * spacing: the least distance between walkers' guesses (0 for the defaults:
 * 16 KiB, and 256 strings at least; tests pass small ones, down to 1, to
 * reach every path with small buffers). */
size_t gguf_walk_strings(const uint8_t *buf, size_t len, uint64_t n, size_t spacing, uint64_t *count);

#endif
