/*
 * ins_handles.h — GC handles over time, pure: from SetGCHandle/DestroyGCHandle
 * events and the GCs' starts, per (trace, process):
 *   - handles created and destroyed per time bucket and kind (a destroy's kind
 *     is the kind of its handle's latest set; -1 when none was seen);
 *   - the pinned handles (Pinned, AsyncPinned) alive at each GC's start: those
 *     whose latest event at or before it is a pinned set (events at the GC's
 *     instant count; a GC without a GCStart, start_ns -1, sees none);
 *   - each pin's life: a pinned set until its handle's next event, or the
 *     trace's end (still alive); only the longest `top` are kept (ties within
 *     a millisecond of the cut included; top <= 0 keeps all).
 * Buckets count from the trace's start_ns, bucket_ns long.
 * O(n log n) in the events (one pass over them sorted, a hash table of handles).
 *
 * Ownership: ins_handles_compute sorts ev[] and gc[] in place and fills *out,
 * whose arrays the caller frees with ins_handles_free.
 * Threading: reentrant. Errors: -1 on allocation failure (*out empty).
 */
#ifndef INS_HANDLES_H
#define INS_HANDLES_H

#include <stddef.h>
#include <stdint.h>

struct ins_handle_ev {
  int64_t trace_id, ts_ns;
  int64_t rid;                   /* order of events at the same instant */
  int64_t handle;
  int32_t pid;
  int16_t kind;                  /* handle_kind of a set; ignored for a destroy */
  uint8_t set;                   /* 1 set, 0 destroy */
};
struct ins_handle_gc { int64_t trace_id, start_ns, id; int32_t pid; };
struct ins_handle_trace { int64_t id, start_ns, end_ns; };

struct ins_handle_bucket { int64_t trace_id, bucket; int32_t pid; int kind; int64_t created, destroyed; };
struct ins_handle_at_gc { int64_t gc_id, alive; };
#define INS_HANDLE_ALIVE INT64_MIN   /* end_ns of a pin alive at the trace's end */
struct ins_handle_pin { int64_t trace_id, handle, set_ns, end_ns; int32_t pid; int kind; };

struct ins_handles {
  struct ins_handle_bucket *buckets;  /* by (trace, pid), then first appearance */
  size_t nbuckets;
  struct ins_handle_at_gc *at_gc;     /* one per GC */
  size_t nat_gc;
  struct ins_handle_pin *pins;        /* the longest pins (see above), unordered */
  size_t npins;
};

int ins_handles_compute(struct ins_handle_ev *ev, size_t nev, struct ins_handle_gc *gc, size_t ngc,
                        const struct ins_handle_trace *traces, size_t ntraces, int64_t bucket_ns, long top,
                        struct ins_handles *out);
void ins_handles_free(struct ins_handles *h);

#endif
