/*
 * trc_ep_profile.c — EventPipe providers per profile, as PerfView's
 * GCCollectOnly and perfcollect's gc collection set them:
 *
 *   gc       Microsoft-Windows-DotNETRuntime  GC (0x1)            Informational (4)
 *            Microsoft-Windows-DotNETRuntimePrivate GC (0x1)     Informational (4)
 *   alloc    Runtime GC (0x1) at Verbose (5): + GCAllocationTick
 *   handles  Runtime GC|GCHandle (0x3) at Verbose (5): + Set/DestroyGCHandle,
 *            PinObjectAtGCTime
 *   verbose  Runtime GC|GCHandle (0x3) at Verbose (5) and the private
 *            provider at Verbose (5): + GCJoin, PinPlugAtGCTime, BGC waits
 *
 * --stacks (any profile) adds the JIT and Loader keywords to the runtime
 * provider (MethodLoadVerbose comes at Verbose: alloc, handles, verbose),
 * asks for a stack with every event and for the rundown at the end, which
 * names every method with code (the gc profile's frames resolve from it
 * alone).
 *
 * Informational covers GCStart/End, the suspend/restart pairs, GCHeapStats,
 * GCPerHeapHistory, GCGlobalHeapHistory, GCTriggered and MarkWithType;
 * GCAllocationTick and PinObjectAtGCTime are Verbose (CoreCLR's
 * ClrEtwAll.man).
 */
#include "trc_ep_profile.h"

#include <strings.h>

struct ep_row {
  enum trc_profile profile;
  uint64_t runtime_keywords;
  uint32_t runtime_level;
  uint32_t private_level;
};

static const struct ep_row ep_table[] = {
  { TRC_PROFILE_GC, GCS_DSIPC_KW_GC, GCS_DSIPC_LEVEL_INFORMATIONAL, GCS_DSIPC_LEVEL_INFORMATIONAL },
  { TRC_PROFILE_ALLOC, GCS_DSIPC_KW_GC, GCS_DSIPC_LEVEL_VERBOSE, GCS_DSIPC_LEVEL_INFORMATIONAL },
  { TRC_PROFILE_HANDLES, GCS_DSIPC_KW_GC | GCS_DSIPC_KW_GC_HANDLE, GCS_DSIPC_LEVEL_VERBOSE,
    GCS_DSIPC_LEVEL_INFORMATIONAL },
  { TRC_PROFILE_VERBOSE, GCS_DSIPC_KW_GC | GCS_DSIPC_KW_GC_HANDLE, GCS_DSIPC_LEVEL_VERBOSE, GCS_DSIPC_LEVEL_VERBOSE },
};

int trc_ep_profile_providers(enum trc_profile p, struct gcs_dsipc_provider *providers) {
  const struct ep_row *r = &ep_table[0];
  for (size_t i = 0; i < sizeof ep_table / sizeof ep_table[0]; i++)
    if (ep_table[i].profile == p) r = &ep_table[i];
  providers[0] = (struct gcs_dsipc_provider){ GCS_DSIPC_PROVIDER_RUNTIME, r->runtime_keywords, r->runtime_level };
  providers[1] = (struct gcs_dsipc_provider){ TRC_EP_PROVIDER_PRIVATE, GCS_DSIPC_KW_GC, r->private_level };
  return 2;
}

int trc_ep_profile_requests(const struct gcs_nettrace_reqspec *req, int n, struct gcs_dsipc_provider *providers,
                            int k) {
  if (n <= 0) return k;
  for (int i = 0; i < n && k < TRC_EP_MAX_PROVIDERS - 1; i++) {
    int dup = 0;
    for (int j = 0; j < k; j++) dup |= !strcasecmp(providers[j].name, req[i].provider);
    if (!dup) providers[k++] = (struct gcs_dsipc_provider){ req[i].provider, ~0ull, GCS_DSIPC_LEVEL_INFORMATIONAL };
  }
  /* EventSource gives Start/Stop events activity ids only while this keyword is on. */
  providers[k++] = (struct gcs_dsipc_provider){ GCS_NETTRACE_TPL_PROVIDER, GCS_NETTRACE_TPL_FLOW_ACTIVITY_IDS,
                                                GCS_DSIPC_LEVEL_INFORMATIONAL };
  return k;
}

void trc_ep_profile_stacks(struct gcs_dsipc_session_cfg *sc, struct gcs_dsipc_provider *providers) {
  providers[0].keywords |= GCS_DSIPC_KW_JIT | GCS_DSIPC_KW_LOADER;   /* the runtime provider */
  sc->request_stacks = 1;
  sc->request_rundown = 1;
}
