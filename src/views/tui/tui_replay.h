/* Replay: the live view over a recording (`gputaskman replay PATH`). A
 * steered tui_feed: the collection thread reads, decodes and parses the
 * snapshot under a time cursor (record/rec_seek.h, snapread/snap_model.h)
 * and the history the charts show, ending at the cursor; the UI thread's key
 * hook moves the cursor. Nothing is collected from this machine. */
#ifndef GTM_TUI_REPLAY_H
#define GTM_TUI_REPLAY_H

#include <stdint.h>

#include "record/rec_lookup.h"
#include "views/tui/tui_live.h"

/* Playback speeds (snapshots per second of wall time), + and - step through them. */
#define TUI_REPLAY_SPEEDS {0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128}
#define TUI_REPLAY_SPEED_1X 2

struct tui_replay;

/* A replay of f (kept open by the caller) starting at snapshot `start`;
 * NULL, with why filled, when the OS gives no lock to wait on. */
struct tui_replay *tui_replay_new(struct rec_file *f, uint64_t start, char *why, size_t cap);
void tui_replay_free(struct tui_replay *r);
/* The feed to hand tui_live_run; valid while r lives. */
const struct tui_feed *tui_replay_feed(struct tui_replay *r);

#endif
