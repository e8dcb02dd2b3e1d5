/* trc_capture.c — the capture controller of `gcscope record` (trc_capture.h). */
#include "trc_capture.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gcs_db.h"
#include "gcs_rules.h"
#include "trc_fire.h"
#include "trc_outdir.h"
#include "trc_replay.h"
#include "trc_sig.h"

#define GEN_WAIT_MS 250   /* wait this long for the GCStart of a suspend-over GC */
#define DRAIN_SLICE_MS 100

int64_t trc_capture_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#define UNTRUSTED_SAY_MS 1000   /* at most one "not taken" line a second; the closing line counts them all */

static void on_fire(struct trc_capture *c, struct gcs_trigger_pair f) {
  /* A pair spanning discarded notifications may join a begin and an end of
   * different pauses: such a fire is not trusted. It is said (before, it
   * went without a word: a long pause seen while notifications were lost
   * left no trace of it in the output). */
  if (c->tp->trusted && !c->tp->trusted(c)) {
    int64_t now = trc_capture_now_ms();
    if (!c->untrusted || now >= c->untrusted_said_ms + UNTRUSTED_SAY_MS) {
      char what[96], desc[320];
      trc_fire_describe(&f, what, sizeof what);
      trc_fire_label(c->m, &f, desc, sizeof desc);
      printf("gcscope record: %s: pid %d %s: %.*f ms not taken: notifications were lost meanwhile "
             "(the pair may join two pauses)\n", desc, f.pid, what, c->tp->exact ? 3 : 1, f.ms);
      fflush(stdout);
      c->untrusted_said_ms = now;
    }
    c->untrusted++;
    gcs_triggers_discard(c->m, f.rule);
    return;
  }
  const struct gcs_rule *rule = gcs_triggers_rule(c->m, f.rule);
  if (c->triggers && rule && rule->action == GCS_RULE_LOG) {
    /* no capture: said, noted and run */
    trc_fire_announce(c->m, &f, 0);
    if (!c->o->relayd) trc_fire_note(c->outdir, c->m, &f, NULL, c->tp->exact ? "logged" : "logged (timed live)");
    trc_fire_run(rule, &f, NULL);
    c->logged++;
    return;
  }
  if (!c->triggers || c->pending || !c->live || c->captures >= c->o->collect_multiple || c->stop_now) {
    gcs_triggers_discard(c->m, f.rule);
    return;
  }
  c->pending = 1;
  c->fire = f;
  c->due_ms = trc_capture_now_ms() + (int64_t)(c->o->delay_after_sec * 1000) - (c->tp->age_ms ? c->tp->age_ms(c, &f) : 0);
  if (c->o->delay_after_sec > 0) trc_fire_announce(c->m, &f, c->o->delay_after_sec);
  fflush(stdout);
}

void trc_capture_event(struct trc_capture *c, const struct gcs_event *ev) {
  struct gcs_trigger_pair f;
  for (int got = gcs_triggers_feed(c->m, ev, &f); got; got = gcs_triggers_next(c->m, &f)) on_fire(c, f);
}

/* The capture is read back through the rule that fired, timed by the
 * events' own timestamps. Returns 1 to keep it (the trace confirms the
 * pause, or cannot say), 0 when the trace contradicts a pair timed by
 * notification arrival: the capture is renamed unverified-N and does not
 * count. */
static int verify_capture(struct trc_capture *c, const char *name, const char *path) {
  static struct trc_replay rp;
  char err[512];
  const struct gcs_rule *rule = gcs_triggers_rule(c->m, c->fire.rule);
  if (trc_replay_rule(path, rule, c->fire.pid, &c->fire, &rp, err, sizeof err)) {
    printf("gcscope record: %s not verified: %s\n", name, err);
    trc_fire_note(c->outdir, c->m, &c->fire, name, "not verified");
    return 1;
  }
  if (!rp.matched) {
    if (c->tp->exact)
      printf("gcscope record: %s holds the events after the pause only (a larger --circular-mb keeps more)\n", name);
    else
      printf("gcscope record: %s not verified: the pause is not in the capture (a larger --circular-mb keeps more)\n",
             name);
    trc_fire_note(c->outdir, c->m, &c->fire, name, "not verified");
    return 1;
  }
  if (rp.match.fires || c->tp->exact) {
    if (rp.match.kind == GCS_TRIGGER_WINDOW)
      printf("gcscope record: %s verified: the trace says %.1f %% paused\n", name, rp.match.value);
    else
      printf("gcscope record: %s verified: the trace says %.3f ms\n", name, rp.match.ms);
    c->verified++;
    struct gcs_trigger_pair exact = c->fire;
    exact.ms = rp.match.ms;
    exact.value = rp.match.value;
    exact.begin_ns = rp.match.begin_ns;
    exact.end_ns = rp.match.end_ns;
    trc_fire_note(c->outdir, c->m, c->tp->exact ? &c->fire : &exact, name, "verified");
    return 1;
  }
  char moved[PATH_MAX + 64];
  snprintf(moved, sizeof moved, "%s/unverified-%d", c->outdir, c->unverified + 1);
  if (rename(path, moved) != 0) {
    printf("gcscope record: %s not confirmed (the trace says %.3f ms) but kept: cannot rename it to %s: %s\n", name,
           rp.match.ms, moved, strerror(errno));
    trc_fire_note(c->outdir, c->m, &c->fire, name, "not verified");
    return 1;
  }
  c->unverified++;
  char desc[300];
  if (rule) gcs_rule_describe(rule, desc, sizeof desc);
  else snprintf(desc, sizeof desc, "?");
  printf("gcscope record: %s discarded: the trace says %.3f ms, not over rule %s (the notification arrived late); "
         "moved to %s, re-armed\n", name, rp.match.ms, desc, moved);
  trc_fire_note(c->outdir, c->m, &c->fire, moved + strlen(c->outdir) + 1, "discarded");
  gcs_triggers_discard(c->m, c->fire.rule);
  return 0;
}

