/* rgc_trace.c — librgc's tracepoints. librgc does not link liblttng-ust: the
 * tracepoints are defined here with dynamic probe linkage and the probes live
 * in librgc-tp.so, dlopen()ed at start-up (found next to librgc.so, or named
 * by RGC_TP_LIBRARY). If it cannot be loaded, tracing is off, silently.
 * Every emitter fills its event struct only when the tracepoint is enabled. */
#include <dlfcn.h>
#include <link.h>
#include <execinfo.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>

#define TRACEPOINT_DEFINE
#define TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "rgc_tp.h"

#include "rgc_internal.h"

static void *tp_handle;
static int stacks_on;   /* RGC_Stacks=1: the GCS_STACKED_ events carry the stack */
static int stacks_verify;   /* RGC_StacksVerify=1: every stack walked both ways, compared */
static void warm_stacks(void);

void rgc_trace_init(void) {
  if (tp_handle) return;
  const char *lib = getenv("RGC_TP_LIBRARY");
  char path[PATH_MAX];
  if (!lib) {
    Dl_info info;
    if (!dladdr((void *)rgc_trace_init, &info) || !info.dli_fname) return;
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", info.dli_fname);
    snprintf(path, sizeof path, "%s/librgc-tp.so", dirname(tmp));
    lib = path;
  }
  if (!*lib) return;
  tp_handle = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
  const char *st = getenv("RGC_Stacks");
  if (tp_handle && st && strcmp(st, "1") == 0) {
    stacks_on = 1;
    const char *v = getenv("RGC_StacksVerify");
    stacks_verify = v && strcmp(v, "1") == 0;
    warm_stacks();
  }
}

void rgc_trace_fini(void) {
  /* The probe provider stays loaded: unloading it while another runtime
   * instance or lttng-ust's threads may still reference it is not safe. */
}

#define EMIT(sym, Name, FILL) do { \
    if (tracepoint_enabled(rgc, sym)) { \
      struct gcs_ev_##Name e; memset(&e, 0, sizeof e); FILL; \
      do_tracepoint(rgc, sym, &e); } } while (0)

/* The calling thread's stack for the events marked GCS_STACKED_ in the
 * schema, from the .eh_frame tables every ELF has (the program needs no
 * frame pointers): rgc_unwind() (rgc_unwind.c: each call site's rule worked
 * out once, then a look-up and two loads a frame), or glibc backtrace()
 * where it declines; leaf first, with the leading frames up to and inside
 * librgc.so itself cut (the user's code starts at the first frame outside
 * it); at most GCS_STACK_MAX_DEPTH frames. Only when the process runs with
 * RGC_Stacks=1 (gcscope record --stacks sets it for the command it starts)
 * and the event's tracepoint is enabled; SetGCHandle only for pinned
 * handles. RGC_StacksVerify=1 (tests) walks every stack both ways and
 * reports any difference on stderr, and the count at exit. */
static uintptr_t self_lo, self_hi;   /* librgc's executable segment */

static int find_self(struct dl_phdr_info *info, size_t size, void *ud) {
  (void)size;
  uintptr_t me = (uintptr_t)ud;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (me >= lo && me < hi) { self_lo = lo; self_hi = hi; return 1; }
  }
  return 0;
}

enum { STK_SLACK = 16, STK_RAW = GCS_STACK_MAX_DEPTH + STK_SLACK };

/* raw[0..n) leaf first as walked from inside librgc: the user's frames
 * into ip. */
static uint8_t cut_self(const uint64_t *raw, int n, uint64_t *ip) {
  int i = 0, k = 0;
#define IN_SELF(p) ((p) >= self_lo && (p) < self_hi)
  /* Frames before librgc's (a sanitizer's backtrace interceptor), then
   * librgc's own. */
  while (i < n && !IN_SELF(raw[i])) i++;
  if (i == n) i = 0;   /* librgc's range unknown: keep every frame */
  while (i < n && IN_SELF(raw[i])) i++;
#undef IN_SELF
  for (; i < n && k < GCS_STACK_MAX_DEPTH; i++) ip[k++] = raw[i];
  return (uint8_t)k;
}

static int walk_glibc(uint64_t *raw) {
  void *r[STK_RAW];
  int n = backtrace(r, STK_RAW);
  for (int i = 0; i < n; i++) raw[i] = (uint64_t)(uintptr_t)r[i];
  return n;
}

static _Atomic uint64_t verify_walks, verify_differ, verify_glibc;

static void verify_report(void) {
  fprintf(stderr, "librgc: RGC_StacksVerify: %llu stacks walked both ways, %llu differed; rgc_unwind declined %llu\n",
          (unsigned long long)atomic_load(&verify_walks), (unsigned long long)atomic_load(&verify_differ),
          (unsigned long long)atomic_load(&verify_glibc));
}

