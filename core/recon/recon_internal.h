/*
 * recon_internal.h — private state of the GC reconstruction, shared by
 * recon.c (the event state machine), recon_calc.c (PerfView's Calculate():
 * derived figures) and recon_store.c (SQLite). Not a public header.
 */
#ifndef GCS_RECON_INTERNAL_H
#define GCS_RECON_INTERNAL_H

#include <stdint.h>

#include "gcs_gc.h"
#include "gcs_recon.h"

/* A GC plus the raw state the state machine needs (times kept as integer ns
 * relative to the origin, so differences are exact). */
struct recon_gc {
  struct gcs_gc g;              /* first member: &gc->g == (struct gcs_gc *)gc */
  int64_t pause_start_ns, start_ns_rel, suspend_ns, pause_ns, duration_ns;
  int64_t bgc_pause1_ns, bgc_pause2_ns; /* -1 = none */
  /* the runtime's own pause (gcs_gc.runtime_pause_msec), -1 = unknown: the
   * start of the suspension the GC began in; its pause (a blocking GC, the
   * ephemeral GC of a BGC's start, a BGC run whole in its suspension); a
   * background GC's two pauses */
  int64_t susp_t, rt_pause_ns, rt_bgc1_ns, rt_bgc2_ns;
  int has_end, is_concurrent, lost, reported, ephemeral_at_bgc_start;
  /* Where its events lie, for gcs_recon_lost's windows (absolute ns): from
   * its suspension's begin (else its GCStart) to the event that completed
   * it (done_abs, 0 while it may still get its own events). */
  uint64_t first_abs, done_abs;
  /* a background GC written early (gcs_recon_store_final) whose waits an
   * allocation wait's end changed since: its rows are written again */
  int written, rewrite;
  int64_t row_id;               /* its gcs.id, once written */
  int64_t seq;                  /* its place among the GCs of every process, in GCStart
                                 * order, from 0: its gcs.id less the ids before the trace */
  int bad_heap_history;         /* a GCPerHeapHistory was dropped: never complete */
  int start_version;
  uint64_t *pin_ids, *pin_sizes; /* PinObjectAtGCTime, first report per object wins */
  int npins, pins_cap;
  int heaps_cap, waits_cap, dyn_cap;
  double alloc_counted[3];      /* a background GC: bytes counted since it began */
  int32_t bgc_tid;              /* a background GC: the thread of its SuspendForGCPrep, 0 = unknown */
  /* GCMarkWithType per heap: msec per root kind ([heap * GCS_ROOT_KIND_N +
   * kind], NaN = not seen) and each heap's last mark time (ns, relative). */
  double *mark_ms, *mark_bytes;
  int64_t *mark_last_ns;
  /* PinPlugAtGCTime plugs [lo, hi) and whether a pinned object lies in one */
  uint64_t *plug_lo, *plug_hi;
  uint8_t *plug_user;
  int nplugs, plugs_cap;
  int loh_cap, fit_cap;
  int mark_cap;
  /* Per-heap history that PerfView's attribution (the last GC in the list)
   * gives to another GC: a background GC's, fired on its own thread after a
   * foreground GC inside it ended but before that GC restarted the runtime.
   * g.heaps keeps PerfView's attribution (its last nforeign entries are such
   * foreign ones); own_heaps holds them for their real GC, for
   * recon_alloc.c. */
  int nforeign;
  struct gcs_gc_heap *own_heaps;
  int nown, own_cap;
};

/* recon_alloc.c: the measured allocations' timeline of one process. */
#define RECON_ALLOC_PENDING 16
struct recon_alloc {
  int next;                     /* position in gcs of the first GC not yet placed */
  double level[3];              /* bytes in SOH/LOH/POH at the last observation */
  double size_level;            /* gen0's size with its free space, at the last observation */
  double waste_free, waste_size; /* gen0's free space grown with its size where no BGC ran (sums) */
  struct recon_gc *pending[RECON_ALLOC_PENDING]; /* placed, after-observation not applied */
  int npending;
};

