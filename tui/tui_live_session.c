/* tui_live_session.c — daemon, relayd, live session and COMMAND for
 * `gcscope top -- COMMAND` (see tui_live_session.h). */
#include "tui_live_session.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trc_profile.h"

static void sleep_ms(long ms) {
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

static int remove_entry(const char *p, const struct stat *sb, int flag, struct FTW *f) {
  (void)sb; (void)flag; (void)f;
  return remove(p);
}

int tui_lsess_open(struct tui_lsess *s, char **command, long live_timer_us, const char *keep_dir, char *err,
                   size_t errlen) {
  memset(s, 0, sizeof *s);
  if (keep_dir) {
    if (trc_outdir_make(&s->keep, keep_dir, err, errlen) < 0) return -1;
    s->have_keep = 1;
  }
  snprintf(s->name, sizeof s->name, "gcscope-top-%d", (int)getpid());
  if (gethostname(s->host, sizeof s->host) != 0) snprintf(s->host, sizeof s->host, "localhost");
  s->host[sizeof s->host - 1] = '\0';
  /* The child first: it waits on a pipe until tracing runs. Its output would
   * scribble over the screen and it must not read our keys: stdin is
   * /dev/null, stdout/stderr a file. */
  const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(s->out_path, sizeof s->out_path, "%s/gcscope-top-%d.out", tmp, (int)getpid());
  int out = open(s->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out < 0 || in < 0) {
    snprintf(err, errlen, "cannot create %s: %s", s->out_path, strerror(errno));
    if (out >= 0) close(out);
    if (in >= 0) close(in);
    return -1;
  }
  int saved[3] = { dup(0), dup(1), dup(2) };
  dup2(in, 0);
  dup2(out, 1);
  dup2(out, 2);
  int r0 = trc_child_spawn(&s->child, command, 0, err, errlen);
  for (int i = 0; i < 3; i++) if (saved[i] >= 0) { dup2(saved[i], i); close(saved[i]); }
  close(out);
  close(in);
  if (r0 < 0) return -1;
  s->child_pid = s->child.pid;
  if (trc_daemon_ensure(&s->daemon, err, errlen) < 0) return -1;
  /* The live trace: in keep_dir, or a temporary directory removed at close
   * (only a relayd we start writes where we say). */
  if (keep_dir) {
    snprintf(s->trace_dir, sizeof s->trace_dir, "%s", s->keep.path);   /* absolute, resolved */
  } else {
    snprintf(s->trace_dir, sizeof s->trace_dir, "%s/gcscope-top-%d-XXXXXX", tmp, (int)getpid());
    if (!mkdtemp(s->trace_dir)) {
      snprintf(err, errlen, "cannot create a temporary directory in %s: %s", tmp, strerror(errno));
      s->trace_dir[0] = '\0';
      return -1;
    }
    s->trace_is_temp = 1;
  }
  if (trc_relayd_ensure(&s->relayd, s->trace_dir, err, errlen) < 0) return -1;
  if (!s->relayd.pid) {
    /* a relayd already listened: the trace goes to its output directory */
    if (s->trace_is_temp) rmdir(s->trace_dir);
    s->trace_is_temp = 0;
    s->trace_dir[0] = '\0';
  }
  /* The tracer's "gc" profile events (rgc and CoreCLR), and only COMMAND:
   * other traced programs on the machine stay out of the view. */
  const char *names[TRC_MAX_EVENTS];
  struct trc_session_cfg cfg = {
    .name = s->name, .relayd = "net://127.0.0.1", .live_timer_us = (uint64_t)live_timer_us,
    .events = names, .nevents = trc_profile_events(TRC_PROFILE_GC, 1, names), .pid = s->child_pid,
  };
  if (trc_session_create(&cfg, err, errlen) < 0) return -1;
  s->session_created = 1;
  if (trc_session_start(s->name, err, errlen) < 0) return -1;
  if (trc_child_release(&s->child, err, errlen) < 0) { s->child_pid = 0; return -1; }
  s->child_released = 1;
  s->opened = 1;
  return 0;
}

int tui_lsess_child_exited(struct tui_lsess *s) {
  if (!s->child_pid) return 1;
  int st;
  if (waitpid(s->child_pid, &st, WNOHANG) == s->child_pid) {
    s->child_pid = 0;
    s->child_status = st;
    return 1;
  }
  return 0;
}

void tui_lsess_close(struct tui_lsess *s) {
  /* A COMMAND that never ran (no session daemon that answers, for one) wrote
   * no output: its empty file is not left in TMPDIR. */
  if (!s->child_released && s->out_path[0]) unlink(s->out_path);
  if (s->child_pid) {
    /* Never released (open failed) or still running: stop it by its PID. */
    if (!s->child_released) trc_child_abort(&s->child);
    else {
      kill(s->child_pid, SIGTERM);
      for (int i = 0; i < 40 && waitpid(s->child_pid, NULL, WNOHANG) == 0; i++) sleep_ms(50);
      if (waitpid(s->child_pid, NULL, WNOHANG) == 0) { kill(s->child_pid, SIGKILL); waitpid(s->child_pid, NULL, 0); }
    }
    s->child_pid = 0;
  }
  if (s->session_created) {
    /* Best effort, errors ignored: the relayd may already be gone, so the
     * destruction is not waited for more than 5 s. */
    char ignored[256];
    trc_session_stop(s->name, ignored, sizeof ignored);
    trc_session_destroy_wait(s->name, 5000, ignored, sizeof ignored);
    s->session_created = 0;
  }
  trc_relayd_stop(&s->relayd);
  trc_daemon_stop(&s->daemon);
  if (s->have_keep) {
    if (!s->opened) trc_outdir_undo(&s->keep);   /* after the relayd stopped writing there */
    trc_outdir_free(&s->keep);
    s->have_keep = 0;
  }
  if (s->trace_is_temp && s->trace_dir[0]) {
    nftw(s->trace_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);   /* our own mkdtemp directory */
    s->trace_is_temp = 0;
  }
}
