/* A safetensors model as a loader sees it: a folder with config.json and
 * its weights (the shards model.safetensors.index.json names, else every
 * model*.safetensors as MLX loads them, else every *.safetensors), or one
 * .safetensors file (the whole model when an index beside it lists it).
 * Reads headers only; bounded by ST_MAX_SHARDS files. */
#ifndef GTM_ST_MODEL_H
#define GTM_ST_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llm/hf_config.h"
#include "llm/safetensors.h"

struct st_model_file {
	char *name;               /* file name inside dir */
	struct st_header *h;      /* NULL when it could not be read */
	char *error;
};

struct st_model {
	char *dir;                /* the folder (config.json's) */
	const char *source;       /* "model.safetensors.index.json", "model*.safetensors", "*.safetensors", "file" */
	size_t n_files;
	struct st_model_file *files;
	size_t n_unreadable;      /* files whose header failed */
	bool have_index;
	uint64_t index_total_size;/* metadata.total_size, 0 when absent */
	bool have_config;
	struct hf_config config;
	char config_error[200];
	/* sums over the readable files */
	struct st_dtype_share by_dtype[ST_DTYPE_COUNT];
	uint64_t n_params, weight_bytes, header_bytes;
	uint64_t missing_bytes, extra_bytes;
	size_t n_incomplete;      /* files the reference reader refuses (missing or extra bytes) */
	char format_version[32];  /* __metadata__ "format" ("pt", "mlx") of the first file, or "" */
};

/* path: a folder or a .safetensors file; observed as for st_read_file.
 * false with err set when nothing loadable is there. */
bool st_model_load(struct st_model *m, const char *path, bool observed, char *err, size_t errlen);
void st_model_free(struct st_model *m);

#endif
