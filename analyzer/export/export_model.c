/* export_model.c — the GC timeline of one process, from the gc tables
 * (schemas/tables_gc.def) through core/gcdb's loader:
 *  - "GC pauses": one slice per GC with a timed pause (the gc_pauses view's
 *    definition: SuspendEEBegin, or GCStart when none, to RestartEEEnd; a
 *    background GC's slice is its initial pause), args = its GCStats figures,
 *    its suspension (SuspendEEBegin -> SuspendEEEnd) nested inside, and a
 *    blocking GC's phases (GCGlobalHeapHistory v4, .NET 6+) laid end to end
 *    from its GCStart;
 *  - "Background GCs": each BGC from its pause start to GCEnd (or to the end
 *    of its last pause if later) with its initial and final pauses nested;
 *  - "LOH alloc waits (tid N)": gc_loh_waits, one track per waiting thread;
 *  - "Requests (tid N)": the requests table (librgc's, a .NET service's
 *    recorded with --requests), each request a slice on the thread that
 *    started it; requests that overlap on one thread (async) go to further
 *    tracks "Requests (tid N) #2", ... so no slice cuts another;
 *  - counters: heap after / peak, promoted, allocation rate (per GC) and per
 *    generation the size before (its peak) and after (gc_gens); committed
 *    memory (.NET 8+) and the heap count (server GC: DATAS changes it).
 * Times: ns since the trace start. */
#include <math.h>
#include <stddef.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "gcs_enums.h"
#include "gcs_events.h"
#include "gcs_gcdb.h"

/* ---- building blocks -------------------------------------------------------- */

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t c = *cap ? *cap * 2 : 16;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * elem);
  if (!q) return -1;
  /* not cleared: every add initializes its element whole (clearing the
   * doubled capacity touched 50 MB of slices on 69,500 GCs for nothing) */
  *p = q;
  *cap = c;
  return 0;
}

struct exp_track *exp_track_add(struct exp_proc *p, enum exp_track_kind kind, const char *name) {
  if (grow((void **)&p->tracks, &p->cap_tracks, p->ntracks + 1, sizeof *p->tracks)) return NULL;
  struct exp_track *t = &p->tracks[p->ntracks++];
  memset(t, 0, sizeof *t);
  t->kind = kind;
  snprintf(t->name, sizeof t->name, "%s", name);
  return t;
}

struct exp_slice *exp_slice_add(struct exp_track *t, int64_t start, int64_t end, const char *name) {
  if (grow((void **)&t->slices, &t->cap_slices, t->nslices + 1, sizeof *t->slices)) return NULL;
  struct exp_slice *s = &t->slices[t->nslices++];
  memset(s, 0, sizeof *s);
  s->start = start;
  s->end = s->data_end = end < start ? start : end;
  snprintf(s->name, sizeof s->name, "%s", name);
  return s;
}

static struct exp_arg *arg_add(struct exp_slice *s, const char *key, enum exp_arg_kind kind) {
  if (s->nargs >= EXP_MAX_ARGS) return NULL;
  struct exp_arg *a = &s->args[s->nargs++];
  memset(a, 0, sizeof *a);
  a->key = key;
  a->kind = kind;
  return a;
}

int exp_arg_double(struct exp_slice *s, const char *key, double v) {
  if (!isfinite(v)) return 0;
  struct exp_arg *a = arg_add(s, key, EXP_ARG_DOUBLE);
  if (!a) return -1;
  a->d = v;
  return 0;
}

int exp_arg_int(struct exp_slice *s, const char *key, int64_t v) {
  struct exp_arg *a = arg_add(s, key, EXP_ARG_INT);
  if (!a) return -1;
  a->i = v;
  return 0;
}

int exp_arg_bool(struct exp_slice *s, const char *key, int v) {
  struct exp_arg *a = arg_add(s, key, EXP_ARG_BOOL);
  if (!a) return -1;
  a->i = v != 0;
  return 0;
}

int exp_arg_str(struct exp_slice *s, const char *key, const char *v) {
  struct exp_arg *a = arg_add(s, key, EXP_ARG_STR);
  if (!a) return -1;
  a->s = v ? v : "";
  return 0;
}

