/* platform/platform_text.h on macOS: no serve (not built here yet), no
 * container or WSL rows, and one memory pool shared by the CPU and the GPU. */
#include "platform/platform_text.h"

#include <stddef.h>

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

const char platform_shared_pool[] = "unified memory, the system RAM Apple GPUs share with the CPU";

const char platform_help_measured[] =
	"GPU memory in the header: the IOAccelerator's Alloc system memory out of physical RAM (In use "
	"system memory beside it); GPU % from its Device Utilization %. Per process: GPU time from each "
	"Metal client's accumulated GPU time, summed per process; memory as the process's graphics "
	"footprint (your own processes; root: all).";

const char platform_help_estimated[] = "";

const char platform_help_unavailable[] =
	"VRAM, spill and paged memory (Apple GPUs share one memory pool with the CPU); 3D, compute, copy "
	"and video loads (Metal gives one GPU time per process); other users' processes' memory "
	"without root. llama.cpp's Metal buffers are not in the graphics footprint: its own log lines "
	"give the breakdown.";

/* Metal gives one GPU time, and IOKit no clocks, temperature, power or codec load */
const char *const platform_charts[] = {"gpu", "vram", NULL};
