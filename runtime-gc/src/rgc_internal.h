/*
 * rgc_internal.h — librgc's internal data structures, shared by its source
 * files. Not installed.
 *
 * Heap layout: one big virtual reservation carved into 2 MB region slots. A
 * region (one slot, or several for a large LOH/POH object) belongs to one
 * generation of one heap: 0, 1, 2 (small object heap, SOH), 3 (LOH) or 4
 * (POH). SOH regions are filled by bump allocation (allocation contexts for
 * mutators, promotion during compaction); swept regions carry free objects,
 * the big ones threaded on per-generation free lists. Generations are
 * promoted or demoted a region at a time when a GC sweeps, object by object
 * when it compacts (evacuation into destination regions).
 *
 * Object layout: a 16-byte header {type word, size, flags} then the payload;
 * arrays start their payload with a 64-bit length. The user sees the payload
 * address. Sizes are multiples of 8; the header's size is the block size.
 *
 * The card table has one byte per 256 heap bytes over the whole reservation;
 * the write barrier sets the card of a written slot when the holder is not in
 * gen0 (relaxed atomic byte store).
 */
#ifndef RGC_INTERNAL_H
#define RGC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gcs_enums.h"
#include "gcs_events.h"
#define RGC_NO_INLINE  /* librgc defines the functions behind the inline fast paths */
#include "rgc.h"

#define RGC_REGION_SHIFT 21
#define RGC_REGION_SIZE ((size_t)1 << RGC_REGION_SHIFT)
#define RGC_CARD_SHIFT 8
#define RGC_BRICK_SHIFT 10           /* object-start table: one entry per 1 KB */
#define RGC_OLDER_CHUNK ((size_t)32 << 10) /* card-marking task of an older region (bytes) */
#define RGC_HDR 16
#define RGC_MIN_OBJ 16
#define RGC_GRAIN 16               /* object sizes are multiples of 16: every gap can hold a free object */
#define RGC_ALLOC_QUANTUM (8 * 1024)
#define RGC_FREE_LIST_MIN 256       /* smaller free objects are free-object space */
#define RGC_NBUCKETS 12              /* free-list buckets: [256<<i, 512<<i) */
#define RGC_NGEN 5                   /* gen0, gen1, gen2, LOH, POH */
#define RGC_LOH 3
#define RGC_POH 4
#define RGC_TICK_BYTES (100 * 1024)  /* AllocationTick threshold, as CoreCLR */
#define RGC_MAX_HEAPS 64
#define RGC_REGION_CACHE 32

/* Header flags. */
#define OF_MARK 0x1u
#define OF_PINNED 0x2u      /* pinned during the current GC */
#define OF_FWD 0x4u         /* type word holds the forwarding address */
#define OF_FREE 0x8u        /* a free object (type word: free-list link) */
#define OF_FINAL 0x10u      /* registered for finalization */
#define OF_SUPPRESS 0x20u   /* finalization suppressed */
#define OF_BMARK 0x40u      /* marked by the background GC (old objects) */

/* librgc's public enums carry the event values: a SetGCHandle's Kind is the
 * handle's kind, GCGlobalHeapHistory's PauseMode the latency mode. */
_Static_assert((int)RGC_HANDLE_WEAK_SHORT == (int)GCS_HANDLE_KIND_WEAK_SHORT &&
               (int)RGC_HANDLE_WEAK_LONG == (int)GCS_HANDLE_KIND_WEAK_LONG &&
               (int)RGC_HANDLE_STRONG == (int)GCS_HANDLE_KIND_STRONG &&
               (int)RGC_HANDLE_PINNED == (int)GCS_HANDLE_KIND_PINNED,
               "rgc_handle_kind must match the handle_kind map");
_Static_assert((int)RGC_LATENCY_BATCH == (int)GCS_PAUSE_MODE_BATCH &&
               (int)RGC_LATENCY_INTERACTIVE == (int)GCS_PAUSE_MODE_INTERACTIVE &&
               (int)RGC_LATENCY_LOW_LATENCY == (int)GCS_PAUSE_MODE_LOW_LATENCY &&
               (int)RGC_LATENCY_SUSTAINED_LOW_LATENCY == (int)GCS_PAUSE_MODE_SUSTAINED_LOW_LATENCY,
               "rgc_latency_mode must match the pause_mode map");
_Static_assert(RGC_MAX_GENERATION == GCS_GEN2 && RGC_LOH == GCS_GEN_LOH && RGC_POH == GCS_GEN_POH && RGC_NGEN == GCS_GEN_POH + 1,
               "librgc numbers generations as the events do");

struct rgc_hdr {
  uintptr_t tw;           /* type pointer, forwarding address or free-list link */
  uint32_t size;          /* block size including this header */
  _Atomic uint32_t flags; /* mutators touch OF_SUPPRESS only; GC the rest */
};

static inline struct rgc_hdr *hdr_of(const void *obj) {
  return (struct rgc_hdr *)((uintptr_t)obj - RGC_HDR);
}
static inline void *obj_of(const struct rgc_hdr *h) { return (void *)((uintptr_t)h + RGC_HDR); }
static inline uint32_t hflags(const struct rgc_hdr *h) {
  return atomic_load_explicit(&((struct rgc_hdr *)h)->flags, memory_order_relaxed);
}
static inline void hset(struct rgc_hdr *h, uint32_t f) {
  atomic_store_explicit(&h->flags, f, memory_order_relaxed);
}

