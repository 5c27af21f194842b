/* The scenario files' shared tokenizer and reader (tests/fakes: NVML, DXGI
 * and ADL doubles; formats in README.md). */
#ifndef FAKE_SCENARIO_WORDS_H
#define FAKE_SCENARIO_WORDS_H

#include <stdbool.h>
#include <stddef.h>

/* Next word of a line: key=value, key="value with spaces" or a bare word
 * (val empty). Returns false at the end of the line or at a '#'. */
bool scenario_next_word(const char **p, char *key, size_t kn, char *val, size_t vn);
/* The whole file, NUL-terminated and malloc'd; NULL when it cannot be read. */
char *scenario_read_file(const char *path);

#endif
