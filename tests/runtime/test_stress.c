/* test_stress — randomized multi-threaded mutators with a shadow model.
 *
 *   rgc-test-stress THREADS OPS [SEED [bgc]]
 *
 * With "bgc" (run it with RGC_gcConcurrent=1), induced gen2 GCs are
 * non-blocking and an extra thread starts background GCs back to back while
 * the mutators run, so mutators rewire old objects during concurrent marking
 * and sweeping, and foreground GCs run inside BGCs. It checks that BGCs
 * really ran, and every GC's heap verification and the shadow checks after
 * GCs prove no live object was freed.
 *
 * Each thread owns a graph of nodes reachable from a root array and an LOH
 * array (old-to-young references through the card table) and mirrors it in a
 * shadow model keyed by node id. Periodically, and after GCs it induces, it
 * walks the real graph and compares every reachable node's id, value and
 * children with the shadow. Weak handles must be non-null and correct while
 * their target is reachable, and null after a full GC once it is not. A
 * pinned buffer keeps its address and contents. Finalizable objects are
 * finalized exactly once. Some threads spend time in native regions. Run
 * with RGC_VERIFY_HEAP=1 and a small gen0 budget so GCs are frequent. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rgc.h"
#include "check.h"

struct node { struct node *a, *b; uint64_t id, value; };
static const uint32_t node_refs[] = {0, 8};
static const rgc_type *node_t, *refs_t, *bytes_t, *fin_t;
static rgc_runtime *rt;
static long ops_per_thread;
static unsigned base_seed = 1;
static int bgc_mode;
static _Atomic int mutators_done;
static _Atomic uint64_t bgcs_seen, fgcs_seen;

#define NROOTS 64
#define NBIG 12000          /* 96 KB ref array: on the LOH */
#define NWEAK 32
#define MAX_FIN 200000
static _Atomic uint8_t fin_runs[MAX_FIN];
static _Atomic uint32_t next_fin;

struct shadow { int64_t a, b; uint64_t value; };
struct weak { rgc_handle h; int64_t target; };

struct tstate {
  int index;
  rgc_thread *t;
  unsigned seed;
  struct shadow *sh; size_t nsh, capsh;
  int64_t roots[NROOTS];
  int64_t big[NBIG];
  rgc_handle roots_h, big_h, pin_h;
  uint8_t *pin_addr;
  struct weak weak[NWEAK];
  uint32_t *kept_fin; size_t nkept;
  uint64_t id_base;
  uint8_t *seen;            /* visit marks for the reachability walk */
};

static unsigned rnd(struct tstate *s) { return (unsigned)rand_r(&s->seed); }

static int64_t new_node(struct tstate *s, struct node **out) {
  struct node *n = rgc_alloc(s->t, node_t);
  CHECK(n);
  int64_t id = (int64_t)s->nsh;
  if (s->nsh == s->capsh) {
    s->capsh = s->capsh ? s->capsh * 2 : 1024;
    s->sh = realloc(s->sh, s->capsh * sizeof *s->sh);
    s->seen = realloc(s->seen, s->capsh);
    CHECK(s->sh && s->seen);
  }
  s->sh[id] = (struct shadow){-1, -1, ((uint64_t)rnd(s) << 20) ^ (uint64_t)id};
  s->nsh++;
  n->id = s->id_base + (uint64_t)id;
  n->value = s->sh[id].value;
  *out = n;
  return id;
}

/* Walk the real graph from the roots along the shadow, checking each node. */
static void check_node(struct tstate *s, struct node *n, int64_t id) {
  if (id < 0) { CHECK(n == NULL); return; }
  CHECK(n != NULL);
  CHECK_EQ_U64(n->id, s->id_base + (uint64_t)id);
  if (s->seen[id]) return;
  s->seen[id] = 1;
  CHECK_EQ_U64(n->value, s->sh[id].value);
  CHECK(rgc_generation_of(n) >= 0 && rgc_generation_of(n) <= 3);
  check_node(s, n->a, s->sh[id].a);
  check_node(s, n->b, s->sh[id].b);
}

