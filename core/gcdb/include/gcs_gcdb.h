/*
 * gcs_gcdb.h — reading a gcscope database, shared by every report (stats,
 * events, impact, triggers, allocs, handles, heaps, advise, top):
 *
 *  - gcs_input_open: the one input policy. The argument is either a gcscope
 *    database (the report covers the whole database) or a trace (an LTTng
 *    directory, a perfcollect .trace.zip, a .nettrace), which is first
 *    imported into the database file (./gcscope.db unless the caller names
 *    another); importing a trace the database already holds adds nothing. The
 *    report then covers only that trace's processes. --trace ID narrows either
 *    to one trace. The traces in scope are the rows of the temporary table
 *    temp.input_traces(id); reports filter with GCS_IN_INPUT(column).
 *  - gcs_gcdb_each / gcs_gcdb_load: the one loader of GC rows (tables_gc.def's
 *    gcs, plus optional per-heap history), columns selectable.
 *  - gcs_gcdb_pauses: the pauses of one process (the gc_pauses view).
 *  - gcs_gcdb_events_prepare: one trace's events in event order (ts_ns, ties
 *    by id), read as stored when the import found them in time order.
 *
 * Errors: functions return 0 (or a handle) on success, -1 (NULL) with a
 * one-line message in err (no program prefix, no newline); nothing is printed
 * except the import's summary lines (to opts->progress).
 * Ownership: arrays returned through pointers are malloc'ed; free() them.
 * Threading: a gcs_input's connection is opened SQLITE_OPEN_NOMUTEX; use it
 * from one thread at a time.
 */
#ifndef GCS_GCDB_H
#define GCS_GCDB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gcs_enums.h"
#include "gcs_tables.h"

typedef struct sqlite3 sqlite3;

/* ---- input ------------------------------------------------------------------ */

/* SQL condition: column is a trace in the input's scope. */
#define GCS_IN_INPUT(column) column " IN (SELECT id FROM temp.input_traces)"

/* Busy timeout of every reader: an import holding the write lock commits one
 * trace per transaction; readers wait for it rather than fail. */
#define GCS_INPUT_BUSY_MS 5000

struct gcs_input_opts {
  const char *db_path;   /* where a trace is imported; NULL: GCS_DB_DEFAULT_PATH */
  int64_t trace_id;      /* --trace: >= 0 narrows the scope to that trace; -1: no narrowing */
  int db_only;           /* 1: the argument must be a database (no import) */
  int writable;          /* 1: open the database read-write */
  int allow_empty;       /* 1: accept a database without the gcscope tables yet (top
                            waits for an import to create them); the scope is then empty */
  int damaged_ok;        /* 1: open a database whose views do not read (a table dropped):
                            sql, to look at it; 0: "damaged database: view V does not
                            read (REASON)", an error */
  FILE *progress;        /* import summary lines; NULL: stderr */
};

struct gcs_input {
  sqlite3 *db;
  int imported;          /* 1: the argument was a trace, imported into db_path */
  char db_path[4096];    /* the database file opened */
};

int gcs_input_open(const char *arg, const struct gcs_input_opts *opts, struct gcs_input *in, char *err,
                   size_t errlen);
void gcs_input_close(struct gcs_input *in);

/* The traces in scope whose tracer discarded events, or that were cut short
 * (traces.truncated_at): one warning line per trace ("PREFIXwarning: trace
 * ID (PATH): N events discarded by the tracer: ..." (gcs_lost_text);
 * gcs_input_warn_cut's) on out, so that every report repeats what import
 * said. Returns the number of lines (0 also when the query fails). */
int gcs_input_warn_discarded(const struct gcs_input *in, FILE *out, const char *prefix);

/* The line of trace ID whose tracer discarded events, on out: "PREFIXwarning:
 * trace ID (PATH): WHAT: nearby GCs incomplete, not in figures", WHAT
 * gcs_lost_text(discarded, packet_gaps; -1: unknown); PATH NULL: "?". */
void gcs_input_warn_lost(FILE *out, const char *prefix, int64_t trace_id, const char *path, int64_t discarded,
                         int64_t packet_gaps);

