/*
 * gcs_recon.h — GC reconstruction: decoded events in, GCs with their pauses and
 * figures out, following the GC state machine of PerfView's TraceEvent library
 * (TraceGC and its event handlers in TraceManagedProcess.cs). One library, used by
 * `gcscope import` (to fill the gc tables), by the tracer's trigger watcher
 * (to pair suspend/restart events live) and by `gcscope top`.
 *
 * Usage
 *   struct gcs_recon *r = gcs_recon_new(&callbacks, user_data);
 *   for each event in time order: gcs_recon_feed(r, &ev);
 *   gcs_recon_lost(r, pid, begin_ns, end_ns, n) whenever the source reports
 *                                     lost events (see below);
 *   [gcs_recon_store_final(r, db, id)]  now and then: GCs that are final
 *   gcs_recon_finish(r);               end of input: open GCs become incomplete
 *   gcs_recon_store(r, db, trace_id);  write the gc tables (tables_gc.def)
 *   gcs_recon_free(r);
 *
 * Ownership: the recon object owns every struct gcs_gc it reports; a pointer
 * passed to a callback, or returned by the accessors, stays valid until
 * gcs_recon_free(), or until gcs_recon_store_final wrote it (it frees what it
 * wrote) or gcs_recon_forget_old dropped it. Events fed in are copied as needed (the caller may reuse
 * its struct gcs_event and string buffers right after gcs_recon_feed returns).
 * Threading: one recon object is used by one thread at a time.
 * Errors: gcs_recon_new returns NULL on allocation failure; gcs_recon_store
 * returns 0 or an SQLite error code and leaves the transaction to the caller.
 */
#ifndef GCS_RECON_H
#define GCS_RECON_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_events.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sqlite3 sqlite3;
struct gcs_recon;
struct gcs_gc;        /* one reconstructed GC; defined in gcs_gc.h */

/* What the reconstruction reports while it runs. Every member may be NULL;
 * each gets the ud given to gcs_recon_new. The struct is copied. Times: ts_ns
 * is the closing event's timestamp; durations are differences of the events'
 * ts_ns. gc_end, suspend_done and bgc_final_pause report the pairs the state
 * machine measures as they close, so the tracer's stop triggers use the same
 * pairing as import and the TUI. */
struct gcs_recon_callbacks {
  /* A GC became complete (PerfView's OnEnd), or was closed as incomplete at
   * gcs_recon_finish / because events were lost. */
  void (*gc_done)(const struct gcs_gc *gc, void *ud);
  /* A GC already reported got its measured allocations
   * (alloc_measured_mb): a foreground GC inside a background GC learns them
   * when the background GC ends. Optional. */
  void (*gc_alloc_known)(const struct gcs_gc *gc, void *ud);
  /* A suspension ended (SuspendEEEnd on the suspending thread): pid, the
   * SuspendEEBegin's Count for GC suspensions (SuspendForGC and
   * SuspendForGCPrep; CoreCLR writes the previous GC's index there, librgc
   * the coming one) or 0 for other reasons, the suspend reason and
   * SuspendEEBegin -> SuspendEEEnd (PerfView's /StopOnGCSuspendOverMSec,
   * which counts every reason). */
  void (*suspend_done)(int32_t pid, uint32_t gc_index, uint32_t reason,
                       uint64_t suspend_ns, uint64_t ts_ns, void *ud);
  /* GCEnd of a GC whose GCStart was seen (including one whose suspension was
   * not seen): GCStart -> GCEnd, PerfView's DurationMSec and what
   * /StopOnGCOverMSec measures. Reported for every type; PerfView's trigger
   * ignores background GCs, which the caller must do (gcs_type_is_blocking). */
  void (*gc_end)(int32_t pid, uint32_t gc_index, uint32_t gen, uint32_t type,
                 uint64_t duration_ns, uint64_t ts_ns, void *ud);
  /* RestartEEEnd closing a SuspendForGCPrep suspension: SuspendEEBegin ->
   * RestartEEEnd, PerfView's BGCFinalPauseMSec and what
   * /StopOnBGCFinalPauseOverMsec measures. gc_index is the running BGC's
   * GCStart Count, or the SuspendEEBegin's Count if no BGC is known. */
  void (*bgc_final_pause)(int32_t pid, uint32_t gc_index, uint64_t pause_ns,
                          uint64_t ts_ns, void *ud);
};

