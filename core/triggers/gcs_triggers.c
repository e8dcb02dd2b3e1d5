/* gcs_triggers.c — PerfView's GC stop triggers on gcs_recon's pair callbacks
 * (gcs_triggers.h). */
#include "gcs_triggers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_enums.h"
#include "gcs_gc.h"
#include "gcs_recon.h"
#include "gcs_rules.h"

/* Rule state. Event pairs: the starts still open (the oldest slot is
 * reused when more are open at once). Window: each process's recent pauses. */
#define OPEN_MAX 64
#define WIN_PROCS 16
struct open_pair { int32_t pid; uint64_t key, begin; uint32_t count; int used; };
struct win_proc { int32_t pid; uint64_t (*p)[2]; size_t n, cap; uint64_t above_since; };
struct rule_state {
  struct gcs_rule r;
  int fires, has_fired;
  uint64_t last_fire;
  struct open_pair open[OPEN_MAX];
  int next_slot;
  struct win_proc win[WIN_PROCS];
  int nwin;
};

struct gcs_triggers {
  struct gcs_recon *recon;
  int keep_gcs;
  gcs_trigger_pair_fn on_pair;
  void *ud;
  struct rule_state *rules;
  int nrules, caprules;
  int has_first, every_rule;
  uint64_t first_ts;          /* the first event fed: rules' for= counts from it */
  uint64_t armed_ns;          /* pairs beginning before this are not reported */
  uint64_t last_ts;
  int32_t tid;                /* thread of the event being fed */
  uint64_t starts;            /* GCStarts fed, to bound the recon's memory */
  /* the firing pair the current feed closed */
  int fired, taken;            /* firings of the current feed, and how many were returned */
  struct gcs_trigger_pair fire[GCS_TRIGGERS_MAX_FIRES];
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
  case GCS_TRIGGER_EVENT_PAIR: return "event-pair";
  case GCS_TRIGGER_WINDOW: return "pct-pause";
  default: return "?";
  }
}

/* The events and fields the triggers read: the GC lifecycle of
 * schemas/gc_events.def (GCS_LIFECYCLE_LIST). */
const char *const *gcs_triggers_event_fields(enum gcs_kind k) { return gcs_lifecycle_fields(k); }

int gcs_triggers_event_needed(enum gcs_kind k) { return gcs_kind_is_lifecycle(k); }

/* May rule rs fire at time now (its limits)? */
static int limits_ok(const struct gcs_triggers *t, const struct rule_state *rs, int32_t pid, uint64_t now) {
  const struct gcs_rule *r = &rs->r;
  if (r->pid && r->pid != pid) return 0;
  if (r->max_fires && rs->fires >= r->max_fires) return 0;
  if (r->cooldown_ms > 0 && rs->has_fired && (double)(now - rs->last_fire) < r->cooldown_ms * 1e6) return 0;
  if (r->active_ms > 0 && (double)(now - t->first_ts) > r->active_ms * 1e6) return 0;
  return 1;
}

static void count_fire(struct rule_state *rs, uint64_t now) {
  rs->fires++;
  rs->has_fired = 1;
  rs->last_fire = now;
}

/* Report a pair; remember it when it fires (the first firing of a feed). */
static void report(struct gcs_triggers *t, struct gcs_trigger_pair *p) {
  if (t->on_pair) t->on_pair(p, t->ud);
  if (p->fires && t->fired < GCS_TRIGGERS_MAX_FIRES) t->fire[t->fired++] = *p;
}

static const struct gcs_gc *find_gc(const struct gcs_recon *r, int32_t pid,
                                    int (*match)(const struct gcs_gc *, const struct gcs_trigger_pair *),
                                    const struct gcs_trigger_pair *p, int by_number);
static int same_number(const struct gcs_gc *g, const struct gcs_trigger_pair *p);

/* Does builtin rule r match pair p (everything but the limits)? */
static int builtin_matches(const struct gcs_triggers *t, const struct gcs_rule *r, const struct gcs_trigger_pair *p) {
  if (r->form != GCS_RULE_BUILTIN || r->kind != p->kind || !(p->ms > r->over_ms)) return 0;
  if (r->gen >= 0 && p->gen != r->gen) return 0;
  if (r->type >= 0 && p->type != r->type) return 0;
  if (r->reason >= 0) {
    if (p->kind == GCS_TRIGGER_SUSPEND_OVER) return p->reason == (uint32_t)r->reason;
    const struct gcs_gc *g = find_gc(t->recon, p->pid, same_number, p, 1);
    if (!g || g->reason != (uint32_t)r->reason) return 0;
  }
  return 1;
}

