/* The live view command: the collector on its own thread, the TUI on this one. */
#ifndef GTM_CMD_LIVE_H
#define GTM_CMD_LIVE_H

#include "collect/collector.h"

/* Runs the live view until q; interval_s is the refresh period (-i). With
 * record_path (--record), every snapshot is also appended to that recording. */
int cmd_live(const struct collector_opts *o, double interval_s, const char *record_path);

struct rec_file;
/* The live view over an open recording from snapshot `start` (replay PATH):
 * nothing is collected from this machine. */
int cmd_live_replay(struct rec_file *f, uint64_t start);

#endif
