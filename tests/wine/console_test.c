/* The console backend (term_console.c), cross-built and run under Wine in a
 * tmux pane (console.sh reads the screen back with capture-pane): colours,
 * box drawing, block glyphs, keys, a resize, a wake-up from another thread,
 * and q ending the program after the console is given back (exit status 0).
 * Draws what it received, so the script can check it; writes its result to
 * the file argv[1]. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

#include "views/tui/term.h"
#include "views/tui/tui_keys.h"
#include "wine_check.h"

static void *wake_later(void *arg)
{
	(void)arg;
	Sleep(300);
	term_wake();
	return NULL;
}

static void draw(int last_key, int last_mouse, int woken)
{
	char line[128];
	int lines, cols;

	term_size(&lines, &cols);
	term_erase();
	term_attr_on(TERM_PAIR(1) | TERM_REVERSE);
	term_hline(0, 0, ' ', cols);
	term_put(0, 0, " gputaskman console test", -1);
	term_attr_off(TERM_PAIR(1) | TERM_REVERSE);
	snprintf(line, sizeof line, "size %dx%d", lines, cols);
	term_put(1, 0, line, -1);
	term_hline(2, 0, TERM_GLYPH_HLINE, 20);
	term_vline(3, 30, TERM_GLYPH_VLINE, 3);
	term_attr_on(TERM_PAIR(2) | TERM_BOLD);
	term_put(3, 0, "blocks \u2581\u2584\u2588 \u00b7 \u00fc", -1);
	term_attr_off(TERM_PAIR(2) | TERM_BOLD);
	snprintf(line, sizeof line, "last key %d mouse %d woken %d", last_key, last_mouse, woken);
	term_put(4, 0, line, -1);
	/* clipped at the right edge, never wrapped */
	term_put(5, cols - 4, "edge-clipped", -1);
	term_refresh();
}

int main(int argc, char **argv)
{
	struct term_info info;
	char why[128];
	int last_key = 0, last_mouse = -1, woken = 0;
	pthread_t t;

	CHECK(term_open(why, sizeof why), "term_open: %s", why);
	if (!term_start(&info)) {
		printf("FAIL term_start: not a console\n");
		return 1;
	}
	term_color_pair(1, TERM_CYAN, TERM_DEFAULT);
	term_color_pair(2, TERM_GREEN, TERM_BLACK);
	if (term_thread_start(&t, wake_later, NULL) != 0)
		return 1;
	for (;;) {
		struct term_event ev;
		int w;
		draw(last_key, last_mouse, woken);
		w = term_wait();
		if (w & (TERM_WAIT_QUIT | TERM_WAIT_HUP))
			break;
		woken += (w & TERM_WAIT_WOKEN) != 0;
		while (term_read(&ev)) {
			if (ev.mouse >= 0)
				last_mouse = ev.mouse;
			else
				last_key = ev.key;
		}
		if (last_key == 'q')
			break;
	}
	term_end();
	pthread_join(t, NULL);
	term_close();
	/* the result goes to a file (argv[1]): stdout is the console under test */
	if (argc > 1 && !freopen(argv[1], "w", stdout))
		return 1;
	printf("restored, info color=%d utf8=%d, exit status %d\n", info.color, info.utf8, term_exit_status());
	return wc_summary("console_test");
}
