/* platform/platform_text.h on Windows: no serve (not built here), no
 * /proc or ncurses variables, no containers' host PIDs. */
#include "platform/platform_text.h"

#include <stddef.h>

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

const char platform_shared_pool[] = "shared GPU memory, the system RAM the GPU reaches";

const char platform_help_measured[] =
	"Device memory as Task Manager shows it: dedicated GPU memory (GPU Adapter Memory's Dedicated "
	"Usage) and shared GPU memory (Shared Usage); utilisation, temperature, power and clocks from "
	"the NVIDIA (NVML) and AMD (ADL) drivers where installed. Per process, PDH's GPU Process Memory: "
	"VRAM = Local Usage (dedicated GPU memory), spill = Non Local Usage (shared GPU memory, the "
	"system RAM the GPU reaches), and GPU Engine running time per engine type, GPU % being the "
	"busiest engine, as Task Manager shows it.";

const char platform_help_estimated[] = "Paged (~) is estimated: Total Committed - Local - Non Local Usage.";

const char platform_help_unavailable[] =
	"The counters of processes PDH does not list; other users' and protected processes' command "
	"lines and modules without an administrator.";

const char *const platform_charts[] = {NULL}; /* every chart */