static void take_capture(struct trc_capture *c) {
  const struct trc_opts *o = c->o;
  char name[48], path[PATH_MAX + 48], what[96], desc[320], err[PATH_MAX + 256];
  snprintf(name, sizeof name, c->tp->capture_name, c->captures + 1);
  snprintf(path, sizeof path, "%s/%s", c->outdir, name);
  gcs_triggers_resolve(c->m, &c->fire);
  c->pending = 0;
  if (c->tp->write_capture(c, name, o->relayd ? NULL : path, err, sizeof err)) {
    fprintf(stderr, "gcscope record: %s\n", err);
    return;
  }
  const struct gcs_rule *rule = gcs_triggers_rule(c->m, c->fire.rule);
  trc_fire_describe(&c->fire, what, sizeof what);
  trc_fire_label(c->m, &c->fire, desc, sizeof desc);
  printf("gcscope record: %s: pid %d %s: %.*f ms -> ", desc, c->fire.pid, what, c->tp->exact ? 3 : 1, c->fire.ms);
  if (o->relayd) printf("%s-* on lttng-relayd at %s\n", name, o->relayd);
  else printf("%s\n", path);
  fflush(stdout);
  if (!o->relayd && !verify_capture(c, name, path)) {
    gcs_triggers_rearm(c->m, c->tp->rearm_ns(c));
    return;
  }
  if (c->captures < TRC_CAPTURES_KEPT)
    snprintf(c->capture_paths[c->captures], sizeof c->capture_paths[0], "%s", path);
  c->captures++;
  trc_fire_run(rule, &c->fire, o->relayd ? name : path);
  if (rule && rule->action == GCS_RULE_STOP) {
    printf("gcscope record: rule %s stops the recording (action=stop)\n", rule->name);
    c->stop_now = 1;
  }
  gcs_triggers_rearm(c->m, c->tp->rearm_ns(c));   /* PerfView re-creates its triggers */
  fflush(stdout);
}

int trc_capture_due(struct trc_capture *c) {
  if (c->pending) {
    int64_t t = trc_capture_now_ms();
    if (t >= c->due_ms && (gcs_triggers_resolve(c->m, &c->fire) || t >= c->due_ms + GEN_WAIT_MS)) take_capture(c);
  }
  return c->triggers && (c->captures >= c->o->collect_multiple || c->stop_now);
}

void trc_capture_last(struct trc_capture *c) {
  if (c->pending) take_capture(c);
}

