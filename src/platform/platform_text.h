/* The words of the help and of messages that differ between OSes, one file
 * per OS folder (platform/linux/text_linux.c, platform/windows/text_windows.c):
 * each platform's --help and messages name its own terms (no serve where it is
 * not built, no /proc or ncurses variable on Windows, "administrator" where
 * Linux says "root", Windows's shared GPU memory where Linux's is GTT). */
#ifndef GTM_PLATFORM_TEXT_H
#define GTM_PLATFORM_TEXT_H

/* --help: the usage lines of the commands only this OS has ("" for none). */
extern const char platform_help_usage[];
/* --help: what the row labels mean (H:, W:). */
extern const char platform_help_labels[];
/* --help: the Environment section, after its heading. */
extern const char platform_help_env[];
/* --help: examples of the commands only this OS has ("" for none). */
extern const char platform_help_examples[];
/* Why a process is not inspectable: "other users' processes need root". */
extern const char platform_uninspectable_why[];
/* The text snapshot's legend for rows from outside this system's processes
 * (", H:PID host process outside this container"; "" where there are none). */
extern const char platform_outside_marks[];
/* The OS's name in messages ("macOS", "Windows"; Linux names none). */
extern const char platform_os_name[];
/* What spill is in this OS's words: "system RAM (GTT)". */
extern const char platform_spill_pool[];
/* The shared pool in the exporter's HELP lines: "GPU-accessible system RAM, GTT". */
extern const char platform_shared_pool[];
/* The live view's help screen ("What can be known about GPU memory?"): what
 * this OS's drivers and counters measure, what it estimates ("" for nothing
 * of its own), and what it cannot give; the OS-neutral sentences stay in
 * views/tui/tui_help.c. */
extern const char platform_help_measured[];
extern const char platform_help_estimated[];
extern const char platform_help_unavailable[];
/* The live view's charts this OS can fill, by name ("gpu", "smclk", "vram",
 * "memact", "temp", "power", "enc", "dec"), NULL-ended; empty (only NULL):
 * all of them. macOS has one GPU time and one memory pool: GPU and memory. */
extern const char *const platform_charts[];

#endif
