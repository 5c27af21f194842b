/* LM Studio's models folders, indexed per set of folders: GGUF files (by
 * magic) exactly two levels deep, named publisher/repo. */
#ifndef GTM_LMSTUDIO_INDEX_H
#define GTM_LMSTUDIO_INDEX_H

#include "identify/app_folders.h"
#include "identify/stores.h"

/* The models under these LM Studio models folders in name order (see
 * stores_installed). */
int lmstudio_list_models(char (*roots)[APP_FOLDER_MAX], int n_roots, struct store_candidate *out, int max,
			 int *n_more);
void lmstudio_index_clear(void);

#endif
