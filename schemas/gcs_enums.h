/*
 * gcs_enums.h — named constants for every value map of schemas/gc_enums.def,
 * and the GC facts derived from them (what "induced", "background",
 * "blocking", "ephemeral" mean). This is the one place those facts are
 * defined: the reconstruction, the reports, the analyses, the TUI, the tracer
 * and librgc all call these, never compare to bare numbers.
 *
 * Constants are GCS_<PREFIX>_<CONST> with PREFIX and CONST from the def:
 *   GCS_GC_REASON_INDUCED (1), GCS_GC_TYPE_BACKGROUND (1),
 *   GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP (6), GCS_COMPACT_MECHANISMS_LAST_GC (0x10)...
 * Header only; no state, safe from any thread.
 */
#ifndef GCS_ENUMS_H
#define GCS_ENUMS_H

#include <stdint.h>

#include "gc_enums.def"

/* One enum per map. Each map needs one line here; the assertion below fails
 * the build when gc_enums.def gains a map this list lacks. */
#define GCS_ENUM_ITEM_GC_REASON(Value, Name, C) GCS_GC_REASON_##C = Value,
#define GCS_ENUM_ITEM_GC_TYPE(Value, Name, C) GCS_GC_TYPE_##C = Value,
#define GCS_ENUM_ITEM_SUSPEND_REASON(Value, Name, C) GCS_SUSPEND_REASON_##C = Value,
#define GCS_ENUM_ITEM_ALLOC_KIND(Value, Name, C) GCS_ALLOC_KIND_##C = Value,
#define GCS_ENUM_ITEM_HANDLE_KIND(Value, Name, C) GCS_HANDLE_KIND_##C = Value,
#define GCS_ENUM_ITEM_ROOT_KIND(Value, Name, C) GCS_ROOT_KIND_##C = Value,
#define GCS_ENUM_ITEM_SEGMENT_TYPE(Value, Name, C) GCS_SEGMENT_TYPE_##C = Value,
#define GCS_ENUM_ITEM_PAUSE_MODE(Value, Name, C) GCS_PAUSE_MODE_##C = Value,
#define GCS_ENUM_ITEM_BGC_WAIT_REASON(Value, Name, C) GCS_BGC_WAIT_REASON_##C = Value,
#define GCS_ENUM_ITEM_RUNTIME_SKU(Value, Name, C) GCS_RUNTIME_SKU_##C = Value,
#define GCS_ENUM_ITEM_STARTUP_MODE(Value, Name, C) GCS_STARTUP_MODE_##C = Value,
#define GCS_ENUM_ITEM_GLOBAL_MECHANISMS(Value, Name, C) GCS_GLOBAL_MECHANISMS_##C = Value,
#define GCS_ENUM_ITEM_STARTUP_FLAGS(Value, Name, C) GCS_STARTUP_FLAGS_##C = Value,
#define GCS_ENUM_ITEM_CONDEMN_GEN_GROUPS(Value, Name, C) GCS_CONDEMN_GEN_GROUPS_##C = Value,
#define GCS_ENUM_ITEM_CONDEMN_CONDITIONS(Value, Name, C) GCS_CONDEMN_CONDITIONS_##C = Value,
#define GCS_ENUM_ITEM_COMPACT_MECHANISMS(Value, Name, C) GCS_COMPACT_MECHANISMS_##C = Value,
#define GCS_ENUM_ITEM_EXPAND_MECHANISMS(Value, Name, C) GCS_EXPAND_MECHANISMS_##C = Value,
#define GCS_ENUM_ITEM_GC_SETTINGS(Value, Name, C) GCS_GC_SETTINGS_##C = Value,
#define GCS_ENUM_ITEM_BUCKET_KIND(Value, Name, C) GCS_BUCKET_KIND_##C = Value,
#define GCS_ENUM_ITEM_DATAS_CHANGE_DECISION(Value, Name, C) GCS_DATAS_CHANGE_DECISION_##C = Value,
#define GCS_ENUM_ITEM_DATAS_ADJ_REASON(Value, Name, C) GCS_DATAS_ADJ_REASON_##C = Value,
#define GCS_ENUM_ITEM_DATAS_HC_FREQ_REASON(Value, Name, C) GCS_DATAS_HC_FREQ_REASON_##C = Value,
#define GCS_ENUM_ITEM_DATAS_ADJ_METRIC(Value, Name, C) GCS_DATAS_ADJ_METRIC_##C = Value,