struct rgc_type {
  size_t fast_size;       /* struct rgc_type_head_ (rgc.h): inline allocation */
  char *name;
  enum rgc_type_kind kind;
  size_t size;
  uint32_t *ref_offsets;
  size_t nrefs;
  size_t elem_size;
  rgc_finalizer_fn finalizer;
  struct rgc_type *next;  /* registry list */
};

struct rgc_region {
  uint8_t *start, *top, *end;
  int gen;                /* 0..4, -1 when free */
  int new_gen;            /* planned generation after this GC */
  int nslots;
  int heap;
  bool condemned, evacuate, has_pinned;
  /* Made by the running GC (an evacuation target: its objects are all in
   * the heap's copied list and fixed up there). rgc_do_gc clears it on every region when
   * it starts: a region a mutator made since the last GC (LOH/POH) is not
   * fresh, its old-to-young slots need the card fix-up. */
  bool fresh;
  bool bgc_condemned;               /* old region the running BGC will sweep */
  /* The region's bricks (rt->bricks) are exact: set by rgc_bricks_build,
   * kept by every change of its layout while set (rgc_bricks_note), cleared
   * by a change that does not keep them (a free-list item taken for
   * promotion, a demotion to gen0: mutators bump-allocate there). Written
   * under the region's heap lock or in a GC pause (its heap's worker). */
  _Atomic bool bricks_ok;
  _Atomic size_t live_bytes;        /* marked during this GC (parallel markers add) */
  size_t pinned_bytes;
  size_t fl_bytes, fo_bytes;        /* free-list and free-object bytes in the region */
  struct rgc_region *next;
} __attribute__((aligned(64)));     /* a cache line each: server GC's workers bump
                                       the tops of neighbouring descriptors */

/* Walk the blocks of region r in address order, free objects included: obj
 * is each header. The next block's address is read before the body runs, so
 * the body may rewrite the header (flags, forwarding, type word) but not its
 * size; `continue` moves on, `break` ends the walk. */
