/* tui_live.c — live sources of `gcscope top` (see tui_live.h).
 *
 * core/ctf's live reader (gcs_ctf_live.h: src.ctf.lttng-live through the
 * importer's decoder, shared with `gcscope serve --lttng`). The screen loop
 * polls it for at most a time slice, so reading never blocks the screen.
 * Each GC event is fed to the model through tui_feed (the one GC
 * reconstruction; a ring of recent events for the detail view). */
#include "tui_live.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gcs_ctf_live.h"
#include "tui_feed.h"
#include "tui_live_session.h"

struct tui_live {
  struct tui_source base;
  struct gcs_ctf_live *rd;     /* the live reader (core/ctf) */
  struct tui_feed *feed;       /* events -> gcs_recon -> the model */
  int ended;
  int failed;
  char session[128], url[512];
  struct tui_lsess lsess;      /* `-- COMMAND` only */
  int own_session;
  int child_done;
};

/* ---- the live reader's callbacks ---------------------------------------- */

static void on_event(const struct gcs_rd_event *rec, void *ud) {
  struct tui_live *l = ud;
  /* Not a GC event, or a packed payload that did not decode: skipped. */
  if (!rec->decoded || rec->payload_error) return;
  if (rec->ev.ts_ns > l->base.last_event_ns) l->base.last_event_ns = rec->ev.ts_ns;
  tui_feed_event(l->feed, &rec->ev, rec->procname);
}

static void on_lost(uint64_t n, uint64_t begin_ns, uint64_t end_ns, void *ud) {
  tui_feed_lost(((struct tui_live *)ud)->feed, begin_ns, end_ns, n);
}

static int build_graph(struct tui_live *l, int fail_if_missing, char *err, size_t errlen) {
  static const struct gcs_ctf_live_callbacks cb = { on_event, on_lost };
  l->rd = gcs_ctf_live_open(l->url, l->session, fail_if_missing, &cb, l, err, errlen);
  return l->rd ? 0 : -1;
}

static int live_poll(struct tui_source *src, struct tui_model *m) {
  struct tui_live *l = (struct tui_live *)src;
  tui_feed_set_model(l->feed, m);
  if (l->own_session && !l->child_done && tui_lsess_child_exited(&l->lsess)) {
    l->child_done = 1;
    int st = l->lsess.child_status;
    snprintf(src->note, sizeof src->note, "command exited (%s %d, output in %.60s); q quits",
             WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
             l->lsess.out_path);
  }
  if (l->ended || l->failed) return 0;
  /* Read what is there, at most ~40 ms per poll, so keys stay responsive. */
  int r = gcs_ctf_live_poll(l->rd, 40, src->err, sizeof src->err);
  if (r == GCS_CTF_LIVE_END) {
    l->ended = 1;
    tui_feed_finish(l->feed);
    snprintf(src->note, sizeof src->note, "the live session ended; q quits");
  } else if (r < 0) {
    l->failed = 1;
    return -1;
  }
  uint64_t lost = tui_feed_lost_total(l->feed);
  /* Each loss has a window (docs/import.md, "Which GCs a loss marks"):
   * the GCs whose events span it, done or open, are marked. */
  if (lost && !src->note[0])
    snprintf(src->note, sizeof src->note, "%llu events lost: GCs whose events span a loss are incomplete",
             (unsigned long long)lost);
  return tui_feed_take_changed(l->feed);
}

static long live_gc_events(struct tui_source *src, struct tui_gc *gc, struct tui_evline **out) {
  return tui_feed_gc_events(((struct tui_live *)src)->feed, gc, out);
}

static void live_close(struct tui_source *src) {
  struct tui_live *l = (struct tui_live *)src;
  /* The reader first (it holds the relayd's viewer slot), then the session. */
  gcs_ctf_live_close(l->rd);
  if (l->own_session) tui_lsess_close(&l->lsess);
  tui_feed_free(l->feed);
  free(l);
}

static const struct tui_source_ops live_ops = { live_poll, live_gc_events, live_close };

static struct tui_live *live_new(char *err, size_t errlen) {
  struct tui_live *l = calloc(1, sizeof *l);
  if (l) l->feed = tui_feed_new();
  if (!l || !l->feed) {
    if (l) { tui_feed_free(l->feed); free(l); }
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  l->base.ops = &live_ops;
  l->base.poll_ms = 100;
  l->base.live = 1;
  /* a live view may run for days: the list keeps the newest GCs, the figures all */
  l->base.max_gcs = TUI_LIVE_MAX_GCS;
  return l;
}

static void make_url(struct tui_live *l, const char *relayd, const char *host, const char *session) {
  gcs_ctf_live_url(relayd, host, session, l->url, sizeof l->url, l->session, sizeof l->session);
}

struct tui_source *tui_live_attach(const char *session, const char *relayd_url, char *err, size_t errlen) {
  if (!*session) { snprintf(err, errlen, "--session needs a session name"); return NULL; }
  const char *relayd = relayd_url ? relayd_url : "net://127.0.0.1";
  if (strncmp(relayd, "net://", 6) && strncmp(relayd, "net4://", 7) && strncmp(relayd, "net6://", 7)) {
    snprintf(err, errlen, "--relayd wants net://HOST[:PORT], not '%s'", relayd);
    return NULL;
  }
  if (!relayd_url && !trc_port_listening(TRC_LIVE_PORT)) {
    snprintf(err, errlen, "no lttng-relayd listens on 127.0.0.1:5344 (start `lttng-relayd -d`, "
                          "and create the session with `lttng create %s --live`)", session);
    return NULL;
  }
  struct tui_live *l = live_new(err, errlen);
  if (!l) return NULL;
  char host[256] = "localhost";
  gethostname(host, sizeof host);
  host[sizeof host - 1] = '\0';
  make_url(l, relayd, host, session);
  snprintf(l->base.desc, sizeof l->base.desc, "live session %s", l->session);
  if (build_graph(l, 1, err, errlen) < 0) { live_close(&l->base); return NULL; }
  return &l->base;
}

struct tui_source *tui_live_run(char **command, const char *relayd_url, long live_timer_us, const char *keep_dir,
                                char *err, size_t errlen) {
  if (relayd_url) {
    snprintf(err, errlen, "--relayd is for --session; -- COMMAND uses a local relayd");
    return NULL;
  }
  struct tui_live *l = live_new(err, errlen);
  if (!l) return NULL;
  l->own_session = 1;
  if (tui_lsess_open(&l->lsess, command, live_timer_us, keep_dir, err, errlen) < 0) { live_close(&l->base); return NULL; }
  make_url(l, "net://127.0.0.1", l->lsess.host, l->lsess.name);
  snprintf(l->base.desc, sizeof l->base.desc, "live: %s", command[0]);
  if (!l->lsess.trace_dir[0])
    snprintf(l->base.note, sizeof l->base.note, "trace: in the running lttng-relayd's output directory");
  else if (l->lsess.trace_is_temp)
    snprintf(l->base.note, sizeof l->base.note, "temp trace (removed on exit; -o DIR keeps it): %.80s", l->lsess.trace_dir);
  else
    snprintf(l->base.note, sizeof l->base.note, "trace kept in %.90s", l->lsess.trace_dir);
  if (build_graph(l, 0, err, errlen) < 0) { live_close(&l->base); return NULL; }
  return &l->base;
}
