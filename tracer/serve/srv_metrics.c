/* srv_metrics.c — serve's per-process figures and their exposition (srv_metrics.h). */
#include "srv_metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gcs_enums.h"
#include "gcs_text.h"

/* Bounds in ns: observations are whole ns (the events' timestamps), compared exactly. */
static const uint64_t bucket_ns[SRV_NBUCKETS] = { 100000,    200000,    500000,     1000000,   2000000,   5000000,
                                                  10000000,  20000000,  50000000,   100000000, 200000000, 500000000,
                                                  1000000000, 2000000000, 5000000000, 10000000000 };
/* OpenMetrics' canonical form, used in both formats so that a series keeps its le. */
static const char *const bucket_le[SRV_NBUCKETS] = { "0.0001", "0.0002", "0.0005", "0.001", "0.002", "0.005",
                                                     "0.01",   "0.02",   "0.05",   "0.1",   "0.2",   "0.5",
                                                     "1.0",    "2.0",    "5.0",    "10.0" };
static const char *const gen_label[GCS_GENS] = { "gen0", "gen1", "gen2", "loh", "poh" };
#define NTYPES 3   /* nonconcurrent, background, foreground: enum gcs_gc_type */
_Static_assert(GCS_GC_TYPE_NON_CONCURRENT == 0 && GCS_GC_TYPE_BACKGROUND == 1 && GCS_GC_TYPE_FOREGROUND == 2,
               "type_label follows enum gcs_gc_type");
_Static_assert(GCS_GEN_LOH == 3 && GCS_GEN_POH == 4 && GCS_GENS == 5, "gen_label follows enum gcs_gen");
static const char *const type_label[NTYPES] = { "nonconcurrent", "background", "foreground" };
#define RATIO_SLOTS 64
#define CREDITED 64

struct hist {
  uint64_t bucket[SRV_NBUCKETS];   /* per bucket, not cumulative */
  uint64_t count;
  uint64_t sum_ns;
};

struct srv_pm {
  int32_t pid;
  char name[128], runtime[64];
  int server, concurrent, heaps;
  uint64_t collections[3];
  uint64_t pause_total_ns;
  double alloc_bytes;
  int have_alloc;                  /* some GC's measured allocations were known */
  uint32_t credited[CREDITED];     /* GCs whose measured allocations were added */
  int ncredited;
  int have_sizes;
  double size_after[GCS_GENS], frag[GCS_GENS];   /* bytes; NaN unknown */
  double committed;                /* bytes after the last GC that said (GCCommittedUsage); NaN unknown */
  struct hist pause[3][NTYPES], susp, bgc_final;
  uint64_t slot_sec[RATIO_SLOTS], slot_ns[RATIO_SLOTS];   /* paused ns ending in that second */
  uint64_t start_ns;
  uint64_t lost;
  uint64_t fired[SRV_MAX_RULES];
};

struct srv_pm *srv_pm_new(int32_t pid, const char *name, const char *runtime_version, uint64_t start_ns) {
  struct srv_pm *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->pid = pid;
  /* Label values must be valid UTF-8 (Prometheus refuses the whole scrape
   * otherwise) on one line: a name from a trace or a peer (a process's comm
   * is any bytes) keeps its valid characters, cut at a character boundary,
   * and shows '?' for invalid bytes, control characters and bidirectional
   * overrides (gcs_text_printable); put_escaped then escapes \\ and ". */
  gcs_text_printable(name, (size_t)-1, m->name, sizeof m->name);
  gcs_text_printable(runtime_version, (size_t)-1, m->runtime, sizeof m->runtime);
  m->server = m->concurrent = m->heaps = -1;
  m->start_ns = start_ns;
  for (int k = 0; k < GCS_GENS; k++) m->size_after[k] = m->frag[k] = NAN;
  m->committed = NAN;
  return m;
}

void srv_pm_free(struct srv_pm *m) { free(m); }

void srv_pm_set_mode(struct srv_pm *m, int server, int concurrent, int heap_count) {
  m->server = server;
  m->concurrent = concurrent;
  m->heaps = heap_count;
}

static void observe(struct hist *h, uint64_t ns) {
  h->count++;
  h->sum_ns += ns;
  for (int i = 0; i < SRV_NBUCKETS; i++)
    if (ns <= bucket_ns[i]) { h->bucket[i]++; return; }
}

/* A duration in ms (the reconstruction's figures: ns differences / 1e6) as whole ns. */
static uint64_t ms_to_ns(double ms) { return ms > 0 ? (uint64_t)llround(ms * 1e6) : 0; }

