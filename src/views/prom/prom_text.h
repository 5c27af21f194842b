/* The Prometheus text exposition format 0.0.4 (prometheus/docs
 * instrumenting/exposition_formats.md), written one family at a time: a
 * family's HELP and TYPE lines go out with its first sample, so a family with
 * no available reading is absent, never a header over nothing. Label values
 * are escaped (backslash, double quote, newline) and text that is not
 * well-formed UTF-8 has each bad byte replaced by U+FFFD. Every series is
 * written once: a second sample with the same name and labels is dropped and
 * counted (the renderers never mean to write one). */
#ifndef GTM_PROM_TEXT_H
#define GTM_PROM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* A growable byte buffer, always NUL-terminated. */
struct prom_buf {
	char *p;
	size_t len, cap;
};
void prom_buf_add(struct prom_buf *b, const char *s, size_t n);
void prom_buf_puts(struct prom_buf *b, const char *s);
void prom_buf_free(struct prom_buf *b);

struct prom_family {
	const char *name;  /* gputaskman_... */
	const char *type;  /* "gauge", "counter" */
	const char *help;  /* PROM_HELP_POOL in it is written as this OS's name of the shared pool */
};
/* The shared pool's words differ by OS (platform_shared_pool: Linux's GTT,
 * Windows's shared GPU memory): a HELP text names the pool with this marker. */
#define PROM_HELP_POOL "@shared-pool@"

struct prom_out {
	struct prom_buf text;
	const struct prom_family *fam; /* the family being written */
	bool fam_written;              /* its HELP/TYPE lines are out */
	struct prom_buf labels;        /* the pending sample's labels, escaped */
	uint64_t *seen;                /* hashes of the series written (open addressing) */
	size_t seen_cap, n_seen;
	int duplicates;                /* samples dropped as repeated series */
	int families;                  /* families with at least one sample */
};

void prom_out_init(struct prom_out *o);
void prom_out_free(struct prom_out *o);
/* Clears the text and the series seen, keeping the buffers' memory. */
void prom_out_reset(struct prom_out *o);

/* Starts a family; its samples follow before the next prom_family call. */
void prom_family(struct prom_out *o, const struct prom_family *f);
/* Adds a label to the pending sample. An empty or NULL value adds nothing
 * (Prometheus reads an empty label value as an absent label). */
void prom_add_label(struct prom_out *o, const char *key, const char *value);
void prom_add_label_int(struct prom_out *o, const char *key, long long value);
/* Writes the pending sample with value v and clears its labels. A value that
 * is not finite is never written (an unavailable reading is absent). */
void prom_write(struct prom_out *o, double v);
/* The same for an exact integer (bytes), written without rounding. */
void prom_write_u64(struct prom_out *o, uint64_t v);

/* Appends value escaped as a label value (\\, \", \n; bad UTF-8 → U+FFFD). */
void prom_escape_label(struct prom_buf *b, const char *value);
/* Appends text escaped as HELP text (\\ and \n). */
void prom_escape_help(struct prom_buf *b, const char *text);
/* The shortest text that reads back as v ("0.5", "1e-07", "12"); buf holds 32. */
const char *prom_format_double(char *buf, size_t n, double v);

#endif
