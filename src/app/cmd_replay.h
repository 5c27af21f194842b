/* `gputaskman replay PATH [--at TIME] [--json]`: a recording's moment as the
 * `--json` snapshot, or the live view over the recording. */
#ifndef GTM_CMD_REPLAY_H
#define GTM_CMD_REPLAY_H

int cmd_replay(int argc, char **argv);

#endif
