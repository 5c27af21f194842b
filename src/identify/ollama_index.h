/* Ollama's manifests, indexed: blob digest → model name and layer role. */
#ifndef GTM_OLLAMA_INDEX_H
#define GTM_OLLAMA_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "identify/ident.h"
#include "identify/stores.h"

struct ollama_layer {
	char hex[65];
	enum model_role role;
};

/* The model, projector and adapter layers of one manifest (JSON in
 * buf[0..len), any content), at most max. Pure; returns the count. */
size_t ollama_manifest_layers(const char *buf, size_t len, struct ollama_layer *out, size_t max);

/* Copies 64 lower-case hex digits followed by the string's end into out. */
bool ollama_digest_hex(const char *s, char out[65]);
/* Ollama's display name of a manifest path's components. */
void ollama_model_name(const char *registry, const char *ns, const char *model, const char *tag, char *out,
		       size_t n);
/* The alphabetically first name whose manifest has a layer with this digest
 * (malloc'd), and that layer's role; NULL when no manifest names it. */
char *ollama_blob_name(const char *models_dir, const char *hex, enum model_role *role);
/* The store's model layers in name order (see stores_installed). */
int ollama_list_models(const char *models_dir, struct store_candidate *out, int max, int *n_more);
void ollama_index_clear(void);

#endif
