/* tui_model.c — per-process GC lists and the GCStats figures `gcscope top`
 * shows. Definitions follow perfview-gcstats.md; see tui_model.h. */
#include "gcs_enums.h"
#include "tui_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gcs_events.h"

struct tui_model {
  struct tui_proc *procs;
  size_t nprocs, cap;
  uint64_t generation;
  size_t max_gcs;              /* per process; 0: no limit */
};

/* What the figures keep of dropped GCs (see tui_model_set_max_gcs). */
struct tui_dropped {
  struct tui_summary s;        /* sums, counts and maxima (first/last/uptime unused) */
  double first_pause, last_end;
  struct tui_rollup roll[4];
  unsigned hist[TUI_NBUCKETS];
};

void tui_model_set_max_gcs(struct tui_model *m, size_t max) { m->max_gcs = max; }

static void drop_oldest(struct tui_proc *p, size_t max);

/* 1-2-5 steps from 0.1 ms to 1 s. */
const double tui_bucket_edges_ms[TUI_NBUCKETS - 1] = {
  0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000
};
static const char *const bucket_labels[TUI_NBUCKETS] = {
  "<.1", ".1", ".2", ".5", "1", "2", "5", "10", "20", "50", "100", "200", "500", ">=1s"
};

int tui_pause_bucket(double pause_ms) {
  int b = 0;
  while (b < TUI_NBUCKETS - 1 && !(pause_ms < tui_bucket_edges_ms[b])) b++;
  return b;
}

const char *tui_bucket_label(int bucket) {
  return bucket >= 0 && bucket < TUI_NBUCKETS ? bucket_labels[bucket] : "?";
}

struct tui_model *tui_model_new(void) { return calloc(1, sizeof(struct tui_model)); }

void tui_model_free(struct tui_model *m) {
  if (!m) return;
  for (size_t i = 0; i < m->nprocs; i++) {
    free(m->procs[i].gcs);
    free(m->procs[i].dropped);
    free(m->procs[i].reqs);
  }
  free(m->procs);
  free(m);
}

struct tui_proc *tui_model_proc(struct tui_model *m, int64_t trace_id, int32_t pid, int create) {
  for (size_t i = 0; i < m->nprocs; i++)
    if (m->procs[i].pid == pid && m->procs[i].trace_id == trace_id) return &m->procs[i];
  if (!create) return NULL;
  if (m->nprocs == m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 4;
    struct tui_proc *np = realloc(m->procs, cap * sizeof *np);
    if (!np) return NULL;
    m->procs = np;
    m->cap = cap;
  }
  struct tui_proc *p = &m->procs[m->nprocs++];
  memset(p, 0, sizeof *p);
  p->pid = pid;
  p->trace_id = trace_id;
  p->first_ms = NAN;
  p->last_ms = NAN;
  m->generation++;
  return p;
}

size_t tui_model_nprocs(const struct tui_model *m) { return m->nprocs; }
struct tui_proc *tui_model_proc_at(struct tui_model *m, size_t i) {
  return i < m->nprocs ? &m->procs[i] : NULL;
}
uint64_t tui_model_generation(const struct tui_model *m) { return m->generation; }

static void extend(struct tui_proc *p, double ms) {
  if (isnan(ms)) return;
  if (isnan(p->first_ms) || ms < p->first_ms) p->first_ms = ms;
  if (isnan(p->last_ms) || ms > p->last_ms) p->last_ms = ms;
}

int tui_model_touch(struct tui_model *m, int64_t trace_id, int32_t pid, double ms) {
  struct tui_proc *p = tui_model_proc(m, trace_id, pid, 1);
  if (!p) return -1;
  extend(p, ms);
  return 0;
}

