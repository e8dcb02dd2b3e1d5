/* tui_feed.c — GC events into top's model through gcs_recon (tui_feed.h). */
#include "tui_feed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_enums.h"
#include "gcs_gc.h"
#include "gcs_recon.h"

#define RING_CAP 8192

struct ring_ev {
  uint64_t ts_ns;
  int32_t pid;
  enum gcs_kind kind;
  char text[200];
};

struct tui_feed {
  struct gcs_recon *recon;
  struct tui_model *model;
  int changed;
  uint64_t origin_ns;
  int have_origin;
  uint64_t lost;
  uint64_t starts;             /* GCStart events: every TUI_FEED_KEEP_GCS, old GCs are forgotten */
  struct ring_ev *ring;        /* recent GC events (detail view) */
  size_t ring_head, ring_n;
  struct open_req *open;       /* requests started and not yet ended (open addressing) */
  size_t open_cap, open_used;  /* used: live slots and tombstones */
};

/* ---- requests: a start waits here for its stop ------------------------------ */

#define OPEN_MAX (1u << 20)    /* requests open at once; more starts are not tracked */
enum { SLOT_EMPTY, SLOT_OPEN, SLOT_DEAD };
struct open_req { int state; int32_t pid; uint64_t id, start_ns; };

static size_t slot_of(uint64_t id, int32_t pid, size_t cap) {
  uint64_t x = id ^ ((uint64_t)(uint32_t)pid << 32);
  x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33;
  return (size_t)x & (cap - 1);
}

static struct open_req *open_find(struct tui_feed *f, int32_t pid, uint64_t id) {
  if (!f->open_cap) return NULL;
  for (size_t h = slot_of(id, pid, f->open_cap);; h = (h + 1) & (f->open_cap - 1)) {
    struct open_req *o = &f->open[h];
    if (o->state == SLOT_EMPTY) return NULL;
    if (o->state == SLOT_OPEN && o->pid == pid && o->id == id) return o;
  }
}

static void open_add(struct tui_feed *f, int32_t pid, uint64_t id, uint64_t ts) {
  struct open_req *o = open_find(f, pid, id);
  if (o) { o->start_ns = ts; return; }
  if ((f->open_used + 1) * 2 > f->open_cap) {   /* grow, dropping tombstones */
    size_t live = 0;
    for (size_t i = 0; i < f->open_cap; i++) live += f->open[i].state == SLOT_OPEN;
    size_t cap = 256;
    while (cap < (live + 1) * 4) cap *= 2;
    if (cap > OPEN_MAX * 2) return;
    struct open_req *n = calloc(cap, sizeof *n);
    if (!n) return;
    for (size_t i = 0; i < f->open_cap; i++) {
      if (f->open[i].state != SLOT_OPEN) continue;
      size_t h = slot_of(f->open[i].id, f->open[i].pid, cap);
      while (n[h].state != SLOT_EMPTY) h = (h + 1) & (cap - 1);
      n[h] = f->open[i];
    }
    free(f->open);
    f->open = n;
    f->open_cap = cap;
    f->open_used = live;
  }
  size_t h = slot_of(id, pid, f->open_cap);
  while (f->open[h].state == SLOT_OPEN) h = (h + 1) & (f->open_cap - 1);
  if (f->open[h].state == SLOT_EMPTY) f->open_used++;
  f->open[h] = (struct open_req){ SLOT_OPEN, pid, id, ts };
}

static double ms_of(const struct tui_feed *f, uint64_t ns);

/* librgc's RequestStart/Stop and .NET's SourceRequestStart/Stop. */
static void on_request(struct tui_feed *f, const struct gcs_event *ev) {
  int source = ev->kind == gcs_kind_SourceRequestStart || ev->kind == gcs_kind_SourceRequestStop;
  uint64_t id = source ? ev->u.SourceRequestStart.Id : ev->u.RequestStart.Id;
  if (ev->kind == gcs_kind_RequestStart || ev->kind == gcs_kind_SourceRequestStart) {
    open_add(f, ev->pid, id, ev->ts_ns);
    return;
  }
  struct open_req *o = open_find(f, ev->pid, id);
  if (!o) return;
  o->state = SLOT_DEAD;
  if (f->model && ev->ts_ns >= o->start_ns)
    tui_model_add_request(f->model, 0, ev->pid, ms_of(f, ev->ts_ns), (double)(ev->ts_ns - o->start_ns) / 1e6);
}

