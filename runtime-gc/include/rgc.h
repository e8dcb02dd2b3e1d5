/*
 * rgc.h — librgc, a precise generational garbage collector modelled on the
 * .NET (CoreCLR) GC (workstation or server, blocking or background), emitting CoreCLR-named LTTng tracepoints
 * (provider `rgc`). This is librgc's one public header.
 *
 * Model
 *  - A runtime (rgc_runtime) owns a managed heap: generations 0, 1, 2 made of
 *    fixed-size regions, a large object heap (LOH, objects >= the LOH threshold,
 *    collected only with gen2, never moved) and a pinned object heap (POH).
 *  - Objects have registered types (rgc_register_type): payload size and the
 *    offsets of their reference fields, or arrays of values / of references.
 *    An object pointer (void *) points at the payload; it stays valid only
 *    until the next GC unless it is reachable from a root (objects move when a
 *    GC compacts).
 *  - Roots are precise: per-thread root slots (rgc_root), GC handles
 *    (rgc_handle_new) and the finalization queue.
 *  - Reference fields of heap objects must only be written through
 *    rgc_write_ref / RGC_SET / rgc_array_set (the write barrier keeps the card
 *    table that finds old-to-young references). RGC_VERIFY_HEAP=1 catches a
 *    forgotten barrier at the next GC.
 *
 * Threading
 *  - Every thread that touches managed objects attaches (rgc_attach_thread)
 *    and passes its rgc_thread to allocation and root calls; an rgc_thread is
 *    used only by the thread that attached it.
 *  - An attached thread is "cooperative": a GC waits until it reaches a
 *    safepoint (any allocation, rgc_safepoint). A thread that runs a long time
 *    without one holds up every GC's suspension (SuspendEE) — on purpose, it is
 *    how a long suspension can be reproduced. Between rgc_enter_native and
 *    rgc_leave_native a thread must not touch managed objects; it does not hold
 *    up suspension and rgc_leave_native blocks while a GC runs.
 *  - A workstation GC runs on the attached thread that triggers or induces
 *    it (as CoreCLR's) when no other attached thread runs managed code;
 *    otherwise, and when an unattached thread asks or a GC is already
 *    running, on a dedicated GC thread; server GC runs on the GC
 *    thread plus one helper thread per additional heap (in parallel);
 *    background GCs run their
 *    concurrent phases and second pause on a background GC thread;
 *    finalizers run on a finalizer thread.
 *  - Functions taking an rgc_runtime only (collect, counts, memory info, dump,
 *    request spans) may be called from any thread, attached or not.
 *
 * Ownership
 *  - rgc_create returns a runtime owned by the caller, freed by rgc_destroy
 *    after every thread has detached. Types and handles are owned by the
 *    runtime (handles until rgc_handle_free). Strings passed in are copied.
 *
 * Errors
 *  - rgc_create returns NULL and writes one line to err (if given) on a bad
 *    configuration or when memory cannot be reserved. Allocation returns NULL
 *    when the heap hard limit is reached even after a full compacting GC.
 *    Misuse (wrong thread, bad handle) is undefined; RGC_VERIFY_HEAP=1 aborts
 *    with a message on the first heap inconsistency it finds.
 */
#ifndef RGC_H
#define RGC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RGC_VERSION "0.1.0"

typedef struct rgc_runtime rgc_runtime;
typedef struct rgc_thread rgc_thread;
typedef struct rgc_type rgc_type;
typedef struct rgc_handle_slot *rgc_handle;

/* ---- Configuration -------------------------------------------------------
 * Environment knobs (read by rgc_config_from_env, which rgc_create applies on
 * top of the struct when cfg is NULL): values are decimal or 0x-hex integers.
 *   RGC_gcServer=0          1: server GC (one heap and GC thread per core)
 *   RGC_gcConcurrent=1      background GC for gen2 (0: gen2 GCs block)
 *   RGC_GCHeapCount=0       heaps for server GC (0: one per core, max 64);
 *                           workstation GC has exactly 1
 *   RGC_GCgen0size=N        initial/minimum gen0 budget in bytes
 *   RGC_GCgen0MaxBudget=N   maximum gen0 budget in bytes
 *   RGC_GCLOHThreshold=N    objects of N bytes or more go to the LOH
 *   RGC_GCHeapHardLimit=N   hard limit on committed heap bytes (0 = none)
 *   RGC_GCHighMemPercent=N  memory load (percent) that counts as high
 *   RGC_VERIFY_HEAP=1       verify the whole heap after every GC
 *   RGC_GCCompactMode=auto|compact|sweep   force the compact/sweep decision
 *   RGC_TP_LIBRARY=path     the LTTng probe provider to load (default:
 *                           librgc-tp.so next to librgc.so)
 */