/* The line of trace ID cut short, on out: "PREFIXwarning: trace ID: FILE:
 * cut at byte N, open GCs incomplete". FILE is the stream file the offset N
 * is in (traces.truncated_file; traces.path from a database an older
 * gcscope wrote; NULL: "?"), N traces.truncated_at. For a file read out of
 * an archive, import stores "ARCHIVE: member 'MEMBER' (uncompressed)" or
 * "FILE.gz (uncompressed)" there: N counts the uncompressed bytes. */
void gcs_input_warn_cut(FILE *out, const char *prefix, int64_t trace_id, const char *file, int64_t at);

/* The command skeleton's open: every report opens its input with this, so
 * that it says what it knows of the input's quality first and the same way.
 * gcs_input_open(arg, opts), then, before the report prints a line, the
 * warnings of gcs_input_warn_discarded (events the tracer discarded, input
 * cut short: the GCs they touch are incomplete) on stderr as
 * "gcscope CMD: warning: ...". Unlike the rest of this library it prints:
 * on failure the one error line "gcscope CMD: MESSAGE" (then returns -1,
 * *in untouched). Close with gcs_input_close. */
int gcs_input_open_report(const char *cmd, const char *arg, const struct gcs_input_opts *opts,
                          struct gcs_input *in);

/* Two traces in scope holding the same GCs of one process (overlapping
 * captures of a flight recorder, a trace and a copy cut from it): the same
 * pid, host and GC number with the same GCStart time. Every report covers one
 * trace at a time, so nothing is counted twice; the note says so. */
struct gcs_overlap {
  int64_t trace_a, trace_b;     /* a < b */
  int pid;
  uint32_t first_gc, last_gc;   /* GC numbers found in both */
  int64_t count;                /* GCs found in both */
};
/* Fills *out (malloc'ed, caller frees) and *n. 0, or -1 if the query fails. */
int gcs_input_overlaps(sqlite3 *db, struct gcs_overlap **out, int *n);
/* "PREFIXnote: traces A and B both hold GCs #X-#Y of pid P (N GCs): ..." */
void gcs_overlap_note(FILE *out, const char *prefix, const struct gcs_overlap *o);

/* ---- GC rows ---------------------------------------------------------------- */

/* The REAL (and count) figures of a gcs row a loader can read, as doubles
 * (NaN = NULL or not loaded). Names are the gcs columns (tables_gc.def). */
#define GCS_GCDB_REALS(X) \
  X(pause_start_msec) X(start_msec) X(duration_msec) X(suspend_msec) X(pause_msec) \
  X(bgc_pause1_msec) X(bgc_pause2_msec) X(pct_pause_time) X(pct_gc) \
  X(gen0_alloc_mb) X(gen0_alloc_rate_mb_sec) X(total_alloc_mb) X(alloc_rate_mb_sec) X(gc_cpu_msec) \
  X(alloc_measured_mb) \
  X(peak_mb) X(after_mb) X(ratio_peak_after) X(promoted_mb) \
  X(gen0_mb) X(gen0_survival_pct) X(gen0_frag_pct) X(gen1_mb) X(gen1_survival_pct) X(gen1_frag_pct) \
  X(gen2_mb) X(gen2_survival_pct) X(gen2_frag_pct) X(loh_mb) X(loh_survival_pct) X(loh_frag_pct) \
  X(poh_mb) X(finalizable_surv_mb) X(pinned_obj) X(runtime_pause_msec) X(heap_count) \
  X(global_mechanisms) X(pause_mode) X(memory_pressure) \
  X(phase_mark_root_usec) X(phase_mark_short_weak_usec) X(phase_mark_scan_finalization_usec) \
  X(phase_mark_long_weak_usec) X(phase_plan_usec) X(phase_relocate_usec) X(phase_compact_usec) \
  X(phase_sweep_usec) \
  X(committed_before_mb) X(committed_after_mb) \
  X(committed_before_in_use) X(committed_before_in_global_decommit) X(committed_before_in_free) \
  X(committed_before_in_global_free) X(committed_before_bookkeeping) \
  X(committed_after_in_use) X(committed_after_in_global_decommit) X(committed_after_in_free) \
  X(committed_after_in_global_free) X(committed_after_bookkeeping) \
  X(mark_heaps) X(mark_unbalanced_kind) X(mark_slow_heap) X(mark_slow_msec) X(mark_fast_msec)

