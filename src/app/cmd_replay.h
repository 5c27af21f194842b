/* `gputaskman replay PATH --json [--at TIME]`: a recording's moment as the
 * `--json` snapshot. */
#ifndef GTM_CMD_REPLAY_H
#define GTM_CMD_REPLAY_H

int cmd_replay(int argc, char **argv);

#endif