int tui_model_add_gc(struct tui_model *m, const struct tui_gc *gc) {
  struct tui_proc *p = tui_model_proc(m, gc->trace_id, gc->pid, 1);
  if (!p) return -1;
  /* A live GC can be reported again (e.g. closed incomplete, then superseded):
   * the newest report of a number wins. Search from the end: it is recent. */
  for (size_t i = p->ngcs; i-- > 0 && i + 64 >= p->ngcs;)
    if (p->gcs[i].number == gc->number && p->gcs[i].start_ms == gc->start_ms) {
      p->gcs[i] = *gc;
      m->generation++;
      return 0;
    }
  if (p->ngcs == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 64;
    struct tui_gc *ng = realloc(p->gcs, cap * sizeof *ng);
    if (!ng) return -1;
    p->gcs = ng;
    p->cap = cap;
  }
  p->gcs[p->ngcs++] = *gc;
  drop_oldest(p, m->max_gcs);
  extend(p, gc->pause_start_ms);
  extend(p, gc->start_ms);
  if (!isnan(gc->duration_ms)) extend(p, gc->start_ms + gc->duration_ms);
  m->generation++;
  return 0;
}

int tui_model_update_gc(struct tui_model *m, const struct tui_gc *gc) {
  struct tui_proc *p = tui_model_proc(m, gc->trace_id, gc->pid, 0);
  for (size_t i = p ? p->ngcs : 0; i-- > 0;)
    if (p->gcs[i].number == gc->number && p->gcs[i].start_ms == gc->start_ms) {
      p->gcs[i] = *gc;
      m->generation++;
      return 0;
    }
  return -1;
}

void tui_gc_init(struct tui_gc *gc) {
  memset(gc, 0, sizeof *gc);
  gc->db_id = -1;
  gc->complete = 1;
  double *nan_fields[] = {
    &gc->start_ms, &gc->pause_start_ms, &gc->duration_ms, &gc->suspend_ms, &gc->pause_ms,
    &gc->bgc_pause1_ms, &gc->bgc_pause2_ms, &gc->pct_pause, &gc->gen0_alloc_mb,
    &gc->alloc_mb, &gc->alloc_perfview_mb, &gc->alloc_rate_mbs, &gc->peak_mb, &gc->after_mb, &gc->promoted_mb,
    &gc->committed_mb,
  };
  for (size_t i = 0; i < sizeof nan_fields / sizeof nan_fields[0]; i++) *nan_fields[i] = NAN;
  for (int g = 0; g < TUI_NGENS; g++) gc->gen_before_mb[g] = gc->gen_after_mb[g] = NAN;
}

int tui_gc_is_induced(const struct tui_gc *gc) { return gc->reason >= 0 && gcs_reason_is_induced((uint32_t)gc->reason); }

const char *tui_gc_gen_name(const struct tui_gc *gc, char *buf, size_t len) {
  const char *t = gc->type >= 0 ? gcs_type_letter((uint32_t)gc->type) : "?";
  const char *ind = gc->reason >= 0 ? gcs_reason_induced_mark((uint32_t)gc->reason) : "";
  snprintf(buf, len, "%d%s%s", gc->gen, t, ind);
  return buf;
}

/* NaN-tolerant helpers: unknown figures never poison a sum or a max. */
static double nz(double v) { return isnan(v) ? 0 : v; }
static double maxd(double a, double b) { return isnan(b) || b <= a ? a : b; }

/* One GC into the header figures. */
static void fold_summary(struct tui_summary *s, double *first_pause, double *last_end, const struct tui_gc *gc) {
  if (!gc->complete) { s->nincomplete++; return; }
  if (gc->gen >= 0 && gc->gen < GCS_NGENS_SOH) s->count[gc->gen]++;
  if (gc->type == GCS_GC_TYPE_BACKGROUND) s->nbgc++;
  if (gc->type == GCS_GC_TYPE_FOREGROUND) s->nfgc++;
  s->total_pause_ms += nz(gc->pause_ms);
  s->max_pause_ms = maxd(s->max_pause_ms, gc->pause_ms);
  s->heap_max_mb = maxd(s->heap_max_mb, gc->peak_mb);
  s->total_alloc_mb += nz(gc->alloc_mb);
  if (!isnan(gc->after_mb)) s->heap_now_mb = gc->after_mb;
  if (isnan(*first_pause)) *first_pause = gc->pause_start_ms;
  double end = gc->start_ms + gc->duration_ms;   /* GCEnd: HeapStats follows it */
  if (!isnan(end) && (isnan(*last_end) || end > *last_end)) *last_end = end;
}

