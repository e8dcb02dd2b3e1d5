/* trc_profile.c — tracepoint names per profile (see trc_profile.h). */
#include "trc_profile.h"

#include <stdio.h>
#include <string.h>

#include "gcs_events.h"

/* rgc: full "rgc:<Symbol>" names built once from the schema. */
static char rgc_names[GCS_KIND_COUNT][96];

static int rgc_in_profile(enum gcs_kind k, enum trc_profile p) {
  switch (k) {
  case gcs_kind_GCAllocationTick:
    return p == TRC_PROFILE_ALLOC || p == TRC_PROFILE_VERBOSE;
  case gcs_kind_SetGCHandle: case gcs_kind_DestroyGCHandle:
  case gcs_kind_PinObjectAtGCTime: case gcs_kind_PinPlugAtGCTime:
    return p == TRC_PROFILE_HANDLES || p == TRC_PROFILE_VERBOSE;
  default:
    return 1;
  }
}

/* perfcollect DotNETRuntime_GCKeyword_GCCollectOnly, plus what .NET 5+ fires
 * (GCHeapStats_V2, GCGlobalHeapHistory_V3/_V4 ...) and RuntimeInformationStart.
 * DotNETRuntime:GCStart (version 0) is the sentinel for the GC keyword. */
static const char *const clr_gc[] = {
  "DotNETRuntime:GCStart", "DotNETRuntime:GCStart_V1", "DotNETRuntime:GCStart_V2",
  "DotNETRuntime:GCEnd", "DotNETRuntime:GCEnd_V1",
  "DotNETRuntime:GCRestartEEEnd", "DotNETRuntime:GCRestartEEEnd_V1",
  "DotNETRuntime:GCHeapStats", "DotNETRuntime:GCHeapStats_V1", "DotNETRuntime:GCHeapStats_V2",
  "DotNETRuntime:GCCreateSegment", "DotNETRuntime:GCCreateSegment_V1",
  "DotNETRuntime:GCFreeSegment", "DotNETRuntime:GCFreeSegment_V1",
  "DotNETRuntime:GCRestartEEBegin", "DotNETRuntime:GCRestartEEBegin_V1",
  "DotNETRuntime:GCSuspendEEEnd", "DotNETRuntime:GCSuspendEEEnd_V1",
  "DotNETRuntime:GCSuspendEEBegin", "DotNETRuntime:GCSuspendEEBegin_V1",
  "DotNETRuntime:GCCreateConcurrentThread", "DotNETRuntime:GCTerminateConcurrentThread",
  "DotNETRuntime:GCCreateConcurrentThread_V1", "DotNETRuntime:GCTerminateConcurrentThread_V1",
  "DotNETRuntime:GCFinalizersEnd", "DotNETRuntime:GCFinalizersEnd_V1",
  "DotNETRuntime:GCFinalizersBegin", "DotNETRuntime:GCFinalizersBegin_V1",
  "DotNETRuntime:GCMarkStackRoots", "DotNETRuntime:GCMarkFinalizeQueueRoots",
  "DotNETRuntime:GCMarkHandles", "DotNETRuntime:GCMarkOlderGenerationRoots",
  "DotNETRuntime:FinalizeObject", "DotNETRuntime:GCTriggered",
  "DotNETRuntime:IncreaseMemoryPressure", "DotNETRuntime:DecreaseMemoryPressure",
  "DotNETRuntime:GCMarkWithType", "DotNETRuntime:GCPerHeapHistory_V3",
  "DotNETRuntime:GCGlobalHeapHistory_V2", "DotNETRuntime:GCGlobalHeapHistory_V3",
  "DotNETRuntime:GCGlobalHeapHistory_V4", "DotNETRuntime:GCLOHCompact",
  "DotNETRuntime:GCFitBucketInfo", "DotNETRuntime:RuntimeInformationStart",
  "DotNETRuntime:GCDynamicEvent",   /* .NET 7+: CommittedUsage (.NET 8+) ... */
  /* DotNETRuntimePrivate_GCPrivateKeyword_GCCollectOnly; BGCBegin is the
   * sentinel of the private GC keyword, PinPlugAtGCTime of its Verbose level. */
  "DotNETRuntimePrivate:GCDecision", "DotNETRuntimePrivate:GCDecision_V1",
  "DotNETRuntimePrivate:GCSettings", "DotNETRuntimePrivate:GCSettings_V1",
  "DotNETRuntimePrivate:GCPerHeapHistory", "DotNETRuntimePrivate:GCPerHeapHistory_V1",
  "DotNETRuntimePrivate:GCGlobalHeapHistory", "DotNETRuntimePrivate:GCGlobalHeapHistory_V1",
  "DotNETRuntimePrivate:PrvGCMarkStackRoots", "DotNETRuntimePrivate:PrvGCMarkStackRoots_V1",
  "DotNETRuntimePrivate:PrvGCMarkFinalizeQueueRoots", "DotNETRuntimePrivate:PrvGCMarkFinalizeQueueRoots_V1",
  "DotNETRuntimePrivate:PrvGCMarkHandles", "DotNETRuntimePrivate:PrvGCMarkHandles_V1",
  "DotNETRuntimePrivate:PrvGCMarkCards", "DotNETRuntimePrivate:PrvGCMarkCards_V1",
  "DotNETRuntimePrivate:BGCBegin", "DotNETRuntimePrivate:BGC1stNonConEnd",
  "DotNETRuntimePrivate:BGC1stConEnd", "DotNETRuntimePrivate:BGC1stSweepEnd",
  "DotNETRuntimePrivate:BGC2ndNonConBegin", "DotNETRuntimePrivate:BGC2ndNonConEnd",
  "DotNETRuntimePrivate:BGC2ndConBegin", "DotNETRuntimePrivate:BGC2ndConEnd",
  "DotNETRuntimePrivate:BGCPlanEnd", "DotNETRuntimePrivate:BGCSweepEnd",
  "DotNETRuntimePrivate:BGCDrainMark", "DotNETRuntimePrivate:BGCRevisit",
  "DotNETRuntimePrivate:BGCOverflow", "DotNETRuntimePrivate:BGCOverflow_V1",
  "DotNETRuntimePrivate:BGCAllocWaitBegin", "DotNETRuntimePrivate:BGCAllocWaitEnd",
  "DotNETRuntimePrivate:GCFullNotify", "DotNETRuntimePrivate:GCFullNotify_V1",
  "DotNETRuntimePrivate:PrvFinalizeObject", "DotNETRuntimePrivate:PinPlugAtGCTime",
};
/* AllocationTick is GC Verbose: GCJoin_V2 is the sentinel that turns it on. */
static const char *const clr_alloc[] = {
  "DotNETRuntime:GCAllocationTick", "DotNETRuntime:GCAllocationTick_V1",
  "DotNETRuntime:GCAllocationTick_V2", "DotNETRuntime:GCAllocationTick_V3",
  "DotNETRuntime:GCAllocationTick_V4", "DotNETRuntime:GCJoin_V2",
};
/* SetGCHandle is the sentinel of the GCHandle keyword. */
static const char *const clr_handles[] = {
  "DotNETRuntime:SetGCHandle", "DotNETRuntime:DestroyGCHandle",
  "DotNETRuntime:PinObjectAtGCTime", "DotNETRuntime:GCJoin_V2",
  "DotNETRuntimePrivate:PrvSetGCHandle", "DotNETRuntimePrivate:PrvDestroyGCHandle",
};
/* Everything GC-related of both providers, by pattern. */
static const char *const clr_verbose[] = {
  "DotNETRuntime:GC*", "DotNETRuntime:*GCHandle", "DotNETRuntime:PinObjectAtGCTime",
  "DotNETRuntime:FinalizeObject", "DotNETRuntime:*MemoryPressure",
  "DotNETRuntime:RuntimeInformationStart", "DotNETRuntimePrivate:*GC*",
  "DotNETRuntimePrivate:BGC*", "DotNETRuntimePrivate:PinPlugAtGCTime",
  "DotNETRuntimePrivate:PrvFinalizeObject",
};

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int add(const char **names, int n, const char *s) {
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], s)) return n;
  if (n < TRC_MAX_EVENTS) names[n++] = s;
  return n;
}

