/* The parts of a `--json` snapshot that diff compares, read into typed rows.
 * Strings point into the jansson document, which the snapshot keeps a reference to. */
#ifndef GTM_SNAPREAD_SNAP_ROWS_H
#define GTM_SNAPREAD_SNAP_ROWS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds on what one snapshot may hold; a larger file is refused, not truncated. */
#define SNAP_MAX_DEVICES 64
#define SNAP_MAX_PROCESSES 262144
#define SNAP_MAX_PORTS 64
#define SNAP_MAX_SEGMENTS 256
#define SNAP_MAX_MODELS 64
/* Per snapshot, so pairing rows stays cheap on hostile files: per-device process
 * rows (a real machine has processes x GPUs, a few thousand), and listed
 * reported/estimated segments plus models. */
#define SNAP_MAX_USES_TOTAL 65536
#define SNAP_MAX_EXTRAS_TOTAL 65536

/* A counter: a number, or null (N/A). Never a zero standing in for unknown. */
struct snap_val {
	bool known;
	uint64_t v;
};

struct snap_dev {
	int index;
	const char *uuid, *name, *pci_bus_id;
	struct snap_val total, used, free, reserved, shared_total, shared_used;
	struct snap_val processes_listed;
};

/* One process's measured use of one device. */
struct snap_use {
	int index;               /* gpus[].index in the same snapshot */
	struct snap_val vram, spill, paged;
};

/* Where a non-measured figure came from. */
enum snap_seg_kind { SNAP_SEG_REPORTED, SNAP_SEG_ESTIMATED, SNAP_SEG_OTHER };

/* A runtime-reported or estimated figure, never part of a measured total. */
struct snap_seg {
	char *label;             /* what it is, stable across snapshots ("breakdown kv CUDA0") */
	char *source;            /* as written: "log", "api", "estimate", ... */
	enum snap_seg_kind kind;
	bool is_kv;              /* a KV-cache estimate (compared with measured growth) */
	bool host;               /* in host memory, not on a GPU */
	struct snap_val bytes;
};

/* A model file the process holds, with the evidence for it (not GPU memory). */
struct snap_model {
	char *name;              /* friendly name, else file name, else path */
	char *key;               /* what pairs it across snapshots: path, else name */
	char *evidence;          /* "mapped+cmdline", or NULL */
	char *status;            /* "confirmed", "not proven loaded", ... or NULL */
};

/* llama.cpp flags as identify parsed them from the command line (llama_flags in
 * the snapshot), compared so "I raised -c" shows next to what grew. */
#define SNAP_N_FLAGS 6
struct snap_flag_table {
	const char *key;         /* llama_flags key: "ctx_size" */
	const char *flag;        /* as typed: "-c" */
};
extern const struct snap_flag_table snap_flags[SNAP_N_FLAGS];

struct snap_proc {
	bool has_pid, has_host_pid, has_start;
	uint32_t pid, host_pid;
	uint64_t start_time;
	const char *label, *name, *owner;
	int ports[SNAP_MAX_PORTS];  /* sorted, distinct */
	int n_ports;
	struct snap_val vram_total, rss;
	struct snap_use *uses;
	int n_uses;
	struct snap_seg *segs;
	int n_segs;
	size_t cap_segs;
	struct snap_model *models;
	int n_models;
	size_t cap_models;
	bool has_flags;          /* llama_flags is an object */
	const json_t *flags[SNAP_N_FLAGS]; /* borrowed from the document; NULL or null: the default */
};

struct snap_rows {
	json_t *doc;             /* held reference */
	int schema_version;
	const char *taken_at, *hostname, *version, *mode;
	struct snap_dev *devs;
	int n_devs;
	struct snap_proc *procs;
	int n_procs;
	int n_uses, n_extras;    /* against the per-snapshot bounds */
	bool extras_truncated;   /* some segments or models were not listed */
};

/* Reads a parsed snapshot (see snap_parse.h, which refuses one without taken_at, gpus,
 * processes, GPU indexes or process labels). Absent keys read as null / empty, but a
 * GPU (device or process use) without an integer "index" is an error;
 * a key of the wrong type is an error naming its path ("processes[3].gpus[0].vram_bytes:
 * expected an integer >= 0 or null"). Returns 0, or -1 with err set. */
int snap_rows_read(json_t *doc, struct snap_rows *out, char *err, size_t errn);
void snap_rows_free(struct snap_rows *s);

/* The device's UUID as a process's gpus[].index names it, or NULL. */
const struct snap_dev *snap_rows_dev(const struct snap_rows *s, int index);

#endif
