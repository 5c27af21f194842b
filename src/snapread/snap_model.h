/* A `--json` snapshot read back into the core model (core/snapshot.h), so the
 * live view's header, charts, table and inspector draw a recorded moment
 * (`gputaskman replay PATH`). Input is untrusted: the document comes from
 * snap_json_parse (bounded in size, depth and value count), and every list
 * read here is cut at the model's own bounds.
 *
 * What is read (docs/recording.md, "What replay shows"): every device reading,
 * every process field --json writes (cmdline, exe and cwd as the process's
 * detail), its GPU uses, identification (category and its reason, runtimes this
 * build knows, models with store, role, evidence and file size) and the
 * explanation's breakdown segments, runtime and notes. Not read, so shown as
 * absent, never invented: a model's GGUF header figures, llama.cpp flags and
 * aliases, the explanation's log, servers and app adapter (replay --json has
 * them), mapped files and environments (never recorded). A value of the wrong
 * type reads as N/A. */
#ifndef GTM_SNAPREAD_SNAP_MODEL_H
#define GTM_SNAPREAD_SNAP_MODEL_H

#include <jansson.h>
#include <stddef.h>

#include "core/snapshot.h"

/* Bounds beyond the model's own arrays. */
#define SNAP_MODEL_MAX_NOTES 64
#define SNAP_MODEL_MAX_ARGS 4096
#define SNAP_MODEL_MAX_RUNTIMES 32

/* The snapshot in doc (as snap_json_parse returned it). NULL, with err set,
 * when doc is not an object with gpus and processes arrays. */
struct gtm_snapshot *snap_model_read(const json_t *doc, char *err, size_t errn);

/* Parses buf[0..len) with snap_json_parse and reads it as above. */
struct gtm_snapshot *snap_model_parse(const char *buf, size_t len, char *err, size_t errn);

#endif