static void verify(struct tstate *s, int after_full_gc) {
  if (s->nsh) memset(s->seen, 0, s->nsh);
  void *roots = rgc_handle_get(s->roots_h), *big = rgc_handle_get(s->big_h);
  for (size_t i = 0; i < NROOTS; i++) check_node(s, rgc_array_get(roots, i), s->roots[i]);
  for (size_t i = 0; i < NBIG; i++) check_node(s, rgc_array_get(big, i), s->big[i]);
  for (int i = 0; i < NWEAK; i++) {
    struct weak *w = &s->weak[i];
    if (!w->h) continue;
    struct node *n = rgc_handle_get(w->h);
    if (s->seen[w->target]) {
      CHECK(n != NULL);
      CHECK_EQ_U64(n->id, s->id_base + (uint64_t)w->target);
    } else if (after_full_gc) {
      CHECK(n == NULL);  /* its target died: cleared */
    } else if (n) {
      CHECK_EQ_U64(n->id, s->id_base + (uint64_t)w->target);
    }
  }
  CHECK(rgc_handle_get(s->pin_h) == s->pin_addr);
  for (int i = 0; i < 256; i++) CHECK_EQ_U64(s->pin_addr[8 + i], (uint8_t)(i ^ s->index));
}

/* A random reachable node: from a root slot, a few random steps down. */
static struct node *pick(struct tstate *s, int64_t *id_out) {
  size_t i = rnd(s) % NROOTS;
  int64_t id = s->roots[i];
  if (id < 0) return NULL;
  struct node *n = rgc_array_get(rgc_handle_get(s->roots_h), i);
  for (int d = rnd(s) % 4; d > 0; d--) {
    int left = rnd(s) & 1;
    int64_t c = left ? s->sh[id].a : s->sh[id].b;
    if (c < 0) break;
    n = left ? n->a : n->b;
    id = c;
  }
  *id_out = id;
  return n;
}

static void fin_fn(rgc_thread *t, void *o) {
  (void)t;
  uint32_t k = *(uint32_t *)o;
  CHECK(k < MAX_FIN);
  CHECK_EQ_U64(atomic_fetch_add(&fin_runs[k], 1), 0);  /* exactly once */
}

