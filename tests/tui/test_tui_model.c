/* test_tui_model.c — the model behind `gcscope top`, fed by hand (no terminal).
 * Expected values are computed by hand in the comments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcs_enums.h"
#include "tui_model.h"


static struct tui_gc mk(int64_t n, int gen, int type, int reason, double pause_start, double start,
                        double dur, double pause, double peak, double after, double alloc) {
  struct tui_gc g;
  tui_gc_init(&g);
  g.trace_id = 1;
  g.pid = 77;
  g.number = n;
  g.gen = gen;
  g.type = type;
  g.reason = reason;
  g.pause_start_ms = pause_start;
  g.start_ms = start;
  g.duration_ms = dur;
  g.pause_ms = pause;
  g.peak_mb = peak;
  g.after_mb = after;
  g.alloc_mb = alloc;
  g.alloc_rate_mbs = alloc * 10;
  return g;
}

static void test_buckets(void) {
  CHECK(tui_pause_bucket(0.05) == 0);
  CHECK(tui_pause_bucket(0.1) == 1);      /* lower edge belongs to the bucket */
  CHECK(tui_pause_bucket(0.19) == 1);
  CHECK(tui_pause_bucket(0.2) == 2);
  CHECK(tui_pause_bucket(4.99) == 5);     /* [2,5) */
  CHECK(tui_pause_bucket(5) == 6);
  CHECK(tui_pause_bucket(999.9) == 12);   /* [500,1000) */
  CHECK(tui_pause_bucket(1000) == 13);
  CHECK(tui_pause_bucket(1e6) == 13);
  CHECK(!strcmp(tui_bucket_label(0), "<.1") && !strcmp(tui_bucket_label(13), ">=1s"));
}

static void test_gen_names(void) {
  char b[16];
  struct tui_gc g = mk(1, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0);
  CHECK(!strcmp(tui_gc_gen_name(&g, b, sizeof b), "2NI"));
  g.type = 1; g.reason = 7;
  CHECK(!strcmp(tui_gc_gen_name(&g, b, sizeof b), "2Bi"));
  g.gen = 1; g.type = 2; g.reason = 0;
  CHECK(!strcmp(tui_gc_gen_name(&g, b, sizeof b), "1F"));
  CHECK(tui_gc_matches(&g, "1") && !tui_gc_matches(&g, "11"));      /* number, exact */
  CHECK(tui_gc_matches(&g, "allocsm") && tui_gc_matches(&g, "1f"));  /* reason substring, Gen */
  CHECK(!tui_gc_matches(&g, "Induced") && !tui_gc_matches(&g, ""));
}