/* A pair closed on the event being fed: report it unless it began before the
 * re-arm time; the first rule that matches it fires. */
static void closed(struct gcs_triggers *t, enum gcs_trigger_kind k, int32_t pid, uint32_t index, int gen,
                   int type, uint32_t reason, uint64_t ns, uint64_t ts) {
  uint64_t begin = ts - ns;
  if (begin < t->armed_ns) return;
  struct gcs_trigger_pair p = {
    .kind = k, .pid = pid, .tid = t->tid, .gc_index = index, .gen = gen, .type = type, .reason = reason,
    .ms = (double)ns / 1e6, .begin_ns = begin, .end_ns = ts, .rule = -1,
  };
  p.value = p.ms;
  if (gen >= 0 && k == GCS_TRIGGER_GC_OVER) p.resolved = 1;
  for (int i = 0; i < t->nrules && (!p.fires || t->every_rule); i++) {
    struct rule_state *rs = &t->rules[i];
    if (builtin_matches(t, &rs->r, &p) && limits_ok(t, rs, pid, ts)) {
      if (!p.fires) p.rule = i;
      p.fires = 1;
      p.rules_fired |= UINT64_C(1) << i;
      count_fire(rs, ts);
    }
  }
  report(t, &p);
}

/* ---- rules over the events: start -> stop pairs ---------------------------- */

static int where_ok(const struct gcs_rule *r, const struct gcs_event *ev) {
  if (!r->has_where) return 1;
  const struct gcs_field_desc *f = gcs_field_find(ev->kind, r->where_field);
  if (!f) return 0;
  uint64_t v = gcs_field_get_int(ev, f), w = r->where_value;
  switch (r->where_op) {
  case GCS_OP_EQ: return v == w;
  case GCS_OP_NE: return v != w;
  case GCS_OP_LT: return v < w;
  case GCS_OP_LE: return v <= w;
  case GCS_OP_GT: return v > w;
  default: return v >= w;
  }
}

static uint32_t count_of(const struct gcs_event *ev) {
  const struct gcs_field_desc *f = gcs_field_find(ev->kind, "Count");
  return f ? (uint32_t)gcs_field_get_int(ev, f) : 0;
}

static uint64_t key_of(const struct gcs_rule *r, const struct gcs_event *ev) {
  switch (r->key) {
  case GCS_RULE_KEY_THREAD: return (uint64_t)(uint32_t)ev->tid;
  case GCS_RULE_KEY_PROCESS: return 0;
  default: return count_of(ev);
  }
}

static void feed_event_pairs(struct gcs_triggers *t, const struct gcs_event *ev) {
  for (int i = 0; i < t->nrules; i++) {
    struct rule_state *rs = &t->rules[i];
    const struct gcs_rule *r = &rs->r;
    if (r->form != GCS_RULE_EVENT_PAIR || (r->pid && r->pid != ev->pid)) continue;
    uint64_t key = key_of(r, ev);
    if (ev->kind == r->stop) {
      for (int j = 0; j < OPEN_MAX; j++) {
        struct open_pair *o = &rs->open[j];
        if (!o->used || o->pid != ev->pid || o->key != key) continue;
        o->used = 0;
        if (o->begin < t->armed_ns) break;
        struct gcs_trigger_pair p = {
          .kind = GCS_TRIGGER_EVENT_PAIR, .pid = ev->pid, .tid = ev->tid, .gc_index = o->count, .gen = -1,
          .type = -1, .ms = (double)(ev->ts_ns - o->begin) / 1e6, .begin_ns = o->begin, .end_ns = ev->ts_ns,
          .resolved = 1, .rule = -1,
        };
        p.value = p.ms;
        if (p.ms > r->over_ms && limits_ok(t, rs, ev->pid, ev->ts_ns)) {
          p.fires = 1;
          p.rule = i;
          p.rules_fired = UINT64_C(1) << i;
          count_fire(rs, ev->ts_ns);
        }
        report(t, &p);
        break;
      }
    }
    if (ev->kind == r->start && where_ok(r, ev)) {
      int slot = -1;
      for (int j = 0; j < OPEN_MAX && slot < 0; j++)
        if (rs->open[j].used && rs->open[j].pid == ev->pid && rs->open[j].key == key) slot = j;
      if (slot < 0) {
        for (int j = 0; j < OPEN_MAX && slot < 0; j++)
          if (!rs->open[j].used) slot = j;
      }
      if (slot < 0) slot = rs->next_slot++ % OPEN_MAX;
      rs->open[slot] = (struct open_pair){ .pid = ev->pid, .key = key, .begin = ev->ts_ns, .count = count_of(ev), .used = 1 };
    }
  }
}

