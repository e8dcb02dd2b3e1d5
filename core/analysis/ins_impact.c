/* ins_impact.c — request latency vs GC pauses for one process (see ins_impact.h). */
#include "ins_impact.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ins_stats.h"

const double ins_impact_pcts[INS_N_PCTS] = {50, 90, 95, 99, 99.9, 100};
const char *const ins_impact_pct_names[INS_N_PCTS] = {"p50", "p90", "p95", "p99", "p99.9", "max"};
const double ins_default_cuts[3] = {50, 90, 99};

#define NS_PER_MS 1e6

/* Pauses sorted by start, plus the longest pause, so the pauses overlapping
 * [a,b) are found from the first one starting at or after a - longest. */
struct pause_index {
  struct ins_pause *p;
  size_t n;
  int64_t longest;
};

static int cmp_pause(const void *a, const void *b) {
  const struct ins_pause *x = a, *y = b;
  return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Distinct GC indexes of pauses overlapping [a,b) by a positive length, into
 * buf (capacity cap, grown as needed). Returns the count, or -1 on OOM. */
static long gcs_hitting(const struct pause_index *pi, int64_t a, int64_t b,
                        uint32_t **buf, size_t *cap) {
  size_t lo = 0, hi = pi->n;
  int64_t from = a - pi->longest;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (pi->p[mid].start_ns < from) lo = mid + 1; else hi = mid;
  }
  size_t k = 0;
  for (size_t i = lo; i < pi->n && pi->p[i].start_ns < b; i++) {
    const struct ins_pause *q = &pi->p[i];
    int64_t s = q->start_ns > a ? q->start_ns : a;
    int64_t e = q->end_ns < b ? q->end_ns : b;
    if (e <= s) continue;
    if (k == *cap) {
      size_t nc = *cap ? *cap * 2 : 8;
      uint32_t *nb = realloc(*buf, nc * sizeof *nb);
      if (!nb) return -1;
      *buf = nb;
      *cap = nc;
    }
    (*buf)[k++] = q->gc_index;
  }
  if (k > 1) qsort(*buf, k, sizeof **buf, cmp_u32);
  size_t u = 0;
  for (size_t i = 0; i < k; i++)
    if (u == 0 || (*buf)[u - 1] != (*buf)[i]) (*buf)[u++] = (*buf)[i];
  return (long)u;
}

/* Per analysed request: latency and GC time, in ns. */
struct req_fig {
  const struct ins_request *r;
  double lat_ns;
  double gc_ns;
};

static int cmp_slowest(const void *a, const void *b) {
  const struct req_fig *x = a, *y = b;
  if (x->lat_ns != y->lat_ns) return x->lat_ns < y->lat_ns ? 1 : -1;
  return (x->r->start_ns > y->r->start_ns) - (x->r->start_ns < y->r->start_ns);
}

/* Per GC index: request time its pauses took (worst GCs). */
struct gc_cost { uint32_t gc; size_t requests; int64_t lost_ns; size_t last_req; };

static int cmp_cost(const void *a, const void *b) {
  const struct gc_cost *x = a, *y = b;
  if (x->lost_ns != y->lost_ns) return x->lost_ns < y->lost_ns ? 1 : -1;
  return (x->gc > y->gc) - (x->gc < y->gc);
}

static int cmp_cost_gc(const void *a, const void *b) {
  const struct gc_cost *x = a, *y = b;
  return (x->gc > y->gc) - (x->gc < y->gc);
}

/* Adds request ri's overlap with each pause to its GC's cost (cost sorted by gc). */
static void charge(const struct pause_index *pi, const struct ins_request *r, size_t ri, struct gc_cost *cost,
                   size_t ncost) {
  size_t lo = 0, hi = pi->n;
  int64_t from = r->start_ns - pi->longest;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (pi->p[mid].start_ns < from) lo = mid + 1; else hi = mid;
  }
  for (size_t i = lo; i < pi->n && pi->p[i].start_ns < r->end_ns; i++) {
    const struct ins_pause *q = &pi->p[i];
    int64_t s = q->start_ns > r->start_ns ? q->start_ns : r->start_ns;
    int64_t e = q->end_ns < r->end_ns ? q->end_ns : r->end_ns;
    if (e <= s) continue;
    struct gc_cost key = { q->gc_index, 0, 0, 0 };
    struct gc_cost *c = bsearch(&key, cost, ncost, sizeof *cost, cmp_cost_gc);
    if (!c) continue;
    c->lost_ns += e - s;
    if (c->last_req != ri + 1) { c->requests++; c->last_req = ri + 1; }
  }
}