static void fold_rollup(struct tui_rollup out[4], const struct tui_gc *gc) {
  if (!gc->complete) return;
  for (int k = 0; k < 2; k++) {
    struct tui_rollup *r = k == 0 ? &out[0] : (gc->gen >= 0 && gc->gen < GCS_NGENS_SOH ? &out[1 + gc->gen] : NULL);
    if (!r) continue;
    r->count++;
    if (tui_gc_is_induced(gc)) r->induced++;
    r->max_pause_ms = maxd(r->max_pause_ms, gc->pause_ms);
    r->max_peak_mb = maxd(r->max_peak_mb, gc->peak_mb);
    r->max_alloc_rate_mbs = maxd(r->max_alloc_rate_mbs, gc->alloc_rate_mbs);
    r->total_pause_ms += nz(gc->pause_ms);
    r->total_alloc_mb += nz(gc->alloc_mb);
  }
}

/* Drop the oldest GCs past the limit, folding them into p->dropped. */
static void drop_oldest(struct tui_proc *p, size_t max) {
  if (!max || p->ngcs <= max) return;
  if (!p->dropped) {
    p->dropped = calloc(1, sizeof *p->dropped);
    if (!p->dropped) return;
    p->dropped->first_pause = p->dropped->last_end = NAN;
  }
  size_t k = p->ngcs - max + max / 4;   /* drop a quarter more: amortised */
  struct tui_dropped *d = p->dropped;
  for (size_t i = 0; i < k; i++) {
    const struct tui_gc *gc = &p->gcs[i];
    fold_summary(&d->s, &d->first_pause, &d->last_end, gc);
    fold_rollup(d->roll, gc);
    if (gc->complete && !isnan(gc->pause_ms)) d->hist[tui_pause_bucket(gc->pause_ms)]++;
  }
  memmove(p->gcs, p->gcs + k, (p->ngcs - k) * sizeof *p->gcs);
  p->ngcs -= k;
  p->ndropped += k;
}

void tui_proc_summary(const struct tui_proc *p, struct tui_summary *s) {
  memset(s, 0, sizeof *s);
  double first_pause = NAN, last_end = NAN;
  if (p->dropped) {
    *s = p->dropped->s;
    s->last = NULL;
    first_pause = p->dropped->first_pause;
    last_end = p->dropped->last_end;
  }
  for (size_t i = 0; i < p->ngcs; i++) {
    s->last = &p->gcs[i];
    fold_summary(s, &first_pause, &last_end, &p->gcs[i]);
  }
  if (!isnan(first_pause) && !isnan(last_end) && last_end > first_pause)
    s->process_duration_ms = last_end - first_pause;
  if (s->process_duration_ms > 0) {
    s->pct_paused = s->total_pause_ms * 100 / s->process_duration_ms;
    s->alloc_rate_mbs = s->total_alloc_mb * 1000 / s->process_duration_ms;
  }
  if (!isnan(p->first_ms) && !isnan(p->last_ms)) s->uptime_ms = p->last_ms - p->first_ms;
}

void tui_proc_rollup(const struct tui_proc *p, struct tui_rollup out[4]) {
  memset(out, 0, 4 * sizeof *out);
  if (p->dropped) memcpy(out, p->dropped->roll, 4 * sizeof *out);
  for (size_t i = 0; i < p->ngcs; i++) fold_rollup(out, &p->gcs[i]);
  for (int k = 0; k < 4; k++)
    out[k].mean_pause_ms = out[k].count ? out[k].total_pause_ms / out[k].count : NAN;
}

