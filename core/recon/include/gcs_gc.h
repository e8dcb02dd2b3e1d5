/*
 * gcs_gc.h — one reconstructed GC with all of PerfView's GCStats figures
 * (TraceEvent's TraceGC property names in comments), as produced by
 * gcs_recon (gcs_recon.h) and stored in the `gcs`, `gc_gens`, `gc_heaps`,
 * `gc_heap_gens` and `gc_loh_waits` tables (schemas/tables_gc.def).
 *
 * Units: *_ns fields are absolute times (ns since the Unix epoch; 0 = event
 * not seen). *_msec are milliseconds (points in time relative to the trace
 * start, the recon's time origin); *_mb are 10^6 bytes; *_pct percent.
 * A figure PerfView prints as NaN/Infinity is NaN here (check with isnan /
 * isfinite); the store writes NULL for it.
 *
 * Ownership: the recon object owns every struct gcs_gc and its arrays; they
 * live until gcs_recon_free(). Read-only for users.
 * Figures are final only after gcs_recon_finish() (PerfView's Calculate()
 * pass); inside a gc_done callback they are the values known at completion.
 */
#ifndef GCS_GC_H
#define GCS_GC_H

#include <stdint.h>

#include "gcs_events.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GCS_GENS (GCS_GEN_POH + 1) /* gen0, gen1, gen2, LOH, POH: enum gcs_gen */

/* Why a GC is not complete (bit flags, gcs_gc.incomplete). */
enum gcs_gc_incomplete {
  GCS_INC_BEGAN_BEFORE_TRACE = 0x1, /* GCStart without the suspension before it */
  GCS_INC_TRACE_ENDED = 0x2,        /* still running at the end of the input */
  GCS_INC_EVENTS_LOST = 0x4,        /* events were lost in the process during it */
  GCS_INC_NO_HEAP_STATS = 0x8,      /* restarted (or superseded) without GCHeapStats */
  GCS_INC_NO_SUSPENSIONS = 0x10,    /* with BEGAN_BEFORE_TRACE: the process has no GCSuspendEEBegin at
                                       all (a trace that does not record suspensions), so the trace
                                       did not begin inside it */
  GCS_INC_BAD_HEAP_HISTORY = 0x20   /* a GCPerHeapHistory with a size no heap can have (at or past
                                       GCS_HEAP_BYTES_MAX): a damaged or crafted trace; the record
                                       is dropped */
};

/* Larger than any byte count a GC event can carry truthfully (the 57-bit
 * address space of 5-level paging); what a decoded size is checked against,
 * so that sums and differences of a few of them never overflow. */
#define GCS_HEAP_BYTES_MAX (UINT64_C(1) << 57)

/* issue 26: one heap's share of a GCLOHCompact (.NET 6+). */
struct gcs_loh_compact {
  uint32_t heap;                /* element index: the heap number */
  uint32_t time_plan_us, time_compact_us, time_relocate_us;
  uint64_t total_refs, zero_refs;
};

/* issue 26: one bucket of a GCFitBucketInfo. */
struct gcs_fit_bucket {
  uint32_t seq;                 /* which GCFitBucketInfo of the GC (0, 1 ...) */
  uint32_t kind;                /* enum gcs_bucket_kind */
  uint64_t total_size;          /* the event's TotalSize */
  uint32_t index, count;        /* bucket number, items in it */
  uint64_t size;                /* their bytes */
};

/* One GCPerHeapHistory (V3+ layout), as received. */
struct gcs_gc_heap {
  uint32_t heap_index;          /* the event's HeapIndex */
  uint32_t condemn_reasons0, condemn_reasons1;
  uint32_t compact_mechanisms, expand_mechanisms;
  uint32_t running_free_list_efficiency;
  uint64_t free_list_allocated, free_list_rejected, end_of_seg_allocated;
  uint64_t condemned_allocated, pinned_allocated, pinned_allocated_advance;
  uint64_t extra_gen0_commit;
  uint32_t gen_count;           /* min(Count, GCS_GENS) */
  struct {
    uint64_t size_before, free_list_before, free_obj_before;
    uint64_t size_after, free_list_after, free_obj_after;
    uint64_t in, pinned_surv, non_pinned_surv, new_allocation;
  } gen[GCS_GENS];
};

/* An LOH allocation that waited for this background GC. */
struct gcs_loh_wait {
  int32_t tid;
  uint32_t reason;              /* BGCAllocWait's Reason: enum gcs_bgc_wait_reason */
  double start_msec, stop_msec; /* 0 = not seen (PerfView's convention) */
};

