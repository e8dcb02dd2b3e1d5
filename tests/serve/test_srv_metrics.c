/*
 * test_srv_metrics.c — serve's exposition for a hand-built set of GCs, byte
 * for byte (tests/serve/expected.prom and expected.om), plus the figures
 * computed by hand below. test_srv_metrics SRCDIR [TEXT_OUT [OM_OUT]] also
 * writes the text format (for `promtool check metrics`, the
 * serve.metrics_promtool test) and the OpenMetrics text.
 *
 * The GCs (one process, pid 4242, workstation, concurrent, 1 heap):
 *   #1 gen0 nonconcurrent complete, pause 1.5 ms, ends at T+1 s; heap stats:
 *      gen sizes after 1 000 000 / 500 000 / 2 000 000 / 3 000 000 / 100 000 bytes,
 *      fragmentation 10 000 / 0 / 0 / 0 / 0 bytes; measured allocations 4 MB
 *   #2 gen1 nonconcurrent complete, pause 12 ms, ends at T+2 s
 *   #3 gen2 background complete, pause 3 ms (both pauses), ends at T+3 s; its
 *      final pause 2 ms; measured allocations 1.25 MB learned later
 *      (gc_alloc_known), reported twice: counted once
 *   #4 gen0 incomplete (no pause): a collection, no histogram observation
 *   suspensions 50 us and 200 us (the 0.0002 bound: le is inclusive)
 *   rule "long-gc" fired once, 3 events lost, rendered at T+10 s:
 *   paused ratio (1.5 + 12 + 3) ms / 10 s = 0.00165.
 *
 * Unknown figures (unknown_figures below): a process whose trace has no
 * GCHeapStats, no GCCommittedUsage and no measured allocations, whose name,
 * runtime and GC mode are unknown: #1 gen0 nonconcurrent complete, pause
 * 2 ms, ends at T+1 s; #2 gen1 incomplete; rendered at T+4 s. Its figures
 * the trace cannot give have no sample (never NaN, never -1); the others are
 * exact: collections 1/1/0, pause 0.002 s, ratio 2 ms / 4 s = 0.0005. Plus a
 * GC whose figures are not finite (an infinite heap size and allocation):
 * no sample either. test_srv_metrics SRCDIR TEXT OM UNKNOWN_TEXT writes that
 * exposition for promtool too.
 *
 * Crafted names (crafted_names below): a process named, in bytes,
 * "ev" ESC "[31m" U+202E "il" LF "\"q\"" "\\" 0xFF (invalid UTF-8) with
 * runtime "10.0" BEL, and one named "a" and 64 "é" (129 bytes: the label
 * keeps 127, cut before the last "é", not inside it). Label values must be
 * valid UTF-8 on one line, with \\ and " escaped: process_name
 * "ev?[31m?il?\"q\"\\?" (each control character, the override and the
 * invalid byte one '?'), runtime_version "10.0?", and "a" and 63 "é".
 * test_srv_metrics SRCDIR TEXT OM UNKNOWN_TEXT CRAFTED_TEXT writes it for
 * promtool too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcs_enums.h"
#include "srv_metrics.h"

#define T0 1700000000000000000ull
#define SEC 1000000000ull

static struct gcs_gc gc(uint32_t number, uint32_t gen, uint32_t type, int complete, double pause_ms, uint64_t end) {
  struct gcs_gc g;
  memset(&g, 0, sizeof g);
  g.pid = 4242;
  g.number = number;
  g.gen = gen;
  g.type = type;
  g.complete = complete;
  g.pause_msec = complete ? pause_ms : NAN;
  g.restart_end_ns = end;
  g.total_alloc_measured_mb = NAN;
  for (int k = 0; k < GCS_GENS; k++) g.gen_after_mb[k] = g.gen_frag_mb[k] = NAN;
  return g;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return buf;
}

static void compare(const char *got, const char *path) {
  const char *want = read_file(path);
  if (!want) { CHECK_FAIL("cannot read %s", path); return; }
  if (strcmp(got, want) == 0) { check_pass(); return; }
  size_t i = 0;
  while (got[i] && got[i] == want[i]) i++;
  size_t from = i > 80 ? i - 80 : 0;
  CHECK_FAIL("%s differs at byte %zu:\n got: ...%.160s\nwant: ...%.160s", path, i, got + from, want + from);
}

/* The lines of text that contain sub. */
static int count_lines_with(const char *text, const char *sub) {
  int n = 0;
  for (const char *l = text; *l;) {
    const char *e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    const char *hit = strstr(l, sub);
    if (hit && hit < l + len) n++;
    l += len + (e != NULL);
  }
  return n;
}

