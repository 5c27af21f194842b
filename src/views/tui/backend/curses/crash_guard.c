#include "views/tui/backend/curses/crash_guard.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "views/tui/backend/curses/curses_names.h"

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};

static struct termios saved_tty;
static bool have_tty;
/* Built before any crash: a handler may only call async-signal-safe functions
 * (write, tcsetattr, raise; signal-safety(7)), so no terminfo look-up there. */
static char restore_seq[256];
static size_t restore_len;
static volatile sig_atomic_t armed;

void crash_guard_save(void)
{
	have_tty = tcgetattr(STDIN_FILENO, &saved_tty) == 0;
}

static void append_cap(const char *name)
{
	char *s = tigetstr(name);
	if (!s || s == (char *)-1)
		return;
	size_t n = strlen(s);
	if (restore_len + n < sizeof restore_seq) {
		memcpy(restore_seq + restore_len, s, n);
		restore_len += n;
	}
}

static void append_text(const char *s)
{
	size_t n = strlen(s);
	if (restore_len + n < sizeof restore_seq) {
		memcpy(restore_seq + restore_len, s, n);
		restore_len += n;
	}
}

static void on_fatal_signal(int sig)
{
	if (armed) {
		armed = 0;
		for (size_t off = 0; off < restore_len;) {
			ssize_t w = write(STDOUT_FILENO, restore_seq + off, restore_len - off);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		if (have_tty)
			tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tty);
	}
	/* SA_RESETHAND put the default action back; SA_NODEFER lets it act now */
	raise(sig);
}

void crash_guard_arm(void)
{
	static char alt_stack[64 * 1024];
	stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack, .ss_flags = 0};
	struct sigaction sa;

	restore_len = 0;
	/* what term_start turned on, turned off: mouse reports (X10, button
	 * motion, any motion, SGR), keypad transmit mode, attributes, the hidden
	 * cursor, and the alternate screen last so the shell's screen comes back */
	append_text("\033[?1000l\033[?1002l\033[?1003l\033[?1006l");
	append_cap("rmkx");
	append_cap("sgr0");
	append_cap("cnorm");
	append_cap("rmcup");
	append_text("\r\n");
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	armed = 1;
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		sigaction(fatal_signals[i], &sa, NULL);
}

void crash_guard_disarm(void)
{
	armed = 0;
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		signal(fatal_signals[i], SIG_DFL);
}
