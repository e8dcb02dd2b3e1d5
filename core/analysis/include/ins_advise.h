/*
 * ins_advise.h — the advisor: the mem-doc's decision tree (seed 002) as rules
 * over one process's GCs. Each rule that applies yields one finding with a
 * severity (info, warning, critical), a title, evidence (text and named
 * figures), the GC indexes behind it and what to look at next; a rule that
 * does not apply yields nothing. Thresholds are in struct ins_advise_opts
 * (defaults from ins_advise_default_opts; every rule, threshold and severity
 * is documented in docs/insight.md, "Rules").
 *
 * Robustness: a rule about a distribution (pauses, survival, fragmentation,
 * heap size) judges a median, a percentile, a trend or a share of the GCs,
 * never one GC's extreme value; rules about events (an induced GC, a full
 * blocking gen2 GC, a suspension >= suspend_critical_ms) fire on one event.
 *
 * Order: findings are sorted by severity (critical first); within a severity
 * by the rule order below, which puts causes before symptoms (pause-time and
 * ephemeral-pause come last: they say that pauses are long, the causes say why).
 *
 * Rules (id), in that order:
 *   heap-growth, long-suspension, induced, gen0-frag-pinning, loh-churn,
 *   finalizers, high-survival, mid-life-crisis, full-blocking-gen2, gen2-frag-bgc,
 *   gen0-churn, peak-vs-after, committed-above-heap, unbalanced-mark,
 *   datas-low-heaps, ephemeral-pause, pause-time
 *
 * Ownership: plain data; no allocation kept. Threading: reentrant.
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
  double gen0_survival_pct;   /* Gen0 Survival Rate % (NaN when gen0 was not collected) */
  double gen1_survival_pct;   /* Gen1 Survival Rate % (gen1 and gen2 GCs) */
  double gen2_survival_pct;   /* Gen2 Survival Rate % (gen2 GCs) */
  double finalizable_surv_mb; /* Finalizable Surv MB: promoted only because a finalizer must run */
  /* issue 26: 0 (not NaN) when unknown, so older initialisers stay valid */
  double committed_after_mb;  /* GCCommittedUsage at the GC's end (TotalCommittedBytes), 0 if unknown */
  int mark_heaps;             /* heaps with GCMarkWithType, 0 if unknown */
  double mark_slow_ms, mark_fast_ms; /* the most unbalanced root kind's slowest / fastest heap, 0 if unknown */
  /* issue 26 (0 when unknown, as above) */
  int compacted;              /* 1: GCGlobalHeapHistory says Compaction; 0: swept, or unknown */
  double pinned_surv_pct;     /* pinned survivors of gen0-gen2 * 100 / all their survivors (per-heap history) */
  double pinned_plug_mb;      /* PinPlugAtGCTime plugs (the verbose profile), 0 if unknown */
  /* issue 26, DATAS (0 when unknown, as above) */
  int heap_count;             /* this GC's heaps (GCGlobalHeapHistory NumHeaps), 0 if unknown */
  int datas_decided;          /* 1: DATAS decided at this GC's end (SizeAdaptationTuning, or .NET 8's HeapCountTuning) */
  int datas_new_heaps;        /* that decision's NewHeapCount (.NET 9+: the count decided) */
  double datas_cost_pct;      /* its MedianThroughputCostPct (0 if unknown) */
  int datas_net8;             /* 1: the decision is .NET 8's HeapCountTuning, whose NewHeapCount is the count
                               * the GC ran with, not the decided one: judged by the heaps of the GCs after it */
};

struct ins_proc_summary {
  double duration_ms;         /* PerfView's ProcessDuration (0: unknown) */
  double total_pause_ms;
  double worst_window_pct;    /* NaN if not computed */
  double worst_window_start_ms;
  double worst_window_len_ms;  /* under window_s when the process was traced for less: all of it */
  double window_s;
  int server_gc;              /* 1 server GC, 0 workstation, -1 unknown (no server-only advice) */
  int heap_count;             /* GC heaps, 0 if unknown */
};