/* The GC's identity and every GCStats figure it has (NULL figures left out). */
static void gc_args(const struct gcs_gcdb_gc *g, void (*fn)(const struct exp_arg *a, void *ctx), void *ctx) {
  const struct exp_arg id[] = {
    { .key = "gc_index", .kind = EXP_ARG_INT, .i = g->gc_index },
    { .key = "gen", .kind = EXP_ARG_INT, .i = g->gen },
    { .key = "type", .kind = EXP_ARG_STR, .s = gcs_gc_type_name(g->type) },
    { .key = "reason", .kind = EXP_ARG_STR, .s = gcs_reason_name(g->reason) },
    { .key = "gen_name", .kind = EXP_ARG_STR, .s = g->gen_name },
    { .key = "induced", .kind = EXP_ARG_BOOL, .i = gcs_reason_is_induced(g->reason) },
    { .key = "complete", .kind = EXP_ARG_BOOL, .i = g->complete != 0 },
  };
  for (size_t k = 0; k < sizeof id / sizeof id[0]; k++) fn(&id[k], ctx);
  for (int r = 0; r < GCS_GCDB_NREALS; r++) {
    if (!isfinite(g->real[r])) continue;
    struct exp_arg a = { .key = gcs_gcdb_real_name(r), .kind = EXP_ARG_DOUBLE, .d = g->real[r] };
    fn(&a, ctx);
  }
}

void exp_slice_args(const struct exp_slice *s, void (*fn)(const struct exp_arg *a, void *ctx), void *ctx) {
  if (s->gc) gc_args(s->gc, fn, ctx);
  for (int i = 0; i < s->nargs; i++) fn(&s->args[i], ctx);
}

int exp_point_add(struct exp_track *t, int64_t ts, double value) {
  if (!isfinite(value)) return 0;
  if (grow((void **)&t->points, &t->cap_points, t->npoints + 1, sizeof *t->points)) return -1;
  t->points[t->npoints++] = (struct exp_point){ ts, value };
  return 0;
}

void exp_proc_free(struct exp_proc *p) {
  for (size_t i = 0; i < p->ntracks; i++) {
    struct exp_track *t = &p->tracks[i];
    free(t->slices);
    free(t->points);
  }
  free(p->tracks);
  free(p->cmdline);
  free(p->gcs);
  memset(p, 0, sizeof *p);
}

/* ---- the process's rows ------------------------------------------------------ */

#define OOM(err, errlen) (snprintf(err, errlen, "out of memory"), -1)

static int db_error(sqlite3 *db, char *err, size_t errlen) {
  snprintf(err, errlen, "%s", sqlite3_errmsg(db));
  return -1;
}

static int load_process_row(sqlite3 *db, struct exp_proc *p, char *err, size_t errlen) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT name, command_line FROM processes WHERE trace_id = ?1 AND pid = ?2 "
                             "ORDER BY id LIMIT 1", -1, &s, NULL) != SQLITE_OK)
    return db_error(db, err, errlen);
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  if (sqlite3_step(s) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(s, 0);
    const char *cmd = (const char *)sqlite3_column_text(s, 1);
    if (name) snprintf(p->name, sizeof p->name, "%s", name);
    if (cmd && *cmd && !(p->cmdline = strdup(cmd))) { sqlite3_finalize(s); return OOM(err, errlen); }
  }
  sqlite3_finalize(s);
  if (!p->name[0]) snprintf(p->name, sizeof p->name, "pid %d", (int)p->pid);
  return 0;
}

/* gcs.suspend_end_ns is not among the loader's columns: read it by gcs.id. */
struct id_ns { int64_t id, ns; };

static int id_ns_cmp(const void *a, const void *b) {
  const struct id_ns *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int load_suspend_ends(sqlite3 *db, const struct exp_proc *p, struct id_ns **out, size_t *n, char *err,
                             size_t errlen) {
  sqlite3_stmt *s;
  size_t cap = 0;
  *out = NULL;
  *n = 0;
  if (sqlite3_prepare_v2(db, "SELECT id, suspend_end_ns FROM gcs WHERE trace_id = ?1 AND pid = ?2 "
                             "AND suspend_end_ns IS NOT NULL ORDER BY id", -1, &s, NULL) != SQLITE_OK)
    return db_error(db, err, errlen);
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  while (sqlite3_step(s) == SQLITE_ROW) {
    if (grow((void **)out, &cap, *n + 1, sizeof **out)) { sqlite3_finalize(s); return OOM(err, errlen); }
    (*out)[(*n)++] = (struct id_ns){ sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1) };
  }
  sqlite3_finalize(s);
  return 0;
}