static void test_figures(void) {
  struct tui_model *m = tui_model_new();
  /*        #  gen type reason pauseStart start  dur   pause  peak after alloc */
  struct tui_gc g1 = mk(1, 0, 0, 0, 10.0, 10.5, 1.0, 2.0, 8.0, 3.0, 5.0);
  struct tui_gc g2 = mk(2, 2, 1, 0, 30.0, 30.2, 40.0, 4.0, 12.0, 6.0, 7.0);
  struct tui_gc g3 = mk(3, 1, 2, 0, 45.0, 45.1, 2.0, 3.0, 11.0, 9.0, 2.0);
  struct tui_gc g4 = mk(4, 2, 0, 1, 100.0, 100.5, 19.5, 21.0, 20.0, 4.0, 6.0);
  struct tui_gc g5 = mk(5, 0, 0, 0, 150.0, 150.1, NAN, NAN, NAN, NAN, NAN);
  g5.complete = 0;
  struct tui_gc *all[] = { &g1, &g2, &g3, &g4, &g5 };
  for (int i = 0; i < 5; i++) CHECK(tui_model_add_gc(m, all[i]) == 0);
  CHECK(tui_model_nprocs(m) == 1);
  struct tui_proc *p = tui_model_proc(m, 1, 77, 0);
  CHECK(p && p->ngcs == 5);

  struct tui_summary s;
  tui_proc_summary(p, &s);
  CHECK(s.count[0] == 1 && s.count[1] == 1 && s.count[2] == 2);
  CHECK(s.nbgc == 1 && s.nfgc == 1 && s.nincomplete == 1);
  CHECK_NEAR(s.total_pause_ms, 30.0, 1e-9);            /* 2 + 4 + 3 + 21 */
  CHECK_NEAR(s.max_pause_ms, 21.0, 1e-9);
  /* duration: last end = max(11.5, 70.2, 47.1, 120.0) - first pause start 10 = 110 */
  CHECK_NEAR(s.process_duration_ms, 110.0, 1e-9);
  CHECK_NEAR(s.pct_paused, 30.0 * 100 / 110, 1e-9);
  CHECK_NEAR(s.heap_now_mb, 4.0, 1e-9);                /* After of #4, the newest complete */
  CHECK_NEAR(s.heap_max_mb, 20.0, 1e-9);
  CHECK_NEAR(s.total_alloc_mb, 20.0, 1e-9);            /* 5 + 7 + 2 + 6 */
  CHECK_NEAR(s.alloc_rate_mbs, 20.0 * 1000 / 110, 1e-9);
  /* extent: first = 10 (pause start of #1), last = 150.1 (start of #5) */
  CHECK_NEAR(s.uptime_ms, 140.1, 1e-9);
  CHECK(s.last && s.last->number == 5);

  struct tui_rollup r[4];
  tui_proc_rollup(p, r);
  CHECK(r[0].count == 4 && r[0].induced == 1);
  CHECK_NEAR(r[0].mean_pause_ms, 7.5, 1e-9);
  CHECK_NEAR(r[0].max_alloc_rate_mbs, 70.0, 1e-9);
  CHECK(r[3].count == 2);
  CHECK_NEAR(r[3].total_pause_ms, 25.0, 1e-9);
  CHECK_NEAR(r[3].mean_pause_ms, 12.5, 1e-9);
  CHECK_NEAR(r[3].max_peak_mb, 20.0, 1e-9);
  CHECK_NEAR(r[3].total_alloc_mb, 13.0, 1e-9);
  CHECK(r[2].count == 1 && r[1].count == 1);
  CHECK_NEAR(r[1].mean_pause_ms, 2.0, 1e-9);

  unsigned h[TUI_NBUCKETS];
  tui_proc_histogram(p, h);
  /* 2 -> [2,5) #5; 4 -> #5; 3 -> #5; 21 -> [20,50) #8 */
  CHECK(h[5] == 3 && h[8] == 1);
  unsigned tot = 0;
  for (int b = 0; b < TUI_NBUCKETS; b++) tot += h[b];
  CHECK(tot == 4);

  /* table rows */
  size_t *rows;
  long n = tui_proc_rows(p, TUI_FILTER_ALL, TUI_COL_INDEX, 0, &rows);
  CHECK(n == 5 && p->gcs[rows[0]].number == 5 && p->gcs[rows[4]].number == 1);
  free(rows);
  n = tui_proc_rows(p, TUI_FILTER_ALL, TUI_COL_PAUSE, 0, &rows);   /* desc, unknown last */
  CHECK(n == 5);
  int64_t want[] = { 4, 2, 3, 1, 5 };
  for (int i = 0; i < 5 && i < n; i++) CHECK(p->gcs[rows[i]].number == want[i]);
  free(rows);
  n = tui_proc_rows(p, TUI_FILTER_ALL, TUI_COL_PAUSE, 1, &rows);   /* asc, unknown still last */
  int64_t want_asc[] = { 1, 3, 2, 4, 5 };
  for (int i = 0; i < 5 && i < n; i++) CHECK(p->gcs[rows[i]].number == want_asc[i]);
  free(rows);
  n = tui_proc_rows(p, TUI_FILTER_GEN2, TUI_COL_INDEX, 0, &rows);
  CHECK(n == 2 && p->gcs[rows[0]].number == 4 && p->gcs[rows[1]].number == 2);
  free(rows);
  n = tui_proc_rows(p, TUI_FILTER_BLOCKING_GEN2, TUI_COL_INDEX, 0, &rows);
  CHECK(n == 1 && p->gcs[rows[0]].number == 4);
  free(rows);
  n = tui_proc_rows(p, TUI_FILTER_FGC, TUI_COL_INDEX, 0, &rows);
  CHECK(n == 1 && p->gcs[rows[0]].number == 3);
  free(rows);
  n = tui_proc_rows(p, TUI_FILTER_INDUCED, TUI_COL_INDEX, 0, &rows);
  CHECK(n == 1 && p->gcs[rows[0]].number == 4);
  free(rows);

  /* A GC reported again (live: completed after being closed) replaces the old one. */
  uint64_t gen_before = tui_model_generation(m);
  struct tui_gc g5b = mk(5, 0, 0, 0, 150.0, 150.1, 1.0, 1.5, 9.0, 5.0, 3.0);
  CHECK(tui_model_add_gc(m, &g5b) == 0);
  CHECK(p->ngcs == 5 && p->gcs[4].complete == 1 && tui_model_generation(m) != gen_before);
  tui_proc_summary(p, &s);
  CHECK(s.count[0] == 2 && s.nincomplete == 0);
  CHECK_NEAR(s.heap_now_mb, 5.0, 1e-9);

  /* The same pid in another trace is another process. */
  struct tui_gc other = mk(1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1);
  other.trace_id = 2;
  CHECK(tui_model_add_gc(m, &other) == 0);
  CHECK(tui_model_nprocs(m) == 2 && tui_model_proc(m, 2, 77, 0)->ngcs == 1 && p->ngcs == 5);
  tui_model_free(m);
}

