/*
 * trc_ep_flight.h — the EventPipe flight recorder of `gcscope record --dotnet`
 * with stop triggers: the stream's objects as the nettrace reader delivers
 * them (gcs_nettrace_object_cb), of which it keeps the Trace object and every
 * metadata block for good, and the most recent event, stack and
 * sequence-point blocks up to a byte budget (the oldest go first). A capture
 * writes them as a valid .nettrace file: header, metadata, the kept blocks in
 * arrival order, end tag (gcs_nettrace_writer).
 *
 * Ownership: trc_epf_new allocates, trc_epf_free releases (payloads are
 * copied). Threading: one thread. Errors: trc_epf_add returns -1 on
 * allocation failure; trc_epf_write -1 with one line in err.
 */
#ifndef TRC_EP_FLIGHT_H
#define TRC_EP_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_nettrace.h"

struct trc_epf;

struct trc_epf *trc_epf_new(uint64_t budget_bytes);
void trc_epf_free(struct trc_epf *f);
/* A gcs_nettrace_object_cb: ud is the struct trc_epf. */
int trc_epf_add(const struct gcs_nettrace_object *o, void *ud);
/* Bytes of blocks kept in the ring (metadata and the Trace object apart). */
uint64_t trc_epf_kept_bytes(const struct trc_epf *f);
/* Blocks dropped from the ring so far (the capture starts after them). */
uint64_t trc_epf_dropped(const struct trc_epf *f);
int trc_epf_write(const struct trc_epf *f, const char *path, char *err, size_t errlen);

#endif
