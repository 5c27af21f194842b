/* The live view's input codes: keys besides printable ones, and mouse
 * events. Each terminal backend maps its own values to these (term.h), so
 * neither the state nor the view needs a terminal header. */
#ifndef GTM_TUI_KEYS_H
#define GTM_TUI_KEYS_H

enum tui_key {
	TUI_KEY_UP = 0x101, TUI_KEY_DOWN, TUI_KEY_PGUP, TUI_KEY_PGDN, TUI_KEY_HOME, TUI_KEY_END,
	TUI_KEY_ENTER, TUI_KEY_ESC, TUI_KEY_RESIZE, TUI_KEY_LEFT, TUI_KEY_RIGHT, TUI_KEY_BACKSPACE,
};

/* A mouse event: button 1 press, or wheel up / down. */
enum tui_mouse { TUI_MOUSE_CLICK, TUI_MOUSE_WHEEL_UP, TUI_MOUSE_WHEEL_DOWN };

#endif