/* ---- the windowed % paused --------------------------------------------------- */

static struct win_proc *win_of(struct rule_state *rs, int32_t pid) {
  for (int i = 0; i < rs->nwin; i++)
    if (rs->win[i].pid == pid) return &rs->win[i];
  if (rs->nwin == WIN_PROCS) return NULL;
  struct win_proc *w = &rs->win[rs->nwin++];
  memset(w, 0, sizeof *w);
  w->pid = pid;
  return w;
}

static void win_add(struct win_proc *w, uint64_t b, uint64_t e) {
  if (!b || e <= b) return;
  if (w->n == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 64;
    uint64_t(*np)[2] = realloc(w->p, cap * sizeof *np);
    if (!np) return;
    w->p = np;
    w->cap = cap;
  }
  w->p[w->n][0] = b;
  w->p[w->n][1] = e;
  w->n++;
}

/* Each complete GC's pause (and a background GC's final pause), in every
 * window rule; a rule fires once its process stayed above the share for
 * sustain (evaluated at pause ends). */
static void feed_window(struct gcs_triggers *t, const struct gcs_gc *g) {
  uint64_t b1 = g->suspend_begin_ns ? g->suspend_begin_ns : g->start_ns, e1 = g->restart_end_ns;
  uint64_t b2 = g->bgc_prep_suspend_begin_ns, e2 = g->bgc_prep_restart_end_ns;
  uint64_t now = e2 > e1 ? e2 : e1;
  if (!now) return;
  for (int i = 0; i < t->nrules; i++) {
    struct rule_state *rs = &t->rules[i];
    const struct gcs_rule *r = &rs->r;
    if (r->form != GCS_RULE_WINDOW || (r->pid && r->pid != g->pid)) continue;
    struct win_proc *w = win_of(rs, g->pid);
    if (!w) continue;
    win_add(w, b1, e1);
    win_add(w, b2, e2);
    uint64_t wns = (uint64_t)(r->window_ms * 1e6), from = now > wns ? now - wns : 0;
    size_t keep = 0;
    double covered = 0;
    for (size_t j = 0; j < w->n; j++) {
      if (w->p[j][1] <= from) continue;
      w->p[keep][0] = w->p[j][0];
      w->p[keep][1] = w->p[j][1];
      keep++;
      uint64_t b = w->p[j][0] > from ? w->p[j][0] : from, e = w->p[j][1] < now ? w->p[j][1] : now;
      if (e > b) covered += (double)(e - b);
    }
    w->n = keep;
    double pct = covered * 100.0 / (double)wns;
    if (!(pct > r->above_pct)) {
      w->above_since = 0;
      continue;
    }
    if (!w->above_since) w->above_since = now;
    if (w->above_since < t->armed_ns || (double)(now - w->above_since) < r->sustain_ms * 1e6) continue;
    if (!limits_ok(t, rs, g->pid, now)) continue;
    struct gcs_trigger_pair p = {
      .kind = GCS_TRIGGER_WINDOW, .pid = g->pid, .tid = t->tid, .gc_index = g->number, .gen = (int)g->gen,
      .type = (int)g->type, .ms = covered / 1e6, .begin_ns = from, .end_ns = now, .resolved = 1, .fires = 1,
      .rule = i, .value = pct, .rules_fired = UINT64_C(1) << i,
    };
    count_fire(rs, now);
    w->above_since = 0;
    report(t, &p);
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
  closed(ud, GCS_TRIGGER_BGC_FINAL_OVER, pid, index, GCS_GEN2, GCS_GC_TYPE_BACKGROUND,
         GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP, ns, ts);
}

static void on_gc_done(const struct gcs_gc *g, void *ud) {
  struct gcs_triggers *t = ud;
  t->gcs++;
  if (g->complete) feed_window(t, g);
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
  for (int i = 0; i < t->nrules; i++)
    for (int j = 0; j < t->rules[i].nwin; j++) free(t->rules[i].win[j].p);
  free(t->rules);
  free(t);
}

void gcs_triggers_every_rule(struct gcs_triggers *t, int on) { t->every_rule = on; }

int gcs_triggers_add_rule(struct gcs_triggers *t, const struct gcs_rule *r) {
  if (t->nrules >= GCS_TRIGGERS_MAX_RULES) return -1;
  if (t->nrules == t->caprules) {
    int cap = t->caprules ? t->caprules * 2 : 4;
    struct rule_state *n = realloc(t->rules, (size_t)cap * sizeof *n);
    if (!n) return -1;
    t->rules = n;
    t->caprules = cap;
  }
  struct rule_state *rs = &t->rules[t->nrules++];
  memset(rs, 0, sizeof *rs);
  rs->r = *r;
  return 0;
}

int gcs_triggers_nrules(const struct gcs_triggers *t) { return t->nrules; }
const struct gcs_rule *gcs_triggers_rule(const struct gcs_triggers *t, int i) {
  return i >= 0 && i < t->nrules ? &t->rules[i].r : NULL;
}

void gcs_triggers_discard(struct gcs_triggers *t, int i) {
  if (i < 0 || i >= t->nrules) return;
  if (t->rules[i].fires > 0) t->rules[i].fires--;
  t->rules[i].has_fired = 0;
}

void gcs_triggers_set_threshold(struct gcs_triggers *t, enum gcs_trigger_kind k, double ms) {
  for (int i = 0; i < t->nrules; i++) {
    struct gcs_rule *r = &t->rules[i].r;
    if (r->form == GCS_RULE_BUILTIN && r->kind == k && !strcmp(r->name, gcs_trigger_name(k))) {
      r->over_ms = ms;
      return;
    }
  }
  struct gcs_rule r;
  gcs_rule_builtin(&r, k, ms);
  gcs_triggers_add_rule(t, &r);
}

bool gcs_trigger_thresholds_any(const struct gcs_trigger_thresholds *th) {
  for (int k = 0; th && k < GCS_TRIGGER_NKINDS; k++)
    if (th->on[k]) return true;
  return false;
}

void gcs_triggers_set_thresholds(struct gcs_triggers *t, const struct gcs_trigger_thresholds *th) {
  for (int k = 0; th && k < GCS_TRIGGER_NKINDS; k++)
    if (th->on[k]) gcs_triggers_set_threshold(t, (enum gcs_trigger_kind)k, th->ms[k]);
}

int gcs_triggers_feed(struct gcs_triggers *t, const struct gcs_event *ev, struct gcs_trigger_pair *fired) {
  struct gcs_event e;  /* the header and the kind's own struct: the union is as large as its largest kind */
  memcpy(&e, ev, offsetof(struct gcs_event, u) + gcs_event_descs[ev->kind].struct_size);
  if (e.ts_ns < t->last_ts) e.ts_ns = t->last_ts;
  t->last_ts = e.ts_ns;
  t->tid = e.tid;
  t->fired = t->taken = 0;
  if (!t->has_first) {
    t->has_first = 1;
    t->first_ts = e.ts_ns;
  }
  feed_event_pairs(t, &e);
  gcs_recon_feed(t->recon, &e);
  /* A watch may run for days: keep only recent GCs (the summary's figures
   * are accumulated from gc_done as GCs are reported). */
  if (t->keep_gcs > 0 && e.kind == gcs_kind_GCStart && ++t->starts % (uint64_t)t->keep_gcs == 0)
    gcs_recon_forget_old(t->recon, t->keep_gcs);
  return gcs_triggers_next(t, fired);
}

int gcs_triggers_next(struct gcs_triggers *t, struct gcs_trigger_pair *fired) {
  if (t->taken >= t->fired) return 0;
  struct gcs_trigger_pair *p = &t->fire[t->taken++];
  if (fired) {
    *fired = *p;
    gcs_triggers_resolve(t, fired);
  }
  return 1;
}

void gcs_triggers_lost(struct gcs_triggers *t, uint64_t begin_ns, uint64_t end_ns, uint64_t count) {
  gcs_recon_lost(t->recon, -1, begin_ns, end_ns, count);
  gcs_triggers_rearm(t, end_ns);
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