static void verify(const uint64_t *ip, uint8_t k) {
  uint64_t raw[STK_RAW], ip2[GCS_STACK_MAX_DEPTH];
  uint8_t k2 = cut_self(raw, walk_glibc(raw), ip2);
  atomic_fetch_add(&verify_walks, 1);
  if (k == k2 && !memcmp(ip, ip2, k * sizeof *ip)) return;
  if (atomic_fetch_add(&verify_differ, 1) >= 3) return;
  fprintf(stderr, "librgc: RGC_StacksVerify: stacks differ (%u frames, backtrace() %u):", (unsigned)k, (unsigned)k2);
  for (int i = 0; i < k || i < k2; i++)
    fprintf(stderr, " %llx/%llx", i < k ? (unsigned long long)ip[i] : 0ull, i < k2 ? (unsigned long long)ip2[i] : 0ull);
  fputc('\n', stderr);
}

static uint8_t capture(uint64_t *ip) {
  uint64_t raw[STK_RAW];
  int n = rgc_unwind(raw, STK_RAW);
  if (n < 0) {
    if (stacks_verify) atomic_fetch_add(&verify_glibc, 1);
    n = walk_glibc(raw);
  }
  uint8_t k = cut_self(raw, n, ip);
  if (stacks_verify) verify(ip, k);
  return k;
}

#define EMIT_STK(sym, Name, WANT, FILL) do { \
    if (tracepoint_enabled(rgc, sym)) { \
      struct gcs_ev_##Name e; memset(&e, 0, sizeof e); FILL; \
      uint64_t ip[GCS_STACK_MAX_DEPTH]; uint8_t n = (WANT) && stacks_on ? capture(ip) : 0; \
      do_tracepoint(rgc, sym, &e, ip, n); } } while (0)

static void warm_stacks(void) {
  /* backtrace() loads libgcc_s on its first call: do it at start-up, not
   * inside an allocation. */
  void *raw[2];
  (void)backtrace(raw, 2);
  rgc_unwind_init();
  if (!self_hi) dl_iterate_phdr(find_self, (void *)(uintptr_t)warm_stacks);
  if (stacks_verify) atexit(verify_report);
}

void rgc_ev_runtime_info(struct rgc_runtime *rt) {
  EMIT(RuntimeInformation, RuntimeInformation, {
    e.ServerGC = (uint32_t)rt->cfg.server; e.Concurrent = (uint32_t)rt->cfg.concurrent;
    e.HeapCount = (uint32_t)rt->nheaps; e.LOHThreshold = rt->cfg.loh_threshold;
    e.Gen0Budget = rt->gen0_min; e.HeapHardLimit = rt->cfg.heap_hard_limit;
    e.Version = RGC_VERSION; e.CommandLine = rt->cmdline ? rt->cmdline : "";
  });
}
void rgc_ev_suspend_begin(uint32_t count, enum gcs_suspend_reason reason) {
  EMIT(GCSuspendEEBegin_V1, GCSuspendEEBegin, { e.Reason = reason; e.Count = count; });
}
void rgc_ev_suspend_end(void) { EMIT(GCSuspendEEEnd_V1, GCSuspendEEEnd, {}); }
/* GCTriggered comes from the GC thread: the stack is the requester's,
 * walked by rgc_request_gc (rgc_trace_request_stack). */