#define RGC_FOR_EACH_OBJECT(r, obj) \
  for (struct rgc_hdr *obj = (struct rgc_hdr *)(r)->start, *obj##_next__; \
       (uint8_t *)obj < (r)->top && \
       (obj##_next__ = (struct rgc_hdr *)((uint8_t *)obj + obj->size), 1); \
       obj = obj##_next__)

/* Bytes marked per root kind (GCMarkWithType.Type): stack, finalization
 * queue, handles, older generations (cards). */
#define RGC_MARK_KINDS (GCS_ROOT_KIND_OLDER + 1)
_Static_assert(GCS_ROOT_KIND_STACK == 0 && GCS_ROOT_KIND_FINALIZER == 1 && GCS_ROOT_KIND_HANDLE == 2,
               "mark_bytes is indexed by root kind");

/* What one GC measured on one heap (GCPerHeapHistory). */
struct rgc_heap_rec {
  uint64_t size_before[RGC_NGEN], fl_before[RGC_NGEN], fo_before[RGC_NGEN];
  uint64_t size_after[RGC_NGEN], fl_after[RGC_NGEN], fo_after[RGC_NGEN];
  uint64_t in[RGC_NGEN], surv[RGC_NGEN], pinned_surv[RGC_NGEN];
  uint64_t mark_bytes[RGC_MARK_KINDS];
  uint64_t fl_allocated, eos_allocated, condemned_allocated;
} __attribute__((aligned(64)));     /* each heap's worker writes its own: no false sharing */

/* Per-heap state (workstation GC: one heap; server GC: one per core). */
struct rgc_heap {
  int index;
  pthread_mutex_t lock;               /* allocation: regions, free lists, budgets */
  struct rgc_region *gens[RGC_NGEN];  /* region lists per generation */
  struct rgc_region *alloc_region[RGC_NGEN]; /* where bump allocation happens */
  struct rgc_hdr *free_lists[RGC_NGEN][RGC_NBUCKETS];
  int64_t new_alloc[RGC_NGEN];        /* remaining allocation budget */
  int64_t desired[RGC_NGEN];          /* budget set at the last GC of the generation */
  uint64_t tick_bytes[GCS_ALLOC_KIND_PINNED + 1]; /* since the last AllocationTick, per alloc_kind */
  uint64_t total_allocated;
  struct rgc_region *condemned;       /* regions the running GC condemned */
  /* GC scratch of the worker that relocates, fixes up and sweeps this heap */
  void **copied; size_t copied_n, copied_cap; /* survivors copied into this heap */
  uint8_t *promo_ptr[RGC_NGEN], *promo_limit[RGC_NGEN]; /* promotion into a free-list item */
  bool promo_fl_empty[RGC_NGEN];              /* no item big enough left (this relocation) */
  uint8_t *card_snapshot;                     /* one region slot's cards (fix_older_region) */
  /* finalization registry and f-reachable queue (fq under rt->fin_lock) */
  void **fin_objs; size_t fin_n, fin_cap;
} __attribute__((aligned(128)));    /* heaps' workers write their own: no false sharing */

enum { TS_COOP = 0, TS_PREEMPT = 1 };

struct rgc_thread {
  /* struct rgc_thread_head_ (rgc.h), read and written by the inline paths */
  uint8_t *alloc_ptr, *alloc_limit;
  const _Atomic int *suspend_flag;  /* &rt->suspend_flag */
  void ***roots; size_t nroots, roots_cap;
  uint8_t *ctx_start;               /* start of the allocation context (gen0) */
  /* librgc only */
  struct rgc_runtime *rt;
  struct rgc_heap *heap;
  _Atomic int state;
  pid_t tid;
  struct rgc_thread *next;
};

/* The inline fast paths of rgc.h rely on these layouts. */
#include <stddef.h>
_Static_assert(offsetof(struct rgc_thread, alloc_ptr) == offsetof(struct rgc_thread_head_, alloc_ptr) &&
               offsetof(struct rgc_thread, alloc_limit) == offsetof(struct rgc_thread_head_, alloc_limit) &&
               offsetof(struct rgc_thread, suspend_flag) == offsetof(struct rgc_thread_head_, suspend_flag) &&
               offsetof(struct rgc_thread, roots) == offsetof(struct rgc_thread_head_, roots) &&
               offsetof(struct rgc_thread, nroots) == offsetof(struct rgc_thread_head_, nroots) &&
               offsetof(struct rgc_thread, roots_cap) == offsetof(struct rgc_thread_head_, roots_cap) &&
               offsetof(struct rgc_thread, ctx_start) == offsetof(struct rgc_thread_head_, ctx_start),
               "rgc_thread_head_ out of date");
_Static_assert(offsetof(struct rgc_type, fast_size) == offsetof(struct rgc_type_head_, fast_size),
               "rgc_type_head_ out of date");
_Static_assert(RGC_HDR == 16 && offsetof(struct rgc_hdr, size) == 8 && offsetof(struct rgc_hdr, flags) == 12,
               "rgc_alloc_inline_ writes this header layout");

struct rgc_handle_slot {
  _Atomic(void *) obj;
  uint32_t kind;
  uint32_t in_use;
  struct rgc_handle_slot *next_free;
};
#define RGC_HANDLE_CHUNK 512
struct rgc_handle_chunk {
  struct rgc_handle_slot slots[RGC_HANDLE_CHUNK];
  struct rgc_handle_chunk *next;
};

/* A pending GC request (merged when several threads ask). */
struct rgc_request {
  int gen;
  uint32_t reason;      /* gc_reason */
  unsigned mode;
  bool induced;
  /* The requesting thread's stack, for GCTriggered (which the GC thread
   * emits): filled by rgc_request_gc when stacks are recorded, else stk_n 0. */
  uint8_t stk_n;
  uint64_t stk_ip[GCS_STACK_MAX_DEPTH];
};

/* The timed phases of a GC (GCGlobalHeapHistory.Times). */
enum rgc_phase { RGC_PHASE_MARK, RGC_PHASE_RELOCATE, RGC_PHASE_SWEEP, RGC_NPHASES };

/* Everything one GC measured: feeds the events and rgc_get_memory_info. */
struct rgc_gc_record {
  uint32_t index, gen;
  uint32_t reason;                    /* enum gcs_gc_reason */
  uint32_t type;                      /* enum gcs_gc_type: non-concurrent, background, foreground */
  uint32_t pause_mode;
  bool compacted, demoted, promoted_any;
  uint32_t r0, r1;                    /* CondemnReasons0/1 (condemn_gen_groups, condemn_conditions) */
  uint32_t compact_mech;              /* GCS_COMPACT_MECHANISMS_* bits; 0: swept */
  uint64_t size_before[RGC_NGEN], fl_before[RGC_NGEN], fo_before[RGC_NGEN];
  uint64_t size_after[RGC_NGEN], fl_after[RGC_NGEN], fo_after[RGC_NGEN];
  uint64_t in[RGC_NGEN], surv[RGC_NGEN], pinned_surv[RGC_NGEN];
  uint64_t mark_bytes[RGC_MARK_KINDS];
  uint64_t fin_promoted_bytes, fin_promoted_count;
  uint64_t pinned_count;
  uint64_t fl_allocated, eos_allocated, condemned_allocated;
  uint64_t phase_us[RGC_NPHASES];     /* GCGlobalHeapHistory.Times, microseconds */
  uint64_t pause_ns, suspend_ns;
  uint64_t pause2_ns;                 /* BGC: the second pause */
  uint64_t cpu_ns;                    /* CPU time of the GC threads */
  /* Memory load at the GC's end, read once (rgc_memory_load_percent) for
   * both GCGlobalHeapHistory.MemoryPressure and rgc_memory_info. */
  uint64_t mem_load_pct, mem_total_avail;
  int nheaps;
  struct rgc_heap_rec heap[RGC_MAX_HEAPS];  /* the totals above are their sums */
};

/* A marker: one per GC worker (parallel marking in server GC). */
struct rgc_marker {
  void **ms; size_t n, cap;           /* local mark stack */
  uint64_t counter;                   /* bytes newly marked */
  bool share;                         /* give surplus work to the shared pool */
  bool par;                           /* other markers run: claim mark bits atomically */
  /* Live bytes marked in region lr not yet added to lr->live_bytes: one
   * atomic add per run of objects in the same region, not per object
   * (flushed at the end of every drain). */
  struct rgc_region *lr;
  size_t lbytes;
} __attribute__((aligned(128)));    /* written for every object marked: one per cache-line pair */

struct rgc_runtime {
  struct rgc_config cfg;
  uint64_t gen0_min, gen0_max;

  /* reservation */
  uint8_t *base; size_t reserve, nslots;
  /* Region index owning each slot, -1 free, -2 cached. Written under
   * region_lock (release, after the region descriptor is initialised), read
   * without a lock by rgc_region_of on any thread (acquire): a thread can
   * hold a pointer into a region without a happens-before edge to the
   * thread that made it (e.g. the old value of a slot read by the BGC write
   * barrier), so the map and the descriptor must be published atomically. */
  _Atomic int32_t *slot_owner;
  /* Generation of the region owning each slot, -1 if none: the write
   * barrier's one-byte lookup (rgc_region_set_gen keeps it in step). */
  _Atomic int8_t *slot_gen;
  struct rgc_region *regions;     /* descriptor per slot (valid at owner index) */
  _Atomic uint8_t *cards;
  /* Object-start table ("bricks", as CoreCLR's brick table): for each 1 KB
   * of the reservation, the start of the block (object or free object)
   * that covers its first byte, in 16-byte units from base. Valid below the
   * top of a region whose bricks_ok is set. Lets the card scans of older
   * regions go straight to the objects on dirty cards instead of walking
   * every header from the region start. */
  uint32_t *bricks;
  _Atomic size_t committed;       /* bytes of regions in use (written under region_lock; read anywhere) */
  size_t region_cache[32];        /* released one-slot regions kept committed */
  size_t cache_n;
  pthread_mutex_t region_lock;

  struct rgc_heap heaps[RGC_MAX_HEAPS];
  int nheaps;
  int next_heap;                  /* round-robin heap assignment (thread_lock) */
  _Atomic int latency_mode;       /* enum rgc_latency_mode */

  /* GC workers (server GC): worker 0 is the GC thread, 1..nheaps-1 helpers
   * (rgc_par.c) */
  pthread_t *workers;
  pthread_mutex_t work_lock;
  pthread_cond_t work_cv, work_done_cv;
  void (*work_fn)(struct rgc_runtime *, int);  /* published by work_epoch (release) */
  _Atomic uint64_t work_epoch;    /* jobs started */
  _Atomic uint64_t work_gc;       /* GCs begun (rgc_par_begin) */
  _Atomic int work_active;        /* a GC runs: helpers spin for jobs */
  _Atomic int work_done, work_stop;
  /* The current job's helpers: (epoch << 32) | closed bit | count. A
   * helper takes part in a job only if it joins before the GC thread,
   * having done its own part, closes it; the GC thread then waits for the
   * helpers that joined, not for one the machine's load keeps off its CPU. */
  _Atomic uint64_t work_join;
  bool spin_own_cpu;              /* every worker has a CPU of its own (set before they start) */
  _Atomic int work_sleepers, done_sleepers;
  _Atomic uint64_t work_cpu_ns;   /* CPU spent by helpers in the current GC */
  void (*heap_fn)(struct rgc_runtime *, int);  /* rgc_par_heaps' job */
  _Atomic int next_heap_job;
  struct rgc_marker markers[RGC_MAX_HEAPS];
  /* shared mark pool (balanced marking) */
  pthread_mutex_t pool_lock;
  void **pool; size_t pool_n, pool_cap;
  _Atomic size_t pool_hint;       /* pool_n, readable without the lock */
  _Atomic int pool_done;          /* every worker idle, pool empty */
  int pool_idle, pool_nworkers;  /* workers idle, workers marking (rgc_pool_join) */
  _Atomic int pool_waiting;       /* pool_idle, readable without the lock */
  /* Mark tasks (rgc_mark.c): roots are handed out a task at a time to
   * whichever worker asks next, so a worker that starts late or has less
   * to do takes more: runs of root slots (stack), handle chunks, older
   * regions (dirty cards). Listed by the GC thread before marking. */
  struct rgc_root_run { void ***slots; size_t n; } *root_runs; size_t root_nruns, root_runs_cap;
  struct rgc_region **older_regions; size_t older_n, older_cap;
  /* per older region: its card-marking chunks (RGC_OLDER_CHUNK bytes; one,
   * the whole region, while its bricks are not exact) and the next chunk
   * not taken: the worker that takes a region takes its chunks one by one,
   * and a worker with no region left takes the chunks of one in progress */
  struct rgc_older_work { _Atomic size_t next; size_t n; } *older_work; size_t older_work_cap;
  _Atomic size_t next_root_run, next_fq, next_handle_chunk, next_older;

  /* background GC (rgc_bgc.c) */
  pthread_t bgc_thread;
  bool bgc_thread_started;
  pthread_mutex_t bgc_lock;       /* held by the BGC thread while it works */
  pthread_cond_t bgc_yield_cv;
  _Atomic int bgc_yield;          /* the GC thread wants to run a foreground GC */
  pthread_mutex_t bgc_mu;         /* BGC state below */
  pthread_cond_t bgc_cv, bgc_done_cv;
  bool bgc_pending, bgc_stop;
  uint64_t bgc_done_count;
  _Atomic int bgc_active;         /* a BGC is between its first pause and its end */
  _Atomic int bgc_phase;          /* RGC_BGC_* */
  struct rgc_gc_record bgc_rec;
  struct rgc_region **bgc_regions; size_t bgc_nregions, bgc_cap;
  void **bgc_stack; size_t bgc_n, bgc_scap;
  pthread_mutex_t satb_lock;      /* the SATB log of the write barrier */
  void **satb; size_t satb_n, satb_cap;
  uint64_t bgc_t_begin, bgc_cpu_pause1;

  /* types */
  pthread_mutex_t type_lock;
  struct rgc_type *types;
  struct rgc_type free_type;

  /* threads and suspension */
  pthread_mutex_t thread_lock;
  pthread_cond_t suspended_cv, resume_cv;
  _Atomic int suspend_flag;
  struct rgc_thread *threads;
  int nthreads;

  /* handles */
  pthread_mutex_t handle_lock;
  struct rgc_handle_chunk *handle_chunks;
  struct rgc_handle_slot *handle_free;
  _Atomic uint32_t handle_count;

  /* GC thread and requests */
  pthread_t gc_thread;
  pthread_mutex_t req_lock;
  pthread_cond_t req_cv, done_cv;
  bool req_pending, gc_running, stopping;
  struct rgc_request req;
  _Atomic uint64_t gc_index;      /* GCs started */
  uint64_t gc_done;               /* GCs finished (under req_lock) */
  _Atomic uint64_t counts[GCS_NGENS_SOH];  /* GCs that condemned each SOH generation */
  _Atomic uint64_t client_seq;

  /* finalization */
  pthread_t fin_thread;
  pthread_mutex_t fin_lock;
  pthread_cond_t fin_cv, fin_done_cv;
  void **fq; size_t fq_head, fq_n, fq_cap;  /* f-reachable queue (ring) */
  uint64_t fin_enqueued, fin_finished;
  bool fin_stop;

  /* GC scratch (GC thread only) */
  struct rgc_handle_slot **pins; size_t pins_n, pins_cap;
  int condemned_gen;
  bool par_compact;               /* the running GC compacts (read by the heap workers) */

  /* statistics */
  pthread_mutex_t info_lock;
  struct rgc_memory_info info[RGC_GC_KIND_BACKGROUND + 1];  /* last GC of each rgc_gc_kind */
  uint64_t last_mark[RGC_MAX_HEAPS][RGC_MARK_KINDS];        /* the last GC's mark_bytes per heap */
  uint64_t last_mark_index;
  uint64_t start_ns, total_pause_ns;
  struct rgc_gc_record rec;

  rgc_gc_callback gc_cb;
  void *gc_cb_ctx;
  char *cmdline;
};

enum { RGC_BGC_IDLE = 0, RGC_BGC_MARKING = 1, RGC_BGC_SWEEPING = 2 };

/* ---- rgc_util.c ---- */
uint64_t rgc_now_ns(void);
uint64_t rgc_thread_cpu_ns(void);
void rgc_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void *rgc_xrealloc(void *p, size_t n);
#define RGC_VEC_PUSH(vec, n, cap, val) do { \
    if ((n) == (cap)) { (cap) = (cap) ? (cap) * 2 : 256; \
      (vec) = rgc_xrealloc((vec), (cap) * sizeof(*(vec))); } \
    (vec)[(n)++] = (val); } while (0)
uint64_t rgc_memory_load_percent(struct rgc_runtime *rt, uint64_t *total_avail);

/* ---- rgc_region.c ---- */
int rgc_reserve(struct rgc_runtime *rt, char *err, size_t errlen);
void rgc_unreserve(struct rgc_runtime *rt);
struct rgc_region *rgc_region_new(struct rgc_runtime *rt, struct rgc_heap *h, int gen, size_t bytes);
void rgc_region_release(struct rgc_runtime *rt, struct rgc_region *r);
void rgc_bricks_build(struct rgc_runtime *rt, struct rgc_region *r);
static inline struct rgc_region *rgc_region_of(struct rgc_runtime *rt, const void *p) {
  uintptr_t a = (uintptr_t)p;
  if (a < (uintptr_t)rt->base || a >= (uintptr_t)rt->base + rt->reserve) return NULL;
  int32_t o = atomic_load_explicit(&rt->slot_owner[(a - (uintptr_t)rt->base) >> RGC_REGION_SHIFT],
                                   memory_order_acquire);
  return o < 0 ? NULL : &rt->regions[o];
}
/* Set a region's generation (and the slot_gen table the barrier reads). A
 * gen0 region gets objects from mutators' allocation contexts, which do not
 * keep bricks. */
static inline void rgc_region_set_gen(struct rgc_runtime *rt, struct rgc_region *r, int gen) {
  r->gen = gen;
  if (gen <= GCS_GEN0)  /* gen0, or -1 (released) */
    atomic_store_explicit(&r->bricks_ok, false, memory_order_relaxed);
  size_t first = (size_t)(r->start - rt->base) >> RGC_REGION_SHIFT;
  for (int k = 0; k < r->nslots; k++)
    atomic_store_explicit(&rt->slot_gen[first + (size_t)k], (int8_t)gen, memory_order_relaxed);
}
/* Generation of the region holding p, -1 outside the heap: the barrier's
 * lookup (one byte per 2 MB slot, no region descriptor). */
static inline int rgc_gen_at(struct rgc_runtime *rt, const void *p) {
  uintptr_t off = (uintptr_t)p - (uintptr_t)rt->base;
  if (off >= rt->reserve) return -1;
  return atomic_load_explicit(&rt->slot_gen[off >> RGC_REGION_SHIFT], memory_order_relaxed);
}
static inline size_t rgc_card_index(struct rgc_runtime *rt, const void *p) {
  return ((uintptr_t)p - (uintptr_t)rt->base) >> RGC_CARD_SHIFT;
}
static inline void rgc_card_set(struct rgc_runtime *rt, const void *slot) {
  _Atomic uint8_t *c = &rt->cards[rgc_card_index(rt, slot)];
  if (!atomic_load_explicit(c, memory_order_relaxed))
    atomic_store_explicit(c, 1, memory_order_relaxed);
}
static inline bool rgc_card_get(struct rgc_runtime *rt, const void *slot) {
  return atomic_load_explicit(&rt->cards[rgc_card_index(rt, slot)], memory_order_relaxed) != 0;
}
/* Is any byte of cards[i..e] (inclusive) non-zero? Eight at a time: a 2 MB
 * region has 8,192 cards, mostly clean. Used during GC pauses only (no
 * mutator writes cards then). */
static inline bool rgc_bytes_any(const uint8_t *cards, size_t i, size_t e) {
  if (i == e) return cards[i] != 0;
  for (; i <= e && (i & 7); i++) if (cards[i]) return true;
  for (; i + 7 <= e; i += 8) {
    uint64_t w;
    memcpy(&w, cards + i, 8);
    if (w) return true;
  }
  for (; i <= e; i++) if (cards[i]) return true;
  return false;
}
/* Does any card covering [a, b) (b > a) hold a dirty bit? */
static inline bool rgc_cards_dirty(struct rgc_runtime *rt, const void *a, const void *b) {
  return rgc_bytes_any((const uint8_t *)rt->cards, rgc_card_index(rt, a), rgc_card_index(rt, (const uint8_t *)b - 1));
}

/* ---- bricks (the object-start table) ---- */
/* Block [p, p + size) now exists: every brick starting inside it is covered
 * by it. */
static inline void rgc_bricks_set(struct rgc_runtime *rt, const uint8_t *p, size_t size) {
  size_t off = (size_t)(p - rt->base);
  size_t b = (off + ((size_t)1 << RGC_BRICK_SHIFT) - 1) >> RGC_BRICK_SHIFT;
  size_t e = (off + size + ((size_t)1 << RGC_BRICK_SHIFT) - 1) >> RGC_BRICK_SHIFT;
  for (; b < e; b++) rt->bricks[b] = (uint32_t)(off / RGC_GRAIN);
}
/* The same, if region r keeps its bricks. */
static inline void rgc_bricks_note(struct rgc_runtime *rt, struct rgc_region *r, const uint8_t *p, size_t size) {
  if (atomic_load_explicit(&r->bricks_ok, memory_order_relaxed)) rgc_bricks_set(rt, p, size);
}
static inline void rgc_bricks_drop(struct rgc_region *r) {
  atomic_store_explicit(&r->bricks_ok, false, memory_order_relaxed);
}
/* The block holding address a (below the top of a region with exact
 * bricks). hint: NULL, or a block start at or below a in the same region
 * (the walk starts there when it is past a's brick entry). */
static inline struct rgc_hdr *rgc_block_at(struct rgc_runtime *rt, const uint8_t *a, struct rgc_hdr *hint) {
  size_t off = (size_t)(a - rt->base);
  struct rgc_hdr *h = (struct rgc_hdr *)(rt->base + (size_t)rt->bricks[off >> RGC_BRICK_SHIFT] * RGC_GRAIN);
  if (hint > h) h = hint;
  while ((const uint8_t *)h + h->size <= a) h = (struct rgc_hdr *)((uint8_t *)h + h->size);
  return h;
}
/* The first index in [i, e] whose byte is non-zero, or e + 1 (cards, or a
 * snapshot of them; eight at a time). */
static inline size_t rgc_next_dirty(const uint8_t *cards, size_t i, size_t e) {
  for (; i <= e && (i & 7); i++) if (cards[i]) return i;
  for (; i + 7 <= e; i += 8) {
    uint64_t w;
    memcpy(&w, cards + i, 8);
    if (w) break;
  }
  for (; i <= e; i++) if (cards[i]) return i;
  return e + 1;
}

/* Effective generation for the old-to-young rule: LOH/POH count as gen2. */
static inline int rgc_eff_gen(int g) { return g > GCS_GEN2 ? GCS_GEN2 : g; }

/* ---- objects (rgc_object.c) ---- */
size_t rgc_size_for(const struct rgc_type *ty, size_t length);
/* Visit each reference slot of an object. */
#define RGC_FOR_EACH_SLOT(h, slotvar, BODY) do { \
    const struct rgc_type *ty__ = (const struct rgc_type *)(h)->tw; \
    uint8_t *p__ = (uint8_t *)obj_of(h); \
    if (ty__->kind == RGC_KIND_OBJECT) { \
      for (size_t i__ = 0; i__ < ty__->nrefs; i__++) { \
        void **slotvar = (void **)(p__ + ty__->ref_offsets[i__]); BODY } \
    } else if (ty__->kind == RGC_KIND_REF_ARRAY) { \
      uint64_t n__ = *(uint64_t *)p__; void **a__ = (void **)(p__ + 8); \
      for (uint64_t i__ = 0; i__ < n__; i__++) { void **slotvar = &a__[i__]; BODY } \
    } } while (0)
