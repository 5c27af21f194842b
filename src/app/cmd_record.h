/* `gputaskman record`: headless, a snapshot per interval into a recording. */
#ifndef GTM_CMD_RECORD_H
#define GTM_CMD_RECORD_H

int cmd_record(int argc, char **argv);

#endif