static void test_empty(void) {
  struct tui_model *m = tui_model_new();
  CHECK(tui_model_touch(m, 0, 9, 5.0) == 0);
  struct tui_proc *p = tui_model_proc(m, 0, 9, 0);
  struct tui_summary s;
  tui_proc_summary(p, &s);
  CHECK(s.last == NULL && s.pct_paused == 0 && s.process_duration_ms == 0);
  struct tui_rollup r[4];
  tui_proc_rollup(p, r);
  CHECK(r[0].count == 0 && isnan(r[0].mean_pause_ms));
  size_t *rows;
  CHECK(tui_proc_rows(p, TUI_FILTER_ALL, TUI_COL_INDEX, 0, &rows) == 0);
  free(rows);
  tui_model_free(m);
}

/* A bounded model (live views) lists only the newest GCs but its figures
 * count every GC: the same 40 GCs into a model limited to 8 and into an
 * unlimited one give the same header, rollup and histogram, exactly. The
 * GCs: number i, gen i % 3 (every 7th a background gen2, every 5th
 * induced), pause 0.5 + i ms, peak 100 + i % 13 MB, alloc 2 + i % 4 MB, one
 * incomplete (i = 9). */
static void test_bounded(void) {
  struct tui_model *all = tui_model_new(), *few = tui_model_new();
  CHECK(all && few);
  if (!all || !few) return;
  tui_model_set_max_gcs(few, 8);
  for (int i = 1; i <= 40; i++) {
    int gen = i % 7 == 0 ? 2 : i % 3, type = i % 7 == 0 ? GCS_GC_TYPE_BACKGROUND : GCS_GC_TYPE_NON_CONCURRENT;
    struct tui_gc g = mk(i, gen, type, i % 5 == 0 ? (int)GCS_GC_REASON_INDUCED : 0, 10.0 * i, 10.0 * i + 0.1, 3,
                         0.5 + i, 100 + i % 13, 50, 2 + i % 4);
    g.complete = i != 9;
    CHECK(tui_model_add_gc(all, &g) == 0);
    CHECK(tui_model_add_gc(few, &g) == 0);
  }
  const struct tui_proc *pa = tui_model_proc(all, 1, 77, 0), *pf = tui_model_proc(few, 1, 77, 0);
  CHECK(pa && pf);
  if (!pa || !pf) return;
  CHECK_EQ_U64(pa->ngcs, 40);
  CHECK(pf->ngcs <= 8 && pf->ngcs + pf->ndropped == 40);
  CHECK_EQ_U64(pf->gcs[pf->ngcs - 1].number, 40);      /* the newest stays */
  struct tui_summary sa, sf;
  tui_proc_summary(pa, &sa);
  tui_proc_summary(pf, &sf);
  for (int g = 0; g < 3; g++) CHECK_EQ_U64(sf.count[g], sa.count[g]);
  CHECK_EQ_U64(sf.nbgc, sa.nbgc);
  CHECK_EQ_U64(sf.nincomplete, 1);
  CHECK_EQ_U64(sa.nincomplete, 1);
  /* pauses 1.5 .. 40.5 without i = 9: 820 + 20 - 9.5 = 830.5 ms; max 40.5 ms */
  CHECK_REL(sa.total_pause_ms, 830.5, 1e-12);
  CHECK_REL(sf.total_pause_ms, sa.total_pause_ms, 1e-12);
  CHECK_REL(sf.max_pause_ms, 40.5, 1e-12);
  CHECK_REL(sf.heap_max_mb, sa.heap_max_mb, 1e-12);
  CHECK_REL(sf.total_alloc_mb, sa.total_alloc_mb, 1e-12);
  CHECK_REL(sf.process_duration_ms, sa.process_duration_ms, 1e-12);
  CHECK_REL(sf.pct_paused, sa.pct_paused, 1e-12);
  CHECK(sf.last && sf.last->number == 40);
  struct tui_rollup ra[4], rf[4];
  tui_proc_rollup(pa, ra);
  tui_proc_rollup(pf, rf);
  for (int k = 0; k < 4; k++) {
    CHECK_EQ_U64(rf[k].count, ra[k].count);
    CHECK_EQ_U64(rf[k].induced, ra[k].induced);
    CHECK_REL(rf[k].total_pause_ms, ra[k].total_pause_ms, 1e-12);
    CHECK(rf[k].max_pause_ms == ra[k].max_pause_ms);
  }
  CHECK_EQ_U64(ra[0].induced, 8);     /* 5, 10, ..., 40 */
  unsigned ha[TUI_NBUCKETS], hf[TUI_NBUCKETS];
  tui_proc_histogram(pa, ha);
  tui_proc_histogram(pf, hf);
  unsigned total = 0;
  for (int b = 0; b < TUI_NBUCKETS; b++) { CHECK_EQ_U64(hf[b], ha[b]); total += hf[b]; }
  CHECK_EQ_U64(total, 39);
  tui_model_free(all);
  tui_model_free(few);
}

