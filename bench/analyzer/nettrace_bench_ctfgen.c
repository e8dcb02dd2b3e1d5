/* nettrace-bench-ctfgen — emits rgc tracepoints with the GC event mix of the
 * shared .NET Core 3.0 .nettrace file (eventpipe-dotnetcore3.0-win-x64-
 * objver4.nettrace), so that `gcscope import` can be timed on an LTTng (CTF)
 * trace comparable to that file. Per GC the file holds, on average, 74
 * GCAllocationTick, 12.5 SuspendEE/RestartEE quadruples (11.5 of them
 * SuspendOther: debugger/profiler suspensions), 4 GCMarkWithType and one each
 * of GCTriggered, GCStart, GCEnd, GCHeapStats, GCPerHeapHistory and
 * GCGlobalHeapHistory; this program writes 74 ticks, 11 SuspendOther
 * quadruples and one blocking GC with those events per round (132 events).
 * usage: nettrace-bench-ctfgen [ROUNDS]   (default 478, the file's GC count) */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "rgc_tp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void suspension(uint32_t reason, uint32_t count) {
  struct gcs_ev_GCSuspendEEBegin sb = {reason, count, 0};
  tracepoint(rgc, GCSuspendEEBegin_V1, &sb);
  struct gcs_ev_GCSuspendEEEnd se = {0};
  tracepoint(rgc, GCSuspendEEEnd_V1, &se);
}

static void restart(void) {
  struct gcs_ev_GCRestartEEBegin rb = {0};
  tracepoint(rgc, GCRestartEEBegin_V1, &rb);
  struct gcs_ev_GCRestartEEEnd re = {0};
  tracepoint(rgc, GCRestartEEEnd_V1, &re);
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 478;
  /* Type names like the file's (UTF-16 there, UTF-8 here). */
  static const char *const names[] = {"System.Object[]", "System.Byte[]", "System.String",
                                      "System.Collections.Generic.List`1[System.Int32]", "System.Char[]",
                                      "GCSimulator.ReferenceItemWithSize"};
  struct gcs_ev_RuntimeInformation ri;
  memset(&ri, 0, sizeof ri);
  ri.HeapCount = 1;
  ri.Version = "nettrace-bench";
  ri.CommandLine = "nettrace-bench-ctfgen";
  tracepoint(rgc, RuntimeInformation, &ri);
  for (long r = 0; r < rounds; r++) {
    uint32_t gc = (uint32_t)r + 1;
    for (int i = 0; i < 74; i++) {
      struct gcs_ev_GCAllocationTick t;
      memset(&t, 0, sizeof t);
      t.AllocationAmount = 104096 + (uint32_t)i;
      t.AllocationAmount64 = t.AllocationAmount;
      t.AllocationKind = i % 37 == 0;
      t.TypeID = 0x7ff800000000ull + (uint64_t)(i % 6) * 0x40;
      t.TypeName = names[i % 6];
      t.Address = 0x1a000000000ull + (uint64_t)(r * 74 + i) * 104096;
      t.ObjectSize = 24 + (uint64_t)i;
      tracepoint(rgc, GCAllocationTick_V4, &t, NULL, 0);
      if (i % 7 == 3) { /* 11 SuspendOther suspensions per round (i = 3, 10, ..., 73) */
        suspension(0, 0xffffffffu);
        restart();
      }
    }
    struct gcs_ev_GCTriggered tr = {0, 0};
    suspension(1, gc - 1);
    tracepoint(rgc, GCTriggered, &tr, NULL, 0);
    struct gcs_ev_GCStart gs = {gc, 0, 0, 0, 0, 0};
    tracepoint(rgc, GCStart_V2, &gs);
    for (uint32_t k = 0; k < 4; k++) {
      struct gcs_ev_GCMarkWithType m = {0, 0, k, 1000u * k};
      tracepoint(rgc, GCMarkWithType, &m);
    }
    struct gcs_ev_GCGlobalHeapHistory gh;
    memset(&gh, 0, sizeof gh);
    gh.FinalYoungestDesired = 3510080;
    gh.NumHeaps = 1;
    tracepoint(rgc, GCGlobalHeapHistory_V4, &gh);
    struct gcs_ev_GCPerHeapHistory ph;
    memset(&ph, 0, sizeof ph);
    tracepoint(rgc, GCPerHeapHistory_V3, &ph);
    struct gcs_ev_GCEnd ge = {gc, 0, 0};
    tracepoint(rgc, GCEnd_V1, &ge);
    struct gcs_ev_GCHeapStats hs;
    memset(&hs, 0, sizeof hs);
    hs.GenerationSize0 = 2778616;
    hs.GenerationSize1 = 145776;
    hs.GenerationSize2 = 306760;
    tracepoint(rgc, GCHeapStats_V2, &hs);
    restart();
  }
  return 0;
}
