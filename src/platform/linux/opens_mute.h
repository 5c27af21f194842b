/* Muting busy folders: a mount mark delivers every open on the mount, and the
 * kernel's copying of each event to the reader is most of --trace-opens' cost.
 * A folder that opens many files, none named like a model, within one drain
 * window (everything queued between two reads) is muted with an ignore mark
 * for a while, then unmuted to be looked at again. The tally and the rule are
 * pure; opens_linux.c places and removes the marks. */
#ifndef GTM_OPENS_MUTE_H
#define GTM_OPENS_MUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fanotify_parse.h"

#define MUTE_MIN_EVENTS 256u  /* non-model opens in one window that make a folder busy */
#define MUTE_DEFAULT_S 30u    /* how long it stays muted before it is looked at again */
#define MUTE_MAX 64u          /* folders muted at once */
#define MUTE_TALLY_MAX 128u   /* folders counted in one window; more are not counted */

/* A folder as fanotify names it: its filesystem's id and its file handle. */
struct mute_key {
	uint8_t fsid[8];
	uint32_t handle_bytes;
	int32_t handle_type;
	uint8_t handle[FAN_PARSE_HANDLE_MAX];
	uint32_t hash;
};

struct mute_count {
	struct mute_key key;
	uint32_t non_model;  /* opens of files not named like a model */
	bool model;          /* a model candidate was opened there */
};

/* One drain window's opens, per folder. */
struct mute_tally {
	struct mute_count v[MUTE_TALLY_MAX];
	size_t n;
};

/* ev (with a DFID_NAME record) into the tally; model: its name is a model's. */
void mute_tally_add(struct mute_tally *t, const struct fan_event *ev, bool model);
bool mute_key_same(const struct mute_key *a, const struct mute_key *b);

/* Whether a folder is muted: busy (>= MUTE_MIN_EVENTS non-model opens in the
 * window), no model candidate there, not a known model folder, and room for
 * one more (n_muted < MUTE_MAX). */
bool mute_rule(uint32_t non_model, bool model_seen, bool known_model_folder, size_t n_muted);

/* Whether path is one of folders (n of them) or inside one. */
bool mute_path_known(const char *path, const char *const *folders, size_t n);

/* The mute time from GPUTASKMAN_TRACE_MUTE_S's value (NULL: the default),
 * in seconds, 1 to 3600. */
unsigned mute_seconds(const char *env);

#endif
