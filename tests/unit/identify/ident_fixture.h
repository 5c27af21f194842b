/* Test helpers: stand-in process rows (argv, exe, cwd, maps, environ) and
 * small GGUF files, for the identify tests. */
#ifndef GTM_TEST_IDENT_FIXTURE_H
#define GTM_TEST_IDENT_FIXTURE_H

#include <stddef.h>

#include "core/snapshot.h"
#include "identify/ident.h"

/* A process row with name (comm) and a detail built from NULL-terminated
 * lists (each may be NULL); exe and cwd may be NULL. */
struct gtm_process *tf_process(const char *comm, const char *const *argv, const char *exe, const char *cwd,
			       const char *const *maps, const char *const *env);
/* Splits a space-separated command line ("a b c") into argv. */
struct gtm_process *tf_process_cmdline(const char *comm, const char *cmdline, const char *exe, const char *cwd,
				       const char *const *maps, const char *const *env);
/* Adds one more mapped path. */
void tf_add_map(struct gtm_process *p, const char *path);
void tf_process_free(struct gtm_process *p);

/* Runs identify_process with a fresh context. */
const struct gtm_ident *tf_identify(struct gtm_process *p);

/* Writes a small GGUF v3 LLM (arch, 2 layers, trained context 4096) to path. */
void tf_write_gguf(const char *path, const char *arch);
/* Writes a small GGUF vision projector (clip) to path. */
void tf_write_mmproj(const char *path);

const struct ident_runtime *tf_runtime(const struct gtm_ident *id, const char *rt_id);
/* The model whose path (or, for name-only models, name) ends with suffix. */
const struct ident_model *tf_model(const struct gtm_ident *id, const char *suffix);

#endif