enum rgc_compact_mode { RGC_COMPACT_AUTO = 0, RGC_COMPACT_ALWAYS = 1, RGC_COMPACT_NEVER = 2 };

struct rgc_config {
  int server;                /* 0 */
  int concurrent;            /* 1 */
  unsigned heap_count;       /* 0 = automatic (1, or one per core for server GC) */
  size_t gen0_size;          /* 0 = from the L3 cache size, as CoreCLR */
  size_t gen0_max_budget;    /* 0 = 6 MB or gen0_size if larger */
  size_t loh_threshold;      /* 85000 */
  size_t heap_hard_limit;    /* 0 = none */
  unsigned high_mem_percent; /* 90 */
  int verify_heap;           /* 0 */
  enum rgc_compact_mode compact_mode;
  int no_affinitize;         /* 0: server GC pins its worker w to the w-th CPU the process may use */
};

/* Fill defaults. */
void rgc_config_default(struct rgc_config *cfg);
/* Apply RGC_* environment variables. Returns 0, or -1 with a one-line
 * message in err ("RGC_GCgen0size: not a number: 'x'"). */
int rgc_config_from_env(struct rgc_config *cfg, char *err, size_t errlen);

/* Create a runtime. cfg NULL = defaults + environment. On failure returns
 * NULL and a one-line message in err. Starts the GC and finalizer threads and
 * emits rgc:RuntimeInformation. */
rgc_runtime *rgc_create(const struct rgc_config *cfg, char *err, size_t errlen);
/* Stop the runtime's threads and free everything. All threads must have
 * detached. Pending finalizers are not run. */
void rgc_destroy(rgc_runtime *rt);

/* ---- Threads and safepoints --------------------------------------------- */
rgc_thread *rgc_attach_thread(rgc_runtime *rt);   /* NULL on out of memory */
void rgc_detach_thread(rgc_thread *t);            /* drops the thread's roots */
rgc_runtime *rgc_thread_runtime(const rgc_thread *t);
/* The calling thread's rgc_thread, NULL if not attached. */
rgc_thread *rgc_current_thread(void);

void rgc_safepoint(rgc_thread *t);
void rgc_enter_native(rgc_thread *t);
void rgc_leave_native(rgc_thread *t);

/* ---- Types ---------------------------------------------------------------- */
enum rgc_type_kind {
  RGC_KIND_OBJECT = 0,       /* fixed payload with reference fields at ref_offsets */
  RGC_KIND_VALUE_ARRAY = 1,  /* length elements of elem_size bytes, no references */
  RGC_KIND_REF_ARRAY = 2     /* length references */
};

typedef void (*rgc_finalizer_fn)(rgc_thread *t, void *obj);

struct rgc_type_desc {
  const char *name;          /* copied; used in AllocationTick and heap dumps */
  enum rgc_type_kind kind;
  size_t size;               /* OBJECT: payload bytes */
  const uint32_t *ref_offsets; /* OBJECT: byte offsets of reference fields (copied) */
  size_t nrefs;
  size_t elem_size;          /* VALUE_ARRAY: element bytes */
  rgc_finalizer_fn finalizer; /* non-NULL: instances are finalizable */
};

/* Register a type; returns a pointer owned by the runtime (valid until
 * rgc_destroy), NULL on a bad description. Thread-safe. */
const rgc_type *rgc_register_type(rgc_runtime *rt, const struct rgc_type_desc *d);
const char *rgc_type_name(const rgc_type *ty);

/* ---- Allocation (zeroed memory; a safepoint) ------------------------------ */
void *rgc_alloc(rgc_thread *t, const rgc_type *ty);                   /* OBJECT */
/* (rgc_alloc, rgc_root_mark, rgc_root and rgc_root_release have inline fast
 * paths at the end of this header; define RGC_NO_INLINE to call the library
 * functions only.) */