static void *mutator(void *arg) {
  struct tstate *s = arg;
  s->t = rgc_attach_thread(rt);
  CHECK(s->t);
  s->id_base = (uint64_t)s->index << 40;
  s->seed = base_seed * 1000003u + (unsigned)s->index;
  for (int i = 0; i < NROOTS; i++) s->roots[i] = -1;
  for (int i = 0; i < NBIG; i++) s->big[i] = -1;
  s->roots_h = rgc_handle_new(s->t, rgc_alloc_array(s->t, refs_t, NROOTS), RGC_HANDLE_STRONG);
  s->big_h = rgc_handle_new(s->t, rgc_alloc_array(s->t, refs_t, NBIG), RGC_HANDLE_STRONG);
  CHECK_EQ_U64(rgc_generation_of(rgc_handle_get(s->big_h)), 3);
  void *pb = rgc_alloc_array(s->t, bytes_t, 256);
  for (int i = 0; i < 256; i++) ((uint8_t *)pb)[8 + i] = (uint8_t)(i ^ s->index);
  s->pin_h = rgc_handle_new(s->t, pb, RGC_HANDLE_PINNED);
  s->pin_addr = pb;
  pb = NULL;
  struct node *tmp = NULL, *tmp2 = NULL;
  size_t mark = rgc_root_mark(s->t);
  rgc_root(s->t, (void **)&tmp);
  rgc_root(s->t, (void **)&tmp2);

  for (long op = 0; op < ops_per_thread; op++) {
    unsigned r = rnd(s) % 100;
    if (r < 30) {                       /* new node into a root slot */
      size_t i = rnd(s) % NROOTS;
      s->roots[i] = new_node(s, &tmp);
      rgc_array_set(rgc_handle_get(s->roots_h), i, tmp);
    } else if (r < 45) {                /* link a node to another (or a new one) */
      int64_t x, y = -1;
      tmp = pick(s, &x);
      if (!tmp) continue;
      if (rnd(s) % 3) { tmp2 = pick(s, &y); if (!tmp2) y = -1; }
      else y = new_node(s, &tmp2);
      if (rnd(s) & 1) { RGC_SET(tmp, a, y < 0 ? NULL : tmp2); s->sh[x].a = y; }
      else { RGC_SET(tmp, b, y < 0 ? NULL : tmp2); s->sh[x].b = y; }
    } else if (r < 52) {                /* node into the LOH array (old -> young) */
      size_t i = rnd(s) % NBIG;
      if (rnd(s) & 1) {
        s->big[i] = new_node(s, &tmp);
        rgc_array_set(rgc_handle_get(s->big_h), i, tmp);
      } else {
        s->big[i] = -1;
        rgc_array_set(rgc_handle_get(s->big_h), i, NULL);
      }
    } else if (r < 60) {                /* drop a root */
      size_t i = rnd(s) % NROOTS;
      s->roots[i] = -1;
      rgc_array_set(rgc_handle_get(s->roots_h), i, NULL);
    } else if (r < 80) {                /* garbage, some of it larger */
      for (int k = rnd(s) % 8; k >= 0; k--) rgc_alloc(s->t, node_t);
      if (rnd(s) % 16 == 0) rgc_alloc_array(s->t, bytes_t, rnd(s) % 4000);
      if (rnd(s) % 256 == 0) rgc_alloc_array(s->t, bytes_t, 90000 + rnd(s) % 10000);
    } else if (r < 85) {                /* weak handle to a reachable node */
      int64_t x;
      tmp = pick(s, &x);
      if (!tmp) continue;
      struct weak *w = &s->weak[rnd(s) % NWEAK];
      if (w->h) rgc_handle_free(s->t, w->h);
      w->h = rgc_handle_new(s->t, tmp, (rnd(s) & 1) ? RGC_HANDLE_WEAK_SHORT : RGC_HANDLE_WEAK_LONG);
      w->target = x;
    } else if (r < 90) {                /* finalizable object, mostly dropped */
      uint32_t k = atomic_fetch_add(&next_fin, 1);
      if (k >= MAX_FIN) continue;
      uint32_t *o = rgc_alloc(s->t, fin_t);
      *o = k;
      if (rnd(s) % 50 == 0) {
        rgc_suppress_finalize(o);
        atomic_store(&fin_runs[k], 100);  /* must stay untouched */
      }
    } else if (r < 93) {                /* native region */
      rgc_enter_native(s->t);
      usleep(rnd(s) % 200);
      rgc_leave_native(s->t);
    } else if (r < 94) {
      rgc_safepoint(s->t);
    } else if (r < 95 && op % 7 == 0) { /* induced GC of some generation */
      int g = (int)(rnd(s) % 3);
      unsigned mode = (rnd(s) & 1) ? RGC_COLLECT_COMPACTING : RGC_COLLECT_FORCED;
      if (bgc_mode && g == 2) mode = RGC_COLLECT_NON_BLOCKING;
      rgc_collect(rt, g, mode);
      verify(s, 0);
    }
    if (op % 2000 == 0) verify(s, 0);
  }
  tmp = tmp2 = NULL;
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  verify(s, 1);
  rgc_root_release(s->t, mark);
  for (int i = 0; i < NWEAK; i++) if (s->weak[i].h) rgc_handle_free(s->t, s->weak[i].h);
  rgc_handle_free(s->t, s->roots_h);
  rgc_handle_free(s->t, s->big_h);
  rgc_handle_free(s->t, s->pin_h);
  rgc_detach_thread(s->t);
  return NULL;
}

/* bgc mode: background GCs back to back until the mutators are done. */
static void *inducer(void *arg) {
  (void)arg;
  while (!atomic_load(&mutators_done)) {
    rgc_collect(rt, 2, RGC_COLLECT_NON_BLOCKING);
    rgc_wait_background_gc(rt);
    usleep(1000);
  }
  return NULL;
}

