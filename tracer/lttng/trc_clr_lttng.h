/*
 * trc_clr_lttng.h — can a .NET runtime emit LTTng events here? CoreCLR loads
 * libcoreclrtraceptprovider.so at start-up and emits DotNETRuntime:* LTTng
 * events only if that library loads; official x64 builds link it against
 * liblttng-ust.so.0 (LTTng-UST 2.12) while Debian 12 and Ubuntu 22.04+ ship
 * only liblttng-ust.so.1 (dotnet/runtime issue 57784).
 *
 * Errors: 0 the provider loads (or the runtime was not found: nothing to
 * say), -1 it cannot, with the reason in why (one line). Threading: forks a
 * child that dlopen()s the provider, so the caller is not affected.
 */
#ifndef TRC_CLR_LTTNG_H
#define TRC_CLR_LTTNG_H

#include <stddef.h>
#include <sys/types.h>

/* The runtime of pid (its mapped libcoreclr.so), or else of command (the
 * `dotnet` it runs: $DOTNET_ROOT, or the dotnet on PATH, newest
 * shared/Microsoft.NETCore.App/<version>). */
int trc_clr_lttng_check(pid_t pid, char *const *command, char *why, size_t whylen);
/* The check on one provider library path. */
int trc_clr_lttng_check_provider(const char *provider_path, char *why, size_t whylen);

#endif