void tui_proc_histogram(const struct tui_proc *p, unsigned counts[TUI_NBUCKETS]) {
  memset(counts, 0, TUI_NBUCKETS * sizeof counts[0]);
  if (p->dropped) memcpy(counts, p->dropped->hist, TUI_NBUCKETS * sizeof counts[0]);
  for (size_t i = 0; i < p->ngcs; i++)
    if (p->gcs[i].complete && !isnan(p->gcs[i].pause_ms))
      counts[tui_pause_bucket(p->gcs[i].pause_ms)]++;
}

static const char *const filter_names[TUI_FILTER_COUNT] = {
  "all", "gen0", "gen1", "gen2", "background", "foreground", "blocking gen2", "induced"
};
const char *tui_filter_name(enum tui_filter f) {
  return (unsigned)f < TUI_FILTER_COUNT ? filter_names[f] : "?";
}

int tui_filter_match(enum tui_filter f, const struct tui_gc *gc) {
  switch (f) {
  case TUI_FILTER_ALL: return 1;
  case TUI_FILTER_GEN0: return gc->gen == GCS_GEN0;
  case TUI_FILTER_GEN1: return gc->gen == GCS_GEN1;
  case TUI_FILTER_GEN2: return gc->gen == GCS_GEN2;
  case TUI_FILTER_BGC: return gc->type == GCS_GC_TYPE_BACKGROUND;
  case TUI_FILTER_FGC: return gc->type == GCS_GC_TYPE_FOREGROUND;
  case TUI_FILTER_BLOCKING_GEN2: return gc->gen >= 0 && gc->type >= 0 && gcs_gc_is_blocking_gen2((uint32_t)gc->gen, (uint32_t)gc->type);
  case TUI_FILTER_INDUCED: return tui_gc_is_induced(gc);
  default: return 0;
  }
}

static const char *const col_names[TUI_COL_COUNT] = {
  "GC#", "Start ms", "Gen", "Reason", "Susp ms", "Pause ms", "Peak MB", "After MB",
  "Prom MB", "%Pause", "Alloc MB"
};
const char *tui_col_name(enum tui_col c) {
  return (unsigned)c < TUI_COL_COUNT ? col_names[c] : "?";
}

/* qsort has no context argument: the comparison reads these (one thread). */
static const struct tui_gc *sort_gcs;
static enum tui_col sort_col;
static int sort_asc;

static double col_value(const struct tui_gc *gc, enum tui_col c) {
  switch (c) {
  case TUI_COL_INDEX: return (double)gc->number;
  case TUI_COL_START: return gc->pause_start_ms;
  case TUI_COL_GEN: return gc->gen * 4 + gc->type;
  case TUI_COL_REASON: return gc->reason;
  case TUI_COL_SUSPEND: return gc->suspend_ms;
  case TUI_COL_PAUSE: return gc->pause_ms;
  case TUI_COL_PEAK: return gc->peak_mb;
  case TUI_COL_AFTER: return gc->after_mb;
  case TUI_COL_PROMOTED: return gc->promoted_mb;
  case TUI_COL_PCT: return gc->pct_pause;
  case TUI_COL_ALLOC: return gc->alloc_mb;
  default: return 0;
  }
}

static int cmp_rows(const void *a, const void *b) {
  const struct tui_gc *x = &sort_gcs[*(const size_t *)a], *y = &sort_gcs[*(const size_t *)b];
  int r = 0;
  if (sort_col == TUI_COL_REASON) {
    r = strcmp(gcs_reason_name((uint32_t)x->reason), gcs_reason_name((uint32_t)y->reason));
  } else {
    double vx = col_value(x, sort_col), vy = col_value(y, sort_col);
    /* unknown values sort last whatever the direction */
    if (isnan(vx) != isnan(vy)) return isnan(vx) ? 1 : -1;
    r = vx < vy ? -1 : vx > vy ? 1 : 0;
  }
  if (!sort_asc) r = -r;
  if (r == 0) r = x->number < y->number ? 1 : x->number > y->number ? -1 : 0;
  return r;
}

