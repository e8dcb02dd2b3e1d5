/*
 * ins_advise.h — the advisor: the mem-doc's decision tree (seed 002) as rules
 * over one process's GCs. Each rule that applies yields one finding with the
 * figures and GC indexes behind it and what to look at next; a rule that does
 * not apply yields nothing. Thresholds are in struct ins_advise_opts
 * (defaults from ins_advise_default_opts, documented in docs/insight.md).
 *
 * Rules (id: fires when ...):
 *   pause-time        total pause / process duration > pause_pct, or the worst
 *                     window's % paused > window_pct (JMC's 60 s rule)
 *   loh-churn         >= min_count gen2 GCs were triggered by AllocLarge and they
 *                     are more than loh_share_pct of all gen2 GCs
 *   induced           any GC with reason Induced, InducedNotForced,
 *                     InducedLowMemory, InducedCompacting or 17 (aggressive)
 *   full-blocking-gen2 any gen2 GC of type NonConcurrent (2N)
 *   gen2-frag-bgc     a BGC whose gen2 fragmentation before it ran was > gen2_frag_pct
 *   gen0-frag-pinning a GC with gen0 fragmentation >= gen0_frag_pct and pinned objects
 *   ephemeral-pause   >= eph_min_gcs ephemeral (gen0/1, not BGC) GCs, and one whose
 *                     pause >= eph_factor x the median pause and >= median + eph_min_excess_ms
 *                     while its promoted bytes <= eph_promoted_factor x the median
 *   long-suspension   a GC whose suspension > suspend_ms
 *   peak-vs-after     median Peak/After >= peak_after_ratio and median
 *                     (Peak - After) >= peak_after_min_mb
 *   heap-growth       >= leak_min_gcs gen2 GCs with After known; the last After is
 *                     >= leak_growth_pct above the first, and >= 75 % of the steps
 *                     between consecutive gen2 GCs do not go down
 *
 * Ownership: plain data; no allocation. Threading: reentrant.
 */
#ifndef INS_ADVISE_H
#define INS_ADVISE_H

#include <stddef.h>
#include <stdint.h>

/* One GC as the rules see it. Unknown figures are NaN. */
struct ins_gc {
  uint32_t index;             /* PerfView's GC Index */
  int gen;                    /* condemned generation 0..2 */
  int type;                   /* 0 NonConcurrent, 1 Background, 2 Foreground */
  int reason;                 /* GCReason */
  double start_ms;            /* pause start, ms since the trace start */
  double pause_ms;
  double suspend_ms;
  double promoted_mb;
  double peak_mb;
  double after_mb;
  double gen0_frag_pct;       /* after the GC */
  double gen2_frag_before_pct;/* (FreeListBefore + FreeObjBefore) / SizeBefore of gen2, all heaps */
  uint32_t pinned_objects;    /* GCHeapStats.PinnedObjectCount */
  uint32_t condemn_conditions;/* CondemnReasons1 bits of all heaps and the global history, OR-ed */
};

struct ins_proc_summary {
  double duration_ms;         /* PerfView's ProcessDuration */
  double total_pause_ms;
  double worst_window_pct;    /* NaN if not computed */
  double worst_window_start_ms;
  double window_s;
};

struct ins_advise_opts {
  double pause_pct, window_pct;
  double loh_share_pct;
  size_t loh_min_count;
  double gen2_frag_pct;
  double gen0_frag_pct;
  size_t eph_min_gcs;
  double eph_factor, eph_min_excess_ms, eph_promoted_factor;
  double suspend_ms;
  double peak_after_ratio, peak_after_min_mb;
  size_t leak_min_gcs;
  double leak_growth_pct;
};
void ins_advise_default_opts(struct ins_advise_opts *o);

#define INS_N_RULES 10
#define INS_MAX_CITED 16

struct ins_finding {
  const char *rule;               /* rule id, e.g. "induced" */
  char finding[256];
  char evidence[1024];
  char next[512];
  size_t n_gcs_total;             /* GCs the rule matched */
  size_t n_gcs;                   /* cited below (first INS_MAX_CITED) */
  uint32_t gcs[INS_MAX_CITED];
};

struct ins_advice {
  size_t n;
  struct ins_finding f[INS_N_RULES];
};

/* gcs in time order. Returns the number of findings. */
size_t ins_advise(const struct ins_gc *gcs, size_t n, const struct ins_proc_summary *ps,
                  const struct ins_advise_opts *o, struct ins_advice *out);
/* The finding of one rule, or NULL if it did not fire. */
const struct ins_finding *ins_advice_find(const struct ins_advice *a, const char *rule);

#endif /* INS_ADVISE_H */
