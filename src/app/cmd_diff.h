/* `gputaskman diff BEFORE.json AFTER.json [--json] [--all] [--force]`. */
#ifndef GTM_CMD_DIFF_H
#define GTM_CMD_DIFF_H

/* argv[0] is "diff". Returns 0, or 2 on bad usage or input (one line naming the file). */
int cmd_diff(int argc, char **argv);

#endif
