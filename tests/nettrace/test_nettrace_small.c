/*
 * test_nettrace_small.c — reads the hand-made corpus/valid-small.nettrace
 * (written by tools/make_corpus.py) whose every byte is known:
 *  Trace: 2024-01-02 03:04:05.678 UTC (1704164645 s, from `date -u`), QPC
 *    1000 at that instant, 1e9 ticks/s, pid 4242, pointer size 8.
 *  MetadataBlock: 10 records; GCStart_V2 carries a V5 opcode tag.
 *  EventBlock 1 (compressed headers), in file order:
 *    SuspendEEBegin ts 2000 thr 100 seq 1 | sampler event ts 1500 thr 200 |
 *    GCStart(1) ts 2500 | GCEnd ts 3000 | RestartEEEnd ts 3500 (thr 100,
 *    seq 2..4) | GCTriggered(AllocLarge) ts 2400 thr 300 cpu 0.
 *  StackBlock, then SPBlock: thr 100 at seq 4, thr 200 at 3 (2 lost), 300 at 1.
 *  EventBlock 2 (uncompressed headers), thr 100: GCStart(2) ts 5000 seq 7
 *    (5 and 6 lost) | ProcessInfo "app --gc" ts 5100 | rundown
 *    RuntimeInformation ts 5200 | GCHeapStats_V1 ts 5050 | GCPerHeapHistory_V3
 *    ts 5040 (Count 4, gen g field i = 1000*(g+1)+i).
 * Read again with gcs_nettrace_read_lost: the two gaps as lost records, each
 * with its window, in their place among the events.
 * Usage: test_nettrace_small FILE
 */
#include "gcs_nettrace.h"
#include "check.h"

#define T0 1704164645678000000ull  /* SyncTimeUTC in ns */

struct seen { enum gcs_kind kind; uint64_t ts; int32_t tid, cpu; };

struct state {
  struct seen v[16];
  int n;
  struct gcs_event start2, heap, perheap, rinfo, suspend, triggered;
  char cmdline[64], dllpath[128];
};

static int on_event(const struct gcs_event *ev, void *ud) {
  struct state *s = ud;
  if (s->n < 16) s->v[s->n] = (struct seen){ ev->kind, ev->ts_ns, ev->tid, ev->cpu };
  s->n++;
  switch (ev->kind) {
  case gcs_kind_GCStart: if (ev->u.GCStart.Count == 2) s->start2 = *ev; break;
  case gcs_kind_GCHeapStats: s->heap = *ev; break;
  case gcs_kind_GCPerHeapHistory: s->perheap = *ev; break;
  case gcs_kind_GCSuspendEEBegin: s->suspend = *ev; break;
  case gcs_kind_GCTriggered: s->triggered = *ev; break;
  case gcs_kind_RuntimeInformationStart:
    s->rinfo = *ev;
    snprintf(s->cmdline, sizeof s->cmdline, "%s", ev->u.RuntimeInformationStart.CommandLine);
    snprintf(s->dllpath, sizeof s->dllpath, "%s", ev->u.RuntimeInformationStart.RuntimeDllPath);
    break;
  default: break;
  }
  CHECK(ev->pid == 4242 && ev->origin == GCS_ORIGIN_CLR);
  return 0;
}

/* The same file with the gaps as lost records: events and records in one
 * list, in delivery order. */
struct item { int lost; enum gcs_kind kind; uint64_t ts, begin, end, count, thread; int at_sp; };
struct order { struct item v[16]; int n; uint64_t horizon[4]; int nh; };

static int on_event_o(const struct gcs_event *ev, void *ud) {
  struct order *o = ud;
  if (o->n < 16) o->v[o->n] = (struct item){ 0, ev->kind, ev->ts_ns, 0, 0, 0, 0, 0 };
  o->n++;
  return 0;
}

static int on_lost_o(const struct gcs_nettrace_lost *l, void *ud) {
  struct order *o = ud;
  if (o->n < 16) o->v[o->n] = (struct item){ 1, 0, 0, l->begin_ns, l->end_ns, l->count, l->capture_thread,
                                             l->at_sequence_point };
  o->n++;
  return 0;
}