int trc_capture_wait_ms(const struct trc_capture *c, int64_t end_ms) {
  int64_t next = end_ms;
  if (c->pending) {
    int64_t due = trc_capture_now_ms() < c->due_ms ? c->due_ms : c->due_ms + GEN_WAIT_MS;
    if (!next || due < next) next = due;
  }
  if (!next) return -1;
  int64_t left = next - trc_capture_now_ms();
  return left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

int trc_capture_drain(struct trc_capture *c, int ms) {
  int64_t end = trc_capture_now_ms() + ms;
  for (;;) {
    int64_t left = end - trc_capture_now_ms();
    int p = c->tp->poll(c, left <= 0 ? 0 : left < DRAIN_SLICE_MS ? (int)left : DRAIN_SLICE_MS);
    if (p == 1) { c->eof = 1; return 0; }
    if (p < 0) return -1;
    if (trc_capture_now_ms() >= end) return 0;
  }
}

void trc_capture_report(const struct trc_capture *c) {
  const char *o_relayd = c->o->relayd;
  if (c->captures) {
    if (!o_relayd)   /* else the transport says where the relayd keeps them */
      printf("gcscope record: %d capture%s in %s (%d verified by the trace's timestamps)\n", c->captures,
             c->captures == 1 ? "" : "s", c->outdir, c->verified);
  } else if (c->unverified)
    printf("gcscope record: no capture confirmed by the trace (%d discarded, in %s/unverified-*)\n", c->unverified,
           c->outdir);
  else if (!c->logged && !c->untrusted)
    printf("gcscope record: no trigger fired; nothing written\n");
  if (c->untrusted)
    printf("gcscope record: %d firing%s not taken: notifications were lost around %s\n", c->untrusted,
           c->untrusted == 1 ? "" : "s", c->untrusted == 1 ? "it" : "them");
  if (c->logged)
    printf("gcscope record: %d firing%s of action=log rules, in %s/firings.tsv\n", c->logged,
           c->logged == 1 ? "" : "s", o_relayd ? "(not kept: --relayd)" : c->outdir);
}

void trc_capture_print_counts(const struct gcs_trigger_summary *s, int exact, const char *note) {
  int n = s->nprocs;
  printf("gcscope record: %llu GCs in %d process%s", (unsigned long long)s->gcs, n, n == 1 ? "" : "es");
  if (s->max_pause_ms <= 0) return;
  if (exact) printf(", max pause %.3f ms (pid %d GC #%u%s)", s->max_pause_ms, (int)s->max_pid, s->max_gc, note);
  else
    printf(", max pause ~%.1f ms (pid %d GC #%u; timed by notification arrival)", s->max_pause_ms, (int)s->max_pid,
           s->max_gc);
}

void trc_capture_child_status(struct trc_capture *c, int status) {
  if (WIFEXITED(status) && WEXITSTATUS(status)) {
    printf("gcscope record: the command exited with status %d\n", WEXITSTATUS(status));
    c->command_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status) && c->command_stopped && WTERMSIG(status) == SIGTERM) {
    printf("gcscope record: the command was stopped at the end of --duration\n");   /* as asked: not a failure */
  } else if (WIFSIGNALED(status)) {
    printf("gcscope record: the command was killed by signal %d\n", WTERMSIG(status));
    c->command_status = 128 + WTERMSIG(status);
  }
}

static int do_import(const struct trc_capture *c) {
  const char *paths[TRC_CAPTURES_KEPT];
  int n = 0;
  if (c->triggers)
    for (int i = 0; i < c->captures && i < TRC_CAPTURES_KEPT; i++) paths[n++] = c->capture_paths[i];
  else
    paths[n++] = c->trace_path;
  if (!n) return 0;
  char err[512];
  struct gcs_import_opts io = { .out = stdout };
  if (isatty(STDERR_FILENO) && !c->o->quiet) io.progress = gcs_import_progress_line;
  if (gcs_import_paths(c->o->db ? c->o->db : GCS_DB_DEFAULT_PATH, paths, n, &io, err, sizeof err)) {
    fprintf(stderr, "gcscope record: import failed: %s\n", err);
    return 1;
  }
  return 0;
}

int trc_capture_record(struct trc_capture *c, const struct trc_transport_ops *tp, void *tx, const struct trc_opts *o) {
  memset(c, 0, sizeof *c);
  c->o = o;
  c->tp = tp;
  c->tx = tx;
  c->triggers = trc_opts_any_trigger(o);
  c->live = 1;
  c->m = trc_rules_new(o, TRC_KEEP_GCS);
  if (!c->m) {
    fprintf(stderr, "gcscope record: out of memory\n");
    return 1;
  }
  if (!o->relayd && trc_outdir_make(&c->dir, o->output, c->err, sizeof c->err)) {
    fprintf(stderr, "gcscope record: %s\n", c->err);
    gcs_triggers_free(c->m);
    c->m = NULL;
    return 1;
  }
  const char *outdir = o->relayd ? o->relayd : c->dir.path;
  snprintf(c->outdir, sizeof c->outdir, "%s", outdir);
  snprintf(c->trace_path, sizeof c->trace_path, "%s", outdir);
  trc_sig_begin(tp->wake_on_child);
  int rc = tp->run(c);
  /* The one rule of a failed recording (trc_outdir.h): what it made that
   * holds no byte goes; what was there, and any recorded byte, stays. Not
   * while a consumer may still be writing (the transport said where). */
  if (rc != 0 && !o->relayd && !c->still_writing) trc_outdir_undo(&c->dir);
  if (rc == 0 && o->import) rc = do_import(c);
  /* A recording that went well and wrote no byte (no trigger fired) leaves
   * no dated default behind; a -o DIR was asked for and stays. */
  if (rc == 0 && !o->relayd && !c->still_writing && trc_outdir_unused(&c->dir))
    printf("gcscope record: nothing was recorded; removed the empty %s\n", c->dir.given);
  if (rc == 0 && c->command_status) rc = c->command_status; /* the recording itself went well */
  trc_sig_end();
  trc_outdir_free(&c->dir);
  gcs_triggers_free(c->m);
  c->m = NULL;
  return rc;
}
