/* "What can be known about GPU memory?": the help screen's text. What each
 * platform measures is summarised from its driver's documentation and the NVML
 * reference (nvmlDeviceGetComputeRunningProcesses, usedGpuMemory); the OS's
 * own sentences come from its text file (platform/platform_text.h), so
 * Windows speaks of shared GPU memory where Linux speaks of GTT. */
#include <stdio.h>

#include "platform/platform_text.h"
#include "views/tui/tui_inspect.h"

struct help_section {
	const char *title;
	const char *common;                 /* true on every OS; NULL = nothing */
	const char *os;                     /* this OS's words (platform_text.h); NULL or "" = nothing */
	const char *extra[GTM_MODE_WSL + 1]; /* what native, container and WSL add; NULL = nothing */
};

static const struct help_section help_sections[] = {
	{"Measured (driver and OS counters)",
	 NULL, platform_help_measured,
	 {NULL,
	  "In a container the driver reports host PIDs: a row's PID is only local after pairing (see Inferred).",
	  "Under WSL only some device counters come through the Windows driver's NVML in /usr/lib/wsl (GPU "
	  "utilisation can be N/A); per-process memory lives in the Windows host's counters (GPU Process "
	  "Memory: Local and Non Local Usage)."}},
	{"Inferred (owner and identity)",
	 "Runtimes from mapped libraries, the executable and the command line; model files from maps and "
	 "flags; the category (AI, compositor, browser, ...). A mapped model file shows the process holds "
	 "it, not that its weights are on the GPU.",
	 NULL,
	 {NULL,
	  "Which local process owns a host PID: '*' when one explanation fits, '?' when several do, "
	  "H:<pid> when no local process matches (or the host PID is in the graphics list only); "
	  "*x<pid> / ?x<pid> when the paired process (or a local one the driver listed by its own PID) exited "
	  "while the driver still lists the PID.",
	  "Which Linux process owns a Windows GPU context: '*' certain, '?' guessed; W:<pid> rows are "
	  "Windows processes."}},
	{"Reported and estimated (inside a model server)",
	 "Reported: what a runtime says about itself - llama.cpp's load log (model/KV/compute buffer "
	 "sizes), local APIs on loopback (ollama /api/ps). Estimated: weights, KV cache and compute from "
	 "the GGUF header and the server's flags. Neither is ever added into measured totals; the rest of "
	 "a process's measured VRAM is shown as runtime overhead/unknown.",
	 platform_help_estimated,
	 {NULL, NULL, NULL}},
	{"Unavailable",
	 "How a CUDA context's memory divides into weights, KV cache, activations and allocator cache "
	 "unless the runtime reports it; memory freed into an allocator's cache still counts as used.",
	 platform_help_unavailable,
	 {NULL,
	  "Details of processes outside this PID namespace (H: rows): command line, maps and models.",
	  "Per-process NVML lists (empty under WSL); Windows processes' command lines and maps."}},
	{"Would need a debugger or profiler",
	 "Each allocation and which tensor it holds (cuda-gdb, Nsight Systems, CUPTI or a hook inside the "
	 "process); what a kernel is running now; fragmentation inside the allocator.",
	 NULL,
	 {NULL, NULL, NULL}},
};

static const char *const help_keys[] = {
	"Up/Down, j/k  select a process (the inspector follows)",
	"Home/End      first / last process",
	"s             sort: VRAM, GPU %, spill, paged, name",
	"c             charts: all, or one at a time;  m  Charts menu (or click it)",
	"a             top GPU processes / all collected processes",
	"p             pause / resume collection (values freeze)",
	"PgUp/PgDn     scroll the inspector;  [ ]  scroll the dashboard",
	"?             this help;  Escape closes it",
	"q             quit",
	/* one entry: clang's -Wstring-concatenation wants the two halves in parentheses */
	("Markers: *PID owner matched, ?PID guessed, *xPID/?xPID exited, H:PID host-only, W:PID Windows. "
	 "N/A is not zero."),
};

static const char *const *feed_keys;
static size_t n_feed_keys;

void tui_help_set_feed_keys(const char *const *keys, size_t n)
{
	feed_keys = keys;
	n_feed_keys = keys ? n : 0;
}

void tui_help_build(struct tui_text *t, const struct gtm_snapshot *s)
{
	int mode = s && s->mode <= GTM_MODE_WSL ? (int)s->mode : GTM_MODE_NATIVE;

	tui_text_reset(t, t->width);
	tui_text_add(t, TUI_ST_HEAD, 0, "What can be known about GPU memory?  (this platform: %s)", gtm_mode_name((enum gtm_mode)mode));
	tui_text_add(t, TUI_ST_DIM, 0, "Escape closes this page.");
	for (size_t i = 0; i < sizeof help_sections / sizeof help_sections[0]; i++) {
		const struct help_section *h = &help_sections[i];
		tui_text_add(t, TUI_ST_TEXT, 0, "%s", "");
		tui_text_add(t, TUI_ST_HEAD, 0, "%s", h->title);
		if (h->common)
			tui_text_add(t, TUI_ST_TEXT, 2, "  %s", h->common);
		if (h->os && *h->os)
			tui_text_add(t, TUI_ST_TEXT, 2, "  %s", h->os);
		if (h->extra[mode])
			tui_text_add(t, TUI_ST_TEXT, 2, "  %s", h->extra[mode]);
	}
	if (s && s->n_sources) {
		tui_text_add(t, TUI_ST_TEXT, 0, "%s", "");
		tui_text_add(t, TUI_ST_HEAD, 0, "Sources on this machine");
		for (int i = 0; i < s->n_sources; i++)
			tui_text_add(t, TUI_ST_TEXT, 4, "  %-6s %s  %s", s->sources[i].name,
				     s->sources[i].available ? "available" : "unavailable", s->sources[i].message);
	}
	if (s) {
		tui_text_add(t, TUI_ST_TEXT, 0, "%s", "");
		tui_text_add(t, TUI_ST_HEAD, 0, "This snapshot");
		tui_text_add(t, TUI_ST_TEXT, 4, "  %d processes seen at the last count of /proc, %d not inspectable (%s)%s",
			     s->n_procs_total, s->n_procs_uninspectable, platform_uninspectable_why,
			     s->partial_scan ? "; the scan budget cut this refresh short, the rest follows" : "");
		for (int i = 0; i < s->n_notes; i++)
			tui_text_add(t, TUI_ST_TEXT, 4, "  - %s", s->notes[i]);
	}
	tui_text_add(t, TUI_ST_TEXT, 0, "%s", "");
	tui_text_add(t, TUI_ST_HEAD, 0, "Keys");
	for (size_t i = 0; i < n_feed_keys; i++)
		tui_text_add(t, TUI_ST_KEY, 16, "  %s", feed_keys[i]);
	for (size_t i = 0; i < sizeof help_keys / sizeof help_keys[0]; i++)
		tui_text_add(t, TUI_ST_KEY, 16, "  %s", help_keys[i]);
}
