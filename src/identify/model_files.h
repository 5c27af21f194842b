/* Model files a process holds: GGUF files it maps and the files its command
 * line names with a model flag (-m, -md, --mmproj, --lora, --diffusion-model,
 * --vae, --clip_l, --t5xxl, -hf in the HF cache), recognised by magic, with
 * relative paths resolved against the process's cwd. */
#ifndef GTM_MODEL_FILES_H
#define GTM_MODEL_FILES_H

#include <stdbool.h>

#include "core/snapshot.h"
#include "identify/ident.h"
#include "identify/magic_cache.h"

/* Adds the command line's models (cmdline evidence) and the mapped GGUF files
 * (mapped evidence) to id; runtimes must be detected first. */
void model_files_collect(struct magic_cache *mc, const struct gtm_process *p, struct gtm_ident *id);
/* Whether the command line names a model by its Hugging Face repo (-hf,
 * -hfd...): finding it takes the process's environment (the HF cache roots). */
bool model_files_names_hf(const struct gtm_proc_detail *d);

/* Fills a model's file identity and size, its store and friendly name (when
 * unset) and, with read_header, its GGUF summary or error. */
void model_file_describe(struct ident_model *m, bool read_header);

#endif