static int64_t suspend_end_of(const struct id_ns *v, size_t n, int64_t id) {
  struct id_ns key = { id, 0 };
  if (n == 0) return 0;   /* v may be NULL: bsearch must not see it */
  const struct id_ns *hit = bsearch(&key, v, n, sizeof *v, id_ns_cmp);
  return hit ? hit->ns : 0;
}

/* ---- tracks ------------------------------------------------------------------ */

static int64_t rel(uint64_t ns, int64_t t0) { return ns ? (int64_t)ns - t0 : 0; }

static void gc_title(char *buf, size_t len, const char *prefix, const struct gcs_gcdb_gc *g) {
  snprintf(buf, len, "%s#%u %u%s %s", prefix, g->gc_index, g->gen, gcs_type_letter(g->type),
           gcs_reason_name(g->reason));
}

/* issue 26: a blocking GC's phases (GCGlobalHeapHistory v4 Times) as
 * sub-slices of its pause. The event gives each phase's duration, not its
 * start: they are laid end to end from GCStart in the order the GC runs them
 * (mark roots, short weak, finalization scan, long weak, plan, relocate,
 * compact, sweep), untimed and 0 us phases left out, none past GCEnd. A
 * background GC's are its background work's, not its pause's: left out. */
#define PH_LABEL(C, Name, Label) Label,
static const char *const phase_labels[GCS_GC_PHASE_COUNT] = { GCS_GC_PHASES(PH_LABEL) };
#undef PH_LABEL
static int add_phases(struct exp_track *t, const struct gcs_gcdb_gc *g, int64_t t0) {
  if (gcs_type_is_background(g->type) || !g->start_ns || !g->end_ns || g->end_ns < g->start_ns) return 0;
  int64_t at = rel(g->start_ns, t0), end = rel(g->end_ns, t0);
  for (int ph = 0; ph < GCS_GC_PHASE_COUNT && at < end; ph++) {
    double us = g->real[GCS_GCDB_R_PHASE0 + ph];
    if (!isfinite(us) || us <= 0) continue;
    int64_t d = (int64_t)(us * 1000.0);
    int64_t stop = d > end - at ? end : at + d;
    char name[64];
    snprintf(name, sizeof name, "phase %s", phase_labels[ph]);
    struct exp_slice *c = exp_slice_add(t, at, stop, name);
    if (c) c->level = 1;
    if (!c || exp_arg_int(c, "phase_usec", (int64_t)us) || exp_arg_int(c, "gc_index", g->gc_index)) return -1;
    at = stop;
  }
  return 0;
}

static int add_gc_pause(struct exp_track *t, const struct gcs_gcdb_gc *g, int64_t t0, int64_t suspend_end) {
  uint64_t pstart = g->suspend_begin_ns ? g->suspend_begin_ns : g->start_ns;
  if (!pstart || !g->restart_end_ns) return 0; /* not a timed pause (gc_pauses leaves it out too) */
  char name[64];
  gc_title(name, sizeof name, "GC", g);
  struct exp_slice *s = exp_slice_add(t, rel(pstart, t0), rel(g->restart_end_ns, t0), name);
  if (s) s->gc = g;
  if (!s || exp_arg_int(s, "pause_ns", (int64_t)(g->restart_end_ns - pstart))) return -1;
  if (g->suspend_begin_ns && suspend_end) {
    struct exp_slice *c = exp_slice_add(t, rel(g->suspend_begin_ns, t0), suspend_end - t0, "suspend EE");
    if (c) c->level = 1;
    if (!c || exp_arg_int(c, "gc_index", g->gc_index) ||
        exp_arg_double(c, "suspend_msec", g->real[GCS_GCDB_R_suspend_msec]))
      return -1;
  }
  if (add_phases(t, g, t0)) return -1;
  return 1;
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t m = a > b ? a : b;
  return m > c ? m : c;
}

