/* tui_term.c — start/stop ncurses and restore the terminal on every exit path
 * (see tui_term.h). */
#include "tui_term.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static volatile sig_atomic_t quit_flag;
static volatile sig_atomic_t active;
static struct termios saved_tty;
static int have_saved_tty;
static int colors;
static int utf8;

static void on_quit_signal(int sig) {
  (void)sig;
  quit_flag = 1;
}

/* A crash: put the tty back (tcsetattr and write are async-signal-safe),
 * leave the alternate screen, show the cursor, then die by the same signal. */
static void on_fatal_signal(int sig) {
  if (active) {
    if (have_saved_tty) tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
    static const char reset[] = "\033[0m\033[?1049l\033[?25h\r\n";
    ssize_t w = write(STDOUT_FILENO, reset, sizeof reset - 1);
    (void)w;
    active = 0;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void tui_term_stop(void) {
  if (!active) return;
  active = 0;
  curs_set(1);
  endwin();
}

int tui_term_quit_requested(void) { return quit_flag != 0; }
int tui_term_has_colors(void) { return colors; }
int tui_term_utf8(void) { return utf8; }

int tui_term_start(char *err, size_t errlen) {
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    snprintf(err, errlen, "needs a terminal (stdin and stdout must be a tty)");
    return -1;
  }
  setlocale(LC_ALL, "");
  utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
  have_saved_tty = tcgetattr(STDIN_FILENO, &saved_tty) == 0;
  /* newterm instead of initscr: initscr exits the process on failure. */
  SCREEN *scr = newterm(NULL, stdout, stdin);
  if (!scr) {
    snprintf(err, errlen, "cannot use terminal type '%s'", getenv("TERM") ? getenv("TERM") : "(unset)");
    return -1;
  }
  set_term(scr);
  active = 1;
  static int registered;
  if (!registered) { atexit(tui_term_stop); registered = 1; }

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_quit_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sa.sa_handler = on_fatal_signal;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  sigaction(SIGFPE, &sa, NULL);
  sigaction(SIGABRT, &sa, NULL);

  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  curs_set(0);
  set_escdelay(25);
  colors = has_colors();
  if (colors) {
    start_color();
    use_default_colors();
    init_pair(TUI_PAIR_WARN, COLOR_YELLOW, -1);
    init_pair(TUI_PAIR_LONG, COLOR_RED, -1);
    init_pair(TUI_PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
    init_pair(TUI_PAIR_DIM, COLOR_BLUE, -1);
    init_pair(TUI_PAIR_OK, COLOR_GREEN, -1);
  }
  return 0;
}