static double ms_of(const struct tui_feed *f, uint64_t ns) {
  return ns && f->have_origin ? ((double)ns - (double)f->origin_ns) / 1e6 : NAN;
}

static void flavour_of(struct tui_feed *f, struct tui_proc *p) {
  for (int i = 0; i < gcs_recon_process_count(f->recon); i++) {
    const struct gcs_proc_summary *s = gcs_recon_process(f->recon, i);
    if (s->pid != p->pid) continue;
    const char *kind = s->server_gc == 1 ? "Server" : s->server_gc == 0 ? "Workstation" : "";
    const char *conc = !s->startup_flags ? ""
                       : gcs_startup_is_concurrent_gc(s->startup_flags) ? " concurrent" : " non-concurrent";
    if (s->heap_count > 1 && s->server_gc == 1)
      snprintf(p->flavour, sizeof p->flavour, "%s %d heaps%s", kind, s->heap_count, conc);
    else
      snprintf(p->flavour, sizeof p->flavour, "%s%s", kind, conc);
    return;
  }
}

/* The model's view of a reconstructed GC. */
static void model_gc(const struct gcs_gc *g, struct tui_gc *tp) {
  struct tui_gc t;
  tui_gc_init(&t);
  t.trace_id = 0;
  t.pid = g->pid;
  t.number = g->number;
  t.gen = (int)g->gen;
  t.type = (int)g->type;
  t.reason = (int)g->reason;
  t.complete = g->complete;
  t.start_ms = g->start_msec;
  t.pause_start_ms = g->pause_start_msec;
  t.duration_ms = g->duration_msec;
  t.suspend_ms = g->suspend_msec;
  t.pause_ms = g->pause_msec;
  t.bgc_pause1_ms = g->bgc_pause1_msec;
  t.bgc_pause2_ms = g->bgc_pause2_msec;
  t.pct_pause = g->pct_pause_time;
  t.heap_count = g->heap_count > 0 ? g->heap_count : 0;
  t.gen0_alloc_mb = g->user_alloc_mb[0];
  t.alloc_perfview_mb = g->total_alloc_mb;
  /* measured; a foreground GC inside a running background GC learns it when
   * that ends (gc_alloc_known reports the GC again) */
  t.alloc_mb = !isnan(g->total_alloc_measured_mb) || g->nheaps > 0 ? g->total_alloc_measured_mb : g->total_alloc_mb;
  t.alloc_rate_mbs = g->alloc_rate_mb_sec;
  t.peak_mb = g->peak_mb;
  t.after_mb = g->after_mb;
  t.promoted_mb = g->promoted_mb;
  t.committed_mb = g->has_committed[1] ? gcs_gc_committed_bytes(&g->committed[1]) / 1e6 : NAN;
  for (int k = 0; k < TUI_NGENS && k < GCS_GENS; k++) {
    t.gen_before_mb[k] = g->gen_before_mb[k];
    t.gen_after_mb[k] = g->gen_after_mb[k];
  }
  t.start_ns = g->start_ns;
  t.pause_start_ns = g->suspend_begin_ns ? g->suspend_begin_ns : g->start_ns;
  uint64_t ends[] = { g->end_ns, g->restart_end_ns, g->bgc_prep_restart_end_ns, g->heap_stats_ns };
  for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) if (ends[i] > t.end_ns) t.end_ns = ends[i];
  *tp = t;
}

static void on_gc_done(const struct gcs_gc *g, void *ud) {
  struct tui_feed *f = ud;
  struct tui_gc t;
  model_gc(g, &t);
  if (!f->model) return;
  int fresh = tui_model_proc(f->model, 0, g->pid, 0) == NULL;
  tui_model_add_gc(f->model, &t);
  struct tui_proc *p = tui_model_proc(f->model, 0, g->pid, 0);
  if (p && (fresh || !p->flavour[0])) flavour_of(f, p);
  f->changed = 1;
}

/* A GC shown already got its measured allocations (a foreground GC inside a
 * background GC that just ended): its row is updated, wherever it is. */
static void on_gc_alloc_known(const struct gcs_gc *g, void *ud) {
  struct tui_feed *f = ud;
  struct tui_gc t;
  model_gc(g, &t);
  if (f->model && tui_model_update_gc(f->model, &t) == 0) f->changed = 1;
}

