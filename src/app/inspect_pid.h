/* `gputaskman inspect PID [--json]`: everything known about one process —
 * command, user, GPU use, runtimes with evidence, category and reason,
 * models with evidence and header identity, and the memory plan from the
 * process's own llama.cpp flags. */
#ifndef GTM_INSPECT_PID_H
#define GTM_INSPECT_PID_H

#include <stdint.h>

/* argv holds the inspect arguments (the PID operand and "inspect" itself are
 * skipped); "--json" selects JSON. Returns 0, or 2 (unknown PID, bad argument)
 * after one line on stderr. */
int inspect_pid_main(uint32_t pid, int argc, char **argv);

#endif