long tui_proc_rows(const struct tui_proc *p, enum tui_filter f, enum tui_col sort,
                   int ascending, size_t **out) {
  *out = malloc((p->ngcs ? p->ngcs : 1) * sizeof **out);
  if (!*out) return -1;
  size_t n = 0;
  for (size_t i = 0; i < p->ngcs; i++)
    if (tui_filter_match(f, &p->gcs[i])) (*out)[n++] = i;
  sort_gcs = p->gcs;
  sort_col = sort;
  sort_asc = ascending;
  qsort(*out, n, sizeof **out, cmp_rows);
  return (long)n;
}

static int contains_ci(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (!strncasecmp(hay, needle, n)) return 1;
  return n == 0;
}

int tui_gc_matches(const struct tui_gc *gc, const char *text) {
  while (*text == ' ' || *text == '#') text++;
  if (!*text) return 0;
  char *end;
  long long v = strtoll(text, &end, 10);
  if (end != text && *end == '\0') return v == gc->number;
  char gen[16];
  return contains_ci(gcs_reason_name((uint32_t)gc->reason), text) ||
         !strcasecmp(tui_gc_gen_name(gc, gen, sizeof gen), text);
}

int tui_spark_level(double v, double max) {
  if (isnan(v) || !(v > 0) || isnan(max) || !(max > 0)) return 0;
  double l = ceil(v * 8 / max);
  return l < 1 ? 1 : l > 8 ? 8 : (int)l;
}

int tui_spark_level_range(double v, double lo, double hi) {
  if (isnan(v) || isnan(lo) || isnan(hi)) return 0;
  if (!(hi > lo)) return 8;
  double l = 1 + ceil((v - lo) * 7 / (hi - lo));
  return l < 1 ? 1 : l > 8 ? 8 : (int)l;
}

int tui_proc_sparklines(const struct tui_proc *p, double window_ms, int ncells,
                        double *heap_mb, double *pause_ms, struct tui_spark *out) {
  if (ncells < 1 || isnan(p->last_ms) || isnan(p->first_ms) || !(window_ms > 0)) return -1;
  memset(out, 0, sizeof *out);
  double len = p->last_ms - p->first_ms;
  out->end_ms = p->last_ms;
  out->whole = len > 0 && len < window_ms;
  double w = out->whole ? len : window_ms;
  out->start_ms = out->end_ms - w;
  out->bucket_ms = w / ncells;
  out->ncells = ncells;
  out->heap_max_mb = out->heap_lo_mb = NAN;
  for (int i = 0; i < ncells; i++) { heap_mb[i] = NAN; pause_ms[i] = 0; }
  for (size_t k = 0; k < p->ngcs; k++) {
    const struct tui_gc *gc = &p->gcs[k];
    double t = gc->pause_start_ms;
    if (!gc->complete || isnan(t) || t < out->start_ms || t > out->end_ms) continue;
    long i = (long)floor((t - out->start_ms) / out->bucket_ms);
    if (i >= ncells) i = ncells - 1;   /* the window's end itself */
    if (i < 0) i = 0;
    out->ngcs++;
    if (!isnan(gc->after_mb) && (isnan(heap_mb[i]) || gc->after_mb > heap_mb[i])) heap_mb[i] = gc->after_mb;
    pause_ms[i] += nz(gc->pause_ms);
  }
  for (int i = 0; i < ncells; i++) {
    if (!isnan(heap_mb[i]) && (isnan(out->heap_max_mb) || heap_mb[i] > out->heap_max_mb)) out->heap_max_mb = heap_mb[i];
    if (!isnan(heap_mb[i]) && (isnan(out->heap_lo_mb) || heap_mb[i] < out->heap_lo_mb)) out->heap_lo_mb = heap_mb[i];
    out->pause_max_ms = maxd(out->pause_max_ms, pause_ms[i]);
  }
  if (!isnan(out->heap_max_mb) && out->heap_max_mb / 2 < out->heap_lo_mb) out->heap_lo_mb = out->heap_max_mb / 2;
  return 0;
}