enum gcs_gc_reason { GCS_MAP_gc_reason(GCS_ENUM_ITEM_GC_REASON) };
enum gcs_gc_type { GCS_MAP_gc_type(GCS_ENUM_ITEM_GC_TYPE) };
enum gcs_suspend_reason { GCS_MAP_suspend_reason(GCS_ENUM_ITEM_SUSPEND_REASON) };
enum gcs_alloc_kind { GCS_MAP_alloc_kind(GCS_ENUM_ITEM_ALLOC_KIND) };
enum gcs_handle_kind { GCS_MAP_handle_kind(GCS_ENUM_ITEM_HANDLE_KIND) };
enum gcs_root_kind { GCS_MAP_root_kind(GCS_ENUM_ITEM_ROOT_KIND) };
enum gcs_segment_type { GCS_MAP_segment_type(GCS_ENUM_ITEM_SEGMENT_TYPE) };
enum gcs_pause_mode { GCS_MAP_pause_mode(GCS_ENUM_ITEM_PAUSE_MODE) };
enum gcs_bgc_wait_reason { GCS_MAP_bgc_wait_reason(GCS_ENUM_ITEM_BGC_WAIT_REASON) };
enum gcs_runtime_sku { GCS_MAP_runtime_sku(GCS_ENUM_ITEM_RUNTIME_SKU) };
enum gcs_startup_mode { GCS_MAP_startup_mode(GCS_ENUM_ITEM_STARTUP_MODE) };
enum gcs_global_mechanisms { GCS_MAP_global_mechanisms(GCS_ENUM_ITEM_GLOBAL_MECHANISMS) };
enum gcs_startup_flags { GCS_MAP_startup_flags(GCS_ENUM_ITEM_STARTUP_FLAGS) };
enum gcs_condemn_gen_groups { GCS_MAP_condemn_gen_groups(GCS_ENUM_ITEM_CONDEMN_GEN_GROUPS) };
enum gcs_condemn_conditions { GCS_MAP_condemn_conditions(GCS_ENUM_ITEM_CONDEMN_CONDITIONS) };
enum gcs_compact_mechanisms { GCS_MAP_compact_mechanisms(GCS_ENUM_ITEM_COMPACT_MECHANISMS) };
enum gcs_expand_mechanisms { GCS_MAP_expand_mechanisms(GCS_ENUM_ITEM_EXPAND_MECHANISMS) };
enum gcs_gc_settings { GCS_MAP_gc_settings(GCS_ENUM_ITEM_GC_SETTINGS) };
enum gcs_bucket_kind { GCS_MAP_bucket_kind(GCS_ENUM_ITEM_BUCKET_KIND) };
enum gcs_datas_change_decision { GCS_MAP_datas_change_decision(GCS_ENUM_ITEM_DATAS_CHANGE_DECISION) };
enum gcs_datas_adj_reason { GCS_MAP_datas_adj_reason(GCS_ENUM_ITEM_DATAS_ADJ_REASON) };
enum gcs_datas_hc_freq_reason { GCS_MAP_datas_hc_freq_reason(GCS_ENUM_ITEM_DATAS_HC_FREQ_REASON) };
enum gcs_datas_adj_metric { GCS_MAP_datas_adj_metric(GCS_ENUM_ITEM_DATAS_ADJ_METRIC) };

#define GCS_ENUM_COUNT_MAP(Map, Prefix, IsFlags, Doc) +1
_Static_assert(0 GCS_MAP_LIST(GCS_ENUM_COUNT_MAP) == 23,
               "gc_enums.def has a map without an enum in gcs_enums.h");
#undef GCS_ENUM_COUNT_MAP

/* GCMarkWithType's root kinds are 0..GCS_ROOT_KIND_N-1 (Stack ... BGC). */
#define GCS_ROOT_KIND_N (GCS_ROOT_KIND_BGC + 1)

/* AllocationTick's kinds are 0..GCS_ALLOC_KIND_COUNT-1 (Small, Large, Pinned):
 * one counter per kind. */
#define GCS_ALLOC_KIND_COUNT (GCS_ALLOC_KIND_PINNED + 1)

/* Generations as the events number them (GCStart.Depth, the per-generation
 * arrays of GCHeapStats and GCPerHeapHistory): 0-2, then LOH and POH. */
