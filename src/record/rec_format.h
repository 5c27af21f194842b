/* The recording file's layout (docs/recording.md): a zstd stream of
 * skippable frames (the file header, one index entry per data frame) and
 * data frames (JSON Lines, one `--json` snapshot per line, about a minute
 * each). `zstdcat FILE` prints the snapshots; gputaskman hops from entry to
 * entry to seek by time. This file holds the fixed parts, pure and shared by
 * the writer and the reader. */
#ifndef GTM_REC_FORMAT_H
#define GTM_REC_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REC_FORMAT_VERSION 1
/* zstd's skippable frames: 0x184D2A50..5F, then a 32-bit little-endian size
 * (RFC 8878 section 3.1.2). We use two of the sixteen. */
#define REC_MAGIC_HEADER 0x184D2A50u
#define REC_MAGIC_ENTRY 0x184D2A51u
#define REC_SKIP_HEAD 8               /* magic + size */
#define REC_HEADER_PAYLOAD 24         /* "GTMRECRD", version, flags, created_ns */
#define REC_HEADER_BYTES (REC_SKIP_HEAD + REC_HEADER_PAYLOAD)
#define REC_ENTRY_PAYLOAD 40
#define REC_ENTRY_BYTES (REC_SKIP_HEAD + REC_ENTRY_PAYLOAD)
/* Bounds the reader keeps on what a file may claim: a frame's compressed and
 * decompressed size (the writer closes a frame at 8 MiB of text) and a line. */
#define REC_MAX_FRAME_BYTES (64u << 20)
#define REC_MAX_FRAME_TEXT (256u << 20)
#define REC_MAX_FRAMES (1u << 22)

struct rec_header {
	uint32_t version;
	uint32_t flags;
	uint64_t created_ns;
};

/* One data frame's entry, written before it while it is open (closed false,
 * frame_len 0) and rewritten in place when it is closed. */
struct rec_entry {
	bool closed;
	uint64_t first_ns, last_ns;   /* taken_at of its first and last snapshot */
	uint32_t n_samples;
	uint64_t frame_len;           /* compressed bytes of the data frame after the entry */
};

void rec_header_encode(const struct rec_header *h, uint8_t out[REC_HEADER_BYTES]);
/* 0; -1 not a recording (no header magic); -2 a header too short or damaged. */
int rec_header_decode(const uint8_t *buf, size_t len, struct rec_header *h);

void rec_entry_encode(const struct rec_entry *e, uint8_t out[REC_ENTRY_BYTES]);
/* 0; -1 no entry magic here; -2 an entry whose checksum fails (a torn rewrite). */
int rec_entry_decode(const uint8_t *buf, size_t len, struct rec_entry *e);

/* Is buf the start of a recording (the header's magic and tag)? */
bool rec_is_recording(const uint8_t *buf, size_t len);

#endif
