/* top_cmd.c — `gcscope top`: the live terminal view of GC behaviour.
 *   gcscope top DB                    browse a database and follow it
 *   gcscope top --session NAME        attach to a live LTTng session
 *   gcscope top -- COMMAND [ARGS]     record COMMAND live and watch it
 * Argument parsing and the screen loop; the model, the sources and the
 * drawing live in their own files (see tui/README in docs/tui.md). */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcs_tui.h"
#include "tui_live.h"
#include "tui_model.h"
#include "tui_source.h"
#include "tui_term.h"
#include "tui_ui.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: gcscope top [options] DB\n"
          "       gcscope top [options] --session NAME\n"
          "       gcscope top [options] -- COMMAND [ARGS...]\n"
          "\n"
          "A live terminal view of GC behaviour: per-process header, every GC (newest\n"
          "first), rollup by generation, pause histogram and heap sparklines.\n"
          "\n"
          "  DB                  a gcscope database (gcscope import); new GCs an import\n"
          "                      adds appear as they are written\n"
          "  --session NAME      attach to the live LTTng session NAME through lttng-relayd\n"
          "  -- COMMAND          run COMMAND in a live LTTng session and watch it\n"
          "  --relayd URL        live relayd URL (default net://127.0.0.1)\n"
          "  --live-timer US     live timer of a session top creates (default 100000 = 100 ms)\n"
          "  --long-pause MS     pauses >= MS are red, >= MS/4 yellow (default 200)\n"
          "  -h, --help          this help\n"
          "\n"
          "Keys: arrows/PgUp/PgDn/Home/End move, Enter detail, s sort, r reverse, g filter,\n"
          "p process, / search (n next), f freeze, Tab panel, ? help, q quit.\n");
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The screen loop: poll the source, draw, handle keys; returns the exit status. */
static int run(struct tui_source *src, double long_pause_ms) {
  struct tui_model *m = tui_model_new();
  if (!m) { fprintf(stderr, "gcscope top: out of memory\n"); src->ops->close(src); return 1; }
  int status = 0;
  char err[600] = "";
  /* First poll before the screen starts, so a bad source fails with a plain line. */
  if (src->ops->poll(src, m) < 0) {
    fprintf(stderr, "gcscope top: %s\n", src->err);
    tui_model_free(m);
    src->ops->close(src);
    return 1;
  }
  if (tui_term_start(err, sizeof err) < 0) {
    fprintf(stderr, "gcscope top: %s\n", err);
    tui_model_free(m);
    src->ops->close(src);
    return 1;
  }
  struct tui_ui ui;
  tui_ui_init(&ui, m, src);
  ui.long_pause_ms = long_pause_ms;
  double next_poll = now_ms() + src->poll_ms;
  int dirty = 1;
  uint64_t drawn_gen = UINT64_MAX;
  double last_draw = 0;
  timeout(50);
  while (!ui.quit) {
    if (tui_term_quit_requested()) break;
    double t = now_ms();
    if (t >= next_poll) {
      int r = src->ops->poll(src, m);
      if (r < 0) { snprintf(err, sizeof err, "%s", src->err); status = 1; break; }
      next_poll = t + src->poll_ms;
    }
    /* Redraw when something changed, and once a second for the status. */
    if (dirty || tui_model_generation(m) != drawn_gen || t - last_draw >= 1000) {
      tui_ui_draw(&ui);
      drawn_gen = tui_model_generation(m);
      last_draw = t;
      dirty = 0;
    }
    int ch = getch();
    if (ch != ERR) {
      tui_ui_key(&ui, ch);
      while ((ch = getch()) != ERR && !ui.quit) tui_ui_key(&ui, ch);   /* drain typed-ahead keys */
      dirty = 1;
    }
  }
  tui_term_stop();
  tui_ui_free(&ui);
  tui_model_free(m);
  src->ops->close(src);
  if (status) fprintf(stderr, "gcscope top: %s\n", err);
  return status;
}

int gcs_cmd_top(int argc, char **argv) {
  const char *db = NULL, *session = NULL, *relayd = NULL;
  long live_timer_us = 100000;
  double long_pause_ms = 200;
  char **command = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
    if (!strcmp(a, "--")) {
      if (i + 1 >= argc) { fprintf(stderr, "gcscope top: '--' needs a command\n"); return 2; }
      command = &argv[i + 1];
      break;
    }
    int has_val = !strcmp(a, "--session") || !strcmp(a, "--relayd") || !strcmp(a, "--live-timer") ||
                  !strcmp(a, "--long-pause");
    if (has_val) {
      if (i + 1 >= argc) { fprintf(stderr, "gcscope top: %s needs a value\n", a); return 2; }
      const char *v = argv[++i];
      char *end;
      if (!strcmp(a, "--session")) session = v;
      else if (!strcmp(a, "--relayd")) relayd = v;
      else if (!strcmp(a, "--live-timer")) {
        errno = 0;
        live_timer_us = strtol(v, &end, 10);
        if (errno || *end || live_timer_us <= 0) {
          fprintf(stderr, "gcscope top: --live-timer wants a positive number of microseconds, not '%s'\n", v);
          return 2;
        }
      } else {
        long_pause_ms = strtod(v, &end);
        if (*end || !(long_pause_ms > 0)) {
          fprintf(stderr, "gcscope top: --long-pause wants a positive number of ms, not '%s'\n", v);
          return 2;
        }
      }
      continue;
    }
    if (a[0] == '-') { fprintf(stderr, "gcscope top: unknown option '%s' (see gcscope top --help)\n", a); return 2; }
    if (db) { fprintf(stderr, "gcscope top: more than one database given ('%s', '%s')\n", db, a); return 2; }
    db = a;
  }
  int nsources = (db != NULL) + (session != NULL) + (command != NULL);
  if (nsources == 0) { usage(stderr); return 2; }
  if (nsources > 1) {
    fprintf(stderr, "gcscope top: give one source: a DB, --session NAME or -- COMMAND\n");
    return 2;
  }
  char err[512] = "";
  struct tui_source *src;
  if (db) src = tui_db_open(db, err, sizeof err);
  else if (session) src = tui_live_attach(session, relayd, err, sizeof err);
  else src = tui_live_run(command, relayd, live_timer_us, err, sizeof err);
  if (!src) { fprintf(stderr, "gcscope top: %s\n", err); return 1; }
  return run(src, long_pause_ms);
}