/* The same for the slots of h that lie in [lo, hi) (a reference array's
 * slots are found by index, not scanned). */
#define RGC_FOR_EACH_SLOT_IN(h, lo, hi, slotvar, BODY) do { \
    const struct rgc_type *tyr__ = (const struct rgc_type *)(h)->tw; \
    uint8_t *pr__ = (uint8_t *)obj_of(h), *lor__ = (lo), *hir__ = (hi); \
    if (tyr__->kind == RGC_KIND_OBJECT) { \
      for (size_t ir__ = 0; ir__ < tyr__->nrefs; ir__++) { \
        void **slotvar = (void **)(pr__ + tyr__->ref_offsets[ir__]); \
        if ((uint8_t *)slotvar >= lor__ && (uint8_t *)slotvar < hir__) BODY } \
    } else if (tyr__->kind == RGC_KIND_REF_ARRAY) { \
      uint64_t nr__ = *(uint64_t *)pr__; uint8_t *ar__ = pr__ + 8; \
      uint64_t i0r__ = lor__ <= ar__ ? 0 : (uint64_t)(lor__ - ar__ + 7) / 8; \
      uint64_t i1r__ = hir__ <= ar__ ? 0 : (uint64_t)(hir__ - ar__ + 7) / 8; \
      if (i1r__ > nr__) i1r__ = nr__; \
      for (uint64_t ir__ = i0r__; ir__ < i1r__; ir__++) { void **slotvar = (void **)ar__ + ir__; BODY } \
    } } while (0)