static int add_bgc(struct exp_track *t, const struct gcs_gcdb_gc *g, int64_t t0) {
  uint64_t pstart = g->suspend_begin_ns ? g->suspend_begin_ns : g->start_ns;
  uint64_t last = max3(g->end_ns, g->bgc_prep_restart_end_ns, g->restart_end_ns);
  if (!pstart || !last) return 0;
  char name[64];
  gc_title(name, sizeof name, "BGC", g);
  struct exp_slice *s = exp_slice_add(t, rel(pstart, t0), rel(last, t0), name);
  if (s) s->gc = g;
  if (!s || exp_arg_bool(s, "gc_end_seen", g->end_ns != 0)) return -1;
  if (g->restart_end_ns) {
    struct exp_slice *c = exp_slice_add(t, rel(pstart, t0), rel(g->restart_end_ns, t0), "initial pause");
    if (c) c->level = 1;
    if (!c || exp_arg_double(c, "bgc_pause1_msec", g->real[GCS_GCDB_R_bgc_pause1_msec])) return -1;
  }
  if (g->bgc_prep_suspend_begin_ns && g->bgc_prep_restart_end_ns) {
    struct exp_slice *c =
        exp_slice_add(t, rel(g->bgc_prep_suspend_begin_ns, t0), rel(g->bgc_prep_restart_end_ns, t0), "final pause");
    if (c) c->level = 1;
    if (!c || exp_arg_double(c, "bgc_pause2_msec", g->real[GCS_GCDB_R_bgc_pause2_msec])) return -1;
  }
  return 0;
}

/* Per-GC counters: after at GCHeapStats (GCEnd, RestartEEEnd if unseen), the
 * peak and the allocation rate since the previous GC at the pause start. */
enum { C_AFTER, C_PEAK, C_PROMOTED, C_ALLOC_RATE, C_NGC };
static const char *const gc_counter_names[C_NGC] = { "Heap after MB", "Heap peak MB", "Promoted MB",
                                                     "Alloc rate MB/s" };

static int add_gc_counters(struct exp_track **c, const struct gcs_gcdb_gc *g, int64_t t0) {
  uint64_t pstart = g->suspend_begin_ns ? g->suspend_begin_ns : g->start_ns;
  uint64_t after = g->heap_stats_ns ? g->heap_stats_ns : g->end_ns ? g->end_ns : g->restart_end_ns;
  int rc = 0;
  if (after) {
    rc |= exp_point_add(c[C_AFTER], rel(after, t0), g->real[GCS_GCDB_R_after_mb]);
    rc |= exp_point_add(c[C_PROMOTED], rel(after, t0), g->real[GCS_GCDB_R_promoted_mb]);
  }
  if (pstart) {
    rc |= exp_point_add(c[C_PEAK], rel(pstart, t0), g->real[GCS_GCDB_R_peak_mb]);
    rc |= exp_point_add(c[C_ALLOC_RATE], rel(pstart, t0), g->real[GCS_GCDB_R_alloc_rate_mb_sec]);
  }
  return rc;
}

static const char *const gen_label[] = { "Gen0", "Gen1", "Gen2", "LOH", "POH" };

/* The counter track named name, created on first use (NULL: out of memory). */
static struct exp_track *counter_track(struct exp_proc *p, const char *name) {
  for (size_t i = 0; i < p->ntracks; i++)
    if (p->tracks[i].kind == EXP_TRACK_COUNTER && !strcmp(p->tracks[i].name, name)) return &p->tracks[i];
  return exp_track_add(p, EXP_TRACK_COUNTER, name);
}

/* Per generation (gc_gens): size before (the generation's peak) at the pause
 * start, size after at GCHeapStats. The points come in the order of
 * "gc_gens JOIN gcs ORDER BY gen, gcs.id" (the tracks are created in that
 * order), without that join and its sort: the process's GCs are loaded
 * (p->gcs), gc_gens is read by its key over their ids, and the times come
 * from the loaded rows. */
struct gen_cell { double before, after; unsigned char has_before, has_after; };
#define NGENS (GCS_GEN_POH + 1)   /* gen0, gen1, gen2, LOH, POH: gc_gens' gen BETWEEN 0 AND 4 */
struct id_at { int64_t id; size_t at; };
static int id_at_cmp(const void *a, const void *b) {
  int64_t x = ((const struct id_at *)a)->id, y = ((const struct id_at *)b)->id;
  return x < y ? -1 : x > y;
}

