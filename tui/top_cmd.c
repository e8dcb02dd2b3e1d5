/* top_cmd.c — `gcscope top`: the live terminal view of GC behaviour.
 *   gcscope top DB                    browse a database and follow it
 *   gcscope top --session NAME        attach to a live LTTng session
 *   gcscope top -- COMMAND [ARGS]     record COMMAND live and watch it
 *   gcscope top --dotnet -- COMMAND   a .NET COMMAND over EventPipe
 *   gcscope top --pid PID             a running .NET process over EventPipe
 * Argument parsing and the screen loop; the model, the sources and the
 * drawing live in their own files (see tui/README in docs/tui.md). */
#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcs_cli.h"
#include "gcs_dsipc.h"
#include "gcs_nettrace.h"
#include "gcs_tui.h"
#include "trc_child.h"
#include "trc_lttng.h"
#include "tui_ep.h"
#include "tui_live.h"
#include "tui_model.h"
#include "tui_source.h"
#include "tui_term.h"
#include "tui_ui.h"

enum { O_SESSION, O_RELAYD, O_LIVE_TIMER, O_LONG_PAUSE, O_DOTNET, O_PID, O_OUTPUT, O_REQUESTS };

static const struct gcs_cli_opt top_opts[] = {
  [O_SESSION] = { "session", 0, GCS_CLI_STRING, 0, 0, "NAME", "attach to the live LTTng session NAME through lttng-relayd" },
  [O_RELAYD] = { "relayd", 0, GCS_CLI_STRING, 0, 0, "URL", "live relayd URL (default net://127.0.0.1)" },
  [O_LIVE_TIMER] = { "live-timer", 0, GCS_CLI_INT, 1, 2147483647.0, "US",
                     "live timer of a session top creates (default 100000 = 100 ms)" },
  [O_LONG_PAUSE] = { "long-pause", 0, GCS_CLI_DOUBLE, 0, INFINITY, "MS", "pauses >= MS are red, >= MS/4 yellow (default 200)" },
  [O_DOTNET] = { "dotnet", 0, GCS_CLI_FLAG, 0, 0, NULL,
                 "-- COMMAND is a .NET program: watch it over EventPipe (its diagnostics socket)" },
  [O_PID] = { "pid", 'p', GCS_CLI_INT, 1, 2147483647.0, "PID", "watch the running .NET process PID over EventPipe" },
  [O_OUTPUT] = { "output", 'o', GCS_CLI_STRING, 0, 0, "DIR",
                 "keep the live trace in DIR (-- COMMAND: the CTF trace the relayd writes;\n"
                 "--dotnet/--pid: DIR/trace.nettrace); default: a temporary directory removed on exit" },
  [O_REQUESTS] = { "requests", 0, GCS_CLI_STRING, 0, 0, "R",
                   "also requests (as record's): rate and p99" },
  { 0 },
};