void rgc_make_free(struct rgc_runtime *rt, struct rgc_heap *h, struct rgc_region *r,
                   uint8_t *p, size_t size, bool list);
void rgc_free_lists_drop_region_gen(struct rgc_heap *h, int gen);
struct rgc_hdr *rgc_free_list_take(struct rgc_runtime *rt, struct rgc_heap *h, int gen, size_t size);

/* ---- rgc_alloc.c ---- */
void rgc_retire_context(struct rgc_thread *t);

/* ---- rgc_threads.c ---- */
/* The calling thread's rgc_thread (rgc_current_thread without a call). */
extern __thread struct rgc_thread *rgc_tls_thread
    __attribute__((tls_model("initial-exec"), visibility("default")));
void rgc_suspend_all(struct rgc_runtime *rt);
void rgc_resume_all(struct rgc_runtime *rt);
void rgc_park_for_gc(struct rgc_thread *t);

/* ---- rgc_runtime.c: GC requests ---- */
/* Ask for a GC and wait for it. seen = gc_done observed when the need was
 * detected (an allocation-triggered request is dropped if a GC finished
 * since). Returns 1 if a GC ran for the request. */
int rgc_request_gc(struct rgc_runtime *rt, const struct rgc_request *rq, uint64_t seen);
uint64_t rgc_gc_done(struct rgc_runtime *rt);

