/* trc_match.c — PerfView's trigger pairing (see trc_match.h). Small fixed
 * tables with linear search: only a handful of starts are open at a time. */
#include "trc_match.h"

#include <stdlib.h>
#include <string.h>

#define MAX_OPEN 256
#define MAX_PROCS 256
#define MAX_RECENT 64     /* recent GCStarts remembered per matcher */

struct open_rec { int used; int32_t pid; uint32_t key; uint32_t gc_index; uint64_t ts; };
struct recent { int32_t pid; uint32_t index; int gen, type; };

struct trc_match {
  int enabled[TRC_NKINDS];
  double threshold_ms[TRC_NKINDS];
  struct open_rec open[TRC_NKINDS][MAX_OPEN];
  struct open_rec pause[MAX_OPEN];            /* summary: suspend -> restart per pid */
  struct recent recent[MAX_RECENT];
  unsigned nrecent;
  struct trc_proc_stats procs[MAX_PROCS];
  int nprocs;
};

struct trc_match *trc_match_new(const int *enabled, const double *threshold_ms) {
  struct trc_match *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  for (int k = 0; k < TRC_NKINDS; k++) {
    m->enabled[k] = enabled[k];
    m->threshold_ms[k] = threshold_ms[k];
  }
  return m;
}

void trc_match_free(struct trc_match *m) { free(m); }

void trc_match_reset(struct trc_match *m) {
  memset(m->open, 0, sizeof m->open);
  memset(m->pause, 0, sizeof m->pause);
}

static void put(struct open_rec *t, int32_t pid, uint32_t key, uint32_t gc_index, uint64_t ts) {
  struct open_rec *slot = NULL, *oldest = &t[0];
  for (int i = 0; i < MAX_OPEN; i++) {
    if (t[i].used && t[i].pid == pid && t[i].key == key) { slot = &t[i]; break; }
    if (!t[i].used && !slot) slot = &t[i];
    if (t[i].ts < oldest->ts) oldest = &t[i];
  }
  if (!slot) slot = oldest;      /* full: the oldest start is dropped */
  slot->used = 1;
  slot->pid = pid;
  slot->key = key;
  slot->gc_index = gc_index;
  slot->ts = ts;
}

/* Remove and return the open start for (pid, key); NULL if orphan. */
static struct open_rec *take(struct open_rec *t, int32_t pid, uint32_t key) {
  for (int i = 0; i < MAX_OPEN; i++)
    if (t[i].used && t[i].pid == pid && t[i].key == key) {
      t[i].used = 0;
      return &t[i];
    }
  return NULL;
}

static struct trc_proc_stats *proc(struct trc_match *m, int32_t pid) {
  for (int i = 0; i < m->nprocs; i++)
    if (m->procs[i].pid == pid) return &m->procs[i];
  if (m->nprocs == MAX_PROCS) return NULL;
  struct trc_proc_stats *p = &m->procs[m->nprocs++];
  memset(p, 0, sizeof *p);
  p->pid = pid;
  return p;
}

int trc_match_gc_info(const struct trc_match *m, int32_t pid, uint32_t index, int *gen, int *type) {
  for (unsigned i = 0; i < MAX_RECENT && i < m->nrecent; i++) {
    const struct recent *r = &m->recent[(m->nrecent - 1 - i) % MAX_RECENT];
    if (r->pid == pid && r->index == index) {
      *gen = r->gen;
      *type = r->type;
      return 1;
    }
  }
  return 0;
}

static int maybe_fire(struct trc_match *m, enum trc_trigger_kind k, const struct open_rec *start,
                      const struct gcs_event *ev, struct trc_fire *fire) {
  if (!start) return 0;
  double ms = (double)(ev->ts_ns - start->ts) / 1e6;
  if (ev->ts_ns < start->ts || !(ms > m->threshold_ms[k])) return 0;
  fire->kind = k;
  fire->pid = ev->pid;
  fire->tid = ev->tid;
  fire->gc_index = start->gc_index;
  fire->ms = ms;
  fire->ts_ns = ev->ts_ns;
  fire->gen = fire->type = -1;
  trc_match_gc_info(m, ev->pid, start->gc_index, &fire->gen, &fire->type);
  return 1;
}

int trc_match_feed(struct trc_match *m, const struct gcs_event *ev, struct trc_fire *fire) {
  uint32_t tid = (uint32_t)ev->tid;
  struct trc_proc_stats *p;
  switch (ev->kind) {
  case gcs_kind_GCSuspendEEBegin: {
    const struct gcs_ev_GCSuspendEEBegin *b = &ev->u.GCSuspendEEBegin;
    if (m->enabled[TRC_SUSPEND_OVER]) put(m->open[TRC_SUSPEND_OVER], ev->pid, tid, b->Count, ev->ts_ns);
    if (m->enabled[TRC_BGC_FINAL_OVER] && b->Reason == 6)
      put(m->open[TRC_BGC_FINAL_OVER], ev->pid, tid, b->Count, ev->ts_ns);
    put(m->pause, ev->pid, 0, b->Count, ev->ts_ns);
    return 0;
  }
  case gcs_kind_GCSuspendEEEnd:
    if (!m->enabled[TRC_SUSPEND_OVER]) return 0;
    return maybe_fire(m, TRC_SUSPEND_OVER, take(m->open[TRC_SUSPEND_OVER], ev->pid, tid), ev, fire);
  case gcs_kind_GCStart: {
    const struct gcs_ev_GCStart *s = &ev->u.GCStart;
    struct recent *r = &m->recent[m->nrecent++ % MAX_RECENT];
    r->pid = ev->pid;
    r->index = s->Count;
    r->gen = (int)s->Depth;
    r->type = (int)s->Type;
    if ((p = proc(m, ev->pid))) p->gcs++;
    if (m->enabled[TRC_GC_OVER] && s->Type != 1)
      put(m->open[TRC_GC_OVER], ev->pid, s->Count, s->Count, ev->ts_ns);
    return 0;
  }
  case gcs_kind_GCEnd:
    if (!m->enabled[TRC_GC_OVER]) return 0;
    return maybe_fire(m, TRC_GC_OVER, take(m->open[TRC_GC_OVER], ev->pid, ev->u.GCEnd.Count), ev, fire);
  case gcs_kind_GCRestartEEEnd: {
    struct open_rec *ps = take(m->pause, ev->pid, 0);
    if (ps && ev->ts_ns >= ps->ts && (p = proc(m, ev->pid))) {
      double ms = (double)(ev->ts_ns - ps->ts) / 1e6;
      if (ms > p->max_pause_ms) { p->max_pause_ms = ms; p->max_pause_gc = ps->gc_index; }
    }
    if (!m->enabled[TRC_BGC_FINAL_OVER]) return 0;
    return maybe_fire(m, TRC_BGC_FINAL_OVER, take(m->open[TRC_BGC_FINAL_OVER], ev->pid, tid), ev, fire);
  }
  default:
    return 0;
  }
}

int trc_match_nprocs(const struct trc_match *m) { return m->nprocs; }
const struct trc_proc_stats *trc_match_proc(const struct trc_match *m, int i) {
  return i >= 0 && i < m->nprocs ? &m->procs[i] : NULL;
}
