/*
 * nt_internal.h — entry points shared inside core/nettrace and with its
 * tests and fuzzer; not part of the public API.
 */
#ifndef NT_INTERNAL_H
#define NT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_nettrace.h"

/* gcs_nettrace_read over a buffer already in memory; name is used in error
 * messages. The buffer must stay valid and unchanged during the call. */
int nt_read_buffer(const char *name, const uint8_t *buf, size_t len,
                   gcs_nettrace_event_cb cb, void *ud,
                   struct gcs_nettrace_info *info, char *err, size_t errlen);

/* Tests: the sort buffer's limits for a new stream (the defaults are
 * GCS_NETTRACE_MAX_PENDING and GCS_NETTRACE_MAX_PENDING_BYTES). */
void nt_stream_set_limits(struct gcs_nettrace_stream *s, size_t max_events, size_t max_bytes);
/* Fuzzers: how many events must wait before an IsSorted event delivers
 * early (default 65,536), so that small inputs reach that path. */
void nt_stream_set_sorted_flush_min(struct gcs_nettrace_stream *s, size_t n);
/* nt_read_buffer with those limits (0: the default). */
int nt_read_buffer_limited(const char *name, const uint8_t *buf, size_t len, size_t max_events,
                           size_t max_bytes, gcs_nettrace_event_cb cb, void *ud,
                           struct gcs_nettrace_info *info, char *err, size_t errlen);

#endif /* NT_INTERNAL_H */