static void split_pcts(double *v, size_t n, double *out) {
  ins_sort_doubles(v, n);
  for (int i = 0; i < INS_N_PCTS; i++) out[i] = n ? ins_percentile_sorted(v, n, ins_impact_pcts[i]) / NS_PER_MS : NAN;
}

static int check_cuts(const double *cuts, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!(cuts[i] > 0 && cuts[i] < 100)) return -1;
    if (i > 0 && !(cuts[i] > cuts[i - 1])) return -1;
  }
  return 0;
}

int ins_impact_compute(const struct ins_request *req, size_t n_req,
                       const struct ins_pause *pauses, size_t n_pauses,
                       const double *cuts, size_t n_cuts, size_t slowest_n,
                       struct ins_impact *out) {
  memset(out, 0, sizeof *out);
  if (check_cuts(cuts, n_cuts) != 0) return -1;
  for (int i = 0; i < INS_N_PCTS; i++) out->pct_ms[i] = out->pct_clean_ms[i] = out->pct_hit_ms[i] = NAN;
  out->affected_pct = NAN;
  out->gc_impact_pct = NAN;

  int rc = -1;
  struct ins_timeline tl;
  struct pause_index pi = {0};
  struct req_fig *fig = NULL;
  double *lat = NULL, *cutv = NULL, *clean = NULL, *hit = NULL;
  struct gc_cost *cost = NULL;
  size_t ncost = 0, nclean = 0, nhit = 0;
  uint32_t *buf = NULL;
  size_t cap = 0;
  if (ins_timeline_build(&tl, pauses, n_pauses) != 0) return -1;

  pi.p = malloc((n_pauses ? n_pauses : 1) * sizeof *pi.p);
  fig = malloc((n_req ? n_req : 1) * sizeof *fig);
  lat = malloc((n_req ? n_req : 1) * sizeof *lat);
  cutv = malloc((n_cuts ? n_cuts : 1) * sizeof *cutv);
  out->n_bands = n_cuts + 1;
  out->bands = calloc(out->n_bands, sizeof *out->bands);
  clean = malloc((n_req ? n_req : 1) * sizeof *clean);
  hit = malloc((n_req ? n_req : 1) * sizeof *hit);
  cost = calloc(n_pauses ? n_pauses : 1, sizeof *cost);
  if (!pi.p || !fig || !lat || !cutv || !out->bands || !clean || !hit || !cost) goto done;
  for (size_t i = 0; i < n_pauses; i++) {
    if (pauses[i].end_ns <= pauses[i].start_ns) continue;
    pi.p[pi.n++] = pauses[i];
    if (pauses[i].end_ns - pauses[i].start_ns > pi.longest)
      pi.longest = pauses[i].end_ns - pauses[i].start_ns;
  }
  qsort(pi.p, pi.n, sizeof *pi.p, cmp_pause);
  for (size_t i = 0; i < pi.n; i++) cost[ncost++].gc = pi.p[i].gc_index;
  qsort(cost, ncost, sizeof *cost, cmp_cost_gc);
  {
    size_t u = 0;
    for (size_t i = 0; i < ncost; i++)
      if (u == 0 || cost[u - 1].gc != cost[i].gc) cost[u++] = cost[i];
    ncost = u;
  }

  size_t n = 0;
  double aff_lat = 0, aff_gc = 0, all_lat = 0, all_gc = 0;
  for (size_t i = 0; i < n_req; i++) {
    const struct ins_request *r = &req[i];
    if (r->end_ns < r->start_ns) { out->invalid++; continue; }
    double l = (double)(r->end_ns - r->start_ns);
    double g = (double)ins_timeline_paused(&tl, r->start_ns, r->end_ns);
    fig[n] = (struct req_fig){r, l, g};
    lat[n] = l;
    n++;
    all_lat += l;
    all_gc += g;
    if (g > 0) hit[nhit++] = l; else clean[nclean++] = l;
    if (g > 0) {
      charge(&pi, r, i, cost, ncost);
      out->affected++;
      aff_lat += l;
      aff_gc += g;
      long k = gcs_hitting(&pi, r->start_ns, r->end_ns, &buf, &cap);
      if (k < 0) goto done;
      if (k >= 2) out->multi_gc++;
    }
  }
  out->requests = n;
  out->total_latency_ms = all_lat / NS_PER_MS;
  out->total_gc_ms = all_gc / NS_PER_MS;
  out->affected_latency_ms = aff_lat / NS_PER_MS;
  out->affected_gc_ms = aff_gc / NS_PER_MS;
  if (n > 0) out->affected_pct = (double)out->affected * 100.0 / (double)n;
  if (aff_lat > 0) out->gc_impact_pct = aff_gc * 100.0 / aff_lat;

  split_pcts(clean, nclean, out->pct_clean_ms);
  split_pcts(hit, nhit, out->pct_hit_ms);
  qsort(cost, ncost, sizeof *cost, cmp_cost);
  for (size_t i = 0; i < ncost && i < INS_WORST_GCS && cost[i].lost_ns > 0; i++) {
    out->worst[i] = (struct ins_worst_gc){ cost[i].gc, cost[i].requests, (double)cost[i].lost_ns / NS_PER_MS };
    out->n_worst = i + 1;
  }
  ins_sort_doubles(lat, n);
  for (int i = 0; i < INS_N_PCTS; i++)
    out->pct_ms[i] = ins_percentile_sorted(lat, n, ins_impact_pcts[i]) / NS_PER_MS;

  /* Bands: bounds are percentile values (ns) of the sorted latencies. */
  for (size_t i = 0; i < n_cuts; i++) cutv[i] = ins_percentile_sorted(lat, n, cuts[i]);
  for (size_t b = 0; b < out->n_bands; b++) {
    struct ins_band *bd = &out->bands[b];
    bd->lo_pct = b == 0 ? -1 : cuts[b - 1];
    bd->hi_pct = b == n_cuts ? 101 : cuts[b];
    bd->lo_ms = b == 0 ? NAN : cutv[b - 1] / NS_PER_MS;
    bd->hi_ms = b == n_cuts ? NAN : cutv[b] / NS_PER_MS;
  }
  for (size_t i = 0; i < n; i++) {
    size_t b = 0;                       /* first band whose upper bound >= latency */
    while (b < n_cuts && fig[i].lat_ns > cutv[b]) b++;
    out->bands[b].requests++;
    out->bands[b].latency_ms += fig[i].lat_ns;
    out->bands[b].gc_ms += fig[i].gc_ns;
  }
  for (size_t b = 0; b < out->n_bands; b++) {
    struct ins_band *bd = &out->bands[b];
    bd->gc_share_pct = bd->latency_ms > 0 ? bd->gc_ms * 100.0 / bd->latency_ms : NAN;
    bd->latency_ms /= NS_PER_MS;
    bd->gc_ms /= NS_PER_MS;
  }

  /* Slowest N with the GCs that hit them. */
  size_t ns = slowest_n < n ? slowest_n : n;
  qsort(fig, n, sizeof *fig, cmp_slowest);
  out->slowest = calloc(ns ? ns : 1, sizeof *out->slowest);
  if (!out->slowest) goto done;
  for (size_t i = 0; i < ns; i++) {
    struct ins_slow_request *s = &out->slowest[i];
    s->id = fig[i].r->id;
    s->start_ns = fig[i].r->start_ns;
    s->latency_ms = fig[i].lat_ns / NS_PER_MS;
    s->gc_ms = fig[i].gc_ns / NS_PER_MS;
    long k = gcs_hitting(&pi, fig[i].r->start_ns, fig[i].r->end_ns, &buf, &cap);
    if (k < 0) goto done;
    out->n_slowest = i + 1;
    if (k > 0) {
      s->gcs = malloc((size_t)k * sizeof *s->gcs);
      if (!s->gcs) goto done;
      memcpy(s->gcs, buf, (size_t)k * sizeof *s->gcs);
      s->n_gcs = (size_t)k;
    }
  }
  rc = 0;
done:
  ins_timeline_free(&tl);
  free(pi.p);
  free(fig);
  free(lat);
  free(cutv);
  free(clean);
  free(hit);
  free(cost);
  free(buf);
  if (rc != 0) ins_impact_free(out);
  return rc;
}

void ins_impact_free(struct ins_impact *out) {
  for (size_t i = 0; i < out->n_slowest; i++) free(out->slowest[i].gcs);
  free(out->slowest);
  free(out->bands);
  out->slowest = NULL;
  out->bands = NULL;
  out->n_slowest = out->n_bands = 0;
}

int ins_parse_cuts(const char *s, double *cuts, size_t max) {
  size_t n = 0;
  const char *p = s;
  if (!s || !*s) return -1;
  for (;;) {
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || errno != 0 || n == max) return -1;
    cuts[n++] = v;
    if (*end == '\0') break;
    if (*end != ',') return -1;
    p = end + 1;
  }
  return check_cuts(cuts, n) == 0 ? (int)n : -1;
}