/* recon_calc.c: the process summary's sums and extremes over GCs, in list
 * order (summarize). The GCs gcs_recon_store_final writes are added as they
 * are written, so that the ones it frees still count, with the very same
 * additions in the same order as over the whole list (the sums are
 * order-dependent doubles). */
struct recon_fold {
  int gc_count, incomplete_count, induced_count;
  double total_pause, max_pause, max_suspend, total_alloc, total_alloc_measured;
  double max_alloc_rate, max_heap, total_promoted, total_gc_cpu, total_runtime_pause;
  int heap_count_min, heap_count_max, heap_count_changes, last_heaps;
  double first_pause_start;
};

/* Memory during an import: each process's GCs that gcs_recon_store_final
 * has written are freed, all but the last one written (the next GC's figures
 * read its predecessor: its per-heap history, its end). p->gcs then starts at
 * list index p->base: p->gcs[i] is the GC of list index base + i, and every
 * index kept in the recon (current_bgc, last_completed, alloc.next, stored,
 * calc) is a position in p->gcs, moved down with it; g.list_index stays the
 * GC's position in the whole list (it is stored). What later GCs read of the
 * freed ones is kept apart: the summary's fold of them (fold) and the heap
 * stats of the latest with list index 1 or more (freed_stats, for
 * gen_before_mb's backward scan). No look-up reaches a freed GC: events find
 * the last 16 GCs, the running and the last completed background GC and the
 * last completed GC, which are never written early (FINAL_LAG,
 * recon_store.c), and recon_calc_all at the end recomputes only the GCs not
 * written yet. Memory then holds the GCs not yet final (about FINAL_LAG plus
 * what a loss horizon holds back), whatever the trace's length: before, every
 * GC stayed to the end (about 7 KB each with its per-heap history). Freeing
 * the GC whole rather than keeping a small record of each (its heap stats,
 * its figures for the summary): a record per GC would still grow with the
 * trace, and nothing needs more than the fold and the latest heap stats.
 * A background GC written early may still get an allocation wait's end
 * (it goes to the last complete one, however late): the one last_bgc can
 * return among the freed is kept (kept_bgc), and its waits are written
 * again when an end reaches it (recon_store.c, rewrite_waits). */
struct recon_proc {
  struct gcs_proc_summary sum;
  int base;                     /* list index of gcs[0]: the GCs before it are freed */
  struct recon_fold fold;       /* the summary over the GCs written early */
  /* gcs_recon_store_final: the GCs below stored are in the database already
   * (with the statements in store, recon_store.c); the GCs below calc have
   * had recon_calc_gc since their last event. Positions in gcs. */
  int stored, calc;
  /* The background GC an allocation wait's end may still go to (last_bgc)
   * among those freed: the latest freed that is complete, else the latest
   * freed. Kept (written already) until a later one takes its place. */
  struct recon_gc *kept_bgc;
  int has_freed_stats;          /* a freed GC of list index >= 1 had GCHeapStats: */
  struct gcs_ev_GCHeapStats freed_stats; /* the latest one's */
  /* the per-process state of TraceEvent's GC event handlers */
  int32_t susp_tid_gc, susp_tid_bgc, susp_tid_other;
  int has_susp_time, has_susp_end;
  int seen_suspend;             /* any GCSuspendEEBegin of the process so far */
  int64_t susp_time, susp_end;  /* relative ns */
  uint32_t last_susp_reason, last_susp_count;
  int has_other_susp;           /* a non-GC suspension is open (suspend_done) */
  int has_restart_begin;        /* a RestartEEBegin of the GC suspension (restart_begin_t) */
  int64_t restart_begin_t;
  int64_t other_susp_time;      /* relative ns of its SuspendEEBegin */
  uint32_t other_susp_reason;
  int has_last_heap_stats;
  int64_t last_heap_stats;      /* relative ns of the last GCHeapStats */
  double tick_cur[GCS_ALLOC_KIND_COUNT], tick_at_last[GCS_ALLOC_KIND_COUNT];
  int seen_tick, neg_tick;
  int current_bgc, last_completed; /* positions in gcs (list index - base), -1 = none */
  int heap_count;                /* the last GCGlobalHeapHistory's NumHeaps, -1 none */
  int multi_heap;                /* a NumHeaps over 1 was seen: server GC */
  struct recon_gc **gcs;
  int ngcs, cap;
  uint64_t origin_abs;           /* the recon's origin, for absolute times */
  uint64_t lost_until;           /* gcs_recon_lost: the latest window's end (absolute ns,
                                  * 0 none): a GC beginning by then is marked */
  int has_first_event;
  int64_t first_event, last_event;
  struct recon_alloc alloc;
};

