/* The console is never left in the view's mode: a crash (an unhandled
 * exception, abort) and the console's close, logoff and shutdown events first
 * give the user's screen buffer and input mode back; the process then ends as
 * it would have. Ctrl-C (a key in the view's input mode, or the console's
 * event) and Ctrl-Break end the view like q. The Windows counterpart of
 * backend/curses/crash_guard.c. */
#ifndef GTM_CONSOLE_GUARD_H
#define GTM_CONSOLE_GUARD_H

#include <windows.h>

/* After the view took the console: what to restore, and the event that wakes the UI. */
void console_guard_arm(HANDLE in, DWORD user_in_mode, HANDLE user_out, HANDLE wake);
/* Before the view gives the console back. */
void console_guard_disarm(void);
/* Ends the view like q: CTRL_C_EVENT or CTRL_BREAK_EVENT. */
void console_guard_request_quit(DWORD ctrl);
/* 0, or the exit status a quit request asks for: 130 for Ctrl-C and
 * 128 + SIGBREAK for Ctrl-Break, the shell's convention as on POSIX. */
int console_guard_quit_status(void);

#endif