static void add_paused(struct srv_pm *m, uint64_t end_ns, uint64_t ns) {
  uint64_t sec = end_ns / 1000000000ull;
  int i = (int)(sec % RATIO_SLOTS);
  if (m->slot_sec[i] != sec) { m->slot_sec[i] = sec; m->slot_ns[i] = 0; }
  m->slot_ns[i] += ns;
}

static void credit_alloc(struct srv_pm *m, const struct gcs_gc *g) {
  if (!isfinite(g->total_alloc_measured_mb)) return;   /* unknown (NaN) */
  m->have_alloc = 1;
  if (!(g->total_alloc_measured_mb > 0)) return;       /* nothing: a counter never goes down */
  for (int i = 0; i < m->ncredited && i < CREDITED; i++)
    if (m->credited[i] == g->number) return;
  m->credited[m->ncredited++ % CREDITED] = g->number;
  if (m->ncredited >= 2 * CREDITED) m->ncredited -= CREDITED;
  m->alloc_bytes += g->total_alloc_measured_mb * 1e6;
}

void srv_pm_gc_done(struct srv_pm *m, const struct gcs_gc *g) {
  if (g->gen <= GCS_GEN2) m->collections[g->gen]++;
  credit_alloc(m, g);
  if (g->has_heap_stats) {
    m->have_sizes = 1;
    for (int k = 0; k < GCS_GENS; k++) {
      m->size_after[k] = isnan(g->gen_after_mb[k]) ? NAN : round(g->gen_after_mb[k] * 1e6);
      m->frag[k] = isnan(g->gen_frag_mb[k]) ? NAN : round(g->gen_frag_mb[k] * 1e6);
    }
  }
  /* .NET 8+: what GC.GetGCMemoryInfo().TotalCommittedBytes says after it
   * (a background GC sends only its start's: kept from the GC before). */
  if (g->has_committed[1]) m->committed = gcs_gc_committed_bytes(&g->committed[1]);
  if (!g->complete || isnan(g->pause_msec)) return;
  uint64_t ns = ms_to_ns(g->pause_msec);
  m->pause_total_ns += ns;
  if (g->gen <= GCS_GEN2 && g->type < NTYPES) observe(&m->pause[g->gen][g->type], ns);
  uint64_t end = g->restart_end_ns;
  if (g->bgc_prep_restart_end_ns > end) end = g->bgc_prep_restart_end_ns;
  if (!end) end = g->end_ns;
  if (end) add_paused(m, end, ns);
}

void srv_pm_gc_alloc_known(struct srv_pm *m, const struct gcs_gc *g) { credit_alloc(m, g); }

void srv_pm_suspension(struct srv_pm *m, uint64_t suspend_ns) { observe(&m->susp, suspend_ns); }

void srv_pm_bgc_final_pause(struct srv_pm *m, uint64_t pause_ns, uint64_t end_ns) {
  (void)end_ns;   /* the ratio takes the BGC's whole pause when it completes */
  observe(&m->bgc_final, pause_ns);
}

void srv_pm_set_lost(struct srv_pm *m, uint64_t lost) { m->lost = lost; }

void srv_pm_rule_fired(struct srv_pm *m, int i) {
  if (i >= 0 && i < SRV_MAX_RULES) m->fired[i]++;
}

static double paused_ratio(const struct srv_pm *m, uint64_t now_ns) {
  uint64_t win = (uint64_t)SRV_RATIO_WINDOW_S * 1000000000ull;
  uint64_t from = now_ns > win ? now_ns - win : 0;
  if (m->start_ns > from) from = m->start_ns;
  if (now_ns <= from) return 0;
  uint64_t first = from / 1000000000ull, last = now_ns / 1000000000ull, paused = 0;
  for (int i = 0; i < RATIO_SLOTS; i++)
    if (m->slot_ns[i] && m->slot_sec[i] >= first && m->slot_sec[i] <= last) paused += m->slot_ns[i];
  double r = (double)paused / (double)(now_ns - from);
  return r > 1 ? 1 : r;
}

/* ---- text ------------------------------------------------------------------ */

struct sb {
  char *p;
  size_t n, cap;
  int oom;
};

__attribute__((format(printf, 2, 3))) static void put(struct sb *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    if (w < 0) { b->oom = 1; return; }
    if ((size_t)w < b->cap - b->n) { b->n += (size_t)w; return; }
    size_t cap = (b->cap + (size_t)w + 1) * 2;
    char *q = realloc(b->p, cap);
    if (!q) { b->oom = 1; return; }
    b->p = q;
    b->cap = cap;
  }
}

/* The shortest decimal that reads back as v (finite: sample() leaves out
 * the rest); whole numbers without a point. */
static const char *num(double v, char *buf, size_t n) {
  if (v == floor(v) && fabs(v) < 1e15) { snprintf(buf, n, "%.0f", v); return buf; }
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, n, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  return buf;
}