struct gcs_recon {
  struct gcs_recon_callbacks cb;
  void *ud;
  int has_origin;
  uint64_t origin;
  struct recon_proc **procs;
  int nprocs, cap;
  uint64_t lost_unattributed;   /* lost with pid < 0: applied to every process */
  uint64_t lost_until_all;      /* lost_until of windows with pid < 0 */
  uint64_t now_abs;             /* the latest time of the events fed (absolute ns) */
  uint64_t ev_abs;              /* the time of the event being fed */
  /* gcs_recon_lost_horizon: no window still to come begins before it
   * (absolute ns); gcs_recon_store_final stores no GC that ends at or after it */
  uint64_t lost_horizon;
  int finished;
  int64_t nseq;                 /* GCs begun (every process): the next recon_gc.seq */
  int held, held_max;           /* GCs held in memory (all processes: their gcs and
                                 * kept_bgc), the most at once */
  struct recon_store *store;
};

/* How far behind the last GC a GC must be before no event can reach it:
 * events find the last GC, the running background GC, the last completed
 * one and, by number, the last 8 (the same bound as gcs_recon_forget_old).
 * Also how many GCs in a row done before a loss window end gcs_recon_lost's
 * scan back (recon_store.c's open_out_of_reach relies on both). */
#define RECON_FINAL_LAG 16

static inline double ns_to_ms(int64_t ns) { return (double)ns / 1e6; }

/* recon_calc.c */
void recon_calc_gc(struct gcs_recon *r, struct recon_proc *p, struct recon_gc *gc);
void recon_calc_all(struct gcs_recon *r);
void recon_fold_init(struct recon_fold *f);
void recon_fold_add(struct recon_fold *f, const struct gcs_gc *g);
/* A complete background GC's peak: the largest before_mb of the complete GCs
 * that began before it ended, among GCs j+1 .. limit-1, and peak/after. 1 if
 * a GC below limit began after it ended (later GCs cannot change it). */
int recon_calc_bgc_peak(const struct recon_proc *p, int j, int limit, double *peak_mb, double *ratio);

/* recon.c: report a GC through gc_done, once. */
void recon_report(struct gcs_recon *r, struct recon_gc *gc);

/* recon.c: free each process's GCs written early but the last one
 * (gcs_recon_store_final, after it wrote). */
void recon_free_stored(struct gcs_recon *r);

/* recon_store.c: the prepared statements of gcs_recon_store_final, freed
 * with the recon. */
void recon_store_free(struct gcs_recon *r);

/* recon_alloc.c: place every GC whose allocations can be measured now (all
 * of them when final); drop_below: GCs below this list index are about to be
 * freed (gcs_recon_forget_old) and are settled first. */
void recon_alloc_advance(struct gcs_recon *r, struct recon_proc *p, int final, int drop_below);
void recon_alloc_init_gc(struct recon_gc *gc);

#endif /* GCS_RECON_INTERNAL_H */
