/* platform/platform_text.h on Windows: no serve (not built here), no
 * /proc or ncurses variables, no containers' host PIDs. */
#include "platform/platform_text.h"

const char platform_help_usage[] = "";

const char platform_help_labels[] = "N/A means unavailable, never zero.\n";

const char platform_help_env[] =
	"  GPUTASKMAN_THREADS  threads (1-4) that read the processes in a one-shot or first scan\n"
	"                      (default: as many as the CPUs this process may use)\n"
	"  NO_COLOR            no colours in the live view\n";

const char platform_help_examples[] = "";

const char platform_uninspectable_why[] =
	"other users' and protected processes need an administrator";

const char platform_outside_marks[] = "";

const char platform_os_name[] = "Windows";
const char platform_spill_pool[] = "shared GPU memory (system RAM)";
