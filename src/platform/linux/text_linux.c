/* platform/platform_text.h on Linux. */
#include "platform/platform_text.h"

#include <stddef.h>

const char platform_help_usage[] =
	"       gputaskman serve [--listen ADDR:PORT] [-i SECONDS] [--max-processes N] [--no-probe]\n"
	"                        [--record PATH]\n";

const char platform_help_labels[] =
	"N/A means unavailable, never zero. H:<pid> is a host process seen from a\n"
	"container, W:<pid> a Windows process seen from WSL2.\n";

const char platform_help_env[] =
	"  GPUTASKMAN_ROOT     read /proc, /sys, /dev and every file they name (models, logs,\n"
	"                      stores, /etc/passwd) inside this folder, never outside it:\n"
	"                      links are followed within it (replays captured trees);\n"
	"                      a replay probes no local API (its ports are not this machine's)\n"
	"  GPUTASKMAN_ROOT_PROBE=1  probe anyway (a tree copied from live local processes)\n"
	"  GPUTASKMAN_THREADS  threads (1-4) that read /proc in a one-shot or first scan\n"
	"                      (default: as many as the CPUs this process may use)\n"
	"  GPUTASKMAN_PROBE_HTTP=libcurl  probe local APIs through libcurl (default: libevent's\n"
	"                      HTTP client where it is installed, else libcurl)\n"
	"  GPUTASKMAN_WSL_RUN  under WSL2, start the Windows helper as PROGRAM HELPER.exe ARGS\n"
	"                      (Wine, or a replayer of recorded host lines) instead of through\n"
	"                      interop; GPUTASKMAN_WSL_HELPER names the helper .exe (default:\n"
	"                      gputaskman.exe beside this binary), GPUTASKMAN_WSL_CACHE the\n"
	"                      Windows folder it is copied to (default /mnt/c/ProgramData/gputaskman)\n"
	"  NO_COLOR            no colours in the live view\n"
	"  ESCDELAY            milliseconds the live view waits to tell a lone Escape from a key\n"
	"                      sequence (ncurses' variable; default 25)\n";

const char platform_help_examples[] =
	"  gputaskman serve                 Prometheus exporter on 127.0.0.1:19847/metrics\n";

const char platform_uninspectable_why[] = "other users' processes need root";

const char platform_outside_marks[] = ", H:PID host process outside this container";

const char platform_spill_pool[] = "system RAM (GTT)";

const char platform_shared_pool[] = "GPU-accessible system RAM, GTT";

const char platform_help_measured[] =
	"Device memory total/used/free, utilisation, memory activity, temperature, power, clocks, PCIe "
	"(NVML; DRM sysfs for AMD/Intel). Per-process VRAM as the driver charges it (NVML process lists; "
	"DRM fdinfo drm-memory-* for AMD/Intel), spill into system RAM (GTT) where fdinfo splits it, "
	"engine time per process (fdinfo drm-engine-*, NVML process utilisation samples).";

const char platform_help_estimated[] = "";

const char platform_help_unavailable[] = "Per-process spill on NVIDIA (NVML reports none).";

const char *const platform_charts[] = {NULL}; /* every chart */