struct tui_feed *tui_feed_new(void) {
  struct tui_feed *f = calloc(1, sizeof *f);
  if (f) f->ring = calloc(RING_CAP, sizeof *f->ring);
  static const struct gcs_recon_callbacks cb = { .gc_done = on_gc_done, .gc_alloc_known = on_gc_alloc_known };
  if (f && f->ring) f->recon = gcs_recon_new(&cb, f);
  if (!f || !f->ring || !f->recon) {
    if (f) free(f->ring);
    free(f);
    return NULL;
  }
  return f;
}

void tui_feed_free(struct tui_feed *f) {
  if (!f) return;
  gcs_recon_free(f->recon);
  free(f->ring);
  free(f->open);
  free(f);
}

void tui_feed_set_model(struct tui_feed *f, struct tui_model *m) { f->model = m; }

static int is_bulky(enum gcs_kind k) {
  return k == gcs_kind_RequestStart || k == gcs_kind_RequestStop || k == gcs_kind_SourceRequestStart ||
         k == gcs_kind_SourceRequestStop || k == gcs_kind_GCAllocationTick || k == gcs_kind_SetGCHandle || k == gcs_kind_DestroyGCHandle ||
         k == gcs_kind_PinObjectAtGCTime || k == gcs_kind_PinPlugAtGCTime;
}

void tui_feed_event(struct tui_feed *f, const struct gcs_event *ev, const char *procname) {
  uint64_t ts = ev->ts_ns;
  if (!f->have_origin) {
    f->origin_ns = ts;
    f->have_origin = 1;
    gcs_recon_set_time_origin(f->recon, ts);
  }
  if (f->model) {
    tui_model_touch(f->model, 0, ev->pid, ms_of(f, ts));
    struct tui_proc *p = tui_model_proc(f->model, 0, ev->pid, 0);
    if (p && !p->name[0] && procname && *procname) tui_copy_name(p->name, sizeof p->name, procname);
  }
  if (!is_bulky(ev->kind)) {
    struct ring_ev *r = &f->ring[(f->ring_head + f->ring_n) % RING_CAP];
    if (f->ring_n == RING_CAP) f->ring_head = (f->ring_head + 1) % RING_CAP;
    else f->ring_n++;
    r->ts_ns = ts;
    r->pid = ev->pid;
    r->kind = ev->kind;
    gcs_event_format(ev, r->text, sizeof r->text);
  }
  if (ev->kind == gcs_kind_RequestStart || ev->kind == gcs_kind_RequestStop ||
      ev->kind == gcs_kind_SourceRequestStart || ev->kind == gcs_kind_SourceRequestStop) {
    on_request(f, ev);
    f->changed = 1;
  }
  gcs_recon_feed(f->recon, ev);
  /* Bounded memory: the model already has the finished GCs. */
  if (ev->kind == gcs_kind_GCStart && ++f->starts % TUI_FEED_KEEP_GCS == 0)
    gcs_recon_forget_old(f->recon, TUI_FEED_KEEP_GCS);
}

void tui_feed_lost(struct tui_feed *f, uint64_t begin_ns, uint64_t end_ns, uint64_t count) {
  if (!count) return;
  f->lost += count;
  gcs_recon_lost(f->recon, -1, begin_ns, end_ns, count);
}

void tui_feed_finish(struct tui_feed *f) { gcs_recon_finish(f->recon); }

int tui_feed_take_changed(struct tui_feed *f) {
  int c = f->changed;
  f->changed = 0;
  return c;
}

uint64_t tui_feed_lost_total(const struct tui_feed *f) { return f->lost; }

long tui_feed_gc_events(struct tui_feed *f, struct tui_gc *gc, struct tui_evline **out) {
  *out = NULL;
  if (!gc->pause_start_ns || !gc->end_ns) return 0;
  struct tui_evline *v = calloc(f->ring_n ? f->ring_n : 1, sizeof *v);
  if (!v) return -1;
  long n = 0;
  for (size_t i = 0; i < f->ring_n; i++) {
    const struct ring_ev *r = &f->ring[(f->ring_head + i) % RING_CAP];
    if (r->pid != gc->pid || r->ts_ns < gc->pause_start_ns || r->ts_ns > gc->end_ns) continue;
    v[n].ms = ms_of(f, r->ts_ns);
    snprintf(v[n].name, sizeof v[n].name, "%s", gcs_event_descs[r->kind].name);
    snprintf(v[n].text, sizeof v[n].text, "%s", r->text);
    n++;
  }
  *out = v;
  return n;
}
