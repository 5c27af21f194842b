/* --host-stream [--interval-ms N]: the Windows helper's mode (docs/wsl.md). */
#ifndef GTM_CMD_HOST_STREAM_H
#define GTM_CMD_HOST_STREAM_H

#include <stdbool.h>

/* Whether argv asks for --host-stream (anywhere: it is a mode, not an option). */
bool cmd_host_stream_asked(int argc, char **argv);
/* Parses --host-stream's command line and runs the platform's host stream.
 * Returns the exit status (2: a bad command line, or not a Windows build). */
int cmd_host_stream(int argc, char **argv);

#endif