void *rgc_alloc_array(rgc_thread *t, const rgc_type *ty, size_t length); /* arrays */
/* Allocate on the pinned object heap: never moves. length ignored for OBJECT. */
void *rgc_alloc_pinned(rgc_thread *t, const rgc_type *ty, size_t length);

const rgc_type *rgc_type_of(const void *obj);
size_t rgc_object_size(const void *obj);      /* total bytes including header */
size_t rgc_array_length(const void *arr);
void *rgc_array_data(void *arr);               /* first element */
/* Generation of an object: 0, 1, 2, 3 (LOH) or 4 (POH). */
int rgc_generation_of(const void *obj);

/* ---- References and the write barrier ------------------------------------ */
void rgc_write_ref(void *obj, void **slot, void *val);
#define RGC_SET(obj, field, val) rgc_write_ref((obj), (void **)&(obj)->field, (val))
void rgc_array_set(void *arr, size_t i, void *val);
void *rgc_array_get(const void *arr, size_t i);

/* ---- Roots --------------------------------------------------------------- */
/* Register the address of a local variable holding an object pointer (or
 * NULL): the GC keeps its target alive and updates it when the target moves.
 * Release with rgc_root_release(t, mark) where mark came from rgc_root_mark
 * before the registration (a stack discipline, like CoreCLR's GCPROTECT). */
size_t rgc_root_mark(rgc_thread *t);
void rgc_root(rgc_thread *t, void **slot);
void rgc_root_release(rgc_thread *t, size_t mark);

/* ---- GC handles ----------------------------------------------------------- */
enum rgc_handle_kind {              /* CoreCLR's numbering (SetGCHandle.Kind) */
  RGC_HANDLE_WEAK_SHORT = 0,        /* cleared when the target dies, before finalization */
  RGC_HANDLE_WEAK_LONG = 1,         /* track resurrection: cleared after finalization */
  RGC_HANDLE_STRONG = 2,
  RGC_HANDLE_PINNED = 3             /* strong, and the target never moves */
};
/* Called by an attached thread (cooperative). NULL on out of memory. */
rgc_handle rgc_handle_new(rgc_thread *t, void *obj, enum rgc_handle_kind kind);
void *rgc_handle_get(rgc_handle h);
void rgc_handle_set(rgc_handle h, void *obj);
enum rgc_handle_kind rgc_handle_kind_of(rgc_handle h);
void rgc_handle_free(rgc_thread *t, rgc_handle h);

/* ---- Finalization ---------------------------------------------------------- */
void rgc_suppress_finalize(void *obj);
void rgc_reregister_for_finalize(rgc_thread *t, void *obj);
/* Wait until every object found dead so far has been finalized. Call it from
 * an attached thread or not; an attached caller is in native while waiting. */
void rgc_wait_for_pending_finalizers(rgc_runtime *rt);

/* ---- Induced GC ------------------------------------------------------------ */
enum rgc_collect_mode {
  RGC_COLLECT_FORCED = 0,       /* always collect (GCCollectionMode.Forced/Default) */
  RGC_COLLECT_OPTIMIZED = 1,    /* collect only if the generation's budget is used up */
  RGC_COLLECT_BLOCKING = 2,     /* blocking (the default; kept for clarity) */
  RGC_COLLECT_COMPACTING = 4,   /* force compaction (implies blocking) */
  RGC_COLLECT_NON_BLOCKING = 8  /* gen2: a background GC if background GC is on
                                   (GC.Collect(2, mode, blocking: false)) */
};
/* Collect generations 0..generation (clamped to 0..2; -1 = 2). Waits for the
 * GC to finish; for a background GC, only until its first pause is over. A
 * blocking gen2 request made while a background GC runs waits for it first.
 * Returns 1 if a GC ran, 0 if an optimized request declined. */
/* The oldest generation (.NET's GC.MaxGeneration): rgc_collect(rt, RGC_MAX_GENERATION, ...) is a full GC. */
#define RGC_MAX_GENERATION 2
int rgc_collect(rgc_runtime *rt, int generation, unsigned mode);

/* 1 while a background GC is between its first pause and its end. */
int rgc_background_gc_in_progress(rgc_runtime *rt);
/* Wait until no background GC runs. An attached caller waits in native (a
 * thread spinning on rgc_background_gc_in_progress without a safepoint
 * would hold up the BGC's second pause forever). */