static void crafted_names(const char *out_path);
static void unknown_figures(const char *out_path) {
  struct srv_pm *m = srv_pm_new(5151, "", "", T0);
  CHECK(m != NULL);
  if (!m) return;
  struct gcs_gc g1 = gc(1, GCS_GEN0, GCS_GC_TYPE_NON_CONCURRENT, 1, 2, T0 + 1 * SEC);
  srv_pm_gc_done(m, &g1);
  struct gcs_gc g2 = gc(2, GCS_GEN1, GCS_GC_TYPE_NON_CONCURRENT, 0, 0, 0);
  srv_pm_gc_done(m, &g2);
  srv_pm_gc_alloc_known(m, &g2);                 /* still NaN: nothing learned */
  struct srv_pm *pms[] = { m };
  size_t len = 0;
  char *text = srv_render(pms, 1, 1, NULL, 0, 0, T0 + 4 * SEC, &len);
  char *om = srv_render(pms, 1, 1, NULL, 0, 1, T0 + 4 * SEC, &len);
  CHECK(text != NULL && om != NULL);
  if (!text || !om) { free(text); free(om); srv_pm_free(m); return; }
  const char *L = "pid=\"5151\",process_name=\"unknown\",runtime_version=\"unknown\","
                  "gc_mode=\"unknown\",gc_concurrent=\"unknown\",gc_heap_count=\"unknown\"";
  char line[1024];
  const char *present[] = {
    "dotnet_gc_collections_total{%s,gc_heap_generation=\"gen0\"} 1\n",
    "dotnet_gc_collections_total{%s,gc_heap_generation=\"gen1\"} 1\n",
    "dotnet_gc_collections_total{%s,gc_heap_generation=\"gen2\"} 0\n",
    "dotnet_gc_pause_time_seconds_total{%s} 0.002\n",
    "gcscope_gc_pause_seconds_bucket{%s,generation=\"gen0\",type=\"nonconcurrent\",le=\"0.001\"} 0\n",
    "gcscope_gc_pause_seconds_bucket{%s,generation=\"gen0\",type=\"nonconcurrent\",le=\"0.002\"} 1\n",
    "gcscope_gc_pause_seconds_count{%s,generation=\"gen0\",type=\"nonconcurrent\"} 1\n",
    "gcscope_gc_pause_seconds_sum{%s,generation=\"gen0\",type=\"nonconcurrent\"} 0.002\n",
    "gcscope_gc_suspension_seconds_count{%s} 0\n",
    "gcscope_gc_suspension_seconds_sum{%s} 0\n",
    "gcscope_gc_paused_ratio{%s} 0.0005\n",
    "gcscope_events_lost_total{%s} 0\n",
  };
  for (size_t i = 0; i < sizeof present / sizeof present[0]; i++) {
    snprintf(line, sizeof line, present[i], L);
    CHECK_HAS(text, line);
  }
  /* the families stay (HELP and TYPE), their unknown samples do not */
  const char *absent[] = {
    "dotnet_gc_heap_total_allocated_bytes_total{",
    "dotnet_gc_last_collection_heap_size_bytes{",
    "dotnet_gc_last_collection_heap_fragmentation_size_bytes{",
    "dotnet_gc_last_collection_memory_committed_size_bytes{",
    "generation=\"gen1\",type=",              /* #2 incomplete: no pause observed */
    "NaN", "Inf\n", " -1\n",
  };
  for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
    if (strstr(text, absent[i]) || strstr(om, absent[i])) CHECK_FAIL("unknown figures: '%s' in the exposition", absent[i]);
  CHECK_HAS(text, "# TYPE dotnet_gc_last_collection_heap_size_bytes gauge\n");
  CHECK_HAS(text, "# TYPE dotnet_gc_heap_total_allocated_bytes_total counter\n");
  /* samples of pid 5151: 3 collections, the pause total, 19 lines (16
   * bounds, +Inf, _count, _sum) of each of 3 histograms (the one pause
   * histogram seen, suspensions, BGC final pauses), the ratio, the lost
   * events: 3 + 1 + 57 + 1 + 1 = 63 */
  CHECK_EQ_INT(count_lines_with(text, "pid=\"5151\""), 63);
  CHECK_EQ_INT(count_lines_with(om, "pid=\"5151\""), 63);
  if (out_path) {
    FILE *f = fopen(out_path, "w");
    if (f) { fputs(text, f); fclose(f); }
  }
  free(text);
  free(om);

  /* Not finite (a corrupt figure): no sample. A GC's heap stats with an
   * infinite gen0 size and an infinite measured allocation; gen1 is known. */
  struct gcs_gc g3 = gc(3, GCS_GEN0, GCS_GC_TYPE_NON_CONCURRENT, 1, 1, T0 + 2 * SEC);
  g3.has_heap_stats = 1;
  g3.gen_after_mb[0] = INFINITY;
  g3.gen_after_mb[1] = 0.25;
  g3.total_alloc_measured_mb = INFINITY;
  srv_pm_gc_done(m, &g3);
  text = srv_render(pms, 1, 1, NULL, 0, 0, T0 + 4 * SEC, &len);
  CHECK(text != NULL);
  if (text) {
    snprintf(line, sizeof line, "dotnet_gc_last_collection_heap_size_bytes{%s,gc_heap_generation=\"gen1\"} 250000\n", L);
    CHECK_HAS(text, line);
    CHECK_EQ_INT(count_lines_with(text, "dotnet_gc_last_collection_heap_size_bytes{"), 1);
    CHECK(strstr(text, "dotnet_gc_heap_total_allocated_bytes_total{") == NULL);
    CHECK(strstr(text, "Inf\n") == NULL && strstr(text, "NaN") == NULL);
  }
  free(text);
  srv_pm_free(m);
}