/* ---- rgc_collect.c ---- */
void rgc_do_gc(struct rgc_runtime *rt, const struct rgc_request *rq);
void rgc_set_budgets(struct rgc_runtime *rt, struct rgc_gc_record *rec, int n, bool bgc);
void rgc_lock_heaps(struct rgc_runtime *rt);
void rgc_unlock_heaps(struct rgc_runtime *rt);

/* ---- rgc_mark.c ---- */
void rgc_mark_phase(struct rgc_runtime *rt);

/* ---- rgc_par.c: GC worker threads (fork-join) and the shared mark pool ---- */
int rgc_workers_start(struct rgc_runtime *rt);
void rgc_workers_stop(struct rgc_runtime *rt);
/* Run fn(rt, w) for every worker w in 0..nheaps-1 (0 on the calling GC
 * thread) and wait for all of them. */
void rgc_par_run(struct rgc_runtime *rt, void (*fn)(struct rgc_runtime *, int));
/* Run fn(rt, h) once for every heap h, each on whichever worker takes it
 * first (a worker that starts late, or is not scheduled, leaves its heap to
 * the others) and wait for all of them. */
void rgc_par_heaps(struct rgc_runtime *rt, void (*fn)(struct rgc_runtime *, int));
/* pthread_create for server-GC worker w (0: the GC thread), bound from the
 * start to a CPU of its own when there are at least as many CPUs as heaps
 * (and RGC_GCNoAffinitize is not set); 0 or -1. */
