/*
 * stats_model.h — GCStats data as read from a gcscope database (tables
 * gc_process_summary, gcs, gc_loh_waits, processes, traces), plus the
 * figures computed at report time: rollup by generation, pause percentiles
 * per kind, pause histogram. Shared by the text, html, csv and json writers.
 * Ownership: st_load allocates everything; st_free releases it.
 */
#ifndef STATS_MODEL_H
#define STATS_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "gcs_enums.h"
#include "gcs_report.h"
#include "gcs_tables.h"

typedef struct sqlite3 sqlite3;

/* Per-GC table columns, PerfView's order: X(column, header, short header, decimals, wide_only).
 * decimals < 0: text column. */
#define ST_GC_COLS(X) \
  X(gc_index, "GC Index", "GC#", 0, 0) \
  X(pause_start_msec, "Pause Start", "Pause Start", 3, 0) \
  X(reason_name, "Trigger Reason", "Reason", -1, 0) \
  X(gen_name, "Gen", "Gen", -1, 0) \
  X(suspend_msec, "Suspend Msec", "Suspend", 3, 0) \
  X(pause_msec, "Pause MSec", "Pause", 3, 0) \
  X(runtime_pause_msec, "Runtime Pause MSec (gcscope)", "RT Pause", 3, 1) \
  X(pct_pause_time, "% Pause Time", "%Pause", 1, 0) \
  X(pct_gc, "% GC", "%GC", 1, 1) \
  X(gen0_alloc_mb, "Gen0 Alloc MB", "Gen0 Alloc", 3, 0) \
  X(gen0_alloc_rate_mb_sec, "Gen0 Alloc Rate MB/sec", "Gen0 MB/s", 2, 1) \
  X(alloc_measured_mb, "Alloc MB Measured (gcscope)", "Alloc Meas", 3, 1) \
  X(peak_mb, "Peak MB", "Peak MB", 3, 0) \
  X(after_mb, "After MB", "After MB", 3, 0) \
  X(committed_after_mb, "Committed MB After", "Commit MB", 3, 0) \
  X(ratio_peak_after, "Ratio Peak/After", "Pk/Af", 2, 0) \
  X(promoted_mb, "Promoted MB", "Promoted", 3, 0) \
  X(gen0_mb, "Gen0 MB", "Gen0 MB", 3, 1) \
  X(gen0_survival_pct, "Gen0 Survival Rate %", "G0 Surv%", 0, 1) \
  X(gen0_frag_pct, "Gen0 Frag %", "G0 Frag%", 2, 1) \
  X(gen1_mb, "Gen1 MB", "Gen1 MB", 3, 1) \
  X(gen1_survival_pct, "Gen1 Survival Rate %", "G1 Surv%", 0, 1) \
  X(gen1_frag_pct, "Gen1 Frag %", "G1 Frag%", 2, 1) \
  X(gen2_mb, "Gen2 MB", "Gen2 MB", 3, 1) \
  X(gen2_survival_pct, "Gen2 Survival Rate %", "G2 Surv%", 0, 1) \
  X(gen2_frag_pct, "Gen2 Frag %", "G2 Frag%", 2, 1) \
  X(loh_mb, "LOH MB", "LOH MB", 3, 1) \
  X(loh_survival_pct, "LOH Survival Rate %", "LOH Surv%", 0, 1) \
  X(loh_frag_pct, "LOH Frag %", "LOH Frag%", 2, 1) \
  X(finalizable_surv_mb, "Finalizable Surv MB", "Fin MB", 2, 1) \
  X(pinned_obj, "Pinned Obj", "Pinned", 0, 1) \
  X(bgc_pause1_msec, "BGC Initial Pause", "BGC P1", 3, 1) \
  X(bgc_pause2_msec, "BGC Final Pause", "BGC P2", 3, 1) \
  X(heap_count, "Heaps (gcscope)", "Heaps", 0, 1)

#define ST_ENUM(Col, H, S, D, W) STC_##Col,
enum { ST_GC_COLS(ST_ENUM) STC_COUNT };
#undef ST_ENUM

