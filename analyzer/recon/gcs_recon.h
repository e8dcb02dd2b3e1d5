/*
 * gcs_recon.h — GC reconstruction: decoded events in, GCs with their pauses and
 * figures out, following PerfView/TraceEvent's GC state machine
 * (../shared/reference/perfview-gcstats.md). One library, used by
 * `gcscope import` (to fill the gc tables), by the tracer's trigger watcher
 * (to pair suspend/restart events live) and by `gcscope top`.
 *
 * Usage
 *   struct gcs_recon *r = gcs_recon_new(&callbacks, user_data);
 *   for each event in time order: gcs_recon_feed(r, &ev);
 *   gcs_recon_lost(r, pid, ts_ns, n) whenever the source reports lost events;
 *   gcs_recon_finish(r);               end of input: open GCs become incomplete
 *   gcs_recon_store(r, db, trace_id);  write the gc tables (tables_gc.def)
 *   gcs_recon_free(r);
 *
 * Ownership: the recon object owns every struct gcs_gc it reports; a pointer
 * passed to a callback, or returned by the accessors, stays valid until
 * gcs_recon_free(). Events fed in are copied as needed (the caller may reuse
 * its struct gcs_event and string buffers right after gcs_recon_feed returns).
 * Threading: one recon object is used by one thread at a time.
 * Errors: gcs_recon_new returns NULL on allocation failure; gcs_recon_store
 * returns 0 or an SQLite error code and leaves the transaction to the caller.
 */
#ifndef GCS_RECON_H
#define GCS_RECON_H

#include <stdint.h>

#include "gcs_events.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sqlite3 sqlite3;
struct gcs_recon;
struct gcs_gc;        /* one reconstructed GC; defined in gcs_gc.h */

struct gcs_recon_callbacks {
  /* A GC became complete (PerfView's OnEnd), or was closed as incomplete at
   * gcs_recon_finish / because events were lost. May be NULL. */
  void (*gc_done)(const struct gcs_gc *gc, void *ud);
  /* A suspension ended (SuspendEEEnd): pid, GC index it belongs to (0 if
   * unknown), suspend reason and its duration. For live stop triggers. */
  void (*suspend_done)(int32_t pid, uint32_t gc_index, uint32_t reason,
                       uint64_t suspend_ns, uint64_t ts_ns, void *ud);
};

struct gcs_recon *gcs_recon_new(const struct gcs_recon_callbacks *cb, void *ud);
void gcs_recon_feed(struct gcs_recon *r, const struct gcs_event *ev);
void gcs_recon_lost(struct gcs_recon *r, int32_t pid, uint64_t ts_ns, uint64_t count);
void gcs_recon_finish(struct gcs_recon *r);
int gcs_recon_store(struct gcs_recon *r, sqlite3 *db, int64_t trace_id);
void gcs_recon_free(struct gcs_recon *r);

#ifdef __cplusplus
}
#endif
#endif /* GCS_RECON_H */
