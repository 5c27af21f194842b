#ifndef GTM_MODE_H
#define GTM_MODE_H

#include "core/snapshot.h"

/* Native, container or WSL, from what the root-prefixed /proc and /dev show. */
enum gtm_mode detect_mode(void);

#endif