struct st_col { const char *name, *header, *short_header; int decimals, wide; };
extern const struct st_col st_cols[STC_COUNT];

/* issue 26: PerfView's per-generation figures of a GC (gc_gens columns), in
 * the JSON's key order: <gen>_<name>_mb. */
#define ST_GENF_N 7
extern const char *const st_genf_names[ST_GENF_N];   /* size_before, budget, in, out, obj_size_after, frag, promoted */
extern const char *const st_gen_keys[GCS_GEN_POH + 1]; /* gen0, gen1, gen2, loh, poh */
/* One heap's time and promoted bytes on one root kind (gc_mark_times). */
struct st_mark { int heap, kind; double msec, bytes; };
/* One heap's LOH compaction (gc_loh_compact). */
struct st_lohc { int heap; double plan_us, compact_us, relocate_us, total_refs, zero_refs; };
/* One bucket (gc_fit_buckets). */
struct st_fit { int seq, kind, bucket; double total_size, count, size; };
/* The configuration the GC ran with (processes columns); -1 = unknown. */
struct st_settings {
  int64_t startup_flags, bits, loh_threshold, physical_memory_config, gen0_min_budget_config,
      gen0_max_budget_config, high_mem_percent_config;
  int64_t pin_object_events, pin_plug_events, fit_bucket_events; /* gc_process_summary; -1 unknown */
  int64_t array_events_left_out;           /* gc_process_summary; -1 unknown (an older import) */
  /* the summary's lines over complete GCs (st_summary_lines) */
  int64_t loh_compactions, loh_first_gc;   /* GCs with GCLOHCompact, the first's index */
  double loh_max_compact_us;
  int64_t pin_gcs;                         /* GCs with a pinned object */
  double pin_max_obj_bytes, pin_plug_bytes, pin_user_plug_bytes;
  int64_t revisit_bgcs;                    /* GCs with BGCRevisit */
  double revisit_pages, revisit_objects;
};

struct st_gc {
  double v[STC_COUNT];            /* numeric columns (NaN = NULL) */
  char reason[24], gen_name[8];  /* reason_name, gen_name */
  uint32_t reason_code;           /* GCStart.Reason: gcs_reason_is_induced() ... */
  int gen, type, complete;
  double duration_msec;
  uint8_t cr[GCS_CONDEMN_GROUP_COUNT];
  int phh_count;
  /* GCGlobalHeapHistory: the phases' times (us, GCS_GC_PHASES order) and
   * GlobalMechanisms, PauseMode, MemoryPressure; NaN = not in the trace. */
  double phase_usec[GCS_GC_PHASE_COUNT];
  double global_mechanisms, pause_mode, memory_pressure;
  /* GCCommittedUsage parts (bytes) at the start [0] and end [1], in its
   * field order (in use, global decommit, free, global free, bookkeeping);
   * NaN = not in the trace. */
  double committed[2][5];
  /* Server GC mark balance (gcs columns mark_*): heaps, root kind, slowest
   * heap, its msec and the fastest heap's; NaN = not in the trace. */
  double mark_heaps, mark_kind, mark_slow_heap, mark_slow_msec, mark_fast_msec;
  /* issue 26, ST_LOAD_ALL only (NaN / 0 rows otherwise) */
  int64_t id;                          /* gcs.id */
  double genf[GCS_GEN_POH + 1][ST_GENF_N]; /* gc_gens figures (st_genf_names), NaN = no row */
  double pin_obj_bytes, pin_plug_bytes, user_pin_plug_bytes; /* bytes; NaN = not recorded */
  double revisit[4];                   /* BGCRevisit pages, objects, LOH pages, LOH objects; NaN = none */
  int mark0, nmark;                    /* its rows of st_proc.marks */
  int loh0, nloh;                      /* of st_proc.lohc */
  int fit0, nfit;                      /* of st_proc.fits */
};
/* A GC whose mark is unbalanced: on one root kind the slowest heap took at
 * least ST_MARK_RATIO times the fastest and ST_MARK_MIN_MSEC more. */