struct gcs_recon *gcs_recon_new(const struct gcs_recon_callbacks *cb, void *ud);
void gcs_recon_feed(struct gcs_recon *r, const struct gcs_event *ev);
/* n events (at least; a count the source does not know is 1) were lost in
 * process pid (pid < 0: any process) somewhere between begin_ns and end_ns
 * (absolute ns; begin_ns 0: unknown, the trace's start; end_ns 0: unknown,
 * the last event fed). Every GC of the process whose events span the window
 * -- from its suspension's begin (else its GCStart) to the event that
 * completed it, or still open -- is marked GCS_INC_EVENTS_LOST and is not
 * complete, even one already complete and reported through gc_done (the
 * callback is not called again: a live consumer keeps what it counted);
 * a GC beginning later, up to end_ns, is marked when it begins. GCs done
 * before begin_ns or beginning after end_ns stay as they are. Call it in
 * time order of the windows' beginnings, between the events (a source
 * delivers a lost record where its window begins); a window beginning
 * earlier can reach only the GCs not stored yet (gcs_recon_lost_horizon). */
void gcs_recon_lost(struct gcs_recon *r, int32_t pid, uint64_t begin_ns, uint64_t end_ns, uint64_t count);
/* For gcs_recon_store_final: no later gcs_recon_lost window will begin
 * before ts_ns (absolute ns; 0: one may begin at the trace's start). Without
 * a call, windows are taken to begin at or after the last event fed. The
 * GCs stored early are those done before both, so memory holds the GCs back
 * to the horizon (a reader's: the oldest end of a stream's last packet, or
 * the trace start while a stream's first packet may still report events
 * lost before it). */
void gcs_recon_lost_horizon(struct gcs_recon *r, uint64_t ts_ns);
void gcs_recon_finish(struct gcs_recon *r);
int gcs_recon_store(struct gcs_recon *r, sqlite3 *db, int64_t trace_id);
/* While feeding (import's writing thread, between events): store each
 * process's GCs that no later event, no later loss window
 * (gcs_recon_lost_horizon) and not gcs_recon_finish can change any
 * more, each process's in list order, so that gcs_recon_store at the end
 * writes only the rest. The rows, their ids and the process summaries are
 * those gcs_recon_store alone writes: a GC's gcs.id follows the ids in the
 * table before the trace, in GCStart order over every process (so each
 * process's in list order; one process: list order, as SQLite numbered them
 * before). Same db and trace_id for every call and for gcs_recon_store,
 * inside the caller's transaction; 0 or an SQLite error code. The GCs
 * written are freed but each process's last one (memory holds the GCs not
 * final yet, not the whole trace): the accessors below then cover the GCs
 * still held, whose list_index keeps its place in the whole list. A GC
 * written before it completed (one that never will) is reported through
 * gc_done first. A background GC written early that an allocation wait's
 * end reaches later (it goes to the last complete one) gets its
 * loh_wait_count and gc_loh_waits rows written again (deleted and
 * inserted: the same rows, in another rowid order than at the end). */
int gcs_recon_store_final(struct gcs_recon *r, sqlite3 *db, int64_t trace_id);
/* How many GCs gcs_recon_store_final has written so far (every process). */
int gcs_recon_stored_final(const struct gcs_recon *r);
/* The most GCs (all processes) the recon held in memory at once: those in
 * its lists and the background GC each process keeps after writing it
 * (an allocation wait's end may still reach it). */
int gcs_recon_held_max(const struct gcs_recon *r);
void gcs_recon_free(struct gcs_recon *r);