void rgc_wait_background_gc(rgc_runtime *rt);

/* ---- Latency modes (GCSettings.LatencyMode) ------------------------------- */
enum rgc_latency_mode {
  RGC_LATENCY_BATCH = 0,            /* no background GC: every gen2 GC blocks */
  RGC_LATENCY_INTERACTIVE = 1,      /* default with background GC on */
  RGC_LATENCY_LOW_LATENCY = 2,      /* no gen2 GC unless induced or memory is short */
  RGC_LATENCY_SUSTAINED_LOW_LATENCY = 3 /* background gen2 GCs; full blocking
                                           ones only when they must happen */
};
/* Returns 0, or -1 for an unknown mode or Interactive/SustainedLowLatency
 * while background GC is off (as .NET, the mode is then unchanged). Shows
 * in GCGlobalHeapHistory.PauseMode of the following GCs. Any thread. */
int rgc_set_latency_mode(rgc_runtime *rt, enum rgc_latency_mode mode);
enum rgc_latency_mode rgc_get_latency_mode(rgc_runtime *rt);

/* Number of GCs that collected generation gen (a gen-N GC counts for every
 * generation <= N, as GC.CollectionCount). */
uint64_t rgc_collection_count(rgc_runtime *rt, int gen);

/* ---- In-process sampling (GC.GetGCMemoryInfo) ------------------------------ */
enum rgc_gc_kind {
  RGC_GC_KIND_ANY = 0, RGC_GC_KIND_EPHEMERAL = 1,
  RGC_GC_KIND_FULL_BLOCKING = 2, RGC_GC_KIND_BACKGROUND = 3
};
struct rgc_generation_info {
  uint64_t size_before, fragmentation_before, size_after, fragmentation_after;
};
/* Every field describes the same GC (the last of the kind asked for); all
 * zero (index 0) before the first such GC. */
struct rgc_memory_info {
  uint64_t index;                  /* GC index, 1-based (GCStart.Count) */
  int generation;
  int compacted;
  int concurrent;
  uint64_t pause_durations_ns[2];  /* [1] used only by background GCs */
  double pause_time_percentage;    /* pause time / elapsed since rgc_create, up to that GC */
  uint64_t promoted_bytes;
  uint64_t pinned_objects_count;
  uint64_t finalization_pending_count;
  struct rgc_generation_info generation_info[5]; /* gen0, gen1, gen2, LOH, POH */
  uint64_t heap_size_bytes;        /* after the GC, fragmentation included */
  uint64_t fragmented_bytes;
  uint64_t total_committed_bytes;
  uint64_t memory_load_bytes;
  uint64_t high_memory_load_threshold_bytes;
  uint64_t total_available_memory_bytes;
};
int rgc_get_memory_info(rgc_runtime *rt, enum rgc_gc_kind kind, struct rgc_memory_info *out);

/* Bytes the GC marked from each kind of root in the last GC (any kind), as
 * its GCMarkWithType events carry them for heap `heap` (the bytes that
 * heap's GC thread marked: with server GC, any thread may mark any heap's
 * objects): out[0] stack (thread root slots), [1] finalization queue, [2]
 * handles, [3] older generations (dirty cards). Returns that GC's index
 * (GCStart.Count; 0 and zeros before the first GC), or -1 if heap is not
 * below the heap count. Any thread. */
int64_t rgc_get_mark_bytes(rgc_runtime *rt, int heap, uint64_t out[4]);

/* Called on the thread that ran the GC (see Threading above; the background
 * GC thread for a BGC) after every GC (other mutators already restarted) with
 * that GC's record (the same as rgc_get_memory_info(ANY) then). Must not
 * allocate or call back into the runtime except the read-only queries. NULL
 * removes it. Set it before starting mutator threads. */
typedef void (*rgc_gc_callback)(void *ctx, const struct rgc_memory_info *gc);
void rgc_set_gc_callback(rgc_runtime *rt, rgc_gc_callback fn, void *ctx);

/* Bytes allocated since start-up (all threads; includes unused parts of
 * allocation contexts handed out). */
uint64_t rgc_total_allocated_bytes(rgc_runtime *rt);

