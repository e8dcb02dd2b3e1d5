/* tui_ep.c — `gcscope top --dotnet` over EventPipe (tui_ep.h). */
#include "tui_ep.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gcs_nettrace.h"
#include "trc_ep_session.h"
#include "trc_outdir.h"
#include "tui_feed.h"

#define LIVE_LAG_NS 500000000ull   /* the runtime flushes every ~100 ms; threads' blocks interleave */
/* -o DIR keeps at most this much of the stream (record's default --max-size):
 * a peer on the diagnostics socket cannot fill the disk through a live view. */
#define TUI_KEEP_MAX 1000000000ull
#define READ_SLICE_MS 40           /* at most this long reading per poll: keys stay responsive */

struct tui_ep {
  struct tui_source base;
  struct trc_ep_session s;
  struct tui_feed *feed;
  struct gcs_nettrace_stream *ns;
  int keep_fd;                     /* -o DIR: the stream as received */
  struct trc_outdir keep;          /* -o DIR, made (or refused) by gcs_session's one rule */
  int have_keep, started;          /* keep made; the session started (else close undoes keep) */
  uint64_t kept;                   /* bytes written there; at most TUI_KEEP_MAX */
  char keep_path[PATH_MAX + 32];
  char out_path[PATH_MAX];         /* COMMAND's output */
  char procname[64];
  int ended, failed, child_noted;
  double last_bytes_ms;            /* when the stream last brought bytes (monotonic) */
  int idle_flushed;                /* the pending events were delivered since */
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int on_event(const struct gcs_event *ev, void *ud) {
  struct tui_ep *e = ud;
  if (ev->ts_ns > e->base.last_event_ns) e->base.last_event_ns = ev->ts_ns;
  tui_feed_event(e->feed, ev, e->procname);
  return 0;
}

/* A capture thread's sequence gap, with its window (gcs_nettrace_lost). */
static int on_lost(const struct gcs_nettrace_lost *l, void *ud) {
  tui_feed_lost(((struct tui_ep *)ud)->feed, l->begin_ns, l->end_ns, l->count);
  return 0;
}

static void end_stream(struct tui_ep *e, const char *why) {
  char err[512];
  e->ended = 1;
  int cut = gcs_nettrace_stream_finish(e->ns, err, sizeof err);
  tui_feed_finish(e->feed);
  if (cut > 0) snprintf(e->base.note, sizeof e->base.note, "%s; the stream was cut inside a block; q quits", why);
  else snprintf(e->base.note, sizeof e->base.note, "%s; q quits", why);
}

static int keep_bytes(struct tui_ep *e, const uint8_t *buf, size_t n) {
  int full = e->kept + n >= TUI_KEEP_MAX;
  if (full) n = (size_t)(TUI_KEEP_MAX - e->kept);
  e->kept += n;
  for (size_t off = 0; off < n;) {
    ssize_t w = write(e->keep_fd, buf + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      snprintf(e->base.err, sizeof e->base.err, "writing %.300s: %s", e->keep_path, strerror(errno));
      return -1;
    }
    off += (size_t)w;
  }
  if (full) {   /* the file ends there, cut like a killed recording; the view goes on */
    close(e->keep_fd);
    e->keep_fd = -1;
    snprintf(e->base.note, sizeof e->base.note, "stream kept in %.60s up to %.0f MB (the limit)",
             e->keep_path, (double)TUI_KEEP_MAX / 1e6);
  }
  return 0;
}

static void note_child(struct tui_ep *e) {
  if (!e->s.launch || e->child_noted || !e->s.child_done) return;
  e->child_noted = 1;
  int st = e->s.child_status;
  snprintf(e->base.note, sizeof e->base.note, "command exited (%s %d, output in %.60s); q quits",
           WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), e->out_path);
}

static int ep_poll(struct tui_source *src, struct tui_model *m) {
  struct tui_ep *e = (struct tui_ep *)src;
  tui_feed_set_model(e->feed, m);
  trc_ep_serve(&e->s);
  if (e->ended || e->failed) { note_child(e); return tui_feed_take_changed(e->feed); }
  static uint8_t buf[1 << 16];
  double t0 = now_ms();
  while (now_ms() - t0 < READ_SLICE_MS) {
    char err[512];
    long got = trc_ep_read(&e->s, buf, sizeof buf, 0, err, sizeof err);
    if (got == 0) break;
    if (got == TRC_EP_EOF) {
      end_stream(e, e->s.stopped ? "the session ended" : "the process ended the stream");
      break;
    }
    if (got < 0) { snprintf(src->err, sizeof src->err, "%s", err); e->failed = 1; return -1; }
    if (e->keep_fd >= 0 && keep_bytes(e, buf, (size_t)got)) { e->failed = 1; return -1; }
    if (gcs_nettrace_stream_feed(e->ns, buf, (size_t)got, err, sizeof err)) {
      snprintf(src->err, sizeof src->err, "%s", err);
      e->failed = 1;
      return -1;
    }
    e->last_bytes_ms = now_ms();
  }
  /* Quiet for the ordering lag: what is pending is all there is (an idle
   * runtime sends nothing newer to push it out). */
  if (!e->ended && !e->idle_flushed && now_ms() - e->last_bytes_ms >= LIVE_LAG_NS / 1e6) {
    char err[512];
    if (gcs_nettrace_stream_idle(e->ns, err, sizeof err)) {
      snprintf(src->err, sizeof src->err, "%s", err);
      e->failed = 1;
      return -1;
    }
    e->idle_flushed = 1;
  } else if (now_ms() - e->last_bytes_ms < LIVE_LAG_NS / 1e6) {
    e->idle_flushed = 0;
  }
  if (!e->ended && !e->s.launch && trc_ep_target_gone(&e->s)) end_stream(e, "the process exited");
  note_child(e);
  const struct gcs_nettrace_info *info = gcs_nettrace_stream_info(e->ns);
  /* Each loss has a window (docs/import.md, "Which GCs a loss marks"):
   * the GCs whose events span it, done or open, are marked. */
  if (info && info->events_lost && !src->note[0])
    snprintf(src->note, sizeof src->note, "%llu events lost: GCs whose events span a loss are incomplete",
             (unsigned long long)info->events_lost);
  return tui_feed_take_changed(e->feed);
}

