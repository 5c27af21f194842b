/* platform/platform_text.h on macOS: no serve (not built here yet), no
 * container or WSL rows, and one memory pool shared by the CPU and the GPU. */
#include "platform/platform_text.h"

const char platform_help_usage[] = "";

const char platform_help_labels[] = "N/A means unavailable, never zero.\n";

const char platform_help_env[] =
	"  GPUTASKMAN_PROBE_HTTP=libcurl  probe local APIs through libcurl\n"
	"  NO_COLOR            no colours in the live view\n"
	"  ESCDELAY            milliseconds the live view waits to tell a lone Escape from a key\n"
	"                      sequence (ncurses' variable; default 25)\n";

const char platform_help_examples[] = "";

const char platform_uninspectable_why[] = "other users' processes need root";

const char platform_outside_marks[] = "";

const char platform_os_name[] = "macOS";
const char platform_spill_pool[] = "system RAM (unified memory: Apple GPUs have no separate VRAM)";