static void put_escaped(struct sb *b, const char *s) {
  for (; *s; s++) {
    if (*s == '\\') put(b, "\\\\");
    else if (*s == '"') put(b, "\\\"");
    else if (*s == '\n') put(b, "\\n");
    else put(b, "%c", *s);
  }
}

static void put_labels(struct sb *b, const struct srv_pm *m) {
  put(b, "pid=\"%d\",process_name=\"", (int)m->pid);
  put_escaped(b, m->name[0] ? m->name : "unknown");
  put(b, "\",runtime_version=\"");
  put_escaped(b, m->runtime[0] ? m->runtime : "unknown");
  put(b, "\",gc_mode=\"%s\",gc_concurrent=\"%s\",gc_heap_count=\"",
      m->server == 1 ? "server" : m->server == 0 ? "workstation" : "unknown",
      m->concurrent == 1 ? "true" : m->concurrent == 0 ? "false" : "unknown");
  if (m->heaps >= 0) put(b, "%d\"", m->heaps);
  else put(b, "unknown\"");
}

/* One sample, `name{labels extra} v`, or none when v is unknown (NaN, or
 * not finite): an unknown figure is left out, as node_exporter leaves out
 * what it cannot read; never NaN, never -1. */
static void sample(struct sb *b, const char *name, const struct srv_pm *m, const char *extra, double v) {
  char buf[64];
  if (!isfinite(v)) return;
  put(b, "%s{", name);
  put_labels(b, m);
  put(b, "%s} %s\n", extra, num(v, buf, sizeof buf));
}

enum mtype { M_COUNTER, M_GAUGE, M_HISTOGRAM };

/* HELP/TYPE (and UNIT) of a family named base (OpenMetrics' name; the text
 * format's counter is base_total). */
static void family(struct sb *b, int om, const char *base, enum mtype t, const char *unit, const char *help) {
  const char *tn = t == M_COUNTER ? "counter" : t == M_GAUGE ? "gauge" : "histogram";
  const char *suffix = t == M_COUNTER && !om ? "_total" : "";
  put(b, "# HELP %s%s %s\n# TYPE %s%s %s\n", base, suffix, help, base, suffix, tn);
  if (om && unit) put(b, "# UNIT %s %s\n", base, unit);
}

static void put_hist(struct sb *b, const char *base, const struct srv_pm *m, const char *extra,
                     const struct hist *h) {
  char v[160];
  uint64_t cum = 0;
  for (int i = 0; i < SRV_NBUCKETS; i++) {
    cum += h->bucket[i];
    put(b, "%s_bucket{", base);
    put_labels(b, m);
    put(b, "%s,le=\"%s\"} %llu\n", extra, bucket_le[i], (unsigned long long)cum);
  }
  put(b, "%s_bucket{", base);
  put_labels(b, m);
  /* OpenMetrics' order: the buckets, _count, _sum */
  put(b, "%s,le=\"+Inf\"} %llu\n%s_count{", extra, (unsigned long long)h->count, base);
  put_labels(b, m);
  put(b, "%s} %llu\n", extra, (unsigned long long)h->count);
  snprintf(v, sizeof v, "%s_sum", base);
  sample(b, v, m, extra, (double)h->sum_ns / 1e9);
}