/* The phase columns in GCS_GC_PHASES order: GCS_GCDB_R_PHASE0 + phase; the
 * five committed parts before (GCS_GCDB_R_COMMITTED0) and after (+ 5), in
 * GCCommittedUsage's order. */
#define GCS_GCDB_R_COMMITTED0 GCS_GCDB_R_committed_before_in_use
#define GCS_GCDB_R_PHASE0 GCS_GCDB_R_phase_mark_root_usec

#define GCS_GCDB_R_ENUM(Col) GCS_GCDB_R_##Col,
enum gcs_gcdb_real { GCS_GCDB_REALS(GCS_GCDB_R_ENUM) GCS_GCDB_NREALS };
#undef GCS_GCDB_R_ENUM
_Static_assert(GCS_GCDB_NREALS <= 64, "the figure mask is 64 bits");
_Static_assert(GCS_GCDB_R_phase_sweep_usec - GCS_GCDB_R_PHASE0 + 1 == GCS_GC_PHASE_COUNT,
               "one phase column per GCS_GC_PHASES entry, in its order");
#define GCS_GCDB_BIT(Col) (UINT64_C(1) << GCS_GCDB_R_##Col)
#define GCS_GCDB_ALL_REALS (~UINT64_C(0))

/* Column name of figure r (NULL if out of range). */
const char *gcs_gcdb_real_name(int r);
/* Index of the figure named col, -1 if the loader does not read it. */
int gcs_gcdb_real_index(const char *col);

/* 1 when db's gcs, gc_gens, gc_heaps and gc_heap_gens are the views over the
 * compact tables (schemas/gcs_tables.h), 0 for the tables of an older
 * database. A reader that loads every GC may read the base tables itself
 * (the views' CASE per value costs more than this), as gcs_gcdb_each does. */
int gcs_gcdb_compact(sqlite3 *db);
/* Column i of a row of a compact table that stores a figure as E6 (an
 * integer count of 10^-6, or the REAL): the figure the view gives, NaN for
 * NULL. */
double gcs_gcdb_e6(sqlite3_stmt *s, int i);

/* One GC as stored in the gc tables. Identity and event times are always
 * read; figures only those asked for. Times: ns since the epoch, 0 = not seen. */
struct gcs_gcdb_gc {
  int64_t id;                   /* gcs.id (rowid) */
  int64_t trace_id;
  int32_t pid;
  uint32_t gc_index;            /* GC Index: GCStart.Count */
  int list_index;
  uint32_t gen, type, reason;   /* gcs_enums.h: gcs_type_is_background(), gcs_reason_is_induced() ... */
  int complete;
  int phh_count;                /* GCPerHeapHistory events received */
  char gen_name[8];             /* "0N", "2B", "2NI" ... */
  char reason_name[24];
  uint64_t start_ns, end_ns, suspend_begin_ns, restart_end_ns, heap_stats_ns;
  uint64_t bgc_prep_suspend_begin_ns, bgc_prep_restart_end_ns;
  unsigned ns_set;              /* GCS_GCDB_HAS_*: which of those times are not NULL */
  double real[GCS_GCDB_NREALS]; /* indexed by enum gcs_gcdb_real */
  /* GCS_GCDB_CONDEMNED: PerfView's condemned-reasons row (GCS_CONDEMN_GROUPS) */
  uint8_t condemned[GCS_CONDEMN_GROUP_COUNT];
  /* GCS_GCDB_HEAP_HISTORY: from gc_heaps / gc_heap_gens */
  double gen2_frag_before_pct;  /* gen2 free list + free objects before / size before, all heaps; NaN if unknown */
  uint32_t condemn_conditions;  /* CondemnReasons1 of every heap, OR-ed */
  double pinned_surv_pct;       /* pinned survivors of gen0-gen2 * 100 / all their survivors; NaN if unknown */
  double pinned_plug_bytes;     /* gcs.pinned_plug_bytes (0: none seen, or not recorded) */
};