#define ST_MARK_RATIO 2.0
#define ST_MARK_MIN_MSEC 1.0
int st_mark_flagged(const struct st_gc *g);

/* Pause kinds for the percentiles: gen0, gen1, background gen2, blocking gen2. */
enum {
  ST_K_GEN0 = GCS_PAUSE_KIND_GEN0,
  ST_K_GEN1 = GCS_PAUSE_KIND_GEN1,
  ST_K_BGC = GCS_PAUSE_KIND_BACKGROUND,
  ST_K_GEN2N = GCS_PAUSE_KIND_GEN2_BLOCKING,
  ST_KINDS = GCS_PAUSE_KIND_COUNT
};
extern const char *const st_kind_names[ST_KINDS];

struct st_pausestat { int count; double total, mean, max, p50, p95, p99; };
/* One cell of "where the GC time went": a phase over the complete GCs of one
 * kind that timed it (count), mean and P95 in microseconds (NaN if none). */
struct st_phasestat { int count; double mean, p95; };
/* GCS_GC_PHASES' JSON names and text labels, in order. */
extern const char *const st_phase_names[GCS_GC_PHASE_COUNT];
extern const char *const st_phase_labels[GCS_GC_PHASE_COUNT];

struct st_rollup {              /* PerfView's rollup row: ALL (gen -1), 0, 1, 2 */
  int count, induced;
  double max_pause, max_peak, max_alloc_rate, total_pause, total_alloc, total_promoted, mean_pause;
  double gc_cpu;                /* NaN if unknown */
};

#define ST_HIST_BUCKETS 11
extern const double st_hist_edges[ST_HIST_BUCKETS]; /* lower bounds, ms */

struct st_wait { uint32_t bgc_index; int tid; double start, pause; int reason; };

/* GC overhead over time, the same figures as `gcscope advise`:
 * pauses are [SuspendEEBegin (GCStart if none), RestartEEEnd] of every GC
 * that has both, plus a BGC's final pause; the run is the process's first to
 * last event, widened to cover every pause. ST_MMU_N == INS_MMU_N (window
 * sizes ins_mmu_windows_ns: 1 ms ... 10 s). */
#define ST_OVERHEAD_WINDOW_S 60
#define ST_MMU_N 13
struct st_overhead {
  int have;                      /* 0: no pause with timestamps (figures NaN) */
  double window_s;               /* worst-window length (ST_OVERHEAD_WINDOW_S) */
  double worst_pct;              /* % paused in the worst window (whole run if shorter) */
  double worst_start_ms;         /* its start, ms since the trace start */
  double worst_len_ms, worst_paused_ms;
  double mmu[ST_MMU_N];          /* NaN for windows longer than the run */
};

/* A stop rule that fired during `gcscope record` (trigger_firings). */
struct st_firing {
  char *rule, *kind, *capture, *verdict;
  uint32_t gc_index;
  double value;                 /* ms, or % paused (pct-pause) */
};