static int add_gen_counters(sqlite3 *db, struct exp_proc *p, int64_t t0, char *err, size_t errlen) {
  size_t n = p->ngcs;
  if (n == 0) return 0;
  struct id_at *ids = malloc(n * sizeof *ids);
  struct gen_cell *cells = calloc(n * NGENS, sizeof *cells);
  if (!ids || !cells) {
    free(ids);
    free(cells);
    return OOM(err, errlen);
  }
  for (size_t i = 0; i < n; i++) ids[i] = (struct id_at){ p->gcs[i].id, i };
  qsort(ids, n, sizeof *ids, id_at_cmp);
  sqlite3_stmt *s;
  /* The compact layout: gc_gens_base, a row of the five generations per GC
   * (gens: those present), its figures E6 (gcs_gcdb_e6); the view's CASE
   * per value cost a quarter of the export on 13,000 GCs. */
  int compact = gcs_gcdb_compact(db);
  if (sqlite3_prepare_v2(db, compact ? "SELECT gc_id, gens, g0_size_before_mb, g0_size_after_mb, g1_size_before_mb, "
                                       "g1_size_after_mb, g2_size_before_mb, g2_size_after_mb, g3_size_before_mb, "
                                       "g3_size_after_mb, g4_size_before_mb, g4_size_after_mb FROM gc_gens_base "
                                       "WHERE gc_id BETWEEN ?1 AND ?2"
                                     : "SELECT gc_id, gen, size_before_mb, size_after_mb FROM gc_gens "
                                       "WHERE gc_id BETWEEN ?1 AND ?2 AND gen BETWEEN 0 AND 4", -1, &s, NULL) != SQLITE_OK) {
    free(ids);
    free(cells);
    return db_error(db, err, errlen);
  }
  sqlite3_bind_int64(s, 1, ids[0].id);
  sqlite3_bind_int64(s, 2, ids[n - 1].id);
  int step;
  while ((step = sqlite3_step(s)) == SQLITE_ROW) {
    struct id_at key = { sqlite3_column_int64(s, 0), 0 };
    const struct id_at *hit = bsearch(&key, ids, n, sizeof *ids, id_at_cmp);
    if (!hit) continue;   /* another process's GC */
    if (compact) {
      int gens = sqlite3_column_int(s, 1);
      for (int k = 0; k < NGENS; k++) {
        if (!(gens >> k & 1)) continue;
        struct gen_cell *c = &cells[(size_t)(hit - ids) * NGENS + (size_t)k];
        double before = gcs_gcdb_e6(s, 2 + 2 * k), after = gcs_gcdb_e6(s, 3 + 2 * k);
        if ((c->has_before = !isnan(before))) c->before = before;
        if ((c->has_after = !isnan(after))) c->after = after;
      }
      continue;
    }
    struct gen_cell *c = &cells[(size_t)(hit - ids) * NGENS + (size_t)sqlite3_column_int(s, 1)];
    if ((c->has_before = sqlite3_column_type(s, 2) != SQLITE_NULL)) c->before = sqlite3_column_double(s, 2);
    if ((c->has_after = sqlite3_column_type(s, 3) != SQLITE_NULL)) c->after = sqlite3_column_double(s, 3);
  }
  sqlite3_finalize(s);
  if (step != SQLITE_DONE) {
    free(ids);
    free(cells);
    return db_error(db, err, errlen);
  }
  int rc = 0;
  ptrdiff_t track_at[NGENS][2];   /* indices (p->tracks moves as tracks are added) */
  for (int k = 0; k < NGENS; k++) track_at[k][0] = track_at[k][1] = -1;
  for (int gen = GCS_GEN0; gen <= GCS_GEN_POH && rc == 0; gen++)
    for (size_t k = 0; k < n && rc == 0; k++) {
      const struct gen_cell *c = &cells[k * NGENS + (size_t)gen];
      const struct gcs_gcdb_gc *g = &p->gcs[ids[k].at];
      /* coalesce(suspend_begin_ns, start_ns); coalesce(heap_stats_ns, end_ns, restart_end_ns) */
      int has_from = (g->ns_set & (GCS_GCDB_HAS_SUSPEND_BEGIN | GCS_GCDB_HAS_START)) != 0;
      int64_t from = (int64_t)(g->ns_set & GCS_GCDB_HAS_SUSPEND_BEGIN ? g->suspend_begin_ns : g->start_ns);
      int has_to = (g->ns_set & (GCS_GCDB_HAS_HEAP_STATS | GCS_GCDB_HAS_END | GCS_GCDB_HAS_RESTART_END)) != 0;
      int64_t to = (int64_t)(g->ns_set & GCS_GCDB_HAS_HEAP_STATS ? g->heap_stats_ns
                             : g->ns_set & GCS_GCDB_HAS_END      ? g->end_ns
                                                                 : g->restart_end_ns);
      for (int w = 0; w < 2 && rc == 0; w++) {
        if (!(w ? has_to && c->has_after : has_from && c->has_before)) continue;
        if (track_at[gen][w] < 0) {
          char name[64];
          snprintf(name, sizeof name, "%s %s MB", gen_label[gen], w ? "after" : "before");
          struct exp_track *t = counter_track(p, name);
          if (!t) { rc = -1; break; }
          track_at[gen][w] = t - p->tracks;
        }
        rc |= exp_point_add(&p->tracks[track_at[gen][w]], (w ? to : from) - t0, w ? c->after : c->before);
      }
    }
  free(ids);
  free(cells);
  return rc ? OOM(err, errlen) : 0;
}