/* Sparklines over time. A leaking process: GC i (0..60) every 2 s (pause
 * start = start = 2000 i ms, duration 0), After = 100 + i MB, pause 1 + i % 2
 * ms; its timeline is 0 .. 120000 ms. The 60 s window is 60000 .. 120000. */
static void test_sparklines_leak(void) {
  struct tui_model *m = tui_model_new();
  for (int i = 0; i <= 60; i++) {
    struct tui_gc g = mk(i + 1, 0, 0, 0, 2000.0 * i, 2000.0 * i, 0, 1 + i % 2, 200, 100 + i, 1);
    CHECK(tui_model_add_gc(m, &g) == 0);
  }
  const struct tui_proc *p = tui_model_proc(m, 1, 77, 0);
  double heap[60], pause[60];
  struct tui_spark sp;
  /* 30 cells of 2000 ms: GC i (30..59) in bucket i - 30; GC 60 is at the
   * window's end itself, so in the last bucket with GC 59. */
  CHECK(tui_proc_sparklines(p, TUI_SPARK_WINDOW_MS, 30, heap, pause, &sp) == 0);
  CHECK_NEAR(sp.start_ms, 60000, 1e-9);
  CHECK_NEAR(sp.end_ms, 120000, 1e-9);
  CHECK_NEAR(sp.bucket_ms, 2000, 1e-9);
  CHECK(sp.ncells == 30 && !sp.whole && sp.ngcs == 31);
  for (int b = 0; b < 29; b++) {
    CHECK_NEAR(heap[b], 130 + b, 1e-9);                 /* max After of GC 30 + b */
    CHECK_NEAR(pause[b], 1 + b % 2, 1e-9);              /* GC 30 + b: 1 + (30 + b) % 2 */
    CHECK(heap[b] < heap[b + 1]);                       /* the leak rises */
    CHECK(tui_spark_level_range(heap[b], sp.heap_lo_mb, sp.heap_max_mb) <=
          tui_spark_level_range(heap[b + 1], sp.heap_lo_mb, sp.heap_max_mb));
  }
  CHECK_NEAR(heap[29], 160, 1e-9);                      /* max(159, 160) */
  CHECK_NEAR(pause[29], 3, 1e-9);                       /* sum: 2 (GC 59) + 1 (GC 60) */
  CHECK_NEAR(sp.heap_max_mb, 160, 1e-9);
  CHECK_NEAR(sp.pause_max_ms, 3, 1e-9);
  /* the heap scale: bottom min(130, 160 / 2) = 80 .. 160; 130 -> 1 + ceil(50 * 7 / 80)
   * = 6 at the left, 8 at the right (on a 0-based scale it would be 7 .. 8) */
  CHECK_NEAR(sp.heap_lo_mb, 80, 1e-9);
  CHECK(tui_spark_level_range(heap[0], sp.heap_lo_mb, sp.heap_max_mb) == 6);
  CHECK(tui_spark_level_range(heap[29], sp.heap_lo_mb, sp.heap_max_mb) == 8);

  /* 60 cells of 1000 ms: one GC every other bucket; empty buckets are NaN / 0. */
  CHECK(tui_proc_sparklines(p, TUI_SPARK_WINDOW_MS, 60, heap, pause, &sp) == 0);
  CHECK_NEAR(sp.bucket_ms, 1000, 1e-9);
  for (int k = 0; k < 29; k++) {
    CHECK_NEAR(heap[2 * k], 130 + k, 1e-9);
    CHECK(isnan(heap[2 * k + 1]) && pause[2 * k + 1] == 0);
  }
  CHECK_NEAR(heap[58], 159, 1e-9);
  CHECK_NEAR(heap[59], 160, 1e-9);                      /* GC 60, at the end */
  CHECK(tui_spark_level_range(heap[1], sp.heap_lo_mb, sp.heap_max_mb) == 0); /* empty: blank */

  /* a 10 s window: the last 6 GCs (55..60), 10 cells of 1000 ms */
  CHECK(tui_proc_sparklines(p, 10000, 10, heap, pause, &sp) == 0);
  CHECK(sp.ngcs == 6 && sp.start_ms == 110000);         /* 55 .. 60: 110000 is in */
  CHECK_NEAR(heap[0], 155, 1e-9);
  CHECK(isnan(heap[1]));
  CHECK_NEAR(heap[9], 160, 1e-9);
  tui_model_free(m);
}

