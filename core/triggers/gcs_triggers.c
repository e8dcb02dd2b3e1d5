/* gcs_triggers.c — PerfView's GC stop triggers on gcs_recon's pair callbacks
 * (gcs_triggers.h). */
#include "gcs_triggers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_enums.h"
#include "gcs_gc.h"
#include "gcs_recon.h"

struct gcs_triggers {
  struct gcs_recon *recon;
  int keep_gcs;
  gcs_trigger_pair_fn on_pair;
  void *ud;
  int has_threshold[GCS_TRIGGER_NKINDS];
  double threshold_ms[GCS_TRIGGER_NKINDS];
  uint64_t armed_ns;          /* pairs beginning before this are not reported */
  uint64_t last_ts;
  int32_t tid;                /* thread of the event being fed */
  uint64_t starts;            /* GCStarts fed, to bound the recon's memory */
  /* the firing pair the current feed closed */
  int fired;
  struct gcs_trigger_pair fire;
  /* summary, from the GCs the recon reports */
  uint64_t gcs;
  double max_pause_ms;
  int32_t max_pid;
  uint32_t max_gc;
};

const char *gcs_trigger_name(enum gcs_trigger_kind k) {
  switch (k) {
  case GCS_TRIGGER_GC_OVER: return "gc-over";
  case GCS_TRIGGER_SUSPEND_OVER: return "suspend-over";
  case GCS_TRIGGER_BGC_FINAL_OVER: return "bgc-final-pause-over";
  default: return "?";
  }
}

/* The events and fields the reconstruction reads for the triggers. GCHeapStats
 * carries no field the triggers need, but the reconstruction completes a
 * blocking GC at RestartEEEnd only once it was seen (the summary's pauses). */
static const char *const suspend_begin_fields[] = { "Reason", "Count", NULL };
static const char *const start_fields[] = { "Count", "Depth", "Type", "Reason", NULL };
static const char *const end_fields[] = { "Count", "Depth", NULL };
static const char *const no_fields[] = { NULL };

const char *const *gcs_triggers_event_fields(enum gcs_kind k) {
  switch (k) {
  case gcs_kind_GCSuspendEEBegin: return suspend_begin_fields;
  case gcs_kind_GCStart: return start_fields;
  case gcs_kind_GCEnd: return end_fields;
  case gcs_kind_GCSuspendEEEnd:
  case gcs_kind_GCHeapStats:
  case gcs_kind_GCRestartEEEnd: return no_fields;
  default: return NULL;
  }
}

int gcs_triggers_event_needed(enum gcs_kind k) { return gcs_triggers_event_fields(k) != NULL; }

/* A pair closed on the event being fed: report it unless it began before the
 * re-arm time; remember it if it fires. */
static void closed(struct gcs_triggers *t, enum gcs_trigger_kind k, int32_t pid, uint32_t index, int gen,
                   int type, uint32_t reason, uint64_t ns, uint64_t ts) {
  uint64_t begin = ts - ns;
  if (begin < t->armed_ns) return;
  struct gcs_trigger_pair p = {
    .kind = k, .pid = pid, .tid = t->tid, .gc_index = index, .gen = gen, .type = type, .reason = reason,
    .ms = (double)ns / 1e6, .begin_ns = begin, .end_ns = ts,
  };
  p.fires = t->has_threshold[k] && p.ms > t->threshold_ms[k];
  if (gen >= 0 && k == GCS_TRIGGER_GC_OVER) p.resolved = 1;
  if (t->on_pair) t->on_pair(&p, t->ud);
  if (p.fires && !t->fired) {
    t->fire = p;
    t->fired = 1;
  }
}

static void on_suspend(int32_t pid, uint32_t index, uint32_t reason, uint64_t ns, uint64_t ts, void *ud) {
  closed(ud, GCS_TRIGGER_SUSPEND_OVER, pid, index, -1, -1, reason, ns, ts);
}

static void on_gc_end(int32_t pid, uint32_t index, uint32_t gen, uint32_t type, uint64_t ns, uint64_t ts,
                      void *ud) {
  if (!gcs_type_is_blocking(type)) return;   /* a BGC's GCEnd is an orphan */
  closed(ud, GCS_TRIGGER_GC_OVER, pid, index, (int)gen, (int)type, 0, ns, ts);
}

static void on_bgc_final(int32_t pid, uint32_t index, uint64_t ns, uint64_t ts, void *ud) {
  closed(ud, GCS_TRIGGER_BGC_FINAL_OVER, pid, index, -1, -1, GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP, ns, ts);
}

static void on_gc_done(const struct gcs_gc *g, void *ud) {
  struct gcs_triggers *t = ud;
  t->gcs++;
  if (g->complete && isfinite(g->pause_msec) && g->pause_msec > t->max_pause_ms) {
    t->max_pause_ms = g->pause_msec;
    t->max_pid = g->pid;
    t->max_gc = g->number;
  }
}

struct gcs_triggers *gcs_triggers_new(int keep_gcs, gcs_trigger_pair_fn on_pair, void *ud) {
  struct gcs_triggers *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  static const struct gcs_recon_callbacks cb = {
    .gc_done = on_gc_done, .suspend_done = on_suspend, .gc_end = on_gc_end, .bgc_final_pause = on_bgc_final,
  };
  t->recon = gcs_recon_new(&cb, t);
  if (!t->recon) {
    free(t);
    return NULL;
  }
  t->keep_gcs = keep_gcs;
  t->on_pair = on_pair;
  t->ud = ud;
  return t;
}