static int add_loh_waits(sqlite3 *db, struct exp_proc *p, char *err, size_t errlen) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT tid, start_msec, stop_msec, bgc_index, reason, pause_msec FROM gc_loh_waits "
                             "WHERE trace_id = ?1 AND pid = ?2 AND start_msec IS NOT NULL AND stop_msec IS NOT NULL "
                             "ORDER BY tid, start_msec", -1, &s, NULL) != SQLITE_OK)
    return db_error(db, err, errlen);
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  int rc = 0;
  int64_t tid = -1;
  size_t track = 0;
  while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
    if (sqlite3_column_int64(s, 0) != tid || tid < 0) {
      tid = sqlite3_column_int64(s, 0);
      char name[64];
      snprintf(name, sizeof name, "LOH alloc waits (tid %lld)", (long long)tid);
      if (!exp_track_add(p, EXP_TRACK_SLICES, name)) { rc = -1; break; }
      track = p->ntracks - 1;
    }
    struct exp_track *t = &p->tracks[track];
    int64_t a = llround(sqlite3_column_double(s, 1) * 1e6), b = llround(sqlite3_column_double(s, 2) * 1e6);
    uint32_t bgc = (uint32_t)sqlite3_column_int64(s, 3), reason = (uint32_t)sqlite3_column_int64(s, 4);
    char name[64];
    snprintf(name, sizeof name, "LOH alloc wait (BGC#%u)", bgc);
    const char *rn = gcs_map_name("bgc_wait_reason", reason);
    struct exp_slice *sl = exp_slice_add(t, a, b, name);
    if (!sl || exp_arg_int(sl, "bgc_index", bgc) || exp_arg_int(sl, "tid", tid) ||
        exp_arg_str(sl, "reason", rn ? rn : "Unknown") || exp_arg_double(sl, "pause_msec", sqlite3_column_double(s, 5)))
      rc = -1;
  }
  sqlite3_finalize(s);
  return rc ? OOM(err, errlen) : 0;
}

/* Stop rules that fired while record ran (trigger_firings): instants on a
 * track of their own, at the pair's end (when the rule saw it). */
static int add_firings(sqlite3 *db, struct exp_proc *p, int64_t t0, char *err, size_t errlen) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT rule, kind, gc_index, value, end_ns, capture, verdict FROM trigger_firings "
                             "WHERE trace_id = ?1 AND pid = ?2 AND end_ns IS NOT NULL ORDER BY end_ns, rowid",
                         -1, &s, NULL) != SQLITE_OK)
    return 0;   /* a database without the table */
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  int rc = 0;
  struct exp_track *t = NULL;
  while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
    if (!t && !(t = exp_track_add(p, EXP_TRACK_SLICES, "Stop-rule firings"))) { rc = -1; break; }
    char name[64];
    const char *rule = (const char *)sqlite3_column_text(s, 0), *kind = (const char *)sqlite3_column_text(s, 1);
    snprintf(name, sizeof name, "%s fired (GC#%lld)", rule ? rule : "?", (long long)sqlite3_column_int64(s, 2));
    int64_t at = rel((uint64_t)sqlite3_column_int64(s, 4), t0);
    struct exp_slice *sl = exp_slice_add(t, at, at, name);
    if (!sl) { rc = -1; break; }
    sl->instant = 1;
    /* the strings are copied into the slice's name only: keep the args static or numeric */
    if (exp_arg_int(sl, "gc_index", sqlite3_column_int64(s, 2)) ||
        exp_arg_double(sl, kind && !strcmp(kind, "pct-pause") ? "pct_paused" : "duration_msec",
                       sqlite3_column_double(s, 3)) ||
        exp_arg_bool(sl, "captured", sqlite3_column_type(s, 5) != SQLITE_NULL) ||
        exp_arg_bool(sl, "verified", sqlite3_column_text(s, 6) && !strcmp((const char *)sqlite3_column_text(s, 6), "verified")))
      rc = -1;
  }
  sqlite3_finalize(s);
  return rc ? OOM(err, errlen) : 0;
}

