/* LM Studio's models folders, indexed per home folder: GGUF files (by
 * magic) exactly two levels deep, named publisher/repo. */
#ifndef GTM_LMSTUDIO_INDEX_H
#define GTM_LMSTUDIO_INDEX_H

#include "identify/stores.h"

/* The models under home's LM Studio folders in name order (see stores_installed). */
int lmstudio_list_models(const char *home, struct store_candidate *out, int max, int *n_more);
void lmstudio_index_clear(void);

#endif