static void on_gc(void *ctx, const struct rgc_memory_info *mi) {
  (void)ctx;
  if (mi->concurrent) {
    CHECK(mi->pause_durations_ns[0] > 0 && mi->pause_durations_ns[1] > 0);
    atomic_fetch_add(&bgcs_seen, 1);
  } else if (rgc_background_gc_in_progress(rt) && mi->generation < 2) {
    atomic_fetch_add(&fgcs_seen, 1);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: rgc-test-stress THREADS OPS [SEED]\n"); return 2; }
  int nthreads = atoi(argv[1]);
  ops_per_thread = atol(argv[2]);
  if (argc > 3) base_seed = (unsigned)atoi(argv[3]);
  bgc_mode = argc > 4 && !strcmp(argv[4], "bgc");
  CHECK(nthreads >= 1 && nthreads <= 16);
  char err[200];
  rt = rgc_create(NULL, err, sizeof err);
  if (!rt) { fprintf(stderr, "rgc_create: %s\n", err); return 1; }
  node_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Node", .kind = RGC_KIND_OBJECT,
    .size = sizeof(struct node), .ref_offsets = node_refs, .nrefs = 2});
  refs_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Object[]", .kind = RGC_KIND_REF_ARRAY});
  bytes_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Byte[]", .kind = RGC_KIND_VALUE_ARRAY, .elem_size = 1});
  fin_t = rgc_register_type(rt, &(struct rgc_type_desc){.name = "Fin", .kind = RGC_KIND_OBJECT, .size = 8, .finalizer = fin_fn});
  rgc_set_gc_callback(rt, on_gc, NULL);
  struct tstate *st = calloc((size_t)nthreads, sizeof *st);
  pthread_t th[16], ind;
  if (bgc_mode) CHECK(pthread_create(&ind, NULL, inducer, NULL) == 0);
  for (int i = 0; i < nthreads; i++) {
    st[i].index = i;
    CHECK(pthread_create(&th[i], NULL, mutator, &st[i]) == 0);
  }
  for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
  atomic_store(&mutators_done, 1);
  if (bgc_mode) pthread_join(ind, NULL);
  /* everything is garbage now: all finalizers run exactly once */
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  rgc_wait_for_pending_finalizers(rt);
  rgc_collect(rt, 2, RGC_COLLECT_FORCED);
  rgc_wait_for_pending_finalizers(rt);
  uint32_t n = atomic_load(&next_fin);
  if (n > MAX_FIN) n = MAX_FIN;
  for (uint32_t k = 0; k < n; k++) {
    uint8_t v = atomic_load(&fin_runs[k]);
    if (v != 1 && v != 100) { fprintf(stderr, "finalizable object %u ran %u times\n", k, v); return 1; }
  }
  uint64_t gcs = rgc_collection_count(rt, 0);
  printf("test_stress: %d threads x %ld ops: %llu GCs (gen1 %llu, gen2 %llu), %u finalizable: ok\n",
         nthreads, ops_per_thread, (unsigned long long)gcs,
         (unsigned long long)rgc_collection_count(rt, 1), (unsigned long long)rgc_collection_count(rt, 2), n);
  CHECK(gcs > 10);
  if (bgc_mode) {
    struct rgc_memory_info mi;
    rgc_get_memory_info(rt, RGC_GC_KIND_BACKGROUND, &mi);
    printf("test_stress: %llu background GCs, %llu foreground GCs seen inside them\n",
           (unsigned long long)atomic_load(&bgcs_seen), (unsigned long long)atomic_load(&fgcs_seen));
    CHECK(atomic_load(&bgcs_seen) >= 5);
    CHECK(mi.concurrent == 1 && mi.generation == 2 && mi.index > 0);
  }
  for (int i = 0; i < nthreads; i++) { free(st[i].sh); free(st[i].seen); free(st[i].kept_fin); }
  free(st);
  rgc_destroy(rt);
  return check_done();
}