char *srv_render(struct srv_pm *const *pms, int n, int n_attached, const char *const *rules, int nrules,
                 int om, uint64_t now_ns, size_t *len) {
  struct sb b = { 0 };
  char extra[160];
  family(&b, om, "dotnet_gc_collections", M_COUNTER, NULL,
         "Garbage collections since the process started (since gcscope attached), by condemned generation.");
  for (int i = 0; i < n; i++)
    for (int g = 0; g < 3; g++) {
      put(&b, "dotnet_gc_collections_total{");
      put_labels(&b, pms[i]);
      put(&b, ",gc_heap_generation=\"%s\"} %llu\n", gen_label[g], (unsigned long long)pms[i]->collections[g]);
    }
  family(&b, om, "dotnet_gc_pause_time_seconds", M_COUNTER, "seconds",
         "Time the process was paused by complete GCs (PerfView's pause; both pauses of a background GC).");
  for (int i = 0; i < n; i++)
    sample(&b, "dotnet_gc_pause_time_seconds_total", pms[i], "", (double)pms[i]->pause_total_ns / 1e9);
  family(&b, om, "dotnet_gc_heap_total_allocated_bytes", M_COUNTER, "bytes",
         "Bytes allocated up to the last GC, as the heap's sizes before and after each GC measure it.");
  for (int i = 0; i < n; i++)
    sample(&b, "dotnet_gc_heap_total_allocated_bytes_total", pms[i], "", pms[i]->have_alloc ? pms[i]->alloc_bytes : NAN);
  family(&b, om, "dotnet_gc_last_collection_heap_size_bytes", M_GAUGE, "bytes",
         "Size of each generation after the last GC (GCHeapStats).");
  for (int i = 0; i < n; i++)
    for (int g = 0; g < GCS_GENS; g++) {
      snprintf(extra, sizeof extra, ",gc_heap_generation=\"%s\"", gen_label[g]);
      sample(&b, "dotnet_gc_last_collection_heap_size_bytes", pms[i], extra, pms[i]->size_after[g]);
    }
  family(&b, om, "dotnet_gc_last_collection_heap_fragmentation_size_bytes", M_GAUGE, "bytes",
         "Free space in each generation after the last GC (per-heap history: free lists and free objects).");
  for (int i = 0; i < n; i++)
    for (int g = 0; g < GCS_GENS; g++) {
      snprintf(extra, sizeof extra, ",gc_heap_generation=\"%s\"", gen_label[g]);
      sample(&b, "dotnet_gc_last_collection_heap_fragmentation_size_bytes", pms[i], extra, pms[i]->frag[g]);
    }
  family(&b, om, "dotnet_gc_last_collection_memory_committed_size_bytes", M_GAUGE, "bytes",
         "Memory committed by the GC after the last GC that reported it (GCCommittedUsage, .NET 8+).");
  for (int i = 0; i < n; i++)
    sample(&b, "dotnet_gc_last_collection_memory_committed_size_bytes", pms[i], "", pms[i]->committed);
  family(&b, om, "gcscope_gc_pause_seconds", M_HISTOGRAM, "seconds",
         "Pause of each complete GC (suspension to restart; a background GC's two pauses together).");
  for (int i = 0; i < n; i++)
    for (int g = 0; g < 3; g++)
      for (int t = 0; t < NTYPES; t++) {
        if (!pms[i]->pause[g][t].count) continue;
        snprintf(extra, sizeof extra, ",generation=\"%s\",type=\"%s\"", gen_label[g], type_label[t]);
        put_hist(&b, "gcscope_gc_pause_seconds", pms[i], extra, &pms[i]->pause[g][t]);
      }
  family(&b, om, "gcscope_gc_suspension_seconds", M_HISTOGRAM, "seconds",
         "Each suspension of the runtime for a GC (GCSuspendEEBegin to GCSuspendEEEnd).");
  for (int i = 0; i < n; i++) put_hist(&b, "gcscope_gc_suspension_seconds", pms[i], "", &pms[i]->susp);
  family(&b, om, "gcscope_gc_bgc_final_pause_seconds", M_HISTOGRAM, "seconds",
         "Final pause of each background GC (PerfView's BGCFinalPauseMSec).");
  for (int i = 0; i < n; i++) put_hist(&b, "gcscope_gc_bgc_final_pause_seconds", pms[i], "", &pms[i]->bgc_final);
  family(&b, om, "gcscope_gc_paused_ratio", M_GAUGE, NULL,
         "Share of the last 60 s (or of the time since gcscope attached) the process was paused by GCs.");
  for (int i = 0; i < n; i++) sample(&b, "gcscope_gc_paused_ratio", pms[i], "", paused_ratio(pms[i], now_ns));
  family(&b, om, "gcscope_trigger_firings", M_COUNTER, NULL, "Firings of each stop rule (--rules).");
  for (int i = 0; i < n; i++)
    for (int r = 0; r < nrules && r < SRV_MAX_RULES; r++) {
      put(&b, "gcscope_trigger_firings_total{");
      put_labels(&b, pms[i]);
      put(&b, ",rule=\"");
      put_escaped(&b, rules[r]);
      put(&b, "\"} %llu\n", (unsigned long long)pms[i]->fired[r]);
    }
  family(&b, om, "gcscope_events_lost", M_COUNTER, NULL, "Events the runtime dropped from the session.");
  for (int i = 0; i < n; i++) {
    put(&b, "gcscope_events_lost_total{");
    put_labels(&b, pms[i]);
    put(&b, "} %llu\n", (unsigned long long)pms[i]->lost);
  }
  family(&b, om, "gcscope_monitored_processes", M_GAUGE, NULL, "Processes gcscope serve is attached to now.");
  put(&b, "gcscope_monitored_processes %d\n", n_attached);
  if (om) put(&b, "# EOF\n");
  if (b.oom) { free(b.p); return NULL; }
  *len = b.n;
  return b.p;
}

int srv_wants_openmetrics(const char *accept) {
  return accept && strcasestr(accept, "application/openmetrics-text") != NULL;
}