/* gcs_gcdb_gc.ns_set: the event times the row holds (0 above is also a value). */
enum {
  GCS_GCDB_HAS_START = 1, GCS_GCDB_HAS_END = 2, GCS_GCDB_HAS_SUSPEND_BEGIN = 4, GCS_GCDB_HAS_RESTART_END = 8,
  GCS_GCDB_HAS_HEAP_STATS = 16, GCS_GCDB_HAS_BGC_PREP_SUSPEND_BEGIN = 32, GCS_GCDB_HAS_BGC_PREP_RESTART_END = 64,
};

/* Optional parts of a row. */
enum { GCS_GCDB_CONDEMNED = 1, GCS_GCDB_HEAP_HISTORY = 2 };

struct gcs_gcdb_query {
  int64_t trace_id;             /* >= 0: this trace only */
  int32_t pid;                  /* >= 0: this process only */
  int complete_only;            /* 1: complete GCs only */
  int64_t after_id;             /* rows with id > after_id (-1: all) */
  int limit;                    /* > 0: at most this many rows */
  uint64_t reals;               /* GCS_GCDB_BIT()s of the figures to read (the others NaN) */
  unsigned parts;               /* GCS_GCDB_CONDEMNED | GCS_GCDB_HEAP_HISTORY */
};
/* Order: within one process (trace_id and pid given) the process's GC list
 * order (list_index, id); otherwise id order (the order rows were stored). */

/* Calls row(g, ctx) for every GC the query selects; row returns 0 to go on,
 * non-zero to stop (the value is returned). -1 on a database error. */
int gcs_gcdb_each(sqlite3 *db, const struct gcs_gcdb_query *q,
                  int (*row)(const struct gcs_gcdb_gc *g, void *ctx), void *ctx, char *err, size_t errlen);
/* The same into a malloc'ed array. */
int gcs_gcdb_load(sqlite3 *db, const struct gcs_gcdb_query *q, struct gcs_gcdb_gc **out, size_t *n,
                  char *err, size_t errlen);

/* ---- pauses ----------------------------------------------------------------- */

/* One pause of the gc_pauses view (tables_gc.def): kind 0 a GC's pause, 1 a
 * background GC's final pause. */
struct gcs_gcdb_pause {
  uint32_t gc_index;
  int kind;
  int64_t start_ns, end_ns;
};
int gcs_gcdb_pauses(sqlite3 *db, int64_t trace_id, int32_t pid, struct gcs_gcdb_pause **out, size_t *n,
                    char *err, size_t errlen);
/* The same pauses of one row already loaded (its ns fields): appends its 0, 1
 * or 2 rows of the gc_pauses view to out[*n] (room for 2 needed), in the
 * view's kind order. */
void gcs_gcdb_pauses_of(const struct gcs_gcdb_gc *g, struct gcs_gcdb_pause *out, size_t *n);

/* ---- events in event order -------------------------------------------------- */

/* The order of events (the events view's rows) every report reads them in:
 * trace by trace, within a trace by ts_ns, ties broken by id. This is its one
 * definition. gcs_gcdb_events_prepare gives one trace's rows in that order:
 * a trace whose import found its events in time order (traces.time_ordered
 * = 1) is read as stored, block by block (event_blocks.id, then each block's
 * events in their place: id order, and then also (ts_ns, id) order), without
 * sorting; any other trace (0, NULL: imported by an older gcscope or into a
 * database made before the column) through the events view, ORDER BY ts_ns,
 * id. *stored (if not NULL) says which.
 *
 * cols: the select list, over e's columns ts_ns, pid, tid, cpu, name,
 * version, payload and fields (not id nor trace_id: the stored path reads
 * gcs_unpack's rows). where: a condition over the same, or NULL; its
 * parameters are numbered from ?2 (?1 is the trace id, bound here). Returns
 * the statement (the caller binds ?2... and finalizes it), NULL with err set. */
typedef struct sqlite3_stmt sqlite3_stmt;
sqlite3_stmt *gcs_gcdb_events_prepare(sqlite3 *db, int64_t trace_id, const char *cols, const char *where,
                                      int *stored, char *err, size_t errlen);

#endif /* GCS_GCDB_H */