enum gcs_gen {
  GCS_GEN0 = 0,
  GCS_GEN1 = 1,
  GCS_GEN2 = 2,
  GCS_GEN_LOH = 3,
  GCS_GEN_POH = 4,
  GCS_NGENS_SOH = 3,   /* generations of the small object heap */
};

/* The GC phases GCGlobalHeapHistory times (gc_enums.def GCS_GC_PHASES). */
#define GCS_GC_PHASE_ENUM(C, Name, Label) GCS_GC_PHASE_##C,
enum gcs_gc_phase { GCS_GC_PHASES(GCS_GC_PHASE_ENUM) GCS_GC_PHASE_COUNT };
#undef GCS_GC_PHASE_ENUM

/* ---- GC facts: the one definition of each ---------------------------------- */

/* PerfView's "induced": Reason Induced (1) or InducedNotForced (7). This is what
 * NumInduced counts and what the "I"/"i" suffix of the Gen column marks;
 * InducedLowMemory, InducedCompacting and InducedAggressive are not counted. */
static inline int gcs_reason_is_induced(uint32_t reason) {
  return reason == GCS_GC_REASON_INDUCED || reason == GCS_GC_REASON_INDUCED_NOT_FORCED;
}

/* Any GC a program or host asked for (GC.Collect in every form, low-memory
 * notifications it raised, GC.Collect(aggressive)): the advisor's sense of
 * "induced", wider than PerfView's column. */
static inline int gcs_reason_is_requested(uint32_t reason) {
  return gcs_reason_is_induced(reason) || reason == GCS_GC_REASON_INDUCED_LOW_MEMORY ||
         reason == GCS_GC_REASON_INDUCED_COMPACTING || reason == GCS_GC_REASON_INDUCED_AGGRESSIVE;
}

/* A GC triggered because a heap ran out of space (the last GC before OOM). */
static inline int gcs_reason_is_out_of_space(uint32_t reason) {
  return reason == GCS_GC_REASON_OUT_OF_SPACE_SOH || reason == GCS_GC_REASON_OUT_OF_SPACE_LOH;
}

/* The "I"/"i" suffix PerfView appends to the Gen column, "" otherwise. */
static inline const char *gcs_reason_induced_mark(uint32_t reason) {
  return reason == GCS_GC_REASON_INDUCED ? "I"
         : reason == GCS_GC_REASON_INDUCED_NOT_FORCED ? "i" : "";
}

/* A background GC (gen2 marked concurrently with the program). */
static inline int gcs_type_is_background(uint32_t type) { return type == GCS_GC_TYPE_BACKGROUND; }

/* A foreground GC: an ephemeral GC that ran while a background GC was in progress. */
static inline int gcs_type_is_foreground(uint32_t type) { return type == GCS_GC_TYPE_FOREGROUND; }

/* A non-concurrent GC: every thread stays suspended from start to end. */
static inline int gcs_type_is_nonconcurrent(uint32_t type) {
  return type == GCS_GC_TYPE_NON_CONCURRENT;
}

/* A blocking GC: the program is suspended for the whole GC (not a background
 * GC). GCStart->GCEnd of a blocking GC is its pause; a background GC's GCEnd
 * is not (PerfView's /StopOnGCOverMSec rule, GCStats' pause rules). */
static inline int gcs_type_is_blocking(uint32_t type) { return !gcs_type_is_background(type); }

/* The four kinds of pause every report splits GCs into, in the order they are
 * printed. PerfView's rule (GCStats, /StopOnGen2GC): a GC is background when
 * its Type is BackgroundGC, whatever its generation; every other GC is blocking
 * (NonConcurrent or Foreground) and falls in the bucket of its generation,
 * Depth >= 2 being gen2 blocking. */
enum gcs_pause_kind {
  GCS_PAUSE_KIND_GEN0,
  GCS_PAUSE_KIND_GEN1,
  GCS_PAUSE_KIND_BACKGROUND,
  GCS_PAUSE_KIND_GEN2_BLOCKING,
  GCS_PAUSE_KIND_COUNT,
};

static inline enum gcs_pause_kind gcs_gc_pause_kind(uint32_t gen, uint32_t type) {
  if (gcs_type_is_background(type)) return GCS_PAUSE_KIND_BACKGROUND;
  if (gen == GCS_GEN0) return GCS_PAUSE_KIND_GEN0;
  if (gen == GCS_GEN1) return GCS_PAUSE_KIND_GEN1;
  return GCS_PAUSE_KIND_GEN2_BLOCKING;
}

