/*
 * test_nettrace_real.c — reads the shared .NET Core 3.0 trace
 * (eventpipe-dotnetcore3.0-win-x64-objver4.nettrace) and checks counts,
 * payloads and pauses against values computed independently:
 *  - event counts per kind: PerfView's baseline file for this trace
 *    (TraceEvent.Tests/inputs/...objver4.nettrace.baseline.txt) and
 *    tests/nettrace/tools/nt_walk.py (a separate Python walker);
 *  - payload values: the baseline's sample events (GC 1's HeapStats,
 *    PerHeapHistory, GlobalHeapHistory, the first AllocationTick and
 *    PinObjectAtGCTime) and nt_walk.py `expect`;
 *  - timestamps and pauses: nt_walk.py `expect` (ns = SyncTimeUTC +
 *    (QPC - SyncTimeQPC) * 1e9 / 3124099, truncated); GC 1 at 5455.9407 ms
 *    after SyncTime as in the baseline.
 * Usage: test_nettrace_real FILE
 */
#include <stdlib.h>

#include "gcs_nettrace.h"
#include "check.h"

#define SYNC_NS 1560643019754000000ull  /* 2019-06-15 23:56:59.754 UTC */

struct pause_probe { uint32_t gc; uint64_t expected_ns; uint64_t got_ns; int seen; };

struct state {
  uint64_t counts[GCS_KIND_COUNT];
  uint64_t depth[3];
  uint64_t last_ts, out_of_order, bad_pid;
  struct gcs_event gcstart1, gcstart3, gcstart478, heapstats1, heapstats478;
  struct gcs_event perheap1, perheap3, global1, alloctick1, pinobj1;
  char alloc_type[64], pin_type[64];
  /* pause: last SuspendEEBegin before a GCStart, to the next RestartEEEnd */
  uint64_t suspend_ts, gc_suspend_ts;
  uint32_t current_gc;
  struct pause_probe pauses[5];
};

static int on_event(const struct gcs_event *ev, void *ud) {
  struct state *s = ud;
  uint64_t n = ++s->counts[ev->kind];
  if (ev->ts_ns < s->last_ts) s->out_of_order++;
  s->last_ts = ev->ts_ns;
  if (ev->pid != 10064 || ev->origin != GCS_ORIGIN_CLR) s->bad_pid++;
  switch (ev->kind) {
  case gcs_kind_GCStart:
    if (ev->u.GCStart.Depth < 3) s->depth[ev->u.GCStart.Depth]++;
    if (n == 1) s->gcstart1 = *ev;
    if (n == 3) s->gcstart3 = *ev;
    if (n == 478) s->gcstart478 = *ev;
    s->current_gc = ev->u.GCStart.Count;
    s->gc_suspend_ts = s->suspend_ts;
    break;
  case gcs_kind_GCSuspendEEBegin: s->suspend_ts = ev->ts_ns; break;
  case gcs_kind_GCRestartEEEnd:
    for (int i = 0; i < 5; i++)
      if (s->current_gc && s->pauses[i].gc == s->current_gc) {
        s->pauses[i].got_ns = ev->ts_ns - s->gc_suspend_ts;
        s->pauses[i].seen++;
      }
    s->current_gc = 0;
    break;
  case gcs_kind_GCHeapStats:
    if (n == 1) s->heapstats1 = *ev;
    if (n == 478) s->heapstats478 = *ev;
    break;
  case gcs_kind_GCPerHeapHistory:
    if (n == 1) s->perheap1 = *ev;
    if (n == 3) s->perheap3 = *ev;
    break;
  case gcs_kind_GCGlobalHeapHistory: if (n == 1) s->global1 = *ev; break;
  case gcs_kind_GCAllocationTick:
    if (n == 1) {  /* strings live only during the callback: copy */
      s->alloctick1 = *ev;
      snprintf(s->alloc_type, sizeof s->alloc_type, "%s", ev->u.GCAllocationTick.TypeName);
    }
    break;
  case gcs_kind_PinObjectAtGCTime:
    if (n == 1) {
      s->pinobj1 = *ev;
      snprintf(s->pin_type, sizeof s->pin_type, "%s", ev->u.PinObjectAtGCTime.TypeName);
    }
    break;
  default: break;
  }
  return 0;
}

