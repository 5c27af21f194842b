/* Shared between the files of identify/ (not for other layers). */
#ifndef GTM_IDENT_INTERNAL_H
#define GTM_IDENT_INTERNAL_H

#include <sys/stat.h>

#include "identify/ident.h"

/* A model matching path_or_name (by file identity when st is given, then
 * path, or by name), or NULL. */
struct ident_model *ident_find_model(struct gtm_ident *id, const char *path_or_name, const struct stat *st);
/* Appends a zeroed model (file_size unavailable). The pointer is valid until
 * the next append or sort. */
struct ident_model *ident_new_model(struct gtm_ident *id);
void ident_model_set_evidence(struct ident_model *m, enum model_evidence ev, const char *detail);
void ident_model_clear(struct ident_model *m);
/* Strongest evidence first, stable. */
void ident_sort_models(struct gtm_ident *id);

#endif