struct st_proc {
  int64_t trace_id;
  int pid;
  char *name, *cmdline, *runtime_version, *trace_path;
  char *incomplete_why;         /* the commonest reason its incomplete GCs give, or NULL */
  int server_gc, concurrent_gc, heap_count; /* -1 unknown */
  int64_t hard_limit;           /* GC heap hard limit in bytes (GCSettingsRundown), 0 none, -1 unknown */
  int gc_count, incomplete_count, induced_count;
  double total_pause, max_pause, pct_pause, max_heap, total_alloc, process_duration, total_promoted;
  double total_alloc_measured;  /* gcscope's measured allocations (NaN without per-heap history) */
  int heap_count_min, heap_count_max, heap_count_changes; /* per complete GC; -1 -1 0 unknown */
  double total_runtime_pause;   /* Σ runtime_pause_msec: GC.GetTotalPauseDuration() (NaN unknown) */
  int rt_pause_differs;         /* GCs whose Pause and runtime pause differ (st_pause_differs) */
  double max_suspend, total_gc_cpu;
  int64_t lost_events, trace_discarded;
  int64_t trace_packet_gaps;    /* traces.packet_gaps, -1 unknown (an older import) */
  int64_t trace_truncated_at;     /* traces.truncated_at, -1 if the trace is complete */
  char *trace_truncated_file;     /* the stream file it is in (traces.truncated_file, else traces.path) */
  struct st_gc *gcs;
  int ngcs;
  struct st_wait *waits;
  int nwaits;
  struct st_firing *firings;
  int nfirings;
  struct st_rollup roll[4];
  struct st_pausestat kinds[ST_KINDS];
  /* [k][GCS_GC_PHASE_COUNT]: every timed phase of a GC, summed */
  struct st_phasestat phases[ST_KINDS][GCS_GC_PHASE_COUNT + 1];
  int has_phases;               /* a complete GC timed at least one phase */
  int has_committed;            /* a GC has GCCommittedUsage figures (.NET 8+) */
  int mark_multi;               /* a GC has mark times of two heaps or more */
  int mark_flagged;             /* complete GCs st_mark_flagged() */
  double max_committed;         /* MB: the largest committed_before/after_mb, NaN if none */
  struct st_settings set;       /* issue 26 */
  struct st_mark *marks;        /* ST_LOAD_ALL: every GC's, in GC order */
  int nmarks;
  struct st_lohc *lohc;
  int nlohc;
  struct st_fit *fits;
  int nfits;
  int hist[ST_HIST_BUCKETS];
  int has_phh;
  struct st_overhead ov;        /* ST_LOAD_TEXT and ST_LOAD_ALL */
  struct st_datas *datas;       /* DATAS (stats_datas.c): ST_LOAD_TEXT and ST_LOAD_ALL */
};

/* A per-GC cell: a number, "-" where PerfView prints NaN or Infinity (a
 * ratio over 0), or "unknown" where the column's NaN means the trace does
 * not give it (% GC without CPU data, the runtime's pause, the measured
 * allocations, committed memory, the heap count: NULL in the gcs table). */
const char *st_gc_cell(char *buf, size_t n, const struct st_gc *g, int col);

/* Does a GC's PerfView pause differ from the runtime's own (runtime_pause_msec)
 * by more than the restart's usual length: over 0.1 ms and over 5 %? */
int st_pause_differs(const struct st_gc *g);

struct gcs_overlap;
struct st_model {
  struct st_proc *procs;
  int nprocs;
  struct gcs_overlap *overlaps;  /* traces holding the same GCs (gcs_input_overlaps) */
  int noverlaps;
};

/* What st_load reads. ST_LOAD_PROCS: the processes and their summary only (no
 * GCs, rollups or percentiles: enough for st_warnings); ST_LOAD_TEXT: per GC,
 * only what the 120-column text report shows (the other numeric columns of
 * st_gc.v are NaN); ST_LOAD_ALL: every column (text --wide, html, json). */
enum { ST_LOAD_PROCS, ST_LOAD_TEXT, ST_LOAD_ALL };

/* pid < 0: every process. Returns 0 or -1 with err. */
int st_load(sqlite3 *db, int pid, int what, struct st_model *m, char *err, size_t errlen);
void st_free(struct st_model *m);

/* Fills p->ov from the gcs/processes/traces tables.
 * Returns 0 (p->ov.have 0 when the process has no timed pause) or -1. */
int st_load_overhead(sqlite3 *db, struct st_proc *p);
/* The same from pauses already read (st_load takes them from the GC rows it
 * loads: st_pause_of_gc appends a GC's 0, 1 or 2 pauses of the gc_pauses view). */
struct ins_pause;
struct gcs_gcdb_gc;
int st_overhead_of(sqlite3 *db, struct st_proc *p, const struct ins_pause *pz, size_t n);
void st_pause_of_gc(const struct gcs_gcdb_gc *g, struct ins_pause *out, size_t *n);

/* Linear-interpolation percentile of sorted values (numpy's default). */
double st_percentile(const double *sorted, int n, double p);

/* The text report. gcs: ST_GCS_ALL prints every GC (PerfView's All GC
 * Events table, and the gen2 and background GC tables unbounded); N > 0
 * prints the N GCs with the longest pauses instead and bounds the gen2 and
 * background GC tables to N rows, each with a "... more: --gcs all" line. */
