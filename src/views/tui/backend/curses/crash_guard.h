/* The terminal is never left in curses mode: a fatal signal (SIGSEGV, SIGBUS,
 * SIGABRT, SIGFPE, SIGILL) first restores it, then the process dies of that
 * signal as it would have. SIGINT, SIGTERM and SIGHUP end the view through its
 * normal path (term_curses.c); SIGTERM and SIGHUP are re-raised there after endwin. */
#ifndef GTM_CRASH_GUARD_H
#define GTM_CRASH_GUARD_H

/* Before curses touches the terminal: the modes to restore. */
void crash_guard_save(void);
/* After curses set the terminal up: builds the restore sequence from terminfo
 * and installs the handlers (on an alternate stack, so a stack overflow is
 * caught too). */
void crash_guard_arm(void);
/* Before endwin: the default actions again. */
void crash_guard_disarm(void);

#endif
