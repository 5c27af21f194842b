/* Text of a process's identity, for the text view, inspect and the TUI. */
#ifndef GTM_IDENT_TEXT_H
#define GTM_IDENT_TEXT_H

#include <stdio.h>

#include "identify/ident.h"

/* Compact: a category/runtimes line and one line per model. */
void ident_text_print(FILE *out, const struct gtm_ident *id, const char *indent);
/* Everything: runtimes with evidence, models with evidence, header identity, flags. */
void ident_text_print_full(FILE *out, const struct gtm_ident *id, const char *indent);

/* Short cells for tables: "llama.cpp, ggml CUDA backend" (runtime names,
 * comma-separated, cut to n), and the first model's friendly name ("" when none). */
char *ident_text_runtimes(const struct gtm_ident *id, char *buf, size_t n);
char *ident_text_model(const struct gtm_ident *id, char *buf, size_t n);
/* "mapped+cmdline, confirmed", "installed, not proven loaded", "cmdline". */
char *ident_text_evidence(const struct ident_model *m, char *buf, size_t n);
/* "qwen3 LLM, 0.6B params, Q8_0, 28 layers, ctx 40960" from a model's header. */
char *ident_text_gguf_summary(const struct gguf_model_info *info, char *buf, size_t n);
/* "1.50 MiB of tensor data missing (the header needs 8.00 MiB, the file has
 * 6.50 MiB)" for a partial download; "" when the file is whole. */
char *ident_text_incomplete(const struct gguf_model_info *info, char *buf, size_t n);

#endif
