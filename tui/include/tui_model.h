/*
 * tui_model.h — the data model behind `gcscope top`: per-process lists of
 * reconstructed GCs and the figures the screen shows (PerfView's GCStats
 * definitions, perfview-gcstats.md §3-§5). It knows nothing about ncurses or
 * about where GCs come from: the DB source (tui_db.c) and the live source
 * (tui_live.c) both turn their records into struct tui_gc and add them here,
 * and the unit tests feed it by hand.
 *
 * Ownership: the model owns its processes and copies every GC added.
 * Pointers returned by the accessors stay valid until the next add or
 * tui_model_free (the GC arrays grow by realloc).
 * Threading: one thread at a time.
 * Errors: functions returning int give 0 on success, -1 on allocation
 * failure; nothing prints.
 */
#ifndef TUI_MODEL_H
#define TUI_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define TUI_NGENS 5            /* gen0, gen1, gen2, LOH, POH */
#define TUI_NAME_LEN 64

/* One GC, as PerfView's TraceGC holds it. Times are ms since the trace start
 * (PerfView's "relative msec"); sizes are MB (10^6 bytes). NaN = unknown. */
struct tui_gc {
  int64_t trace_id;            /* a DB holds several traces; 0 when live */
  int32_t pid;
  int64_t number;              /* GCStart Count: the "GC Index" */
  int gen;                     /* GCStart Depth: 0, 1, 2 */
  int type;                    /* 0 NonConcurrent, 1 Background, 2 Foreground */
  int reason;                  /* GCReason value */
  int complete;                /* 0: trace began/ended inside it or events were lost */
  int fired;                   /* a stop rule fired on it while record ran (trigger_firings): shown "!" */
  int heap_count;              /* its GCGlobalHeapHistory NumHeaps (DATAS varies it); 0 unknown */
  double start_ms;             /* GCStart */
  double pause_start_ms;       /* SuspendEEBegin (or GCStart, see §3.2) */
  double duration_ms;          /* GCStart -> GCEnd */
  double suspend_ms;           /* SuspendDurationMSec */
  double pause_ms;             /* PauseDurationMSec */
  double bgc_pause1_ms;        /* BGC initial pause (NaN for non-BGCs) */
  double bgc_pause2_ms;        /* BGC final pause, BGCFinalPauseMSec (NaN for non-BGCs) */
  double pct_pause;            /* PauseTimePercentageSinceLastGC */
  double gen0_alloc_mb;        /* UserAllocated[Gen0] */
  double alloc_mb;             /* allocated since the previous GC: gcscope's measured figure
                                * (gcs_gc.total_alloc_measured_mb), PerfView's
                                * AllocedSinceLastGCMB where the trace has no per-heap history */
  double alloc_perfview_mb;    /* AllocedSinceLastGCMB */
  double alloc_rate_mbs;       /* AllocRateMBSec */
  double peak_mb;              /* HeapSizePeakMB */
  double after_mb;             /* HeapSizeAfterMB */
  double promoted_mb;          /* PromotedMB */
  double committed_mb;         /* GCCommittedUsage at the GC's end (TotalCommittedBytes), NaN if unknown */
  double gen_before_mb[TUI_NGENS];
  double gen_after_mb[TUI_NGENS];
  int64_t db_id;               /* row id in the gcs table, -1 when live */
  uint64_t start_ns, end_ns;   /* absolute event times (ns since epoch), 0 if unknown:
                                  used to find the GC's events */
  uint64_t pause_start_ns;
};

/* One traced process. */
struct tui_dropped;

struct tui_proc {
  int64_t trace_id;            /* processes are keyed by (trace, pid) */
  int32_t pid;
  char name[TUI_NAME_LEN];     /* process name, "" if unknown */
  char flavour[TUI_NAME_LEN];  /* "Workstation concurrent", "Server 4 heaps" ... */
  double first_ms;             /* earliest time seen for the process (ms since trace start) */
  double last_ms;              /* latest time seen */
  struct tui_gc *gcs;          /* in arrival (= GC start) order: the newest ones */
  size_t ngcs, cap;
  /* GCs dropped to bound memory (tui_model_set_max_gcs): what the header,
   * rollup and histogram still count for them. */
  uint64_t ndropped;
  struct tui_dropped *dropped;
  struct tui_reqs *reqs;       /* completed requests (tui_model_add_request), NULL if none */
};

/* Requests (librgc's, or a .NET service's recorded with --requests): the
 * rate and p99 latency over the last window before the newest request's
 * end (over all of them when the run is shorter). The newest
 * TUI_REQ_KEEP are kept. */
#define TUI_REQ_KEEP 65536
#define TUI_REQ_WINDOW_MS 10000.0
struct tui_req_summary {
  uint64_t total;              /* requests added */
  size_t window_count;         /* requests ending inside the window */
  double window_ms;            /* the window's length */
  double rate_per_s;           /* window_count / window */
  double p99_ms;               /* P99 latency in the window (linear interpolation, as impact) */
};
struct tui_reqs;