#define EXP_REQ_LANES 64   /* tracks per thread; past them a request shares the lane that ends first */

static int add_requests(sqlite3 *db, struct exp_proc *p, int64_t t0, char *err, size_t errlen) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT request_id, tid, start_ns, end_ns, method, path FROM requests WHERE trace_id = ?1 "
                             "AND pid = ?2 AND start_ns IS NOT NULL AND end_ns IS NOT NULL ORDER BY tid, start_ns, rowid",
                         -1, &s, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_int64(s, 1, p->trace_id);
  sqlite3_bind_int(s, 2, p->pid);
  int rc = 0;
  int64_t cur_tid = INT64_MIN;
  size_t lane_track[EXP_REQ_LANES];
  int64_t lane_end[EXP_REQ_LANES];
  int nlanes = 0;
  while (rc == 0 && sqlite3_step(s) == SQLITE_ROW) {
    int64_t tid = sqlite3_column_type(s, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 1);
    if (tid != cur_tid) { cur_tid = tid; nlanes = 0; }
    int64_t a = rel((uint64_t)sqlite3_column_int64(s, 2), t0), b = rel((uint64_t)sqlite3_column_int64(s, 3), t0);
    if (b < a) continue;
    int lane = -1;
    for (int i = 0; i < nlanes && lane < 0; i++)
      if (lane_end[i] <= a) lane = i;
    if (lane < 0 && nlanes < EXP_REQ_LANES) {
      char tn[64];
      if (nlanes == 0) snprintf(tn, sizeof tn, "Requests (tid %lld)", (long long)tid);
      else snprintf(tn, sizeof tn, "Requests (tid %lld) #%d", (long long)tid, nlanes + 1);
      if (!exp_track_add(p, EXP_TRACK_SLICES, tn)) { rc = -1; break; }
      lane_track[nlanes] = p->ntracks - 1;
      lane_end[nlanes] = 0;
      lane = nlanes++;
    }
    if (lane < 0)
      for (int i = lane = 0; i < nlanes; i++)
        if (lane_end[i] < lane_end[lane]) lane = i;
    lane_end[lane] = b > lane_end[lane] ? b : lane_end[lane];
    const char *m = (const char *)sqlite3_column_text(s, 4), *path = (const char *)sqlite3_column_text(s, 5);
    char name[64];
    if (path) snprintf(name, sizeof name, "%s%s%s", m ? m : "", m ? " " : "", path);
    else snprintf(name, sizeof name, "request %lld", (long long)sqlite3_column_int64(s, 0));
    struct exp_slice *sl = exp_slice_add(&p->tracks[lane_track[lane]], a, b, name);
    if (!sl || exp_arg_int(sl, "request_id", sqlite3_column_int64(s, 0)) ||
        exp_arg_double(sl, "latency_msec", (double)(b - a) / 1e6))
      rc = -1;
  }
  sqlite3_finalize(s);
  return rc ? OOM(err, errlen) : 0;
}