#define ST_GCS_ALL (-1)
#define ST_GCS_DEFAULT 20
/* The text report's sections (--section NAME[,NAME]). */
enum {
  ST_SEC_SUMMARY = 1u << 0, ST_SEC_PAUSES = 1u << 1, ST_SEC_HISTOGRAM = 1u << 2, ST_SEC_ROLLUP = 1u << 3,
  ST_SEC_LONG = 1u << 4, ST_SEC_LOH = 1u << 5, ST_SEC_GEN2 = 1u << 6, ST_SEC_BGC = 1u << 7,
  ST_SEC_GCS = 1u << 8, ST_SEC_CONDEMNED = 1u << 9, ST_SEC_FIRINGS = 1u << 10, ST_SEC_PHASES = 1u << 11,
  ST_SEC_BALANCE = 1u << 12,
  ST_SEC_DATAS = 1u << 13,
};
#define ST_SECTIONS_DEFAULT 0x3fffu  /* every section */
struct st_section { const char *name; unsigned bit; const char *what; };
extern const struct st_section st_sections[];   /* NULL-terminated */
/* "pauses,rollup" -> mask; "all" = every section. -1 with a line listing them. */
int st_sections_parse(const char *spec, unsigned *mask, char *err, size_t errlen);

struct st_text_opts {
  int wide, color;
  int gcs;
  unsigned sections;    /* ST_SEC_* bits; 0: every section */
};
void st_write_text(FILE *out, const struct st_model *m, const struct st_text_opts *o);
/* The advisor's findings of every process in scope (pid < 0: all), computed
 * on a second read-only connection and thread while the caller loads the
 * report (st_findings_start); st_write_html takes them (early may be NULL:
 * it then computes each process's findings itself). NULL when there is no
 * findings function or no second connection. */
struct st_findings_early;
struct st_findings_early *st_findings_start(sqlite3 *db, int pid);
void st_findings_free(struct st_findings_early *e);
/* db (may be NULL): for the advisor's findings at the top of each process
 * (gcs_report_set_findings); early: those findings computed beforehand. */
void st_write_html(FILE *out, const struct st_model *m, sqlite3 *db, struct st_findings_early *early);
/* The function gcs_report_set_findings gave (NULL: none). */
gcs_report_findings_fn st_findings_fn(void);
void st_write_json(FILE *out, const struct st_model *m);
int st_write_csv(FILE *out, sqlite3 *db, int pid);
void st_warnings(FILE *out, const struct st_model *m, const char *prefix);

/* The overhead figures in each format (stats_overhead_out.c): the JSON summary
 * keys (written after a previous key, so they start with ", "), the HTML
 * summary item and the inline-SVG MMU chart, and the text summary line. */
void st_json_overhead(FILE *out, const struct st_overhead *ov);
void st_html_overhead_item(FILE *out, const struct st_overhead *ov);
void st_html_mmu_chart(FILE *out, const struct st_overhead *ov);
void st_text_overhead(FILE *out, const struct st_overhead *ov);

/* ---- DATAS: the server GC's dynamic heap count (stats_datas.c) ----------
 * The process's decoded SizeAdaptation* events and its heap count per GC;
 * st_load reads them (ST_LOAD_TEXT, ST_LOAD_ALL), st_free frees them. The
 * writers: each GC's ", \"dynamic_events\": [...]" (null when the process
 * has none), the summary's ", \"datas\": {...}", the text section and the
 * HTML section (heap count chart, each change with its decision). */
struct st_datas;
struct rpt_wbuf;
int st_datas_load(sqlite3 *db, struct st_proc *p);
void st_datas_free(struct st_datas *d);
void st_datas_json_gc(struct rpt_wbuf *w, const struct st_proc *p, double gc_index);
void st_datas_json_summary(FILE *o, const struct st_proc *p);
void st_datas_text(FILE *o, const struct st_proc *p);
void st_datas_html(FILE *o, const struct st_proc *p);

#endif /* STATS_MODEL_H */