static void on_horizon_o(uint64_t ns, void *ud) {
  struct order *o = ud;
  if (o->nh < 4) o->horizon[o->nh] = ns;
  o->nh++;
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: %s FILE\n", argv[0]); return 2; }
  static struct state s;
  struct gcs_nettrace_info info;
  char err[512];
  int rc = gcs_nettrace_read(argv[1], on_event, &s, &info, err, sizeof err);
  if (rc != 0) fprintf(stderr, "%s\n", err);
  CHECK_EQ_U64(rc, 0);

  CHECK_EQ_U64(info.pid, 4242);
  CHECK_EQ_U64(info.pointer_size, 8);
  CHECK_EQ_U64(info.format_version, 5);
  CHECK_EQ_U64(info.start_ns, T0);
  CHECK_EQ_U64(info.end_ns, T0 + 4200);
  CHECK_EQ_U64(info.events_total, 11);
  CHECK_EQ_U64(info.events_decoded, 9);
  CHECK_EQ_U64(info.events_lost, 4);
  CHECK_STR(info.command_line, "app --gc");  /* ProcessInfo wins over RuntimeInformation */
  CHECK_STR(info.hostname, "");

  /* Timestamp order inside each region; the sampler and ProcessInfo events
   * are not delivered. */
  const struct seen want[9] = {
    { gcs_kind_GCSuspendEEBegin, T0 + 1000, 100, 1 },
    { gcs_kind_GCTriggered, T0 + 1400, 300, 0 },
    { gcs_kind_GCStart, T0 + 1500, 100, 1 },
    { gcs_kind_GCEnd, T0 + 2000, 100, 1 },
    { gcs_kind_GCRestartEEEnd, T0 + 2500, 100, 1 },
    { gcs_kind_GCStart, T0 + 4000, 100, 1 },
    { gcs_kind_GCPerHeapHistory, T0 + 4040, 100, 1 },
    { gcs_kind_GCHeapStats, T0 + 4050, 100, 1 },
    { gcs_kind_RuntimeInformationStart, T0 + 4200, 100, 1 },
  };
  CHECK_EQ_U64(s.n, 9);
  for (int i = 0; i < 9 && i < s.n; i++) {
    CHECK_EQ_U64(s.v[i].kind, want[i].kind);
    CHECK_EQ_U64(s.v[i].ts, want[i].ts);
    CHECK_EQ_U64(s.v[i].tid, want[i].tid);
    CHECK_EQ_U64(s.v[i].cpu, want[i].cpu);
  }

  CHECK_EQ_U64(s.suspend.u.GCSuspendEEBegin.Reason, 1);
  CHECK_EQ_U64(s.suspend.u.GCSuspendEEBegin.Count, 0);
  CHECK_EQ_U64(s.suspend.u.GCSuspendEEBegin.ClrInstanceID, 3);
  CHECK_EQ_U64(s.triggered.u.GCTriggered.Reason, 4);
  CHECK_EQ_U64(s.start2.version, 2);
  CHECK_EQ_U64(s.start2.u.GCStart.Depth, 1);
  CHECK_EQ_U64(s.start2.u.GCStart.Reason, 4);

  const struct gcs_ev_GCHeapStats *h = &s.heap.u.GCHeapStats;
  CHECK_EQ_U64(s.heap.version, 1);
  CHECK_EQ_U64(h->GenerationSize0, 100);
  CHECK_EQ_U64(h->TotalPromotedSize0, 10);
  CHECK_EQ_U64(h->GenerationSize3, 400);
  CHECK_EQ_U64(h->TotalPromotedSize3, 40);
  CHECK_EQ_U64(h->FinalizationPromotedSize, 5);
  CHECK_EQ_U64(h->FinalizationPromotedCount, 6);
  CHECK_EQ_U64(h->PinnedObjectCount, 7);
  CHECK_EQ_U64(h->SinkBlockCount, 8);
  CHECK_EQ_U64(h->GCHandleCount, 9);
  CHECK_EQ_U64(h->ClrInstanceID, 3);

  const struct gcs_ev_GCPerHeapHistory *p = &s.perheap.u.GCPerHeapHistory;
  CHECK_EQ_U64(p->FreeListAllocated, 1);
  CHECK_EQ_U64(p->PinnedAllocatedAdvance, 6);
  CHECK_EQ_U64(p->RunningFreeListEfficiency, 7);
  CHECK_EQ_U64(p->CondemnReasons0, 0x80000002u);
  CHECK_EQ_U64(p->CompactMechanisms, 0x10);
  CHECK_EQ_U64(p->ExtraGen0Commit, 99);
  CHECK_EQ_U64(p->Count, 4);
  CHECK_EQ_U64(p->SizeBefore[0], 1000);
  CHECK_EQ_U64(p->FreeObjAfter[0], 1005);
  CHECK_EQ_U64(p->In[2], 3006);
  CHECK_EQ_U64(p->NewAllocation[3], 4009);

  const struct gcs_ev_RuntimeInformationStart *ri = &s.rinfo.u.RuntimeInformationStart;
  CHECK_EQ_U64(ri->ClrInstanceID, 3);
  CHECK_EQ_U64(ri->Sku, 2);
  CHECK_EQ_U64(ri->BclMajorVersion, 8);
  CHECK_EQ_U64(ri->BclBuildNumber, 1);
  CHECK_EQ_U64(ri->VMMajorVersion, 8);
  CHECK_EQ_U64(ri->VMBuildNumber, 1);
  CHECK_EQ_U64(ri->StartupFlags, 0x1001);
  CHECK_EQ_U64(ri->StartupMode, 2);
  CHECK_EQ_U64(ri->ComObjectGuid.b[15], 0x11);
  CHECK_STR(s.cmdline, "ignored-cmd");
  CHECK_STR(s.dllpath, "/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.1/libcoreclr.so");

  /* The gaps placed in time: thread 200's 2 events lost between its
   * sampler event (ts 1500) and the sequence point (ts 4000), delivered
   * there; thread 100's 2 (seq 5, 6) between its RestartEEEnd (ts 3500) and
   * its GCStart (ts 5000), delivered before the second region's events.
   * The horizon: the oldest last event of a thread, thread 200's (1500),
   * from the first event on (no sequence point after it moves it). */
  static struct order o;
  struct gcs_nettrace_info info2;
  rc = gcs_nettrace_read_lost(argv[1], on_event_o, on_lost_o, on_horizon_o, &o, &info2, err, sizeof err);
  CHECK_EQ_U64(rc, 0);
  CHECK_EQ_U64(info2.events_lost, 4);
  CHECK_EQ_U64(info2.lost_records, 2);
  CHECK_EQ_U64(info2.lost_horizon_ns, T0 + 500);
  CHECK_EQ_U64(o.nh, 1);
  CHECK_EQ_U64(o.horizon[0], T0 + 500);
  const struct item order_want[11] = {
    { 0, gcs_kind_GCSuspendEEBegin, T0 + 1000, 0, 0, 0, 0, 0 },
    { 0, gcs_kind_GCTriggered, T0 + 1400, 0, 0, 0, 0, 0 },
    { 0, gcs_kind_GCStart, T0 + 1500, 0, 0, 0, 0, 0 },
    { 0, gcs_kind_GCEnd, T0 + 2000, 0, 0, 0, 0, 0 },
    { 0, gcs_kind_GCRestartEEEnd, T0 + 2500, 0, 0, 0, 0, 0 },
    { 1, 0, 0, T0 + 500, T0 + 3000, 2, 200, 1 },
    { 1, 0, 0, T0 + 2500, T0 + 4000, 2, 100, 0 },
    { 0, gcs_kind_GCStart, T0 + 4000, 0, 0, 0, 0, 0 },
    { 0, gcs_kind_GCPerHeapHistory, T0 + 4040, 0, 0, 0, 0, 0 },
    { 0, gcs_kind_GCHeapStats, T0 + 4050, 0, 0, 0, 0, 0 },
    { 0, gcs_kind_RuntimeInformationStart, T0 + 4200, 0, 0, 0, 0, 0 },
  };
  CHECK_EQ_U64(o.n, 11);
  for (int i = 0; i < 11 && i < o.n; i++) {
    const struct item *g = &o.v[i], *w = &order_want[i];
    CHECK_EQ_U64(g->lost, w->lost);
    CHECK_EQ_U64(g->kind, w->kind);
    CHECK_EQ_U64(g->ts, w->ts);
    CHECK_EQ_U64(g->begin, w->begin);
    CHECK_EQ_U64(g->end, w->end);
    CHECK_EQ_U64(g->count, w->count);
    CHECK_EQ_U64(g->thread, w->thread);
    CHECK_EQ_U64(g->at_sp, w->at_sp);
  }

  /* Live mode (issue 29, item 8): the same bytes as a stream that stops
   * before its end-of-stream tag, ordered with a 1 s lag. The sequence point
   * delivers EventBlock 1's 5 events; EventBlock 2's 4 stay pending (nothing
   * newer than them + 1 s arrives: an idle runtime) until the reader is told
   * the stream went quiet; then all 4, in timestamp order. */
  FILE *f = fopen(argv[1], "rb");
  static unsigned char bytes[1 << 16];
  size_t nb = f ? fread(bytes, 1, sizeof bytes, f) : 0;
  if (f) fclose(f);
  CHECK(nb > 1 && bytes[nb - 1] == 1);   /* the end-of-stream tag */
  static struct state live;
  struct gcs_nettrace_stream *ns = gcs_nettrace_stream_new("live", on_event, NULL, &live);
  CHECK(ns != NULL);
  if (ns) {
    gcs_nettrace_stream_set_live(ns, 1000000000ull);
    CHECK_EQ_U64(gcs_nettrace_stream_feed(ns, bytes, nb - 1, err, sizeof err), 0);
    CHECK_EQ_U64(live.n, 5);
    CHECK_EQ_U64(gcs_nettrace_stream_idle(ns, err, sizeof err), 0);
    CHECK_EQ_U64(live.n, 9);
    for (int i = 5; i < 9 && i < live.n; i++) {
      CHECK_EQ_U64(live.v[i].kind, want[i].kind);
      CHECK_EQ_U64(live.v[i].ts, want[i].ts);
    }
    CHECK_EQ_U64(gcs_nettrace_stream_idle(ns, err, sizeof err), 0);   /* nothing left: nothing again */
    CHECK_EQ_U64(live.n, 9);
    gcs_nettrace_stream_free(ns);
  }
  /* Live, with the lost records (serve, record --dotnet, top --dotnet): the
   * sequence point's after EventBlock 1's events; thread 100's waits with
   * EventBlock 2's events, before them, until the stream goes quiet. */
  static struct order lo;
  ns = gcs_nettrace_stream_new("live", on_event_o, NULL, &lo);
  CHECK(ns != NULL);
  if (ns) {
    gcs_nettrace_stream_set_live(ns, 1000000000ull);
    gcs_nettrace_stream_set_lost(ns, on_lost_o, on_horizon_o);
    CHECK_EQ_U64(gcs_nettrace_stream_feed(ns, bytes, nb - 1, err, sizeof err), 0);
    CHECK_EQ_U64(lo.n, 6);
    CHECK_EQ_U64(gcs_nettrace_stream_idle(ns, err, sizeof err), 0);
    CHECK_EQ_U64(lo.n, 11);
    for (int i = 0; i < 11 && i < lo.n; i++) {
      CHECK_EQ_U64(lo.v[i].lost, order_want[i].lost);
      CHECK_EQ_U64(lo.v[i].ts, order_want[i].ts);
      CHECK_EQ_U64(lo.v[i].begin, order_want[i].begin);
      CHECK_EQ_U64(lo.v[i].end, order_want[i].end);
    }
    CHECK_EQ_U64(gcs_nettrace_stream_info(ns)->lost_records, 2);
    gcs_nettrace_stream_free(ns);
  }
  return check_done();
}