/* Header figures of one process (complete GCs only, like PerfView). */
struct tui_summary {
  unsigned count[3];           /* GCs per generation */
  unsigned nbgc, nfgc, nincomplete;
  double total_pause_ms, max_pause_ms;
  double process_duration_ms;  /* first complete GC's pause start -> last GC's end */
  double pct_paused;           /* total pause * 100 / process duration, 0 if duration 0 */
  double heap_now_mb;          /* After MB of the newest complete GC */
  double heap_max_mb;          /* max Peak MB */
  double total_alloc_mb;
  double alloc_rate_mbs;       /* total alloc * 1000 / process duration */
  double uptime_ms;            /* last_ms - first_ms */
  const struct tui_gc *last;   /* GC received last (live: finished last), NULL if none */
};

/* "GC Rollup By Generation" row (perfview-gcstats.md §5.1). */
struct tui_rollup {
  unsigned count, induced;
  double max_pause_ms, max_peak_mb, max_alloc_rate_mbs;
  double total_pause_ms, total_alloc_mb, mean_pause_ms;
};

/* Pause histogram: 1-2-5 log buckets, bucket i holds [edge[i-1], edge[i]). */
#define TUI_NBUCKETS 14
extern const double tui_bucket_edges_ms[TUI_NBUCKETS - 1];
int tui_pause_bucket(double pause_ms);
const char *tui_bucket_label(int bucket);      /* "<0.1", "0.1", ..., ">=1s" */

struct tui_model;

struct tui_model *tui_model_new(void);

/* Keep at most max GCs per process (0: no limit, the default). Older GCs are
 * dropped from the list (the table and sparklines show the newest), but the
 * header, rollup and histogram go on counting them exactly. */
void tui_model_set_max_gcs(struct tui_model *m, size_t max);

void tui_model_free(struct tui_model *m);

/* The process (trace_id, pid); created (empty) if create != 0. NULL if absent
 * or out of memory. */
struct tui_proc *tui_model_proc(struct tui_model *m, int64_t trace_id, int32_t pid, int create);
size_t tui_model_nprocs(const struct tui_model *m);
struct tui_proc *tui_model_proc_at(struct tui_model *m, size_t i);

/* Copy a GC into its process (created if needed). A GC with the same number
 * already present (a live GC first reported incomplete and then again) is
 * replaced. Updates first_ms/last_ms. Returns 0 or -1. */
int tui_model_add_gc(struct tui_model *m, const struct tui_gc *gc);
/* Replace the row of a GC already added (same process, number and start),
 * however far back: 0, or -1 when it is not (or no longer) in the model. */
int tui_model_update_gc(struct tui_model *m, const struct tui_gc *gc);
/* Record that the process was seen at time ms (extends first_ms/last_ms;
 * the live source calls it for every event so the uptime runs on). */
int tui_model_touch(struct tui_model *m, int64_t trace_id, int32_t pid, double ms);
/* A completed request of the process (created if needed). 0, or -1 when out of memory. */
int tui_model_add_request(struct tui_model *m, int64_t trace_id, int32_t pid, double end_ms, double latency_ms);
/* 1 and *out when the process has requests, 0 otherwise. */
int tui_proc_requests(const struct tui_proc *p, double window_ms, struct tui_req_summary *out);
/* Total GCs added over all processes (changes when the model changes). */
uint64_t tui_model_generation(const struct tui_model *m);

void tui_gc_init(struct tui_gc *gc);           /* zero + NaN for the optional figures */
/* PerfView's "Gen" column: 0N, 1N, 2B, 1F, 2NI, 2Bi ... (buf >= 8 bytes). */
const char *tui_gc_gen_name(const struct tui_gc *gc, char *buf, size_t len);
int tui_gc_is_induced(const struct tui_gc *gc);  /* Reason Induced or InducedNotForced */

void tui_proc_summary(const struct tui_proc *p, struct tui_summary *s);
/* out[0] = ALL, out[1..3] = gen 0..2. */
void tui_proc_rollup(const struct tui_proc *p, struct tui_rollup out[4]);
void tui_proc_histogram(const struct tui_proc *p, unsigned counts[TUI_NBUCKETS]);