/* A timeline shorter than the window: the window is the whole timeline.
 * Times 0 .. 1000 ms (touched), 10 cells of 100 ms. Complete GCs at 100
 * (After 4, pause 2.5), 300 (9, 3.25), 320 (12, 3.5), 999 (8, 250); an
 * incomplete one at 500 is left out. */
static void test_sparklines_short(void) {
  struct tui_model *m = tui_model_new();
  CHECK(tui_model_touch(m, 1, 77, 0) == 0);
  CHECK(tui_model_touch(m, 1, 77, 1000) == 0);
  struct tui_gc gs[] = {
    mk(1, 0, 0, 0, 100, 100, 1, 2.5, 10, 4, 1), mk(2, 1, 0, 0, 300, 300, 1, 3.25, 14, 9, 1),
    mk(3, 1, 0, 0, 320, 320, 1, 3.5, 18, 12, 1), mk(4, 0, 0, 0, 500, 500, NAN, NAN, NAN, NAN, NAN),
    mk(5, 2, 0, 0, 999, 999, 1, 250, 25, 8, 1),
  };
  gs[3].complete = 0;
  for (int i = 0; i < 5; i++) CHECK(tui_model_add_gc(m, &gs[i]) == 0);
  const struct tui_proc *p = tui_model_proc(m, 1, 77, 0);
  double heap[10], pause[10];
  struct tui_spark sp;
  CHECK(tui_proc_sparklines(p, TUI_SPARK_WINDOW_MS, 10, heap, pause, &sp) == 0);
  CHECK(sp.whole && sp.ngcs == 4 && sp.start_ms == 0 && sp.end_ms == 1000);
  CHECK_NEAR(sp.bucket_ms, 100, 1e-9);
  /*                 0    1  2    3  4    5    6    7    8  9 */
  double want_heap[] = { NAN, 4, NAN, 12, NAN, NAN, NAN, NAN, NAN, 8 };
  double want_pause[] = { 0, 2.5, 0, 6.75, 0, 0, 0, 0, 0, 250 };
  /* heap scale: min(4, 12 / 2) = 4 .. 12: 1 + ceil((v - 4) * 7 / 8) */
  int want_heap_level[] = { 0, 1, 0, 8, 0, 0, 0, 0, 0, 5 };
  int want_pause_level[] = { 0, 1, 0, 1, 0, 0, 0, 0, 0, 8 };     /* ceil(v*8/250), at least 1 */
  for (int b = 0; b < 10; b++) {
    CHECK(isnan(want_heap[b]) ? isnan(heap[b]) : fabs(heap[b] - want_heap[b]) < 1e-9);
    CHECK_NEAR(pause[b], want_pause[b], 1e-9);
    CHECK(tui_spark_level_range(heap[b], sp.heap_lo_mb, sp.heap_max_mb) == want_heap_level[b]);
    CHECK(tui_spark_level(pause[b], sp.pause_max_ms) == want_pause_level[b]);
  }
  CHECK_NEAR(sp.heap_max_mb, 12, 1e-9);
  CHECK_NEAR(sp.heap_lo_mb, 4, 1e-9);
  CHECK(tui_spark_level_range(5, 5, 5) == 8 && tui_spark_level_range(NAN, 1, 2) == 0);
  CHECK(tui_spark_level_range(3.5, 2, 9) == 3);             /* 1 + ceil(1.5 * 7 / 7) = 1 + 2 */
  CHECK_NEAR(sp.pause_max_ms, 250, 1e-9);
  CHECK(tui_spark_level(NAN, 5) == 0 && tui_spark_level(3, NAN) == 0 && tui_spark_level(-1, 5) == 0);

  /* no timeline yet: nothing to draw */
  struct tui_proc *q = tui_model_proc(m, 1, 78, 1);
  CHECK(tui_proc_sparklines(q, TUI_SPARK_WINDOW_MS, 10, heap, pause, &sp) == -1);
  CHECK(tui_proc_sparklines(p, TUI_SPARK_WINDOW_MS, 0, heap, pause, &sp) == -1);
  tui_model_free(m);
}