/* A blocking gen2 GC: a full collection that suspends the program throughout
 * (NonConcurrent, or Foreground should one ever condemn gen2). */
static inline int gcs_gc_is_blocking_gen2(uint32_t gen, uint32_t type) {
  return gcs_gc_pause_kind(gen, type) == GCS_PAUSE_KIND_GEN2_BLOCKING;
}

/* An ephemeral GC: it condemns gen0 or gen1 only. */
static inline int gcs_gen_is_ephemeral(uint32_t gen) { return gen < GCS_GEN2; }

/* The "N"/"B"/"F" letter PerfView appends to the generation in the Gen column. */
static inline const char *gcs_type_letter(uint32_t type) {
  return gcs_type_is_background(type) ? "B" : gcs_type_is_foreground(type) ? "F" : "N";
}

/* A suspension the GC made: for a GC (SuspendForGC) or for a background GC's
 * final phase (SuspendForGCPrep). PerfView tracks only these two. */
static inline int gcs_suspend_is_for_gc(uint32_t reason) {
  return reason == GCS_SUSPEND_REASON_SUSPEND_FOR_GC ||
         reason == GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP;
}

/* A wait of an LOH allocation for a background GC (BGCAllocWaitBegin/End's
 * Reason: GetLOHSeg, AllocDuringSweep or AllocDuringBGC). */
/* PerfView's text for a BGC LOH allocation wait's reason. */
static inline const char *gcs_bgc_wait_reason_text(uint32_t reason) {
  return reason == GCS_BGC_WAIT_REASON_ALLOC_DURING_BGC ? "Allocated too much during BGC, waiting for BGC to finish"
                                                        : "Waiting for BGC to thread free lists";
}

static inline int gcs_bgc_wait_reason_is_known(uint32_t reason) {
  return reason >= GCS_BGC_WAIT_REASON_GET_LOH_SEG && reason <= GCS_BGC_WAIT_REASON_ALLOC_DURING_BGC;
}

/* Server GC, from RuntimeInformationStart.StartupFlags. */
static inline int gcs_startup_is_server_gc(uint32_t flags) {
  return (flags & GCS_STARTUP_FLAGS_SERVER_GC) != 0;
}

/* Concurrent (background) GC enabled, from RuntimeInformationStart.StartupFlags. */
static inline int gcs_startup_is_concurrent_gc(uint32_t flags) {
  return (flags & GCS_STARTUP_FLAGS_CONCURRENT_GC) != 0;
}

/* Concurrent (background) GC enabled, from GCSettingsRundown.BitSettings. */
static inline int gcs_settings_is_concurrent_gc(uint32_t bits) {
  return (bits & GCS_GC_SETTINGS_CONCURRENT) != 0;
}

/* The suspension that starts a background GC's final pause. */
static inline int gcs_suspend_is_bgc_final(uint32_t reason) {
  return reason == GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP;
}

/* Where GCGlobalHeapHistory's Times[] holds phase ph of a GC that sent count
 * entries: the slot, or -1 when the GC did not time that phase (a background
 * GC plans, relocates, compacts and sweeps outside its timed part; a sweeping
 * GC neither relocates nor compacts; a compacting GC does not sweep). */
static inline int gcs_gc_phase_slot(enum gcs_gc_phase ph, uint32_t count) {
  int slot;
  switch (ph) {
  case GCS_GC_PHASE_MARK_ROOT: slot = 1; break;
  case GCS_GC_PHASE_MARK_SHORT_WEAK: slot = 2; break;
  case GCS_GC_PHASE_MARK_SCAN_FINALIZATION: slot = 3; break;
  case GCS_GC_PHASE_MARK_LONG_WEAK: slot = 4; break;
  case GCS_GC_PHASE_PLAN: slot = count >= 7 ? 5 : -1; break;
  case GCS_GC_PHASE_RELOCATE: slot = count >= 8 ? 6 : -1; break;
  case GCS_GC_PHASE_COMPACT: slot = count >= 8 ? 7 : -1; break;
  case GCS_GC_PHASE_SWEEP: slot = count == 7 ? 6 : -1; break;
  default: slot = -1; break;
  }
  return slot >= 0 && (uint32_t)slot < count ? slot : -1;
}

#endif /* GCS_ENUMS_H */
