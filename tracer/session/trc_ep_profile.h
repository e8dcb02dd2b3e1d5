/*
 * trc_ep_profile.h — which EventPipe providers, keywords and levels a
 * `gcscope record --dotnet` profile asks the runtime for (the one table;
 * docs/dotnet.md prints it). Ownership: static data. Threading: reentrant.
 */
#ifndef TRC_EP_PROFILE_H
#define TRC_EP_PROFILE_H

#include "gcs_dsipc.h"
#include "trc_profile.h"

#define TRC_EP_PROVIDER_PRIVATE "Microsoft-Windows-DotNETRuntimePrivate"
#define TRC_EP_MAX_PROVIDERS 2

/* Fills providers[] (capacity TRC_EP_MAX_PROVIDERS) and returns how many. */
int trc_ep_profile_providers(enum trc_profile p, struct gcs_dsipc_provider *providers);

#endif