int trc_profile_events(enum trc_profile p, int dotnet, const char **names) {
  int n = 0;
  if (p == TRC_PROFILE_VERBOSE) {
    n = add(names, n, "rgc:*");
  } else {
    for (int k = 0; k < GCS_KIND_COUNT; k++) {
      const struct gcs_event_desc *d = &gcs_event_descs[k];
      if (d->where == GCS_CLR_ONLY || !rgc_in_profile((enum gcs_kind)k, p)) continue;
      if (!rgc_names[k][0]) snprintf(rgc_names[k], sizeof rgc_names[k], "rgc:%s", d->symbol);
      n = add(names, n, rgc_names[k]);
    }
  }
  if (!dotnet) return n;
  if (p == TRC_PROFILE_VERBOSE) {
    for (int i = 0; i < NELEM(clr_verbose); i++) n = add(names, n, clr_verbose[i]);
    return n;
  }
  for (int i = 0; i < NELEM(clr_gc); i++) n = add(names, n, clr_gc[i]);
  if (p == TRC_PROFILE_ALLOC)
    for (int i = 0; i < NELEM(clr_alloc); i++) n = add(names, n, clr_alloc[i]);
  if (p == TRC_PROFILE_HANDLES)
    for (int i = 0; i < NELEM(clr_handles); i++) n = add(names, n, clr_handles[i]);
  return n;
}

const char *trc_profile_name(enum trc_profile p) {
  static const char *const names[] = { [TRC_PROFILE_GC] = "gc", [TRC_PROFILE_ALLOC] = "alloc",
                                       [TRC_PROFILE_HANDLES] = "handles", [TRC_PROFILE_VERBOSE] = "verbose" };
  return (unsigned)p < sizeof names / sizeof names[0] && names[p] ? names[p] : "?";
}

int trc_profile_parse(const char *name, enum trc_profile *p) {
  for (int k = TRC_PROFILE_GC; k <= TRC_PROFILE_VERBOSE; k++)
    if (!strcmp(name, trc_profile_name((enum trc_profile)k))) { *p = (enum trc_profile)k; return 0; }
  return -1;
}

void trc_profile_geometry(enum trc_profile p, long ncpus, unsigned long long *subbuf, unsigned long long *num) {
  const unsigned long long MiB = 1ull << 20, cap = 256 * MiB, floor_ = 256ull << 10;
  unsigned long long per_cpu = p == TRC_PROFILE_GC ? 4 * MiB : p == TRC_PROFILE_HANDLES ? 16 * MiB : 32 * MiB;
  if (ncpus < 1) ncpus = 1;
  if (per_cpu * (unsigned long long)ncpus > cap) per_cpu = cap / (unsigned long long)ncpus;
  if (per_cpu < floor_) per_cpu = floor_;
  *num = 8;
  unsigned long long s = 4096;
  while (s * 2 * *num <= per_cpu) s *= 2;
  *subbuf = s;
}