/* Column dropping. Widths of the 80x24 fixture screen (GC# sorted: "GC#*"):
 * GC# 4, Start 8, Gen 3, Reason 10, Susp 7, Pause 8, Peak 7, After 8, Prom 7,
 * %Pause 6, Alloc 8. In priority order, with one space between columns, the
 * running widths are GC# 4, Gen 8, Pause 17, Peak 25, After 34, Start 43,
 * Reason 54, Prom 62, Susp 70, Alloc 79, %Pause 86. */
static void test_cols_fit(void) {
  int w[TUI_COL_COUNT];
  w[TUI_COL_INDEX] = 4; w[TUI_COL_START] = 8; w[TUI_COL_GEN] = 3; w[TUI_COL_REASON] = 10;
  w[TUI_COL_SUSPEND] = 7; w[TUI_COL_PAUSE] = 8; w[TUI_COL_PEAK] = 7; w[TUI_COL_AFTER] = 8;
  w[TUI_COL_PROMOTED] = 7; w[TUI_COL_PCT] = 6; w[TUI_COL_ALLOC] = 8;
  unsigned char shown[TUI_COL_COUNT];
  CHECK(tui_cols_fit(w, 100, 8, shown) == 0);
  for (int c = 0; c < TUI_COL_COUNT; c++) CHECK(shown[c] == 1);
  CHECK(tui_cols_fit(w, 86, 8, shown) == 0);                /* exactly fits */
  /* 80: %Pause (86) does not fit; with 8 cells for the note, 72: Alloc (79) neither */
  CHECK(tui_cols_fit(w, 80, 8, shown) == 2);
  CHECK(!shown[TUI_COL_PCT] && !shown[TUI_COL_ALLOC] && shown[TUI_COL_SUSPEND] && shown[TUI_COL_PROMOTED]);
  CHECK(tui_cols_fit(w, 80, 0, shown) == 1 && shown[TUI_COL_ALLOC] && !shown[TUI_COL_PCT]);
  /* 40 - 8 = 32: GC#, Gen, Pause, Peak; After (34) and everything after it hidden */
  CHECK(tui_cols_fit(w, 40, 8, shown) == 7);
  CHECK(shown[TUI_COL_INDEX] && shown[TUI_COL_GEN] && shown[TUI_COL_PAUSE] && shown[TUI_COL_PEAK]);
  CHECK(!shown[TUI_COL_AFTER] && !shown[TUI_COL_START] && !shown[TUI_COL_REASON]);
  /* strict priority: a wide Start hides Reason too, although Reason alone would fit */
  w[TUI_COL_START] = 50;
  CHECK(tui_cols_fit(w, 80, 0, shown) == 6 && shown[TUI_COL_AFTER] && !shown[TUI_COL_START] &&
        !shown[TUI_COL_REASON] && !shown[TUI_COL_SUSPEND]);
  CHECK(tui_col_priority[0] == TUI_COL_INDEX && tui_col_priority[TUI_COL_COUNT - 1] == TUI_COL_PCT);
}