static const struct gcs_cli_spec top_spec = {
  .cmd = "top",
  .usage = "[options] DB\n[options] --session NAME\n[options] -- COMMAND [ARGS...]\n"
           "[options] --dotnet -- COMMAND [ARGS...]\n[options] --pid PID",
  .about = "A live terminal view of GC behaviour: per-process header, sparklines of the\n"
           "heap after GC and of the time paused over the last 60 s, every GC (newest first),\n"
           "rollup by generation, pause histogram.\n"
           "\n"
           "  DB          a gcscope database (gcscope import); new GCs an import adds\n"
           "              appear as they are written\n"
           "  -- COMMAND  run COMMAND in a live LTTng session and watch it\n"
           "  --dotnet -- COMMAND, --pid PID\n"
           "              a .NET process over EventPipe: the gc profile's events, shown\n"
           "              within about a second (no LTTng, no .NET SDK tool needed)",
  .opts = top_opts,
  .epilog = "Keys: arrows/PgUp/PgDn/Home/End move, Enter detail, s sort menu, S next sort\n"
            "column, r reverse, g filter, p process, / search (n next), f freeze, Tab panel,\n"
            "w sparkline window, ? help, q quit.\n",
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The screen loop: poll the source, draw, handle keys; returns the exit status. */
static int run(struct tui_source *src, double long_pause_ms) {
  struct tui_model *m = tui_model_new();
  if (!m) { fprintf(stderr, "gcscope top: out of memory\n"); src->ops->close(src); return 1; }
  tui_model_set_max_gcs(m, src->max_gcs);
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
  /* A source still loading (a large database) is polled again right after
   * the first frame, not a poll period later. */
  double next_poll = src->loading ? now_ms() : now_ms() + src->poll_ms;
  /* The first frame at once, with what the first poll read (a source still
   * loading says so on it), before the loop's next poll. */
  tui_ui_draw(&ui);
  int dirty = 0;
  uint64_t drawn_gen = tui_model_generation(m);
  double last_draw = now_ms();
  while (!ui.quit) {
    if (tui_term_quit_requested()) break;
    double t = now_ms();
    if (t >= next_poll) {
      int r = src->ops->poll(src, m);
      if (r < 0) { snprintf(err, sizeof err, "%s", src->err); status = 1; break; }
      next_poll = src->loading ? t : t + src->poll_ms;
    }
    /* Redraw when something changed, and once a second for the status. */
    if (dirty || tui_model_generation(m) != drawn_gen || t - last_draw >= 1000) {
      tui_ui_draw(&ui);
      drawn_gen = tui_model_generation(m);
      last_draw = t;
      dirty = 0;
    }
    /* Block for a key until the next poll or the status redraw is due: a key
     * is taken at once, and nothing wakes the loop in between (it woke every
     * 50 ms before; a signal's quit request waits at most a poll period). */
    double wake = next_poll < last_draw + 1000 ? next_poll : last_draw + 1000;
    double left = wake - now_ms();
    timeout(left <= 0 ? 0 : left >= 1000 ? 1000 : (int)left + 1);
    int ch = getch();
    if (ch != ERR) {
      timeout(0);
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
  else if (trc_ctl_hung()) {
    /* the session daemon did not answer the session's stop or destruction */
    fprintf(stderr, "gcscope top: %s\n", trc_ctl_hung());
    status = 1;
  }
  return status;
}

int gcs_cmd_top(int argc, char **argv) {
  const char *db = NULL, *session = NULL, *relayd = NULL, *keep = NULL;
  int dotnet = 0;
  pid_t pid = 0;
  long live_timer_us = 100000;
  double long_pause_ms = 200;
  char **command = NULL;
  struct gcs_nettrace_reqspec req[GCS_NETTRACE_MAX_REQSPECS];
  int nreq = 0;
  /* Options end at "--": what follows is the COMMAND, whatever its options. */
  int nargs = argc;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--")) {
      if (i + 1 >= argc) return gcs_cli_error("top", "'--' needs a command");
      command = &argv[i + 1];
      nargs = i;
      break;
    }
  struct gcs_cli p;
  gcs_cli_init(&p, &top_spec, nargs, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&top_spec, stdout); return 0; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
    if (k == O_SESSION) session = p.value;
    else if (k == O_RELAYD) relayd = p.value;
    else if (k == O_LIVE_TIMER) live_timer_us = (long)p.ival;
    else if (k == O_DOTNET) dotnet = 1;
    else if (k == O_PID) pid = (pid_t)p.ival;
    else if (k == O_OUTPUT) keep = p.value;
    else if (k == O_REQUESTS) {
      char rerr[300];
      if (nreq >= GCS_NETTRACE_MAX_REQSPECS) return gcs_cli_fail("--requests: at most %d pairs", GCS_NETTRACE_MAX_REQSPECS);
      if (gcs_nettrace_reqspec_parse(p.value, &req[nreq], rerr, sizeof rerr)) return gcs_cli_fail("--requests %s", rerr);
      nreq++;
    }
    else if (k == O_LONG_PAUSE) {
      if (!(p.dval > 0)) return gcs_cli_fail("--long-pause wants a positive number of ms, not '%s'", p.value);
      long_pause_ms = p.dval;
    }
  }
  for (int i = p.optind; i < nargs; i++) {
    if (db) return gcs_cli_fail("more than one database given ('%s', '%s')", db, argv[i]);
    db = argv[i];
  }
  int nsources = (db != NULL) + (session != NULL) + (command != NULL) + (pid != 0);
  if (nsources == 0) { gcs_cli_usage(&top_spec, stderr); return GCS_CLI_USAGE_STATUS; }
  if (nsources > 1) return gcs_cli_fail("give one source: a DB, --session NAME, --pid PID or -- COMMAND");
  if (dotnet && !command && !pid) return gcs_cli_fail("--dotnet needs -- COMMAND or --pid PID");
  /* `top -- dotnet app.dll` (or an app host): EventPipe, as record does */
  if (command && !dotnet && !relayd && trc_child_is_dotnet(command[0])) dotnet = 1;
  int eventpipe = pid || (dotnet && command);
  if (keep && !eventpipe && !command) return gcs_cli_fail("-o is for -- COMMAND and --pid PID");
  if (eventpipe && relayd) return gcs_cli_fail("--relayd is for LTTng sources, not EventPipe");
  if (nreq && !eventpipe) return gcs_cli_fail("--requests is for .NET sources (--dotnet -- COMMAND, --pid PID)");
  if (pid && kill(pid, 0) != 0 && errno == ESRCH) {
    fprintf(stderr, "gcscope top: no process %d\n", (int)pid);
    return 1;
  }
  if (pid && !gcs_dsipc_has_socket(pid)) {
    fprintf(stderr, "gcscope top: process %d has no .NET diagnostic socket in %s (not a .NET process, or "
                    "DOTNET_EnableDiagnostics=0; `gcscope ps` lists those it can watch)\n",
            (int)pid, gcs_dsipc_socket_dir());
    return 1;
  }
  char err[512] = "";
  struct tui_source *src;
  if (db) src = tui_db_open(db, err, sizeof err);
  else if (eventpipe) src = tui_ep_open(command, pid, keep, req, nreq, err, sizeof err);
  else if (session) src = tui_live_attach(session, relayd, err, sizeof err);
  else src = tui_live_run(command, relayd, live_timer_us, keep, err, sizeof err);
  if (!src) { fprintf(stderr, "gcscope top: %s\n", err); return 1; }
  return run(src, long_pause_ms);
}