int rgc_worker_thread_create(struct rgc_runtime *rt, int w, pthread_t *t, void *(*fn)(void *), void *arg);
/* The GC thread, around a GC: helpers spin for jobs in between. */
void rgc_par_begin(struct rgc_runtime *rt);
void rgc_par_end(struct rgc_runtime *rt);
void rgc_pool_reset(struct rgc_runtime *rt);
bool rgc_pool_join(struct rgc_runtime *rt);
void rgc_pool_give(struct rgc_runtime *rt, struct rgc_marker *m);
/* Take work from the pool into m; false when every worker is idle and the
 * pool is empty (marking is over). */
bool rgc_pool_take(struct rgc_runtime *rt, struct rgc_marker *m);

/* ---- rgc_bgc.c: background GC ---- */
int rgc_bgc_start_thread(struct rgc_runtime *rt);
void rgc_bgc_stop_thread(struct rgc_runtime *rt);
/* GC thread, before suspending for a GC: if a BGC is running, stop its
 * thread at its next yield point. Returns true if a BGC is running (then
 * rgc_bgc_release must follow the GC). */
bool rgc_bgc_hold(struct rgc_runtime *rt);
void rgc_bgc_release(struct rgc_runtime *rt);
void rgc_bgc_wait_done(struct rgc_runtime *rt);
/* GC thread, EE suspended, heaps locked: the BGC's first pause (after
 * GCStart). The caller restarts the EE, then calls rgc_bgc_launch. */
