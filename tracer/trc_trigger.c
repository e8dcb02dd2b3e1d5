/* trc_trigger.c — PerfView's GC stop triggers on gcs_recon's live hooks
 * (trc_trigger.h). */
#include "trc_trigger.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_gc.h"
#include "gcs_recon.h"

#define KEEP_GCS 256           /* GCs kept per process in the reconstruction */

struct trc_trigger {
  struct gcs_recon *recon;
  int enabled[TRC_NKINDS];
  double threshold_ms[TRC_NKINDS];
  uint64_t armed_ns;          /* pairs beginning before this do not fire */
  uint64_t last_ts;
  uint64_t starts;            /* GCStarts fed, to bound the recon's memory */
  /* the pair the current feed closed, if over a threshold */
  int fired;
  struct trc_fire fire;
  /* summary, from the GCs the recon reports */
  uint64_t gcs;
  double max_pause_ms;
  int32_t max_pid;
  uint32_t max_gc;
};

/* A pair closed: fire if enabled, armed and strictly over the threshold.
 * Returns 1 if it fired. */
static int closed(struct trc_trigger *t, enum trc_trigger_kind k, int32_t pid, uint32_t index, int gen,
                   int type, uint64_t ns, uint64_t ts) {
  if (t->fired || !t->enabled[k]) return 0;
  uint64_t begin = ts - ns;
  double ms = (double)ns / 1e6;
  if (begin < t->armed_ns || !(ms > t->threshold_ms[k])) return 0;
  memset(&t->fire, 0, sizeof t->fire);
  t->fire.kind = k;
  t->fire.pid = pid;
  t->fire.gc_index = index;
  t->fire.gen = gen;
  t->fire.type = type;
  t->fire.ms = ms;
  t->fire.begin_ns = begin;
  t->fire.ts_ns = ts;
  t->fired = 1;
  return 1;
}

static void on_suspend(int32_t pid, uint32_t index, uint32_t reason, uint64_t ns, uint64_t ts, void *ud) {
  struct trc_trigger *t = ud;
  if (closed(t, TRC_SUSPEND_OVER, pid, index, -1, -1, ns, ts)) t->fire.reason = reason;
}

static void on_gc_end(int32_t pid, uint32_t index, uint32_t gen, uint32_t type, uint64_t ns, uint64_t ts,
                      void *ud) {
  if (type == 1) return;      /* PerfView: a BGC's GC/Stop is an orphan */
  closed(ud, TRC_GC_OVER, pid, index, (int)gen, (int)type, ns, ts);
}

static void on_bgc_final(int32_t pid, uint32_t index, uint64_t ns, uint64_t ts, void *ud) {
  closed(ud, TRC_BGC_FINAL_OVER, pid, index, -1, -1, ns, ts);
}

static void on_gc_done(const struct gcs_gc *g, void *ud) {
  struct trc_trigger *t = ud;
  t->gcs++;
  if (g->complete && isfinite(g->pause_msec) && g->pause_msec > t->max_pause_ms) {
    t->max_pause_ms = g->pause_msec;
    t->max_pid = g->pid;
    t->max_gc = g->number;
  }
}

struct trc_trigger *trc_trigger_new(const int *enabled, const double *threshold_ms) {
  struct trc_trigger *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  static const struct gcs_recon_callbacks cb = { .gc_done = on_gc_done, .suspend_done = on_suspend };
  static const struct gcs_recon_live_callbacks live = { .gc_end = on_gc_end, .bgc_final_pause = on_bgc_final };
  t->recon = gcs_recon_new(&cb, t);
  if (!t->recon) {
    free(t);
    return NULL;
  }
  gcs_recon_set_live_callbacks(t->recon, &live);
  for (int k = 0; k < TRC_NKINDS; k++) {
    t->enabled[k] = enabled[k];
    t->threshold_ms[k] = threshold_ms[k];
  }
  return t;
}

void trc_trigger_free(struct trc_trigger *t) {
  if (!t) return;
  gcs_recon_free(t->recon);
  free(t);
}

int trc_trigger_feed(struct trc_trigger *t, const struct gcs_event *ev, struct trc_fire *fire) {
  struct gcs_event e = *ev;
  if (e.ts_ns < t->last_ts) e.ts_ns = t->last_ts;
  t->last_ts = e.ts_ns;
  t->fired = 0;
  gcs_recon_feed(t->recon, &e);
  /* A watch may run for days: keep only recent GCs (the summary's figures
   * are accumulated from gc_done as GCs are reported). */
  if (e.kind == gcs_kind_GCStart && ++t->starts % KEEP_GCS == 0) gcs_recon_forget_old(t->recon, KEEP_GCS);
  if (!t->fired) return 0;
  *fire = t->fire;
  trc_trigger_resolve(t, fire);
  return 1;
}

void trc_trigger_lost(struct trc_trigger *t, uint64_t ts_ns, uint64_t count) {
  gcs_recon_lost(t->recon, -1, ts_ns, count);
  trc_trigger_rearm(t, ts_ns);
}

void trc_trigger_rearm(struct trc_trigger *t, uint64_t ts_ns) {
  if (ts_ns > t->armed_ns) t->armed_ns = ts_ns;
}

/* The latest reconstructed GC of pid matching the predicate. */
static const struct gcs_gc *find_gc(const struct gcs_recon *r, int32_t pid,
                                    int (*match)(const struct gcs_gc *, const struct trc_fire *),
                                    const struct trc_fire *f) {
  for (int p = gcs_recon_process_count(r) - 1; p >= 0; p--) {
    if (gcs_recon_process(r, p)->pid != pid) continue;
    for (int i = gcs_recon_gc_count(r, p) - 1; i >= 0; i--) {
      const struct gcs_gc *g = gcs_recon_gc(r, p, i);
      if (match(g, f)) return g;
    }
  }
  return NULL;
}

static int same_number(const struct gcs_gc *g, const struct trc_fire *f) { return g->number == f->gc_index; }
/* The GC whose suspension (or whose BGC final suspension) began at begin_ns. */
static int suspended_at(const struct gcs_gc *g, const struct trc_fire *f) {
  return (f->reason == 6 ? g->bgc_prep_suspend_begin_ns : g->suspend_begin_ns) == f->begin_ns;
}

int trc_trigger_resolve(const struct trc_trigger *t, struct trc_fire *f) {
  if (f->resolved) return 1;
  const struct gcs_gc *g = NULL;
  if (f->kind == TRC_SUSPEND_OVER) {
    if (f->reason != 1 && f->reason != 6) return f->resolved = 1;   /* not a GC's suspension */
    g = find_gc(t->recon, f->pid, suspended_at, f);
  } else {
    g = find_gc(t->recon, f->pid, same_number, f);
  }
  if (!g) return 0;
  f->gc_index = g->number;
  f->gen = (int)g->gen;
  f->type = (int)g->type;
  return f->resolved = 1;
}

void trc_trigger_summary(struct trc_trigger *t, struct trc_summary *s) {
  gcs_recon_finish(t->recon);  /* reports the GCs still open (as incomplete) */
  memset(s, 0, sizeof *s);
  for (int p = 0; p < gcs_recon_process_count(t->recon); p++)
    if (gcs_recon_gc_count(t->recon, p) > 0) s->nprocs++;
  s->gcs = t->gcs;
  s->max_pause_ms = t->max_pause_ms;
  s->max_pid = t->max_pid;
  s->max_gc = t->max_gc;
}