/* A foreground GC inside a background GC learns its measured allocation
 * when the background GC ends (tui_feed's gc_alloc_known): its row is
 * updated however many GCs came after it, and the totals follow. */
static void test_update(void) {
  struct tui_model *m = tui_model_new();
  struct tui_gc fg = mk(1, 1, 2, 0, 10, 10, 1, 1, 5, 4, NAN);
  CHECK(tui_model_add_gc(m, &fg) == 0);
  for (int i = 2; i <= 200; i++) {
    struct tui_gc g = mk(i, 0, 0, 0, 10.0 * i, 10.0 * i, 1, 1, 5, 4, 1.0);
    CHECK(tui_model_add_gc(m, &g) == 0);
  }
  struct tui_summary s;
  tui_proc_summary(tui_model_proc(m, 1, 77, 0), &s);
  CHECK_NEAR(s.total_alloc_mb, 199.0, 1e-9);          /* the foreground GC's NaN counts 0 */
  fg.alloc_mb = 2.5;
  CHECK(tui_model_update_gc(m, &fg) == 0);             /* 199 GCs back: found, not appended */
  struct tui_proc *p = tui_model_proc(m, 1, 77, 0);
  CHECK(p->ngcs == 200);
  tui_proc_summary(p, &s);
  CHECK_NEAR(s.total_alloc_mb, 201.5, 1e-9);
  struct tui_gc none = mk(999, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1);
  CHECK(tui_model_update_gc(m, &none) == -1 && p->ngcs == 200);
  tui_model_free(m);
}

int main(void) {
  test_update();
  test_cols_fit();
  test_sparklines_leak();
  test_sparklines_short();
  test_bounded();
  test_buckets();
  test_gen_names();
  test_figures();
  test_empty();
  return check_done();
}
