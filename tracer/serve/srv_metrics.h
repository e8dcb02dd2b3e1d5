/*
 * srv_metrics.h — what `gcscope serve` exports for one process, and the
 * exposition of every monitored process as Prometheus text (format 0.0.4) or
 * OpenMetrics 1.0.0 text.
 *
 * The figures come from the one GC reconstruction (core/recon): srv_pm_gc_done
 * takes each GC it reports (struct gcs_gc), srv_pm_suspension and
 * srv_pm_bgc_final_pause its suspend_done and bgc_final_pause pairs. Nothing
 * here decides what a pause, a generation or a GC type is.
 *
 *   dotnet_gc_collections_total{gc_heap_generation}   GCs by condemned generation
 *                                                     (gen0, gen1, gen2), every GC reported
 *   dotnet_gc_pause_time_seconds_total                Σ pause of complete GCs (PerfView's
 *                                                     PauseDurationMSec; a BGC's two pauses)
 *   dotnet_gc_heap_total_allocated_bytes_total        Σ measured allocations (recon_alloc;
 *                                                     no sample until one is known)
 *   dotnet_gc_last_collection_heap_size_bytes{gen}    the last GC's generation sizes after it
 *   dotnet_gc_last_collection_heap_fragmentation_size_bytes{gen}
 *   dotnet_gc_last_collection_memory_committed_size_bytes   (no event carries it: no sample)
 *   gcscope_gc_pause_seconds{generation,type}         histogram of complete GCs' pauses
 *   gcscope_gc_suspension_seconds                     histogram of GC suspensions
 *   gcscope_gc_bgc_final_pause_seconds                histogram of BGC final pauses
 *   gcscope_gc_paused_ratio                           share of the last 60 s paused
 *   gcscope_trigger_firings_total{rule}               stop-rule firings
 *   gcscope_events_lost_total                         events the runtime dropped
 *   gcscope_monitored_processes                       processes attached now
 *
 * A figure that is unknown (NaN) or not finite has no sample: never NaN or -1.
 * Every per-process series carries pid, process_name, runtime_version,
 * gc_mode (workstation|server|unknown), gc_concurrent (true|false|unknown)
 * and gc_heap_count (a number or unknown).
 *
 * Ownership: srv_pm_new allocates, srv_pm_free releases; srv_render returns a
 * malloc'ed text the caller frees. Threading: none inside; the caller
 * serialises every call on one process's object (serve holds one lock).
 * Errors: srv_pm_new and srv_render return NULL when out of memory.
 */
#ifndef SRV_METRICS_H
#define SRV_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_gc.h"

/* Histogram upper bounds in seconds: 0.1 ms to 10 s, 1-2-5 steps. */
#define SRV_NBUCKETS 16
/* The window of gcscope_gc_paused_ratio. */
#define SRV_RATIO_WINDOW_S 60
/* Stop rules whose firings are counted (gcs_triggers' own limit). */
#define SRV_MAX_RULES 64

struct srv_pm;

/* pid, process name and runtime version ("" = unknown); start_ns: when the
 * monitoring began (ns since the epoch; the ratio's window never reaches
 * before it). */
struct srv_pm *srv_pm_new(int32_t pid, const char *name, const char *runtime_version, uint64_t start_ns);
void srv_pm_free(struct srv_pm *m);

/* server: 1 server, 0 workstation, -1 unknown; concurrent likewise;
 * heap_count -1 unknown (gcs_proc_summary's fields). */
void srv_pm_set_mode(struct srv_pm *m, int server, int concurrent, int heap_count);
/* A GC the reconstruction reported (gc_done). */
void srv_pm_gc_done(struct srv_pm *m, const struct gcs_gc *g);
/* A reported GC learned its measured allocations (gc_alloc_known). */
void srv_pm_gc_alloc_known(struct srv_pm *m, const struct gcs_gc *g);
/* A GC suspension ended (suspend_done for a GC reason): its length. */
void srv_pm_suspension(struct srv_pm *m, uint64_t suspend_ns);
/* A BGC final pause ended at end_ns (bgc_final_pause). */
void srv_pm_bgc_final_pause(struct srv_pm *m, uint64_t pause_ns, uint64_t end_ns);
/* The stream's count of lost events so far. */
void srv_pm_set_lost(struct srv_pm *m, uint64_t lost);
/* Rule number i (0 .. SRV_MAX_RULES-1) fired on this process. */
void srv_pm_rule_fired(struct srv_pm *m, int i);

/* The exposition of n processes (attached processes first: n_attached is the
 * gauge gcscope_monitored_processes), rules[0..nrules-1] the rule names;
 * now_ns is the time the ratio window ends at. *len gets the length. */
char *srv_render(struct srv_pm *const *pms, int n, int n_attached, const char *const *rules, int nrules,
                 int openmetrics, uint64_t now_ns, size_t *len);

/* Does an Accept header ask for OpenMetrics? */
int srv_wants_openmetrics(const char *accept);

#define SRV_CONTENT_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define SRV_CONTENT_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

#endif