const enum tui_col tui_col_priority[TUI_COL_COUNT] = {
  TUI_COL_INDEX, TUI_COL_GEN, TUI_COL_PAUSE, TUI_COL_PEAK, TUI_COL_AFTER, TUI_COL_START,
  TUI_COL_REASON, TUI_COL_PROMOTED, TUI_COL_SUSPEND, TUI_COL_ALLOC, TUI_COL_PCT,
};

static int fit_once(const int width[TUI_COL_COUNT], int avail, unsigned char shown[TUI_COL_COUNT]) {
  int used = -1, hidden = 0;   /* n columns need n - 1 separators */
  for (int k = 0; k < TUI_COL_COUNT; k++) {
    enum tui_col c = tui_col_priority[k];
    if (!hidden && used + 1 + width[c] <= avail) { used += 1 + width[c]; shown[c] = 1; }
    else { shown[c] = 0; hidden++; }
  }
  return hidden;
}

int tui_cols_fit(const int width[TUI_COL_COUNT], int avail, int marker, unsigned char shown[TUI_COL_COUNT]) {
  int hidden = fit_once(width, avail, shown);
  if (hidden && marker > 0) hidden = fit_once(width, avail - marker, shown);
  return hidden;
}

/* ---- requests ---------------------------------------------------------------- */

struct tui_reqs {
  uint64_t total;
  size_t head, n;              /* ring of the newest TUI_REQ_KEEP, by arrival */
  double end_ms[TUI_REQ_KEEP], lat_ms[TUI_REQ_KEEP];
};

int tui_model_add_request(struct tui_model *m, int64_t trace_id, int32_t pid, double end_ms, double latency_ms) {
  struct tui_proc *p = tui_model_proc(m, trace_id, pid, 1);
  if (!p) return -1;
  if (!p->reqs && !(p->reqs = calloc(1, sizeof *p->reqs))) return -1;
  struct tui_reqs *r = p->reqs;
  size_t at = (r->head + r->n) % TUI_REQ_KEEP;
  if (r->n == TUI_REQ_KEEP) r->head = (r->head + 1) % TUI_REQ_KEEP;
  else r->n++;
  r->end_ms[at] = end_ms;
  r->lat_ms[at] = latency_ms;
  r->total++;
  m->generation++;
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int tui_proc_requests(const struct tui_proc *p, double window_ms, struct tui_req_summary *out) {
  memset(out, 0, sizeof *out);
  out->p99_ms = out->rate_per_s = NAN;
  const struct tui_reqs *r = p->reqs;
  if (!r || r->n == 0) return 0;
  out->total = r->total;
  double last = -INFINITY, first = INFINITY;
  for (size_t i = 0; i < r->n; i++) {
    size_t k = (r->head + i) % TUI_REQ_KEEP;
    if (r->end_ms[k] > last) last = r->end_ms[k];
    if (r->end_ms[k] - r->lat_ms[k] < first) first = r->end_ms[k] - r->lat_ms[k];
  }
  double from = last - window_ms;
  if (from < first) from = first;
  double *v = malloc(r->n * sizeof *v);
  if (!v) return 1;
  size_t n = 0;
  for (size_t i = 0; i < r->n; i++) {
    size_t k = (r->head + i) % TUI_REQ_KEEP;
    if (r->end_ms[k] >= from) v[n++] = r->lat_ms[k];
  }
  qsort(v, n, sizeof *v, cmp_double);
  out->window_count = n;
  out->window_ms = last - from;
  if (out->window_ms > 0) out->rate_per_s = (double)n * 1000.0 / out->window_ms;
  if (n) {
    double rank = 0.99 * (double)(n - 1);
    size_t lo = (size_t)rank;
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    out->p99_ms = v[lo] + (rank - (double)lo) * (v[hi] - v[lo]);
  }
  free(v);
  return 1;
}

void tui_copy_name(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  if (n >= cap) {
    n = cap - 1;
    /* back over the continuation bytes (10xxxxxx) to the start of the
     * character that did not fit whole */
    size_t k = n;
    while (k > 0 && ((unsigned char)src[k] & 0xc0) == 0x80) k--;
    n = k;
  }
  memcpy(dst, src, n);
  dst[n] = '\0';
}
