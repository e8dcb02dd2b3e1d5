/* rgc-gen — emits a deterministic stream of rgc tracepoints for the import
 * benchmark: N GCAllocationTick events (50 type names) with one blocking GC
 * (SuspendEE .. RestartEE, 7 events) every 1000 ticks. Does not need librgc:
 * the probes are built in (TRACEPOINT_CREATE_PROBES) from rgc_tp.h.
 * usage: rgc-gen [N]   (default 1000000) */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "rgc_tp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  char names[50][48];
  for (int i = 0; i < 50; i++) snprintf(names[i], sizeof names[i], "Bench.Namespace.Type%02d", i);
  struct gcs_ev_RuntimeInformation ri;
  memset(&ri, 0, sizeof ri);
  ri.HeapCount = 1;
  ri.Concurrent = 1;
  ri.Version = "bench";
  ri.CommandLine = "rgc-gen";
  tracepoint(rgc, RuntimeInformation, &ri);
  uint32_t gc = 0;
  for (long i = 0; i < n; i++) {
    struct gcs_ev_GCAllocationTick t;
    memset(&t, 0, sizeof t);
    t.AllocationAmount = 100000 + (uint32_t)(i % 977);
    t.AllocationAmount64 = t.AllocationAmount;
    t.AllocationKind = i % 10 == 0;
    t.TypeID = 0x1000 + (uint64_t)(i % 50);
    t.TypeName = names[i % 50];
    t.Address = 0x7f0000000000ull + (uint64_t)i * 64;
    t.ObjectSize = 24 + (uint64_t)(i % 100);
    tracepoint(rgc, GCAllocationTick_V4, &t, NULL, 0);
    if (i % 1000 == 999) {
      gc++;
      struct gcs_ev_GCSuspendEEBegin sb = { 1, gc, 0 };
      tracepoint(rgc, GCSuspendEEBegin_V1, &sb);
      struct gcs_ev_GCSuspendEEEnd se = { 0 };
      tracepoint(rgc, GCSuspendEEEnd_V1, &se);
      struct gcs_ev_GCStart gs = { gc, 0, 0, 0, 0, 0 };
      tracepoint(rgc, GCStart_V2, &gs);
      struct gcs_ev_GCEnd ge = { gc, 0, 0 };
      tracepoint(rgc, GCEnd_V1, &ge);
      struct gcs_ev_GCHeapStats hs;
      memset(&hs, 0, sizeof hs);
      hs.GenerationSize0 = 1000000;
      hs.GenerationSize1 = 2000000;
      tracepoint(rgc, GCHeapStats_V2, &hs);
      struct gcs_ev_GCRestartEEBegin rb = { 0 };
      tracepoint(rgc, GCRestartEEBegin_V1, &rb);
      struct gcs_ev_GCRestartEEEnd re = { 0 };
      tracepoint(rgc, GCRestartEEEnd_V1, &re);
    }
  }
  return 0;
}