void rgc_bgc_pause1(struct rgc_runtime *rt, struct rgc_gc_record *rec);
void rgc_bgc_launch(struct rgc_runtime *rt);
/* Write barrier / weak handle read barrier slow path: shade obj for the BGC. */
void rgc_satb_log(struct rgc_runtime *rt, void *obj);
static inline bool rgc_bgc_needs_shade(struct rgc_runtime *rt, const void *obj) {
  struct rgc_region *r = rgc_region_of(rt, obj);
  return r && r->bgc_condemned && !(hflags(hdr_of(obj)) & OF_BMARK);
}

/* ---- rgc_finalize.c ---- */
void rgc_fin_register(struct rgc_heap *h, void *obj);
int rgc_fin_start(struct rgc_runtime *rt);
void rgc_fin_stop(struct rgc_runtime *rt);
void rgc_fq_push(struct rgc_runtime *rt, void *obj);

/* ---- rgc_verify.c ---- */
void rgc_verify_heap(struct rgc_runtime *rt);

/* ---- rgc_stats.c ---- */
/* Sizes per generation of every heap into rec->heap[*].<which>_* and the
 * totals into rec->size_<which> (after = 1: the *_after fields). */
void rgc_gen_stats(struct rgc_runtime *rt, struct rgc_gc_record *rec, int after);
void rgc_record_info(struct rgc_runtime *rt, const struct rgc_gc_record *rec);

/* ---- rgc_unwind.c ---- */
/* rgc_unwind: the calling thread's return addresses from rgc_unwind's caller
 * outwards (at most max), leaf first, as libgcc's unwinder would give them;
 * -1 where it cannot tell (then walk with backtrace()). Thread-safe;
 * rgc_unwind_init once before. */
void rgc_unwind_init(void);
int rgc_unwind(uint64_t *ip, int max);

/* ---- rgc_trace.c ---- */
void rgc_trace_init(void);
void rgc_trace_fini(void);
void rgc_ev_runtime_info(struct rgc_runtime *rt);
void rgc_ev_suspend_begin(uint32_t count, enum gcs_suspend_reason reason);
void rgc_ev_suspend_end(void);
void rgc_ev_triggered(uint32_t reason, const uint64_t *stk_ip, uint8_t stk_n);
/* The calling thread's stack for GCTriggered into ip (GCS_STACK_MAX_DEPTH
 * entries): its depth, 0 unless stacks are recorded and GCTriggered is on. */
uint8_t rgc_trace_request_stack(uint64_t *ip);
void rgc_ev_gc_start(uint32_t count, uint32_t depth, uint32_t reason, uint32_t type, uint64_t seq);
/* The background GC's phase events, in the order a BGC emits them (but
 * 1stSweepEnd comes between 2ndConBegin and 2ndConEnd). */
enum rgc_bgc_event {
  RGC_EV_BGC_BEGIN,
  RGC_EV_BGC_1ST_NONCON_END,
  RGC_EV_BGC_1ST_CON_END,
  RGC_EV_BGC_2ND_NONCON_BEGIN,
  RGC_EV_BGC_2ND_NONCON_END,
  RGC_EV_BGC_2ND_CON_BEGIN,
  RGC_EV_BGC_2ND_CON_END,
  RGC_EV_BGC_1ST_SWEEP_END,
};
void rgc_ev_bgc(enum rgc_bgc_event which);
void rgc_ev_bgc_alloc_wait(int begin, enum gcs_bgc_wait_reason reason);
void rgc_ev_mark(uint32_t heap, uint32_t type, uint64_t bytes);
void rgc_ev_pin(struct rgc_runtime *rt, struct rgc_handle_slot *s);
void rgc_ev_history(struct rgc_runtime *rt, const struct rgc_gc_record *rec);
void rgc_ev_gc_end(uint32_t count, uint32_t depth);
void rgc_ev_cpu(uint32_t count, uint64_t ns);
void rgc_ev_heap_stats(struct rgc_runtime *rt, const struct rgc_gc_record *rec);
void rgc_ev_restart_begin(void);
void rgc_ev_restart_end(void);
void rgc_ev_fin_begin(void);
void rgc_ev_fin_end(uint32_t count);
void rgc_ev_alloc_tick(enum gcs_alloc_kind kind, uint64_t amount, const struct rgc_type *ty,
                       uint32_t heap, void *obj, uint64_t size);
void rgc_ev_set_handle(void *h, void *obj, uint32_t kind, uint32_t gen);
void rgc_ev_destroy_handle(void *h);
void rgc_ev_segment_create(void *addr, uint64_t size, enum gcs_segment_type type);
void rgc_ev_segment_free(void *addr);
void rgc_ev_request(int start, uint64_t id);

#endif /* RGC_INTERNAL_H */