/* DATAS (dynamic heap count tuning, server GC, .NET 9+; .NET 8 opt-in): a
 * decoded GCDynamicEvent SizeAdaptation* (or .NET 8 HeapCount*) payload
 * (gc_events.def) naming this GC in its GCIndex. */
struct gcs_dyn_event {
  enum gcs_kind kind;           /* gcs_kind_GCSizeAdaptationSample, ..Tuning, ..FullGCTuning,
                                   gcs_kind_GCHeapCountSample, ..Tuning */
  double time_msec;             /* when it was fired, since the trace start */
  union {
    struct gcs_ev_GCSizeAdaptationSample sample;
    struct gcs_ev_GCSizeAdaptationTuning tuning;
    struct gcs_ev_GCSizeAdaptationFullGCTuning full;
    struct gcs_ev_GCHeapCountSample hc_sample;
    struct gcs_ev_GCHeapCountTuning hc_tuning;
  } u;
};
/* At most this many per GC (the runtime fires one of each kind at most); a
 * trace that names a GC more often has the rest counted as unattached. */
#define GCS_GC_DYN_MAX 8

struct gcs_gc {
  /* identity */
  int32_t pid;
  uint16_t clr_instance;
  uint32_t number;              /* GC Index: GCStart.Count */
  int list_index;               /* position in the process's list (GCStart order) */
  uint32_t gen;                 /* GCStart.Depth */
  uint32_t type;                /* GCStart.Type: enum gcs_gc_type */
  uint32_t reason;              /* GCStart.Reason */
  char gen_name[8];             /* "0N", "2B", "1F", "2NI", "2Bi" */
  int complete;                 /* PerfView's IsComplete and nothing lost */
  unsigned incomplete;          /* enum gcs_gc_incomplete bits (0 when complete) */

  /* event times (absolute ns, 0 = not seen) */
  uint64_t suspend_begin_ns, suspend_end_ns, start_ns, end_ns;
  uint64_t restart_begin_ns, restart_end_ns, heap_stats_ns;
  uint64_t bgc_prep_suspend_begin_ns, bgc_prep_restart_end_ns;

  /* timing (ms) */
  double pause_start_msec;      /* PauseStartRelativeMSec */
  double start_msec;            /* StartRelativeMSec */
  double suspend_msec;          /* SuspendDurationMSec */
  double pause_msec;            /* PauseDurationMSec */
  double duration_msec;         /* DurationMSec (GCStart -> GCEnd), 0 before GCEnd */
  double bgc_pause1_msec;       /* BGC initial pause; NaN for non-BGCs */
  double bgc_pause2_msec;       /* BGC final pause (BGCFinalPauseMSec); NaN if none */
  double since_last_restart_msec; /* DurationSinceLastRestartMSec */
  double pct_pause_time;        /* PauseTimePercentageSinceLastGC */
  double pct_gc;                /* PercentTimeInGC (NaN without CPU data) */
  double gc_cpu_msec;           /* rgc GCCpuTime; NaN if not provided */
  /* The runtime's own pause (GC.GetGCMemoryInfo's PauseDurations, summed for
   * a background GC), not PerfView's: from the suspension's SuspendEEBegin
   * to the RestartEEBegin that ends it (the runtime stops its clock before
   * restarting); the ephemeral GC a background GC runs in its initial
   * suspension counts GCStart -> GCEnd and the background GC that
   * suspension less it; a GC announced as background that ran whole inside
   * its suspension counts it (PerfView: the suspension only). NaN unknown. */
  double runtime_pause_msec;

  /* allocations (MB) */
  double alloc_tick_mb[GCS_ALLOC_KIND_COUNT]; /* AllocedSinceLastGCBasedOnAllocTickMB per alloc kind */
  double user_alloc_mb[GCS_GENS]; /* UserAllocated[g] for g = 0, 3, 4 (others 0) */
  double total_alloc_mb;        /* AllocedSinceLastGCMB */
  double alloc_rate_mb_sec;     /* AllocRateMBSec */
  double gen0_alloc_rate_mb_sec;
  /* gcscope's measured allocations (not PerfView's): what the heap's sizes
   * before and after the GCs say was allocated since the previous one, in
   * time order, with what a background GC saw allocated while it ran
   * (recon_alloc.c). [0] SOH (gen0), [1] LOH, [2] POH; NaN until known (a GC
   * without per-heap history, or one whose background GC is still open). */
  double alloc_measured_mb[3];
  double total_alloc_measured_mb;