/* A heap dump in the spirit of SoS `!eeheap -gc`: regions per generation with
 * addresses and sizes. Takes a consistent snapshot by running no GC; call it
 * from a thread that is not in the middle of allocating. */
void rgc_dump_heap(rgc_runtime *rt, FILE *out);

/* ---- Request spans (rgc:RequestStart / RequestStop, for gcscope impact) --- */
void rgc_request_begin(rgc_runtime *rt, uint64_t id);
void rgc_request_end(rgc_runtime *rt, uint64_t id);

/* ---- Inline fast paths ----------------------------------------------------
 * Not API: the leading members of every rgc_thread and rgc_type as librgc
 * lays them out (it checks the layout at compile time), so that the common
 * cases of allocation and root registration need no function call. They
 * behave exactly as the library functions: the slow paths are those. */
struct rgc_thread_head_ {
  uint8_t *alloc_ptr, *alloc_limit;   /* the thread's bump-allocation context */
  const int *suspend_flag;            /* non-zero: a GC wants to suspend threads */
  void ***roots; size_t nroots, roots_cap;
  uint8_t *ctx_start;                 /* start of the context (objects in gen0) */
};
struct rgc_type_head_ {
  size_t fast_size;  /* block size of a small OBJECT without finalizer, else 0 */
};

static inline void *rgc_alloc_inline_(rgc_thread *t, const rgc_type *ty) {
  struct rgc_thread_head_ *th = (struct rgc_thread_head_ *)t;
  size_t size = ((const struct rgc_type_head_ *)ty)->fast_size;
  uint8_t *p = th->alloc_ptr;
  if (size && (size_t)(th->alloc_limit - p) >= size &&
      !__atomic_load_n(th->suspend_flag, __ATOMIC_RELAXED)) {
    th->alloc_ptr = p + size;
    /* the 16-byte header: type word, block size, flags (zero: the context
     * is zeroed memory, and so is the payload) */
    *(const rgc_type **)p = ty;
    *(uint32_t *)(p + 8) = (uint32_t)size;
    return p + 16;
  }
  return rgc_alloc(t, ty);
}
static inline size_t rgc_root_mark_inline_(rgc_thread *t) {
  return ((struct rgc_thread_head_ *)t)->nroots;
}
static inline void rgc_root_inline_(rgc_thread *t, void **slot) {
  struct rgc_thread_head_ *th = (struct rgc_thread_head_ *)t;
  if (th->nroots < th->roots_cap) th->roots[th->nroots++] = slot;
  else rgc_root(t, slot);
}
static inline void rgc_root_release_inline_(rgc_thread *t, size_t mark) {
  struct rgc_thread_head_ *th = (struct rgc_thread_head_ *)t;
  if (mark <= th->nroots) th->nroots = mark;
}
#ifndef RGC_NO_INLINE
/* The calling thread's rgc_thread (librgc's, for the write barrier). */
extern __thread rgc_thread *rgc_tls_thread __attribute__((tls_model("initial-exec")));
/* The write barrier's common case: the holder lies in the calling thread's
 * own allocation context, so it is in gen0 (no card needed; a GC retires
 * every context before it promotes anything): just the store. */
static inline void rgc_write_ref_inline_(void *obj, void **slot, void *val) {
  const struct rgc_thread_head_ *th = (const struct rgc_thread_head_ *)rgc_tls_thread;
  if (th && (uintptr_t)obj - (uintptr_t)th->ctx_start < (uintptr_t)th->alloc_ptr - (uintptr_t)th->ctx_start)
    __atomic_store_n(slot, val, __ATOMIC_RELEASE);
  else
    rgc_write_ref(obj, slot, val);
}
#undef RGC_SET
#define RGC_SET(obj, field, val) rgc_write_ref_inline_((obj), (void **)&(obj)->field, (val))
#define rgc_write_ref(obj, slot, val) rgc_write_ref_inline_((obj), (slot), (val))
#define rgc_alloc(t, ty) rgc_alloc_inline_((t), (ty))
#define rgc_root_mark(t) rgc_root_mark_inline_(t)
#define rgc_root(t, slot) rgc_root_inline_((t), (slot))
#define rgc_root_release(t, mark) rgc_root_release_inline_((t), (mark))
#endif

#ifdef __cplusplus
}
#endif
#endif /* RGC_H */