/* Time origin for every *_msec figure (PerfView's "relative to the trace
 * start"): call before feeding with the trace's first timestamp. Without it
 * the first event fed is the origin. */
void gcs_recon_set_time_origin(struct gcs_recon *r, uint64_t ts_ns);

/* Per-process GCStats summary over complete GCs (valid after finish). */
struct gcs_proc_summary {
  int32_t pid;
  uint16_t clr_instance;
  int gc_count, incomplete_count, induced_count;
  double total_pause_msec, max_pause_msec, mean_pause_msec, max_suspend_msec;
  double total_alloc_mb, max_alloc_rate_mb_sec, max_heap_mb, total_promoted_mb;
  double total_alloc_measured_mb; /* Σ total_alloc_measured_mb (NaN if no GC has one) */
  double process_duration_msec, pct_pause_time;
  int heap_count;               /* -1 if unknown: the first GCGlobalHeapHistory's NumHeaps */
  /* Per complete GC's heap count (GCGlobalHeapHistory NumHeaps): the least,
   * the most, and how often it changed from one GC to the next (-1, -1, 0
   * when no GC has one). */
  int heap_count_min, heap_count_max, heap_count_changes;
  double total_runtime_pause_msec; /* Σ runtime_pause_msec of complete GCs (NaN if none known):
                                    * GC.GetTotalPauseDuration() */
  double total_gc_cpu_msec;     /* NaN if no GCCpuTime */
  double first_event_msec, last_event_msec;
  uint64_t lost_events;
  uint32_t startup_flags;       /* RuntimeInformationStart.StartupFlags (rgc: SERVER_GC/CONCURRENT_GC bits) */
  int server_gc;                /* 1 server, 0 workstation, -1 unknown */
  /* issue 26: events of the process that tell whether a figure is known
   * (0 of a kind: the recording did not ask for it, or the runtime lacks it) */
  uint64_t pin_object_events, pin_plug_events, fit_bucket_events;
  /* GCLOHCompact and GCFitBucketInfo events left out of the figures: cut
   * short, or an array longer than its capacity (gc_events.def: more heaps
   * than CoreCLR supports); a damaged or crafted trace. */
  uint64_t array_events_left_out;
  /* DATAS (GCDynamicEvent SizeAdaptation*): events decoded; events of a name
   * gcscope decodes left undecoded (a version or size it does not know);
   * decoded events whose GC is not in the trace (or past GCS_GC_DYN_MAX). */
  uint64_t dynamic_events, dynamic_events_undecoded, dynamic_events_unattached;
};

/* Processes seen, in first-seen order; and every GC held (all processes,
 * each process's GCs in list order), complete or not: every GC of the trace
 * unless gcs_recon_store_final or gcs_recon_forget_old freed some (then the
 * ones after them; i = 0 is the first held). Pointers owned by r. */
int gcs_recon_process_count(const struct gcs_recon *r);
const struct gcs_proc_summary *gcs_recon_process(const struct gcs_recon *r, int i);
int gcs_recon_gc_count(const struct gcs_recon *r, int process);
const struct gcs_gc *gcs_recon_gc(const struct gcs_recon *r, int process, int i);

/* For long live sessions (the tracer's watch): free each process's oldest
 * GCs, keeping the last `keep` (at least 16) and the running BGC. A dropped
 * GC that was not reported yet is reported first (gc_done, incomplete). The
 * accessors and summaries then cover the kept GCs only, renumbered from
 * list_index 0; pointers to dropped GCs become invalid. Not for import, nor
 * with gcs_recon_store_final (which frees only what it wrote). */
void gcs_recon_forget_old(struct gcs_recon *r, int keep);

/* Text for gcs_gc.incomplete bits ("trace ended inside; events lost"). */
const char *gcs_gc_incomplete_text(unsigned bits, char *buf, size_t bufsz);

#ifdef __cplusplus
}
#endif
#endif /* GCS_RECON_H */
