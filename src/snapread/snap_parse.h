/* Reading a `gputaskman --json` snapshot back (diff, replay): bounded in size and nesting,
 * checked to be a snapshot of a schema this build reads. */
#ifndef GTM_SNAPREAD_SNAP_PARSE_H
#define GTM_SNAPREAD_SNAP_PARSE_H

#include <jansson.h>
#include <stddef.h>

#define SNAP_MAX_INPUT_BYTES (64u * 1024u * 1024u)
/* A snapshot nests about 6 levels; 64 leaves room for growth, not for a stack attack. */
#define SNAP_MAX_DEPTH 64
/* A real snapshot holds tens of values per KiB (about 3 M in 64 MiB); a file of
 * bare "1,1,1" would hold 32 M, each a jansson allocation. */
#define SNAP_MAX_VALUES 4000000u
#define SNAP_SCHEMA_MAX 1

/* Parses a snapshot from buf[0..len). Returns the document (caller decrefs), or
 * NULL with one line in err saying what is wrong ("truncated JSON (ends at line 3)",
 * "not a gputaskman snapshot (no schema_version)", "schema_version 2 is newer ...",
 * "not a gputaskman snapshot: \"gpus[0].index\" is missing (a snapshot has an integer there)":
 * taken_at, gpus, processes, each GPU's index and each process's label are required). */
json_t *snap_json_parse(const char *buf, size_t len, char *err, size_t errn);

/* Reads path ("-" is standard input) and parses it as above; err does not repeat the path. */
json_t *snap_json_load(const char *path, char *err, size_t errn);

#endif