struct ins_advise_opts {
  double pause_pct, window_pct;
  double loh_share_pct;
  size_t loh_min_count;
  double loh_critical_pct;            /* AllocLarge gen2 GCs as % of all GCs: critical */
  double gen2_frag_pct, gen2_frag_share_pct;
  double gen0_frag_pct;
  double pin_share_pct, pin_critical_pct;
  size_t pin_min_gcs;
  size_t eph_min_gcs, eph_min_outliers;
  double eph_factor, eph_min_excess_ms, eph_promoted_factor, eph_share_pct;
  double suspend_ms, suspend_critical_ms;
  size_t suspend_min_gcs;
  double peak_after_ratio, peak_after_min_mb;
  size_t leak_min_gcs, leak_tail_min_gcs;
  double leak_growth_pct, leak_min_mb, leak_steps_up_pct;
  double surv_gen0_pct, surv_gen0_critical_pct, surv_gen1_pct, surv_gen1_min_mb;
  size_t surv_min_gcs;
  double midlife_gen1_pct, midlife_gen2_pct, midlife_min_gen2_per_100_gen1;
  size_t midlife_min_gen1, midlife_min_gen2;
  double fin_share_pct, fin_min_share_pct, fin_critical_pct;
  size_t fin_min_gcs;
  size_t induced_warn_count;
  double full_critical_ms;
  double churn_per_s, churn_surv_pct;
  size_t churn_min_gcs;
  double committed_ratio, committed_min_mb;   /* committed-above-heap: median committed/After and excess */
  double mark_ratio, mark_min_ms, mark_share_pct; /* unbalanced-mark: a GC's slowest/fastest heap, its share */
  size_t mark_min_gcs;
  /* issue 26 */
  size_t frag_gen2_min_gcs;           /* gen2-frag-gcs: gen2 GCs condemned for gen2 fragmentation */
  double pin_surv_pct, pin_block_share_pct; /* pinning-blocks-compaction: a compacting GC's pinned survivors, its share */
  size_t pin_block_min_gcs;
  /* datas-low-heaps: DATAS kept the heap count while GC cost was high */
  double datas_pause_pct, datas_cost_pct, datas_share_pct;
  size_t datas_min_decisions;
};
void ins_advise_default_opts(struct ins_advise_opts *o);

enum ins_severity { INS_SEV_INFO = 0, INS_SEV_WARNING = 1, INS_SEV_CRITICAL = 2 };
/* "info", "warning", "critical". */
const char *ins_severity_name(enum ins_severity s);
/* The reverse; -1 if s is none of them. */
int ins_parse_severity(const char *s);

#define INS_N_RULES 17
#define INS_MAX_CITED 16
#define INS_MAX_METRICS 12

/* One evidence figure: name (a JSON key, snake case, unit suffixed) and value. */
struct ins_metric {
  const char *name;
  double value;
};

struct ins_finding {
  const char *rule;               /* rule id, e.g. "induced" */
  enum ins_severity severity;
  char title[256];
  char evidence[1024];
  char next[512];
  size_t n_metrics;
  struct ins_metric metrics[INS_MAX_METRICS];
  size_t n_gcs_total;             /* GCs the rule matched */
  size_t n_gcs;                   /* cited below (first INS_MAX_CITED) */
  uint32_t gcs[INS_MAX_CITED];
};

struct ins_advice {
  size_t n;
  struct ins_finding f[INS_N_RULES];
};

/* gcs in time order; ps may be NULL (no pause-time rule, no server advice).
 * Returns the number of findings, sorted as described above. */
size_t ins_advise(const struct ins_gc *gcs, size_t n, const struct ins_proc_summary *ps,
                  const struct ins_advise_opts *o, struct ins_advice *out);
/* The finding of one rule, or NULL if it did not fire. */
const struct ins_finding *ins_advice_find(const struct ins_advice *a, const char *rule);
/* A figure of a finding by name; NaN if absent. */
double ins_finding_metric(const struct ins_finding *f, const char *name);
/* The highest severity among the findings; -1 with none. */
int ins_advice_worst(const struct ins_advice *a);

#endif /* INS_ADVISE_H */
