/* The keys of the live view over a recording (replay PATH) and what they
 * do: its help page and `replay --help` list them. */
#ifndef GTM_VIEWS_REPLAY_KEYS_H
#define GTM_VIEWS_REPLAY_KEYS_H

#include <stddef.h>

extern const char *const replay_keys[];
extern const size_t replay_n_keys;

#endif