static int stop_after_10(const struct gcs_event *ev, void *ud) {
  (void)ev;
  return ++*(int *)ud == 10;
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: %s FILE\n", argv[0]); return 2; }
  struct state *s = calloc(1, sizeof *s);
  if (!s) return 2;
  const struct pause_probe probes[5] = {
    { 1, 4919499, 0, 0 }, { 2, 12535134, 0, 0 }, { 100, 12728790, 0, 0 },
    { 250, 14548515, 0, 0 }, { 478, 28646019, 0, 0 },
  };
  memcpy(s->pauses, probes, sizeof probes);

  struct gcs_nettrace_info info;
  char err[512];
  CHECK_EQ_U64(gcs_nettrace_is_nettrace(argv[1]), 1);
  int rc = gcs_nettrace_read(argv[1], on_event, s, &info, err, sizeof err);
  if (rc != 0) fprintf(stderr, "%s\n", err);
  CHECK_EQ_U64(rc, 0);

  /* Trace object and totals. */
  CHECK_EQ_U64(info.pid, 10064);
  CHECK_EQ_U64(info.pointer_size, 8);
  CHECK_EQ_U64(info.format_version, 4);
  CHECK_EQ_U64(info.start_ns, SYNC_NS);
  CHECK_EQ_U64(info.end_ns, 1560643058334240574ull);
  CHECK_EQ_U64(info.events_total, 105540);
  CHECK_EQ_U64(info.events_decoded, 64258);
  CHECK_EQ_U64(info.events_lost, 0);
  CHECK_STR(info.command_line, "");  /* no ProcessInfo nor RuntimeInformation in this file */
  CHECK_EQ_U64(s->out_of_order, 0);
  CHECK_EQ_U64(s->bad_pid, 0);

  /* Counts per kind (PerfView baseline). */
  CHECK_EQ_U64(s->counts[gcs_kind_GCStart], 478);
  CHECK_EQ_U64(s->counts[gcs_kind_GCEnd], 478);
  CHECK_EQ_U64(s->counts[gcs_kind_GCTriggered], 478);
  CHECK_EQ_U64(s->counts[gcs_kind_GCHeapStats], 478);
  CHECK_EQ_U64(s->counts[gcs_kind_GCPerHeapHistory], 478);
  CHECK_EQ_U64(s->counts[gcs_kind_GCGlobalHeapHistory], 478);
  CHECK_EQ_U64(s->counts[gcs_kind_GCSuspendEEBegin], 5953);
  CHECK_EQ_U64(s->counts[gcs_kind_GCSuspendEEEnd], 5953);
  CHECK_EQ_U64(s->counts[gcs_kind_GCRestartEEBegin], 6002);
  CHECK_EQ_U64(s->counts[gcs_kind_GCRestartEEEnd], 6002);
  CHECK_EQ_U64(s->counts[gcs_kind_GCAllocationTick], 35458);
  CHECK_EQ_U64(s->counts[gcs_kind_GCMarkWithType], 1912);
  CHECK_EQ_U64(s->counts[gcs_kind_PinObjectAtGCTime], 45);
  CHECK_EQ_U64(s->counts[gcs_kind_PinPlugAtGCTime], 46);
  CHECK_EQ_U64(s->counts[gcs_kind_GCFinalizersBegin], 2);
  CHECK_EQ_U64(s->counts[gcs_kind_GCFinalizersEnd], 2);
  CHECK_EQ_U64(s->counts[gcs_kind_IncreaseMemoryPressure], 15);
  CHECK_EQ_U64(s->counts[gcs_kind_RuntimeInformationStart], 0);
  CHECK_EQ_U64(s->depth[0], 473);
  CHECK_EQ_U64(s->depth[1], 5);
  CHECK_EQ_U64(s->depth[2], 0);

  /* GCStart payloads, threads, times. */
  const struct gcs_event *g = &s->gcstart1;
  CHECK_EQ_U64(g->version, 2);
  CHECK_EQ_U64(g->u.GCStart.Count, 1);
  CHECK_EQ_U64(g->u.GCStart.Depth, 0);
  CHECK_EQ_U64(g->u.GCStart.Reason, 0);
  CHECK_EQ_U64(g->u.GCStart.Type, 0);
  CHECK_EQ_U64(g->u.GCStart.ClrInstanceID, 3);
  CHECK_EQ_U64(g->tid, 12272);
  CHECK_EQ_U64(g->ts_ns, 1560643025209940736ull);
  CHECK_EQ_U64((g->ts_ns - SYNC_NS) / 100000, 54559);  /* baseline: MSec 5455.9407 */
  g = &s->gcstart3;
  CHECK_EQ_U64(g->u.GCStart.Count, 3);
  CHECK_EQ_U64(g->u.GCStart.Depth, 1);
  CHECK_EQ_U64(g->tid, 12272);
  CHECK_EQ_U64(g->ts_ns, 1560643025342714378ull);
  g = &s->gcstart478;
  CHECK_EQ_U64(g->u.GCStart.Count, 478);
  CHECK_EQ_U64(g->u.GCStart.Depth, 0);
  CHECK_EQ_U64(g->tid, 8340);
  CHECK_EQ_U64(g->ts_ns, 1560643057957389521ull);

  /* GC 1's GCHeapStats_V1 (baseline values), and GC 478's. */
  const struct gcs_ev_GCHeapStats *h = &s->heapstats1.u.GCHeapStats;
  CHECK_EQ_U64(s->heapstats1.version, 1);
  CHECK_EQ_U64(s->heapstats1.ts_ns, 1560643025229997079ull);
  CHECK_EQ_U64(h->GenerationSize0, 24);
  CHECK_EQ_U64(h->TotalPromotedSize0, 175504);
  CHECK_EQ_U64(h->GenerationSize1, 209352);
  CHECK_EQ_U64(h->TotalPromotedSize1, 0);
  CHECK_EQ_U64(h->GenerationSize2, 24);
  CHECK_EQ_U64(h->GenerationSize3, 36016);
  CHECK_EQ_U64(h->PinnedObjectCount, 2);
  CHECK_EQ_U64(h->SinkBlockCount, 14);
  CHECK_EQ_U64(h->GCHandleCount, 55);
  CHECK_EQ_U64(h->ClrInstanceID, 3);
  CHECK_EQ_U64(h->GenerationSize4, 0);  /* not in V1 */
  h = &s->heapstats478.u.GCHeapStats;
  CHECK_EQ_U64(h->GenerationSize0, 2778616);
  CHECK_EQ_U64(h->TotalPromotedSize0, 145776);
  CHECK_EQ_U64(h->GenerationSize1, 306760);
  CHECK_EQ_U64(h->GenerationSize2, 191944);
  CHECK_EQ_U64(h->GenerationSize3, 36016);
  CHECK_EQ_U64(h->SinkBlockCount, 13);
  CHECK_EQ_U64(h->GCHandleCount, 75);

  /* GCPerHeapHistory_V3 of GC 1 (baseline GenData Gen0) and GC 3. */
  const struct gcs_ev_GCPerHeapHistory *p = &s->perheap1.u.GCPerHeapHistory;
  CHECK_EQ_U64(s->perheap1.truncated, 0);
  CHECK_EQ_U64(p->Count, 4);
  CHECK_EQ_U64(p->ExtraGen0Commit, 3005960);
  CHECK_EQ_U64(p->CompactMechanisms, 0x80000002u);
  CHECK_EQ_U64(p->SizeBefore[0], 3154608);
  CHECK_EQ_U64(p->FreeObjBefore[0], 768160);
  CHECK_EQ_U64(p->SizeAfter[0], 24);
  CHECK_EQ_U64(p->PinnedSurv[0], 4936);
  CHECK_EQ_U64(p->NonePinnedSurv[0], 170568);
  CHECK_EQ_U64(p->NewAllocation[0], 3510080);
  CHECK_EQ_U64(p->SizeAfter[1], 209352);
  CHECK_EQ_U64(p->FreeListAfter[1], 32864);
  CHECK_EQ_U64(p->FreeObjAfter[1], 24);
  CHECK_EQ_U64(p->In[1], 171336);
  CHECK_EQ_U64(p->SizeBefore[3], 36016);
  p = &s->perheap3.u.GCPerHeapHistory;
  CHECK_EQ_U64(p->CondemnedAllocated, 145984);
  CHECK_EQ_U64(p->PinnedAllocated, 9104);
  CHECK_EQ_U64(p->CondemnReasons0, 20);
  CHECK_EQ_U64(p->ExtraGen0Commit, 3146744);
  CHECK_EQ_U64(p->SizeBefore[1], 274904);
  CHECK_EQ_U64(p->FreeListBefore[1], 4904);
  CHECK_EQ_U64(p->SizeAfter[1], 36624);
  CHECK_EQ_U64(p->In[1], 36384);
  CHECK_EQ_U64(p->PinnedSurv[1], 4168);
  CHECK_EQ_U64(p->NonePinnedSurv[1], 145984);
  CHECK_EQ_U64(p->NewAllocation[1], 1051064);
  CHECK_EQ_U64(p->SizeAfter[2], 183520);
  CHECK_EQ_U64(p->FreeListAfter[2], 33344);

  /* GCGlobalHeapHistory_V2 of GC 1. */
  const struct gcs_ev_GCGlobalHeapHistory *gh = &s->global1.u.GCGlobalHeapHistory;
  CHECK_EQ_U64(s->global1.version, 2);
  CHECK_EQ_U64(gh->FinalYoungestDesired, 0x358F40);
  CHECK_EQ_U64(gh->NumHeaps, 1);
  CHECK_EQ_U64(gh->CondemnedGeneration, 0);
  CHECK_EQ_U64(gh->GlobalMechanisms, 22);  /* Compaction, Promotion, CardBundles */
  CHECK_EQ_U64(gh->ClrInstanceID, 3);
  CHECK_EQ_U64(gh->PauseMode, 1);
  CHECK_EQ_U64(gh->MemoryPressure, 0);

  /* First GCAllocationTick_V3 and PinObjectAtGCTime (strings). */
  const struct gcs_ev_GCAllocationTick *a = &s->alloctick1.u.GCAllocationTick;
  CHECK_EQ_U64(s->alloctick1.version, 3);
  CHECK_EQ_U64(s->alloctick1.tid, 6920);
  CHECK_EQ_U64(s->alloctick1.ts_ns, 1560643022085804785ull);
  CHECK_EQ_U64(a->AllocationAmount, 0x196A0);
  CHECK_EQ_U64(a->AllocationKind, 0);
  CHECK_EQ_U64(a->AllocationAmount64, 104096);
  CHECK_EQ_U64(a->TypeID, 0x7FFEA911EA28ull);
  CHECK_EQ_U64(a->HeapIndex, 0);
  CHECK_EQ_U64(a->Address, 0x19A00017FE8ull);
  CHECK_STR(s->alloc_type, "System.Object[]");
  const struct gcs_ev_PinObjectAtGCTime *po = &s->pinobj1.u.PinObjectAtGCTime;
  CHECK_EQ_U64(po->HandleID, 0x6EB657D4D8ull);
  CHECK_EQ_U64(po->ObjectID, 0x19A0001B408ull);
  CHECK_EQ_U64(po->ObjectSize, 4120);
  CHECK_EQ_U64(po->ClrInstanceID, 3);
  CHECK_STR(s->pin_type, "System.Byte[]");

  /* Pauses: RestartEEEnd - SuspendEEBegin of the same GC. */
  for (int i = 0; i < 5; i++) {
    CHECK_EQ_U64(s->pauses[i].seen, 1);
    CHECK_EQ_U64(s->pauses[i].got_ns, s->pauses[i].expected_ns);
  }

  /* A non-zero callback return stops the read without an error. */
  int seen = 0;
  rc = gcs_nettrace_read(argv[1], stop_after_10, &seen, &info, err, sizeof err);
  CHECK_EQ_U64(rc, 0);
  CHECK_EQ_U64(seen, 10);
  CHECK_EQ_U64(info.events_decoded, 10);

  /* Without a callback only info is filled. */
  rc = gcs_nettrace_read(argv[1], NULL, NULL, &info, err, sizeof err);
  CHECK_EQ_U64(rc, 0);
  CHECK_EQ_U64(info.events_decoded, 64258);

  free(s);
  return check_done();
}