int exp_proc_load(sqlite3 *db, int64_t trace_id, int32_t pid, int64_t t0, struct exp_proc *p, char *err,
                  size_t errlen) {
  memset(p, 0, sizeof *p);
  p->trace_id = trace_id;
  p->pid = pid;
  if (load_process_row(db, p, err, errlen)) {
    exp_proc_free(p);
    return -1;
  }
  struct gcs_gcdb_query q = { .trace_id = trace_id, .pid = pid, .after_id = -1, .reals = GCS_GCDB_ALL_REALS };
  struct gcs_gcdb_gc *gcs = NULL;
  size_t n = 0, nsusp = 0;
  struct id_ns *susp = NULL;
  if (gcs_gcdb_load(db, &q, &gcs, &n, err, errlen) || load_suspend_ends(db, p, &susp, &nsusp, err, errlen)) {
    free(gcs);
    exp_proc_free(p);
    return -1;
  }
  int rc = 0, any_bgc = 0;
  for (size_t i = 0; i < n; i++) any_bgc |= gcs_type_is_background(gcs[i].type);
  /* fixed tracks first (indices stay valid: looked up by index after every add) */
  if (!exp_track_add(p, EXP_TRACK_SLICES, "GC pauses") ||
      (any_bgc && !exp_track_add(p, EXP_TRACK_SLICES, "Background GCs")))
    rc = OOM(err, errlen);
  size_t first_counter = p->ntracks;
  for (int c = 0; rc == 0 && c < C_NGC; c++)
    if (!exp_track_add(p, EXP_TRACK_COUNTER, gc_counter_names[c])) rc = OOM(err, errlen);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    const struct gcs_gcdb_gc *g = &gcs[i];
    struct exp_track *counters[C_NGC];
    for (int c = 0; c < C_NGC; c++) counters[c] = &p->tracks[first_counter + (size_t)c];
    int r = add_gc_pause(&p->tracks[0], g, t0, suspend_end_of(susp, nsusp, g->id));
    if (r > 0) p->gc_slices++;
    if (r < 0 || (gcs_type_is_background(g->type) && add_bgc(&p->tracks[1], g, t0)) ||
        add_gc_counters(counters, g, t0))
      rc = OOM(err, errlen);
  }
  /* Committed memory (.NET 8+ GCCommittedUsage, as TotalCommittedBytes): at
   * each GC's start and end; no track when the trace has none. */
  int any_committed = 0;
  for (size_t i = 0; i < n; i++)
    any_committed |= isfinite(gcs[i].real[GCS_GCDB_R_committed_before_mb]) ||
                     isfinite(gcs[i].real[GCS_GCDB_R_committed_after_mb]);
  if (rc == 0 && any_committed) {
    struct exp_track *ct = exp_track_add(p, EXP_TRACK_COUNTER, "Committed MB");
    if (!ct) rc = OOM(err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++) {
      if (gcs[i].start_ns && exp_point_add(ct, rel(gcs[i].start_ns, t0), gcs[i].real[GCS_GCDB_R_committed_before_mb]))
        rc = OOM(err, errlen);
      if (gcs[i].end_ns && exp_point_add(ct, rel(gcs[i].end_ns, t0), gcs[i].real[GCS_GCDB_R_committed_after_mb]))
        rc = OOM(err, errlen);
    }
  }
  /* Heap count (GCGlobalHeapHistory NumHeaps; DATAS changes it): each GC's,
   * at its start; no track when every known count is 1 (workstation GC) or
   * none is known. */
  int hc_any = 0, hc_min = 0, hc_max = 0;
  for (size_t i = 0; i < n; i++) {
    double h = gcs[i].real[GCS_GCDB_R_heap_count];
    if (!isfinite(h)) continue;
    if (!hc_any || h < hc_min) hc_min = (int)h;
    if (!hc_any || h > hc_max) hc_max = (int)h;
    hc_any = 1;
  }
  if (rc == 0 && hc_any && (hc_max > 1 || hc_min != hc_max)) {
    struct exp_track *ht = exp_track_add(p, EXP_TRACK_COUNTER, "Heap count");
    if (!ht) rc = OOM(err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++)
      if (gcs[i].start_ns && exp_point_add(ht, rel(gcs[i].start_ns, t0), gcs[i].real[GCS_GCDB_R_heap_count]))
        rc = OOM(err, errlen);
  }
  p->gcs = gcs; /* the slices point into it */
  p->ngcs = n;
  free(susp);
  if (rc == 0) rc = add_gen_counters(db, p, t0, err, errlen);
  if (rc == 0) rc = add_loh_waits(db, p, err, errlen);
  if (rc == 0) rc = add_firings(db, p, t0, err, errlen);
  if (rc == 0) rc = add_requests(db, p, t0, err, errlen);
  for (size_t i = 0; rc == 0 && i < p->ntracks; i++) {
    struct exp_track *t = &p->tracks[i];
    if (t->kind == EXP_TRACK_COUNTER) {
      exp_points_sort(t);
      continue;
    }
    long c = exp_nest(t);
    if (c < 0) rc = OOM(err, errlen);
    else p->clamped += (size_t)c;
  }
  if (rc) exp_proc_free(p);
  return rc;
}
