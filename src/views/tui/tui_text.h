/* A reusable list of styled text lines (inspector, help). Reset keeps the
 * memory, so rebuilding on every snapshot allocates nothing once warm. */
#ifndef GTM_TUI_TEXT_H
#define GTM_TUI_TEXT_H

#include <stddef.h>
#include <stdint.h>

enum tui_style { TUI_ST_TEXT, TUI_ST_HEAD, TUI_ST_DIM, TUI_ST_WARN, TUI_ST_KEY };

struct tui_line {
	uint32_t off;
	uint8_t style;
};

struct tui_text {
	char *buf;
	size_t len, cap;
	struct tui_line *lines;
	size_t n, cap_lines;
	int width;               /* wrap width; 0 = no wrapping */
};

void tui_text_reset(struct tui_text *t, int width);
/* Adds one logical line, wrapped at word boundaries to t->width; the
 * continuation lines are indented by `indent` spaces. */
void tui_text_add(struct tui_text *t, enum tui_style st, int indent, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Adds every line of a multi-line string (wrapped, indent kept). */
void tui_text_add_block(struct tui_text *t, enum tui_style st, const char *s);
const char *tui_text_line(const struct tui_text *t, size_t i, enum tui_style *st);
void tui_text_free(struct tui_text *t);

#endif
