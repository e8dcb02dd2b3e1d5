/* ins_handles.c — GC handles over time (see ins_handles.h). */
#include "ins_handles.h"

#include <stdlib.h>
#include <string.h>

#include "gcs_enums.h"

struct hstate {
  int64_t trace_id, handle;
  int32_t pid;
  int used;
  int16_t kind;            /* the latest set's kind, -1 before any */
  int16_t kind_at_pin;     /* the kind of the pinned set that holds now */
  uint8_t pinned_now;      /* its latest event is a pinned set */
  int64_t pin_set_ns;
};
struct htab { struct hstate *v; size_t cap; };

static int cmp_ev(const void *x, const void *y) {
  const struct ins_handle_ev *a = x, *b = y;
  if (a->trace_id != b->trace_id) return a->trace_id < b->trace_id ? -1 : 1;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  if (a->ts_ns != b->ts_ns) return a->ts_ns < b->ts_ns ? -1 : 1;
  return a->rid < b->rid ? -1 : a->rid > b->rid;
}

static int cmp_gc(const void *x, const void *y) {
  const struct ins_handle_gc *a = x, *b = y;
  if (a->trace_id != b->trace_id) return a->trace_id < b->trace_id ? -1 : 1;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

static int cmp_life_desc(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a > b ? -1 : a < b;
}

static uint64_t mix(uint64_t h) {
  h ^= h >> 33; h *= 0xff51afd7ed558ccdull; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53ull; h ^= h >> 33;
  return h;
}

static struct hstate *lookup(struct htab *t, int64_t trace, int32_t pid, int64_t handle) {
  size_t i = (size_t)mix((uint64_t)handle * 31u + (uint64_t)trace * 1000003u + (uint32_t)pid) & (t->cap - 1);
  for (;; i = (i + 1) & (t->cap - 1)) {
    struct hstate *e = &t->v[i];
    if (!e->used) { *e = (struct hstate){ trace, handle, pid, 1, -1, -1, 0, 0 }; return e; }
    if (e->handle == handle && e->trace_id == trace && e->pid == pid) return e;
  }
}

static int is_pinned_kind(int k) { return k == GCS_HANDLE_KIND_PINNED || k == GCS_HANDLE_KIND_ASYNC_PINNED; }

static const struct ins_handle_trace *find_trace(const struct ins_handle_trace *t, size_t n, int64_t id) {
  for (size_t i = 0; i < n; i++) if (t[i].id == id) return &t[i];
  return NULL;
}

/* Append to a growing array; 0, or -1 when out of memory. */
static int grow(void **v, size_t *cap, size_t n, size_t size, size_t first) {
  if (n < *cap) return 0;
  size_t c = *cap ? 2 * *cap : first;
  void *p = realloc(*v, c * size);
  if (!p) return -1;
  *v = p;
  *cap = c;
  return 0;
}

/* The bucket row of (trace, pid, bucket, kind): rows of one bucket are
 * adjacent, those of one kind only per kind, so search the bucket's rows. */
static struct ins_handle_bucket *bucket_row(struct ins_handles *out, size_t *cap, const struct ins_handle_ev *e,
                                            int64_t bucket, int kind) {
  size_t j = out->nbuckets;
  struct ins_handle_bucket *a = out->buckets;
  while (j > 0 && a[j - 1].trace_id == e->trace_id && a[j - 1].pid == e->pid && a[j - 1].bucket == bucket) {
    if (a[j - 1].kind == kind) return &a[j - 1];
    j--;
  }
  if (grow((void **)&out->buckets, cap, out->nbuckets, sizeof *out->buckets, 256)) return NULL;
  out->buckets[out->nbuckets] = (struct ins_handle_bucket){ e->trace_id, bucket, e->pid, kind, 0, 0 };
  return &out->buckets[out->nbuckets++];
}

void ins_handles_free(struct ins_handles *h) {
  free(h->buckets);
  free(h->at_gc);
  free(h->pins);
  memset(h, 0, sizeof *h);
}

int ins_handles_compute(struct ins_handle_ev *ev, size_t nev, struct ins_handle_gc *gc, size_t ngc,
                        const struct ins_handle_trace *traces, size_t ntraces, int64_t bucket_ns, long top,
                        struct ins_handles *out) {
  memset(out, 0, sizeof *out);
  if (bucket_ns <= 0) bucket_ns = 1;
  size_t capb = 0, capp = 0;
  struct ins_handle_pin *pins = NULL;
  size_t npins = 0;
  int64_t *lives = NULL;
  struct htab t = { NULL, 1024 };
  if (nev) qsort(ev, nev, sizeof *ev, cmp_ev);
  if (ngc) qsort(gc, ngc, sizeof *gc, cmp_gc);
  while (t.cap < 2 * nev + 2) t.cap *= 2;
  t.v = calloc(t.cap, sizeof *t.v);
  out->at_gc = malloc((ngc ? ngc : 1) * sizeof *out->at_gc);
  if (!t.v || !out->at_gc) goto oom;
  int64_t cur_trace = INT64_MIN, start_ns = 0;
  size_t i = 0, gi = 0;
  /* Walk the events of each (trace, pid) in time order, giving each GC that
   * starts after the events of its instant the running count of pinned handles. */
  while (i < nev || gi < ngc) {
    /* the next (trace, pid) group: the smaller of the next event and the next GC */
    int take_gc_group = i >= nev || (gi < ngc && (gc[gi].trace_id < ev[i].trace_id ||
                                     (gc[gi].trace_id == ev[i].trace_id && gc[gi].pid < ev[i].pid)));
    int64_t tr = take_gc_group ? gc[gi].trace_id : ev[i].trace_id;
    int32_t pid = take_gc_group ? gc[gi].pid : ev[i].pid;
    int64_t alive = 0;
    while ((i < nev && ev[i].trace_id == tr && ev[i].pid == pid) ||
           (gi < ngc && gc[gi].trace_id == tr && gc[gi].pid == pid)) {
      int gc_next = !(i < nev && ev[i].trace_id == tr && ev[i].pid == pid) ||
                    (gi < ngc && gc[gi].trace_id == tr && gc[gi].pid == pid && gc[gi].start_ns < ev[i].ts_ns);
      if (gc_next) {
        out->at_gc[out->nat_gc++] = (struct ins_handle_at_gc){ gc[gi].id, alive };
        gi++;
        continue;
      }
      const struct ins_handle_ev *e = &ev[i++];
      struct hstate *h = lookup(&t, e->trace_id, e->pid, e->handle);
      int kind = e->set ? e->kind : h->kind;              /* a destroy: its handle's latest set's kind */
      if (e->set) h->kind = e->kind;
      if (h->pinned_now) {                                /* a pin ends at its handle's next event */
        if (grow((void **)&pins, &capp, npins, sizeof *pins, 1024)) goto oom;
        pins[npins++] = (struct ins_handle_pin){ e->trace_id, e->handle, h->pin_set_ns, e->ts_ns, e->pid, h->kind_at_pin };
      }
      int pinned = e->set && is_pinned_kind(e->kind);
      alive += pinned - h->pinned_now;
      h->pinned_now = (uint8_t)pinned;
      if (pinned) { h->pin_set_ns = e->ts_ns; h->kind_at_pin = e->kind; }
      if (e->trace_id != cur_trace) {
        cur_trace = e->trace_id;
        const struct ins_handle_trace *tt = find_trace(traces, ntraces, cur_trace);
        start_ns = tt ? tt->start_ns : 0;
      }
      struct ins_handle_bucket *b = bucket_row(out, &capb, e, (e->ts_ns - start_ns) / bucket_ns, kind);
      if (!b) goto oom;
      if (e->set) b->created++; else b->destroyed++;
    }
  }
  /* pins still alive at the end */
  for (size_t k = 0; k < t.cap; k++) {
    const struct hstate *h = &t.v[k];
    if (!h->used || !h->pinned_now) continue;
    if (grow((void **)&pins, &capp, npins, sizeof *pins, 1024)) goto oom;
    pins[npins++] = (struct ins_handle_pin){ h->trace_id, h->handle, h->pin_set_ns, INS_HANDLE_ALIVE, h->pid,
                                             h->kind_at_pin };
  }
  /* Keep the pins that can be among the longest (ties at the cut included). */
  lives = malloc((npins ? npins : 1) * sizeof *lives);
  if (!lives) goto oom;
  for (size_t k = 0; k < npins; k++) {
    const struct ins_handle_trace *tt = pins[k].end_ns == INS_HANDLE_ALIVE ? find_trace(traces, ntraces, pins[k].trace_id) : NULL;
    int64_t end = pins[k].end_ns != INS_HANDLE_ALIVE ? pins[k].end_ns : tt ? tt->end_ns : 0;
    lives[k] = end - pins[k].set_ns;
  }
  int64_t cut = INT64_MIN;
  if (top > 0 && (size_t)top < npins) {
    int64_t *sorted = malloc(npins * sizeof *sorted);
    if (!sorted) goto oom;
    memcpy(sorted, lives, npins * sizeof *sorted);
    qsort(sorted, npins, sizeof *sorted, cmp_life_desc);
    cut = sorted[top - 1] - 1000000;   /* a ms below: the printed order rounds to microseconds */
    free(sorted);
  }
  size_t kept = 0;
  for (size_t k = 0; k < npins; k++)
    if (lives[k] >= cut) pins[kept++] = pins[k];
  out->pins = pins;
  out->npins = kept;
  free(lives);
  free(t.v);
  return 0;
oom:
  free(pins);
  free(lives);
  free(t.v);
  ins_handles_free(out);
  return -1;
}
