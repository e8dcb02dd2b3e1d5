/*
 * trc_ep_profile.h — which EventPipe providers, keywords and levels a
 * `gcscope record --dotnet` profile asks the runtime for (the one table;
 * docs/dotnet.md prints it). Ownership: static data. Threading: reentrant.
 */
#ifndef TRC_EP_PROFILE_H
#define TRC_EP_PROFILE_H

#include "gcs_dsipc.h"
#include "gcs_nettrace.h"
#include "trc_profile.h"

#define TRC_EP_PROVIDER_PRIVATE "Microsoft-Windows-DotNETRuntimePrivate"
#define TRC_EP_MAX_PROVIDERS (3 + GCS_NETTRACE_MAX_REQSPECS)

/* Fills providers[] (capacity TRC_EP_MAX_PROVIDERS) and returns how many. */
int trc_ep_profile_providers(enum trc_profile p, struct gcs_dsipc_provider *providers);
/* Adds the providers of n request pairs (each at Informational, all
 * keywords) and TplEventSource's TasksFlowActivityIds after the k already
 * in providers[]; returns the new count. */
int trc_ep_profile_requests(const struct gcs_nettrace_reqspec *req, int n, struct gcs_dsipc_provider *providers,
                            int k);
/* record --stacks: a stack with every event, the JIT and Loader keywords on
 * the runtime provider (MethodLoadVerbose at the Verbose profiles' level)
 * and the rundown at the end (MethodDCEndVerbose: every method with code,
 * ReadyToRun code included), which resolves every managed frame.
 * providers: sc's, as trc_ep_profile_providers filled them. */
void trc_ep_profile_stacks(struct gcs_dsipc_session_cfg *sc, struct gcs_dsipc_provider *providers);

#endif