/* --- sparklines over time ---------------------------------------------------
 * The header's two sparklines: time on the x axis, not GCs, so a heap that
 * grows (a leak) rises from left to right whatever the GC rate.
 * The window ends at the process's latest time seen (p->last_ms: live, the
 * latest event, so an idle process's line scrolls on) and spans window_ms
 * (TUI_SPARK_WINDOW_MS by default), or the whole timeline (first_ms ..
 * last_ms) when that is shorter. It is cut into ncells equal buckets; bucket
 * i holds the complete GCs whose pause start is in
 * [start + i*bucket, start + (i+1)*bucket) (the window's end in the last).
 *   heap_mb[i]  = the largest After MB of those GCs (heap size after GC), NaN if none
 *   pause_ms[i] = the sum of their pauses (time paused in the bucket; a pause
 *                 is counted whole in the bucket it starts in), 0 if none
 * The heap line is drawn on the scale heap_lo_mb .. heap_max_mb, where the
 * bottom is the window's smallest heap or half the largest, whichever is
 * lower: a leak of a few tens of % in the window still climbs several
 * steps, and noise of a few % stays flat. The pause line starts at 0.
 * GCs dropped by tui_model_set_max_gcs are not in the lines. */
#define TUI_SPARK_WINDOW_MS 60000.0
struct tui_spark {
  double start_ms, end_ms;     /* the window */
  double bucket_ms;            /* (end - start) / ncells */
  int ncells;
  int whole;                   /* 1: the window is the whole timeline (shorter than asked) */
  double heap_max_mb;          /* largest heap_mb[i], NaN if every bucket is empty */
  double heap_lo_mb;           /* bottom of the heap line's scale: min(smallest heap_mb[i], max / 2) */
  double pause_max_ms;         /* largest pause_ms[i], 0 if none */
  unsigned ngcs;               /* GCs counted in the window */
};
/* Fills heap_mb[ncells], pause_ms[ncells] and *out. Returns 0, or -1 if there
 * is no timeline yet (no time seen) or ncells < 1 (arrays untouched). */
int tui_proc_sparklines(const struct tui_proc *p, double window_ms, int ncells,
                        double *heap_mb, double *pause_ms, struct tui_spark *out);
/* Height of a sparkline cell, 0..8 eighths: 0 (blank) for NaN or v <= 0,
 * else ceil(v * 8 / max) in 1..8. */
int tui_spark_level(double v, double max);
/* Height on the scale lo .. hi: 0 (blank) for NaN, else 1 + ceil((v - lo) * 7
 * / (hi - lo)) in 1..8 (8 when hi <= lo). */
int tui_spark_level_range(double v, double lo, double hi);

/* --- the GC table as the user sees it: filter, sort, search ----------------- */

enum tui_filter {
  TUI_FILTER_ALL, TUI_FILTER_GEN0, TUI_FILTER_GEN1, TUI_FILTER_GEN2,
  TUI_FILTER_BGC, TUI_FILTER_FGC, TUI_FILTER_BLOCKING_GEN2, TUI_FILTER_INDUCED,
  TUI_FILTER_COUNT
};
const char *tui_filter_name(enum tui_filter f);
int tui_filter_match(enum tui_filter f, const struct tui_gc *gc);

/* Sortable columns of the table, in screen order. */
enum tui_col {
  TUI_COL_INDEX, TUI_COL_START, TUI_COL_GEN, TUI_COL_REASON, TUI_COL_SUSPEND,
  TUI_COL_PAUSE, TUI_COL_PEAK, TUI_COL_AFTER, TUI_COL_PROMOTED, TUI_COL_PCT,
  TUI_COL_ALLOC, TUI_COL_COUNT
};
const char *tui_col_name(enum tui_col c);

/* Which columns a terminal of `avail` cells shows. Columns are kept in the
 * order of tui_col_priority (GC#, Gen, Pause, Peak, After, Start, Reason,
 * Promoted, Suspend, Alloc, %Pause): each takes width[c] cells plus one
 * space between columns; the first column that does not fit and every later
 * one in that order are hidden (a number is never cut: a column is shown at
 * its full width or not at all). When some are hidden, `marker` cells are
 * kept free for the "+N cols" note and the fit is redone. shown[c] is set to
 * 1 or 0; returns the number hidden. */
extern const enum tui_col tui_col_priority[TUI_COL_COUNT];
int tui_cols_fit(const int width[TUI_COL_COUNT], int avail, int marker, unsigned char shown[TUI_COL_COUNT]);

/* Indexes into p->gcs of the GCs passing the filter, sorted by column
 * (descending unless ascending != 0; ties by GC number descending, so the
 * default TUI_COL_INDEX descending is "newest first"). *out is malloc'ed
 * (caller frees); returns the count, or -1 on allocation failure. */
long tui_proc_rows(const struct tui_proc *p, enum tui_filter f, enum tui_col sort,
                   int ascending, size_t **out);

/* Does the GC match a search text? Matches the GC number exactly, or
 * case-insensitively a substring of its reason name or Gen name. */
int tui_gc_matches(const struct tui_gc *gc, const char *text);

/* Copies a name into dst (cap > 0 bytes), always NUL-terminated; when it
 * does not fit it is cut before the UTF-8 character that would not fit
 * whole, so a long name in a non-Latin script does not end in a broken
 * character. */
void tui_copy_name(char *dst, size_t cap, const char *src);

#endif /* TUI_MODEL_H */
