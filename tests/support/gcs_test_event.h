/*
 * gcs_test_event.h — one synthetic decoded event for tests that feed the GC
 * reconstruction or the trigger engine by hand (tests only). The event has
 * the schema's version of its kind, no CPU and every payload field zero; the
 * test sets the fields its case needs.
 */
#ifndef GCS_TEST_EVENT_H
#define GCS_TEST_EVENT_H

#include <stdint.h>
#include <string.h>

#include "gcs_events.h"

static inline struct gcs_event gcs_test_event(enum gcs_kind k, int32_t pid, int32_t tid, uint64_t ts_ns) {
  struct gcs_event e;
  memset(&e, 0, sizeof e);
  e.kind = k;
  e.version = gcs_event_descs[k].version;
  e.pid = pid;
  e.tid = tid;
  e.cpu = -1;
  e.ts_ns = ts_ns;
  return e;
}

#endif