  /* sizes (MB) */
  int has_heap_stats;
  struct gcs_ev_GCHeapStats heap_stats;
  double before_mb, peak_mb, after_mb, ratio_peak_after, promoted_mb;
  double gen_before_mb[GCS_GENS], gen_after_mb[GCS_GENS], gen_promoted_mb[GCS_GENS];
  double gen_survival_pct[GCS_GENS], gen_frag_mb[GCS_GENS], gen_frag_pct[GCS_GENS];
  double gen_in_mb[GCS_GENS], gen_out_mb[GCS_GENS], gen_budget_mb[GCS_GENS];
  double gen_obj_size_after_mb[GCS_GENS];
  double finalizable_surv_mb;

  /* heap history */
  int heap_count;               /* this GC's GCGlobalHeapHistory NumHeaps (server GC, DATAS: it varies);
                                 * before it comes, the process's last; -1 if unknown */
  int has_global_history;
  struct gcs_ev_GCGlobalHeapHistory global;
  int global_version;
  /* The GC's phases (GCGlobalHeapHistory v4+ Times, gcs_gc_phase_slot), in
   * microseconds; -1 where the GC did not time the phase or the trace does
   * not say (stored as NULL). */
  int64_t phase_usec[GCS_GC_PHASE_COUNT];
  /* GCCommittedUsage (.NET 8+), bytes: [0] at the GC's start, [1] at its
   * end; has_committed[i] 0 where the trace has none (a background GC sends
   * only the first). */
  int has_committed[2];
  struct gcs_ev_GCCommittedUsage committed[2];
  /* Server GC mark balance (GCMarkWithType, each heap's time per root kind:
   * from GCStart, then from that heap's previous mark event): the root kind
   * whose heaps differ most (largest slowest - fastest), -1 when fewer than
   * two heaps marked it; its slowest heap and both times (msec). */
  int mark_heaps;               /* heaps that sent GCMarkWithType, 0 if none */
  int mark_kind, mark_slow_heap;
  double mark_slow_msec, mark_fast_msec;
  struct gcs_gc_heap *heaps;    /* PerHeapHistory in arrival order */
  int nheaps;
  uint8_t condemned[30];        /* PerfView's condemned-reasons row (tables_gc.def groups) */

  /* pinning */
  uint32_t pinned_obj_events;   /* distinct pinned objects reported */
  uint64_t pinned_obj_bytes, pinned_plug_bytes;

  /* issue 26 */
  uint64_t user_pinned_plug_bytes; /* PinPlugAtGCTime plugs holding a PinObjectAtGCTime object */
  /* GCMarkWithType per heap and root kind ([heap * GCS_ROOT_KIND_N + kind]
   * for heap < mark_heaps; NaN = not seen): the heap's time on it (msec,
   * as mark_slow_msec) and the bytes it promoted (the event's Bytes). */
  const double *mark_msec, *mark_bytes;
  struct gcs_loh_compact *loh_compact; /* GCLOHCompact elements, NULL if none */
  int nloh_compact;
  struct gcs_fit_bucket *fit_buckets;  /* GCFitBucketInfo buckets, NULL if none */
  int nfit_buckets, nfit_events;
  /* BGCRevisit, summed over heaps and passes: [0] SOH, [1] LOH */
  int bgc_revisit_events;
  uint64_t bgc_revisit_pages[2], bgc_revisit_objects[2];

  /* LOH allocation waits (background GCs only) */
  struct gcs_loh_wait *loh_waits;
  int nloh_waits;

  /* DATAS: the decoded dynamic events naming this GC, in arrival order */
  struct gcs_dyn_event *dyn_events;
  int ndyn_events;
};

/* The committed bytes GC.GetGCMemoryInfo().TotalCommittedBytes reports, from
 * one GCCommittedUsage: in use, in free regions and in the global free
 * lists; neither what waits to be decommitted nor the GC's bookkeeping.
 * Checked to the byte against .NET 10 after every GC, workstation and server
 * (tests/dotnet; there the global free lists were always empty). */
static inline double gcs_gc_committed_bytes(const struct gcs_ev_GCCommittedUsage *c) {
  return (double)c->TotalCommittedInUse + (double)c->TotalCommittedInFree + (double)c->TotalCommittedInGlobalFree;
}

#ifdef __cplusplus
}
#endif
#endif /* GCS_GC_H */
