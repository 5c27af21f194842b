/* A process's category (AI, compositor, browser, 3D/game, video, compute,
 * other) from its runtimes, names and GPU load, with the reason kept. */
#ifndef GTM_CATEGORY_H
#define GTM_CATEGORY_H

#include "core/snapshot.h"
#include "identify/ident.h"

/* Sets id->category and id->category_reason; runtimes must be detected first. */
void category_assign(const struct gtm_process *p, struct gtm_ident *id);

#endif
