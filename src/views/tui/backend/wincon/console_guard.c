#include "views/tui/backend/wincon/console_guard.h"

#include <signal.h>

static HANDLE guard_in, guard_out, guard_wake;
static DWORD guard_in_mode;
static volatile LONG armed;
static volatile LONG quit_ctrl = -1;
static LPTOP_LEVEL_EXCEPTION_FILTER previous_filter;

/* Once, from whichever thread gets there first. */
static void restore_console(void)
{
	if (InterlockedExchange(&armed, 0)) {
		SetConsoleActiveScreenBuffer(guard_out);
		SetConsoleMode(guard_in, guard_in_mode);
	}
}

static LONG WINAPI on_exception(EXCEPTION_POINTERS *e)
{
	restore_console();
	return previous_filter ? previous_filter(e) : EXCEPTION_CONTINUE_SEARCH;
}

/* abort() raises SIGABRT in the C runtime before any exception filter runs. */
static void on_abort(int sig)
{
	restore_console();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Runs on a thread the console starts (SetConsoleCtrlHandler). */
static BOOL WINAPI on_console_event(DWORD ev)
{
	if (ev == CTRL_C_EVENT || ev == CTRL_BREAK_EVENT) {
		console_guard_request_quit(ev);
		return TRUE;
	}
	/* close, logoff, shutdown: the process ends when this returns */
	restore_console();
	return FALSE;
}

void console_guard_request_quit(DWORD ctrl)
{
	InterlockedCompareExchange(&quit_ctrl, (LONG)ctrl, -1);
	if (guard_wake)
		SetEvent(guard_wake);
}

int console_guard_quit_status(void)
{
	LONG q = quit_ctrl;
	return q == CTRL_C_EVENT ? 128 + SIGINT : q == CTRL_BREAK_EVENT ? 128 + SIGBREAK : 0;
}

void console_guard_arm(HANDLE in, DWORD user_in_mode, HANDLE user_out, HANDLE wake)
{
	guard_in = in;
	guard_in_mode = user_in_mode;
	guard_out = user_out;
	guard_wake = wake;
	quit_ctrl = -1;
	armed = 1;
	previous_filter = SetUnhandledExceptionFilter(on_exception);
	signal(SIGABRT, on_abort);
	SetConsoleCtrlHandler(on_console_event, TRUE);
}

void console_guard_disarm(void)
{
	armed = 0;
	SetConsoleCtrlHandler(on_console_event, FALSE);
	signal(SIGABRT, SIG_DFL);
	SetUnhandledExceptionFilter(previous_filter);
	guard_wake = NULL;
}
