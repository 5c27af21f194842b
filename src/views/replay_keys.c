#include "views/replay_keys.h"

#include "core/util.h"

const char *const replay_keys[] = {
	"Space, p      replay: play / pause",
	"Left/Right    replay: one snapshot back / on",
	"[ ]           replay: one minute back / on (the dashboard scrolls with the wheel)",
	"g             replay: go to a time (2026-12-01T03:12:00Z or HH:MM[:SS]); Enter, Escape",
	"+ -           replay: playback speed (snapshots per second)",
	"n             replay: next big VRAM change (a sharp rise, or a process gone from a nearly full GPU)",
};
const size_t replay_n_keys = ARRAY_LEN(replay_keys);