void gcs_triggers_free(struct gcs_triggers *t) {
  if (!t) return;
  gcs_recon_free(t->recon);
  free(t);
}

void gcs_triggers_set_threshold(struct gcs_triggers *t, enum gcs_trigger_kind k, double ms) {
  t->has_threshold[k] = 1;
  t->threshold_ms[k] = ms;
}

int gcs_triggers_feed(struct gcs_triggers *t, const struct gcs_event *ev, struct gcs_trigger_pair *fired) {
  struct gcs_event e = *ev;
  if (e.ts_ns < t->last_ts) e.ts_ns = t->last_ts;
  t->last_ts = e.ts_ns;
  t->tid = e.tid;
  t->fired = 0;
  gcs_recon_feed(t->recon, &e);
  /* A watch may run for days: keep only recent GCs (the summary's figures
   * are accumulated from gc_done as GCs are reported). */
  if (t->keep_gcs > 0 && e.kind == gcs_kind_GCStart && ++t->starts % (uint64_t)t->keep_gcs == 0)
    gcs_recon_forget_old(t->recon, t->keep_gcs);
  if (!t->fired) return 0;
  if (fired) {
    *fired = t->fire;
    gcs_triggers_resolve(t, fired);
  }
  return 1;
}

void gcs_triggers_lost(struct gcs_triggers *t, uint64_t ts_ns, uint64_t count) {
  gcs_recon_lost(t->recon, -1, ts_ns, count);
  gcs_triggers_rearm(t, ts_ns);
}

void gcs_triggers_rearm(struct gcs_triggers *t, uint64_t ts_ns) {
  if (ts_ns > t->armed_ns) t->armed_ns = ts_ns;
}

/* The latest reconstructed GC of pid matching the predicate. */
static int same_number(const struct gcs_gc *g, const struct gcs_trigger_pair *p) {
  return g->number == p->gc_index;
}

/* The GC whose suspension (or whose BGC final suspension) began at begin_ns. */
static int suspended_at(const struct gcs_gc *g, const struct gcs_trigger_pair *p) {
  uint64_t begin = gcs_suspend_is_bgc_final(p->reason) ? g->bgc_prep_suspend_begin_ns : g->suspend_begin_ns;
  return begin == p->begin_ns;
}

/* Where a process's GC list (in GCStart order) stops being before the pair:
 * one past the last GC whose number is at most the pair's (gc-over,
 * bgc-final-pause-over: numbers grow along the list), or one past the last
 * GC that started at or before the suspension began (suspend-over: a
 * suspension precedes its GC's start; a BGC's final suspension comes after
 * the BGC started). Binary search: resolving every pair of a long replay
 * costs O(log n) each, not O(n). */
static int search_end(const struct gcs_recon *r, int proc, const struct gcs_trigger_pair *p, int by_number) {
  int lo = 0, hi = gcs_recon_gc_count(r, proc);
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    const struct gcs_gc *g = gcs_recon_gc(r, proc, mid);
    int before = by_number ? g->number <= p->gc_index : g->start_ns <= p->begin_ns;
    if (before) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The GC of pid that matches: searched backwards from where the pair falls
 * in the list, then (a list not in order) among the GCs after it. */
static const struct gcs_gc *find_gc(const struct gcs_recon *r, int32_t pid,
                                    int (*match)(const struct gcs_gc *, const struct gcs_trigger_pair *),
                                    const struct gcs_trigger_pair *p, int by_number) {
  for (int i = gcs_recon_process_count(r) - 1; i >= 0; i--) {
    if (gcs_recon_process(r, i)->pid != pid) continue;
    int n = gcs_recon_gc_count(r, i), end = search_end(r, i, p, by_number);
    /* the suspension's own GC starts after it: one past the search end */
    if (!by_number && end < n) end++;
    for (int j = end - 1; j >= 0; j--) {
      const struct gcs_gc *g = gcs_recon_gc(r, i, j);
      if (match(g, p)) return g;
    }
    for (int j = n - 1; j >= end; j--) {
      const struct gcs_gc *g = gcs_recon_gc(r, i, j);
      if (match(g, p)) return g;
    }
  }
  return NULL;
}

int gcs_triggers_resolve(const struct gcs_triggers *t, struct gcs_trigger_pair *p) {
  if (p->resolved) return 1;
  const struct gcs_gc *g;
  if (p->kind == GCS_TRIGGER_SUSPEND_OVER) {
    if (!gcs_suspend_is_for_gc(p->reason)) return p->resolved = 1;   /* no GC */
    g = find_gc(t->recon, p->pid, suspended_at, p, 0);
  } else {
    g = find_gc(t->recon, p->pid, same_number, p, 1);
  }
  if (!g) return 0;
  p->gc_index = g->number;
  p->gen = (int)g->gen;
  p->type = (int)g->type;
  return p->resolved = 1;
}

void gcs_triggers_finish(struct gcs_triggers *t, struct gcs_trigger_summary *s) {
  gcs_recon_finish(t->recon);  /* reports the GCs still open (as incomplete) */
  if (!s) return;
  memset(s, 0, sizeof *s);
  for (int i = 0; i < gcs_recon_process_count(t->recon); i++)
    if (gcs_recon_gc_count(t->recon, i) > 0) s->nprocs++;
  s->gcs = t->gcs;
  s->max_pause_ms = t->max_pause_ms;
  s->max_pid = t->max_pid;
  s->max_gc = t->max_gc;
}