void rgc_ev_triggered(uint32_t reason, const uint64_t *stk_ip, uint8_t stk_n) {
  if (tracepoint_enabled(rgc, GCTriggered)) {
    struct gcs_ev_GCTriggered e;
    memset(&e, 0, sizeof e);
    e.Reason = reason;
    do_tracepoint(rgc, GCTriggered, &e, stk_ip, stacks_on ? stk_n : 0);
  }
}
uint8_t rgc_trace_request_stack(uint64_t *ip) {
  return stacks_on && tracepoint_enabled(rgc, GCTriggered) ? capture(ip) : 0;
}
void rgc_ev_gc_start(uint32_t count, uint32_t depth, uint32_t reason, uint32_t type, uint64_t seq) {
  EMIT(GCStart_V2, GCStart, {
    e.Count = count; e.Depth = depth; e.Reason = reason; e.Type = type; e.ClientSequenceNumber = seq;
  });
}
void rgc_ev_bgc(enum rgc_bgc_event which) {
  switch (which) {
  case RGC_EV_BGC_BEGIN: EMIT(BGCBegin, BGCBegin, {}); break;
  case RGC_EV_BGC_1ST_NONCON_END: EMIT(BGC1stNonConEnd, BGC1stNonConEnd, {}); break;
  case RGC_EV_BGC_1ST_CON_END: EMIT(BGC1stConEnd, BGC1stConEnd, {}); break;
  case RGC_EV_BGC_2ND_NONCON_BEGIN: EMIT(BGC2ndNonConBegin, BGC2ndNonConBegin, {}); break;
  case RGC_EV_BGC_2ND_NONCON_END: EMIT(BGC2ndNonConEnd, BGC2ndNonConEnd, {}); break;
  case RGC_EV_BGC_2ND_CON_BEGIN: EMIT(BGC2ndConBegin, BGC2ndConBegin, {}); break;
  case RGC_EV_BGC_2ND_CON_END: EMIT(BGC2ndConEnd, BGC2ndConEnd, {}); break;
  case RGC_EV_BGC_1ST_SWEEP_END: EMIT(BGC1stSweepEnd, BGC1stSweepEnd, { e.GenNumber = GCS_GEN2; }); break;
  }
}
void rgc_ev_bgc_alloc_wait(int begin, enum gcs_bgc_wait_reason reason) {
  if (begin) EMIT(BGCAllocWaitBegin, BGCAllocWaitBegin, { e.Reason = reason; });
  else EMIT(BGCAllocWaitEnd, BGCAllocWaitEnd, { e.Reason = reason; });
}
void rgc_ev_mark(uint32_t heap, uint32_t type, uint64_t bytes) {
  EMIT(GCMarkWithType, GCMarkWithType, { e.HeapNum = heap; e.Type = type; e.Bytes = bytes; });
}
void rgc_ev_pin(struct rgc_runtime *rt, struct rgc_handle_slot *s) {
  (void)rt;
  EMIT(PinObjectAtGCTime, PinObjectAtGCTime, {
    void *o = atomic_load_explicit(&s->obj, memory_order_relaxed);
    struct rgc_hdr *h = hdr_of(o);
    e.HandleID = (uint64_t)(uintptr_t)s; e.ObjectID = (uint64_t)(uintptr_t)o;
    e.ObjectSize = h->size; e.TypeName = ((const struct rgc_type *)h->tw)->name;
  });
}
void rgc_ev_history(struct rgc_runtime *rt, const struct rgc_gc_record *rec) {
  EMIT(GCGlobalHeapHistory_V4, GCGlobalHeapHistory, {
    for (int hi = 0; hi < rec->nheaps; hi++) e.FinalYoungestDesired += (uint64_t)rt->heaps[hi].desired[0];
    e.NumHeaps = rec->nheaps;
    e.CondemnedGeneration = rec->gen; e.Gen0ReductionCount = 0; e.Reason = rec->reason;
    e.GlobalMechanisms = (gcs_type_is_background(rec->type) ? GCS_GLOBAL_MECHANISMS_CONCURRENT : 0u) |
                         (rec->compacted ? GCS_GLOBAL_MECHANISMS_COMPACTION : 0u) |
                         (rec->promoted_any ? GCS_GLOBAL_MECHANISMS_PROMOTION : 0u) |
                         (rec->demoted ? GCS_GLOBAL_MECHANISMS_DEMOTION : 0u);
    e.PauseMode = rec->pause_mode;
    e.MemoryPressure = (uint32_t)rec->mem_load_pct;  /* read once per GC, shared with rgc_memory_info */
    e.CondemnReasons0 = rec->r0; e.CondemnReasons1 = rec->r1;
    e.Count = RGC_NPHASES;  /* Times: mark, plan+relocate+fix-up, sweep (microseconds) */
    for (int i = 0; i < RGC_NPHASES; i++) e.Times[i] = (uint32_t)rec->phase_us[i];
  });
  for (int hi = 0; hi < rec->nheaps; hi++) {
    const struct rgc_heap_rec *hr = &rec->heap[hi];
    const struct rgc_heap *h = &rt->heaps[hi];
    EMIT(GCPerHeapHistory_V3, GCPerHeapHistory, {
      e.FreeListAllocated = hr->fl_allocated; e.FreeListRejected = 0;
      e.EndOfSegAllocated = hr->eos_allocated; e.CondemnedAllocated = hr->condemned_allocated;
      e.CondemnReasons0 = rec->r0; e.CondemnReasons1 = rec->r1;
      e.CompactMechanisms = rec->compact_mech; e.ExpandMechanisms = 0; e.HeapIndex = (uint32_t)hi;
      e.Count = RGC_NGEN;
      for (int g = 0; g < RGC_NGEN; g++) {
        e.SizeBefore[g] = hr->size_before[g]; e.FreeListBefore[g] = hr->fl_before[g];
        e.FreeObjBefore[g] = hr->fo_before[g]; e.SizeAfter[g] = hr->size_after[g];
        e.FreeListAfter[g] = hr->fl_after[g]; e.FreeObjAfter[g] = hr->fo_after[g];
        e.In[g] = hr->in[g]; e.PinnedSurv[g] = hr->pinned_surv[g];
        e.NonePinnedSurv[g] = hr->surv[g] - hr->pinned_surv[g];
        e.NewAllocation[g] = h->new_alloc[g] > 0 ? (uint64_t)h->new_alloc[g] : 0;
      }
    });
  }
}
void rgc_ev_gc_end(uint32_t count, uint32_t depth) {
  EMIT(GCEnd_V1, GCEnd, { e.Count = count; e.Depth = depth; });
}
void rgc_ev_cpu(uint32_t count, uint64_t ns) {
  EMIT(GCCpuTime, GCCpuTime, { e.Count = count; e.CpuNsec = ns; });
}
void rgc_ev_heap_stats(struct rgc_runtime *rt, const struct rgc_gc_record *rec) {
  EMIT(GCHeapStats_V2, GCHeapStats, {
    e.GenerationSize0 = rec->size_after[0]; e.GenerationSize1 = rec->size_after[1];
    e.GenerationSize2 = rec->size_after[2]; e.GenerationSize3 = rec->size_after[3];
    e.GenerationSize4 = rec->size_after[4];
    e.TotalPromotedSize0 = rec->surv[0];
    if (rec->gen >= GCS_GEN1) e.TotalPromotedSize1 = rec->surv[1];
    if (rec->gen >= GCS_GEN2) {
      e.TotalPromotedSize2 = rec->surv[2]; e.TotalPromotedSize3 = rec->surv[3];
      e.TotalPromotedSize4 = rec->surv[4];
    }
    e.FinalizationPromotedSize = rec->fin_promoted_bytes;
    e.FinalizationPromotedCount = rec->fin_promoted_count;
    e.PinnedObjectCount = (uint32_t)rec->pinned_count; e.SinkBlockCount = 0;
    e.GCHandleCount = atomic_load(&rt->handle_count);
  });
}
void rgc_ev_restart_begin(void) { EMIT(GCRestartEEBegin_V1, GCRestartEEBegin, {}); }
void rgc_ev_restart_end(void) { EMIT(GCRestartEEEnd_V1, GCRestartEEEnd, {}); }
void rgc_ev_fin_begin(void) { EMIT(GCFinalizersBegin_V1, GCFinalizersBegin, {}); }
void rgc_ev_fin_end(uint32_t count) { EMIT(GCFinalizersEnd_V1, GCFinalizersEnd, { e.Count = count; }); }
void rgc_ev_alloc_tick(enum gcs_alloc_kind kind, uint64_t amount, const struct rgc_type *ty, uint32_t heap,
                       void *obj, uint64_t size) {
  EMIT_STK(GCAllocationTick_V4, GCAllocationTick, 1, {
    e.AllocationAmount = amount > UINT32_MAX ? UINT32_MAX : (uint32_t)amount;
    e.AllocationKind = kind; e.AllocationAmount64 = amount;
    e.TypeID = (uint64_t)(uintptr_t)ty; e.TypeName = ty->name; e.HeapIndex = heap;
    e.Address = (uint64_t)(uintptr_t)obj; e.ObjectSize = size;
  });
}
void rgc_ev_set_handle(void *h, void *obj, uint32_t kind, uint32_t gen) {
  EMIT_STK(SetGCHandle, SetGCHandle, kind == GCS_HANDLE_KIND_PINNED, {
    e.HandleID = (uint64_t)(uintptr_t)h; e.ObjectID = (uint64_t)(uintptr_t)obj;
    e.Kind = kind; e.Generation = gen;
  });
}
void rgc_ev_destroy_handle(void *h) {
  EMIT(DestroyGCHandle, DestroyGCHandle, { e.HandleID = (uint64_t)(uintptr_t)h; });
}
void rgc_ev_segment_create(void *addr, uint64_t size, enum gcs_segment_type type) {
  EMIT(GCCreateSegment_V1, GCCreateSegment, {
    e.Address = (uint64_t)(uintptr_t)addr; e.Size = size; e.Type = type;
  });
}
void rgc_ev_segment_free(void *addr) {
  EMIT(GCFreeSegment_V1, GCFreeSegment, { e.Address = (uint64_t)(uintptr_t)addr; });
}
void rgc_ev_request(int start, uint64_t id) {
  if (start) EMIT(RequestStart, RequestStart, { e.Id = id; });
  else EMIT(RequestStop, RequestStop, { e.Id = id; });
}