static long ep_gc_events(struct tui_source *src, struct tui_gc *gc, struct tui_evline **out) {
  return tui_feed_gc_events(((struct tui_ep *)src)->feed, gc, out);
}

static void ep_close(struct tui_source *src) {
  struct tui_ep *e = (struct tui_ep *)src;
  if (!e->ended && e->s.stream_fd >= 0) {
    char ignored[512];
    trc_ep_stop(&e->s, ignored, sizeof ignored);
  }
  if (e->s.launch) trc_ep_kill_child(&e->s, 2000);
  trc_ep_close(&e->s);
  if (e->keep_fd >= 0) close(e->keep_fd);
  if (e->have_keep) {
    if (!e->started) trc_outdir_undo(&e->keep);   /* a failed start: what it made holds no byte */
    trc_outdir_free(&e->keep);
  }
  gcs_nettrace_stream_free(e->ns);
  tui_feed_free(e->feed);
  free(e);
}

static const struct tui_source_ops ep_ops = { ep_poll, ep_gc_events, ep_close };

/* COMMAND's stdout/stderr: a file (it would scribble over the screen); stdin /dev/null. */
static int open_child_io(struct tui_ep *e, int *out, int *in, char *err, size_t errlen) {
  const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(e->out_path, sizeof e->out_path, "%s/gcscope-top-%d.out", tmp, (int)getpid());
  *out = open(e->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  *in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (*out >= 0 && *in >= 0) return 0;
  snprintf(err, errlen, "cannot create %s: %s", e->out_path, strerror(errno));
  if (*out >= 0) close(*out);
  if (*in >= 0) close(*in);
  return -1;
}

/* -o DIR made as `record -o` makes it (trc_outdir_make): a DIR that holds a
 * recording is refused, so its trace.nettrace is never truncated; an empty
 * one left by a recording that got no byte is used. */
static int open_keep(struct tui_ep *e, const char *dir, char *err, size_t errlen) {
  if (trc_outdir_make(&e->keep, dir, err, errlen) < 0) return -1;
  e->have_keep = 1;
  snprintf(e->keep_path, sizeof e->keep_path, "%s/trace.nettrace", dir);
  e->keep_fd = open(e->keep_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (e->keep_fd >= 0) return 0;
  snprintf(err, errlen, "cannot write %s: %s", e->keep_path, strerror(errno));
  return -1;
}

static void read_procname(struct tui_ep *e) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/comm", (int)e->s.pid);
  FILE *f = fopen(path, "r");
  if (!f) return;
  if (fgets(e->procname, sizeof e->procname, f)) e->procname[strcspn(e->procname, "\n")] = '\0';
  fclose(f);
}

struct tui_source *tui_ep_open(char **command, pid_t pid, const char *keep_dir, const struct gcs_nettrace_reqspec *req,
                               int nreq, char *err, size_t errlen) {
  struct tui_ep *e = calloc(1, sizeof *e);
  if (e) e->feed = tui_feed_new();
  if (e && e->feed) e->ns = gcs_nettrace_stream_new("the EventPipe stream", on_event, NULL, e);
  if (!e || !e->feed || !e->ns) {
    if (e) { tui_feed_free(e->feed); free(e); }
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  gcs_nettrace_stream_set_live(e->ns, LIVE_LAG_NS);
  gcs_nettrace_stream_set_lost(e->ns, on_lost, NULL);
  for (int i = 0; i < nreq; i++)
    if (req[i].source == GCS_NT_REQ_CUSTOM) gcs_nettrace_stream_add_requests(e->ns, &req[i]);
  e->keep_fd = -1;
  e->s.stream_fd = e->s.ep.listen_fd = e->s.ep.spare_fd = e->s.pidfd = -1;
  e->base.ops = &ep_ops;
  e->base.poll_ms = 100;
  e->base.live = 1;
  /* a live view may run for days: the list keeps the newest GCs, the figures all */
  e->base.max_gcs = TUI_LIVE_MAX_GCS;
  if (keep_dir && open_keep(e, keep_dir, err, errlen)) { ep_close(&e->base); return NULL; }
  int out = -1, in = -1;
  if (command && open_child_io(e, &out, &in, err, errlen)) { ep_close(&e->base); return NULL; }
  struct trc_ep_start_cfg cfg = { .command = command, .pid = pid, .profile = TRC_PROFILE_GC,
                                  .child_out_fd = out, .child_in_fd = in, .wake_fd = -1, .requests = req,
                                  .nrequests = nreq };
  int rc = trc_ep_start(&e->s, &cfg, err, errlen);
  if (out >= 0) close(out);
  if (in >= 0) close(in);
  if (rc) { ep_close(&e->base); return NULL; }
  e->started = 1;
  read_procname(e);
  if (command) snprintf(e->base.desc, sizeof e->base.desc, "live (EventPipe): %s", command[0]);
  else snprintf(e->base.desc, sizeof e->base.desc, "live (EventPipe): pid %d", (int)pid);
  if (keep_dir) snprintf(e->base.note, sizeof e->base.note, "stream kept in %.100s", e->keep_path);
  return &e->base;
}
