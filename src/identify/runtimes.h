/* Runtimes from mapped libraries, the executable, the command and the
 * process name, through one table of name patterns (runtimes.c). */
#ifndef GTM_RUNTIMES_H
#define GTM_RUNTIMES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/snapshot.h"
#include "identify/ident.h"

/* Appends the process's runtimes to id->runtimes, each with its evidence. */
void runtimes_detect(const struct gtm_process *p, struct gtm_ident *id);
/* The same, remembering in memo which patterns each mapped path matched
 * (most: none), so each path a machine's processes map is tried against the
 * table once: every process maps libc and ld.so, and the processes of one
 * runtime the same libraries. memo grows with the distinct paths (bounded:
 * emptied when full); one memo per thread at a time. */
struct runtime_maps_memo;
struct runtime_maps_memo *runtime_maps_memo_new(void);
void runtime_maps_memo_free(struct runtime_maps_memo *m);
void runtimes_detect_memo(struct runtime_maps_memo *m, const struct gtm_process *p, struct gtm_ident *id);

/* The command a process runs, looking through interpreters: for
 * "python3 -u -m vllm.entrypoints.openai.api_server --port 8000" the command is
 * "vllm.entrypoints.openai.api_server" (index 3), for "/usr/bin/python3
 * /usr/local/bin/vllm serve" it is "vllm" (index 1) with sub "serve".
 * Returns the argv index of the command, or -1 (no argv). *cmd is its base name. */
int runtimes_command(const struct gtm_proc_detail *d, const char **cmd);

/* Whether a file's base name is a shared object ("libfoo.so", "libfoo.so.1.2",
 * "mod.cpython-312-x86_64-linux-gnu.so", or a Windows DLL or .pyd). */
int runtimes_is_shared_object(const char *base);
/* Whether it is a Windows DLL or Python extension: "*.dll", "*.pyd", any case. */
int runtimes_is_dll(const char *base);

/* The runtime of this build's table whose id is rt_id, as a process lists it
 * (id, name and traits static, no evidence): for snapshots read back from
 * JSON. false for an id this build does not know. */
bool runtimes_lookup(const char *rt_id, struct ident_runtime *out);

#endif