static void crafted_names(const char *out_path) {
  char longname[2 + 64 * 2];
  longname[0] = 'a';
  for (int i = 0; i < 64; i++) memcpy(longname + 1 + 2 * i, "\xc3\xa9", 2);
  longname[1 + 64 * 2] = '\0';
  struct srv_pm *m = srv_pm_new(4242, "ev\x1b[31m\xe2\x80\xaeil\n\"q\"\\\xff", "10.0\x07", T0);
  struct srv_pm *m2 = srv_pm_new(4343, longname, "10.0.12", T0);
  CHECK(m != NULL && m2 != NULL);
  if (!m || !m2) { srv_pm_free(m); srv_pm_free(m2); return; }
  struct gcs_gc g1 = gc(1, GCS_GEN0, GCS_GC_TYPE_NON_CONCURRENT, 1, 2, T0 + 1 * SEC);
  srv_pm_gc_done(m, &g1);
  srv_pm_gc_done(m2, &g1);
  struct srv_pm *pms[] = { m, m2 };
  size_t len = 0;
  char *text = srv_render(pms, 2, 2, NULL, 0, 0, T0 + 4 * SEC, &len);
  CHECK(text != NULL);
  if (text) {
    CHECK_HAS(text, "dotnet_gc_collections_total{pid=\"4242\",process_name=\"ev?[31m?il?\\\"q\\\"\\\\?\","
                    "runtime_version=\"10.0?\",gc_mode=\"unknown\"");
    char want[400];
    int n = snprintf(want, sizeof want, "dotnet_gc_collections_total{pid=\"4343\",process_name=\"a");
    memcpy(want + n, longname + 1, 63 * 2);
    snprintf(want + n + 63 * 2, sizeof want - (size_t)n - 63 * 2, "\",runtime_version=\"10.0.12\"");
    CHECK_HAS(text, want);
    /* every line is a sample of ours, a comment or empty: nothing broke a line */
    int samples = 0;
    for (const char *p = text; *p;) {
      const char *nl = strchr(p, '\n');
      CHECK(nl != NULL);
      if (!nl) break;
      if (*p != '#' && *p != '\n') {
        CHECK(strncmp(p, "dotnet_", 7) == 0 || strncmp(p, "gcscope_", 8) == 0);
        samples++;
      }
      p = nl + 1;
    }
    CHECK(samples > 0);
    CHECK(strchr(text, '\x1b') == NULL && strchr(text, '\x07') == NULL && strstr(text, "\xe2\x80\xae") == NULL &&
          strchr(text, '\xff') == NULL);
    if (out_path) {
      FILE *f = fopen(out_path, "w");
      if (f) { fputs(text, f); fclose(f); }
    }
  }
  free(text);
  srv_pm_free(m);
  srv_pm_free(m2);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  struct srv_pm *m = srv_pm_new(4242, "my \"app\"\\x", "10.0.12", T0);
  CHECK(m != NULL);
  srv_pm_set_mode(m, 0, 1, 1);
  struct gcs_gc g1 = gc(1, GCS_GEN0, GCS_GC_TYPE_NON_CONCURRENT, 1, 1.5, T0 + 1 * SEC);
  g1.has_heap_stats = 1;
  double after[GCS_GENS] = { 1.0, 0.5, 2.0, 3.0, 0.1 }, frag[GCS_GENS] = { 0.01, 0, 0, 0, 0 };
  for (int k = 0; k < GCS_GENS; k++) { g1.gen_after_mb[k] = after[k]; g1.gen_frag_mb[k] = frag[k]; }
  g1.total_alloc_measured_mb = 4.0;
  /* committed after it: in use + in free + in global free = 8,750,000 bytes
   * (neither what waits for decommit nor the bookkeeping: what
   * GC.GetGCMemoryInfo().TotalCommittedBytes counts) */
  g1.has_committed[1] = 1;
  g1.committed[1].TotalCommittedInUse = 8000000;
  g1.committed[1].TotalCommittedInGlobalDecommit = 1000000;
  g1.committed[1].TotalCommittedInFree = 500000;
  g1.committed[1].TotalCommittedInGlobalFree = 250000;
  g1.committed[1].TotalBookkeepingCommitted = 300000;
  srv_pm_gc_done(m, &g1);
  struct gcs_gc g2 = gc(2, GCS_GEN1, GCS_GC_TYPE_NON_CONCURRENT, 1, 12, T0 + 2 * SEC);
  srv_pm_gc_done(m, &g2);
  struct gcs_gc g3 = gc(3, GCS_GEN2, GCS_GC_TYPE_BACKGROUND, 1, 3, T0 + 2 * SEC);
  g3.bgc_prep_restart_end_ns = T0 + 3 * SEC;
  g3.has_committed[0] = 1;                       /* a background GC: its start's only; */
  g3.committed[0].TotalCommittedInUse = 99;      /* the gauge keeps g1's */
  srv_pm_gc_done(m, &g3);
  srv_pm_bgc_final_pause(m, 2000000, T0 + 3 * SEC);
  g3.total_alloc_measured_mb = 1.25;
  srv_pm_gc_alloc_known(m, &g3);
  srv_pm_gc_alloc_known(m, &g3);
  struct gcs_gc g4 = gc(4, GCS_GEN0, GCS_GC_TYPE_NON_CONCURRENT, 0, 0, 0);
  srv_pm_gc_done(m, &g4);
  srv_pm_suspension(m, 50000);
  srv_pm_suspension(m, 200000);
  srv_pm_rule_fired(m, 0);
  srv_pm_set_lost(m, 3);
  const char *rules[] = { "long-gc", "pct" };
  struct srv_pm *pms[] = { m };
  size_t len = 0;
  char *text = srv_render(pms, 1, 1, rules, 2, 0, T0 + 10 * SEC, &len);
  CHECK(text != NULL && strlen(text) == len);
  char *om = srv_render(pms, 1, 1, rules, 2, 1, T0 + 10 * SEC, &len);
  CHECK(om != NULL && strlen(om) == len);
  if (!text || !om) return check_done();

  const char *L = "pid=\"4242\",process_name=\"my \\\"app\\\"\\\\x\",runtime_version=\"10.0.12\","
                  "gc_mode=\"workstation\",gc_concurrent=\"true\",gc_heap_count=\"1\"";
  char line[1024];
#define HAS(fmt, ...) do { snprintf(line, sizeof line, fmt, __VA_ARGS__); CHECK_HAS(text, line); } while (0)
  HAS("dotnet_gc_collections_total{%s,gc_heap_generation=\"gen0\"} 2\n", L);
  HAS("dotnet_gc_collections_total{%s,gc_heap_generation=\"gen1\"} 1\n", L);
  HAS("dotnet_gc_collections_total{%s,gc_heap_generation=\"gen2\"} 1\n", L);
  HAS("dotnet_gc_pause_time_seconds_total{%s} 0.0165\n", L);
  HAS("dotnet_gc_heap_total_allocated_bytes_total{%s} 5250000\n", L);
  HAS("dotnet_gc_last_collection_heap_size_bytes{%s,gc_heap_generation=\"loh\"} 3000000\n", L);
  HAS("dotnet_gc_last_collection_heap_fragmentation_size_bytes{%s,gc_heap_generation=\"gen0\"} 10000\n", L);
  HAS("dotnet_gc_last_collection_memory_committed_size_bytes{%s} 8750000\n", L);
  HAS("gcscope_gc_pause_seconds_bucket{%s,generation=\"gen0\",type=\"nonconcurrent\",le=\"0.001\"} 0\n", L);
  HAS("gcscope_gc_pause_seconds_bucket{%s,generation=\"gen0\",type=\"nonconcurrent\",le=\"0.002\"} 1\n", L);
  HAS("gcscope_gc_pause_seconds_sum{%s,generation=\"gen0\",type=\"nonconcurrent\"} 0.0015\n", L);
  HAS("gcscope_gc_pause_seconds_bucket{%s,generation=\"gen1\",type=\"nonconcurrent\",le=\"0.01\"} 0\n", L);
  HAS("gcscope_gc_pause_seconds_bucket{%s,generation=\"gen1\",type=\"nonconcurrent\",le=\"0.02\"} 1\n", L);
  HAS("gcscope_gc_pause_seconds_count{%s,generation=\"gen2\",type=\"background\"} 1\n", L);
  HAS("gcscope_gc_suspension_seconds_bucket{%s,le=\"0.0001\"} 1\n", L);
  HAS("gcscope_gc_suspension_seconds_bucket{%s,le=\"0.0002\"} 2\n", L);
  HAS("gcscope_gc_suspension_seconds_sum{%s} 0.00025\n", L);
  HAS("gcscope_gc_bgc_final_pause_seconds_bucket{%s,le=\"0.002\"} 1\n", L);
  HAS("gcscope_gc_paused_ratio{%s} 0.00165\n", L);
  HAS("gcscope_trigger_firings_total{%s,rule=\"long-gc\"} 1\n", L);
  HAS("gcscope_trigger_firings_total{%s,rule=\"pct\"} 0\n", L);
  HAS("gcscope_events_lost_total{%s} 3\n", L);
  CHECK_HAS(text, "\ngcscope_monitored_processes 1\n");
  CHECK(strstr(text, "generation=\"gen0\",type=\"background\"") == NULL);   /* only combinations seen */
  CHECK(strstr(text, "# EOF") == NULL);
  /* OpenMetrics: family names without _total, units, the EOF marker */
  CHECK_HAS(om, "# TYPE dotnet_gc_collections counter\n");
  CHECK_HAS(om, "# TYPE dotnet_gc_pause_time_seconds counter\n# UNIT dotnet_gc_pause_time_seconds seconds\n");
  CHECK_HAS(om, "# TYPE gcscope_gc_pause_seconds histogram\n# UNIT gcscope_gc_pause_seconds seconds\n");
  CHECK(len > 6 && strcmp(om + len - 6, "# EOF\n") == 0);
  CHECK(srv_wants_openmetrics("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"));
  CHECK(!srv_wants_openmetrics("text/plain"));
  CHECK(!srv_wants_openmetrics(NULL));

  char path[4096];
  snprintf(path, sizeof path, "%s/expected.prom", dir);
  compare(text, path);
  snprintf(path, sizeof path, "%s/expected.om", dir);
  compare(om, path);
  for (int i = 2; i < argc && i < 4; i++) {   /* the text format, then OpenMetrics */
    FILE *f = fopen(argv[i], "w");
    if (f) { fputs(i == 2 ? text : om, f); fclose(f); }
  }
  unknown_figures(argc > 4 ? argv[4] : NULL);
  crafted_names(argc > 5 ? argv[5] : NULL);
  /* no process: every family's HELP and TYPE, the gauge 0 */
  char *empty = srv_render(NULL, 0, 0, NULL, 0, 0, T0, &len);
  CHECK(empty && strstr(empty, "\ngcscope_monitored_processes 0\n") && !strstr(empty, "pid="));
  free(empty);
  free(text);
  free(om);
  srv_pm_free(m);
  return check_done();
}
