/*
 * tui_term.h — the terminal's lifetime for `gcscope top`: start ncurses and
 * make sure the terminal is restored whatever happens — normal exit, error
 * paths, exit(), SIGINT/SIGTERM/SIGHUP (turned into a quit request the
 * screen loop sees within one tick) and crashes (SIGSEGV/SIGABRT/SIGBUS/
 * SIGFPE restore the saved tty modes with async-signal-safe calls, then die
 * as they would have).
 * Threading: main thread only. Errors: tui_term_start returns -1 when the
 * output is not a usable terminal (message in err).
 */
#ifndef TUI_TERM_H
#define TUI_TERM_H

#include <signal.h>
#include <stddef.h>

int tui_term_start(char *err, size_t errlen);
void tui_term_stop(void);              /* idempotent; registered with atexit */
int tui_term_quit_requested(void);     /* a SIGINT/SIGTERM/SIGHUP arrived */
int tui_term_has_colors(void);
int tui_term_utf8(void);               /* the locale's charset is UTF-8 */

/* Colour pairs set up by tui_term_start. */
enum { TUI_PAIR_WARN = 1, TUI_PAIR_LONG, TUI_PAIR_TITLE, TUI_PAIR_DIM, TUI_PAIR_OK };

#endif /* TUI_TERM_H */
