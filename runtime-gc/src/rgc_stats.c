/* rgc_stats.c — per-generation sizes, GC.GetGCMemoryInfo-style records,
 * collection counts and the `!eeheap -gc`-style heap dump. */
#include "rgc_internal.h"

void rgc_gen_stats(struct rgc_runtime *rt, struct rgc_gc_record *rec, int after) {
  uint64_t *size = after ? rec->size_after : rec->size_before;
  uint64_t *fl = after ? rec->fl_after : rec->fl_before;
  uint64_t *fo = after ? rec->fo_after : rec->fo_before;
  for (int g = 0; g < RGC_NGEN; g++) size[g] = fl[g] = fo[g] = 0;
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap_rec *hr = &rec->heap[hi];
    uint64_t *hs = after ? hr->size_after : hr->size_before;
    uint64_t *hf = after ? hr->fl_after : hr->fl_before;
    uint64_t *ho = after ? hr->fo_after : hr->fo_before;
    for (int g = 0; g < RGC_NGEN; g++) {
      hs[g] = hf[g] = ho[g] = 0;
      for (struct rgc_region *r = rt->heaps[hi].gens[g]; r; r = r->next) {
        hs[g] += (uint64_t)(r->top - r->start);
        hf[g] += r->fl_bytes;
        ho[g] += r->fo_bytes;
      }
      size[g] += hs[g];
      fl[g] += hf[g];
      fo[g] += ho[g];
    }
  }
}

/* After a GC: fill the memory info of the kinds it belongs to. */
void rgc_record_info(struct rgc_runtime *rt, const struct rgc_gc_record *rec) {
  struct rgc_memory_info mi;
  memset(&mi, 0, sizeof mi);
  mi.index = rec->index;
  mi.generation = (int)rec->gen;
  mi.compacted = rec->compacted;
  mi.concurrent = gcs_type_is_background(rec->type);
  mi.pause_durations_ns[0] = rec->pause_ns;
  mi.pause_durations_ns[1] = mi.concurrent ? rec->pause2_ns : 0;
  uint64_t promoted = 0;
  for (int g = 0; g < RGC_NGEN; g++) {
    mi.generation_info[g].size_before = rec->size_before[g];
    mi.generation_info[g].fragmentation_before = rec->fl_before[g] + rec->fo_before[g];
    mi.generation_info[g].size_after = rec->size_after[g];
    mi.generation_info[g].fragmentation_after = rec->fl_after[g] + rec->fo_after[g];
    mi.heap_size_bytes += rec->size_after[g];
    mi.fragmented_bytes += rec->fl_after[g] + rec->fo_after[g];
    if ((int)rgc_eff_gen(g) <= (int)rec->gen) promoted += rec->surv[g];
  }
  mi.promoted_bytes = promoted;
  mi.pinned_objects_count = rec->pinned_count;
  pthread_mutex_lock(&rt->region_lock);
  mi.total_committed_bytes = rt->committed;
  pthread_mutex_unlock(&rt->region_lock);
  uint64_t avail = rec->mem_total_avail, load = rec->mem_load_pct;
  mi.total_available_memory_bytes = avail;
  mi.memory_load_bytes = avail * load / 100;
  mi.high_memory_load_threshold_bytes = avail * rt->cfg.high_mem_percent / 100;
  pthread_mutex_lock(&rt->fin_lock);
  mi.finalization_pending_count = rt->fq_n;
  pthread_mutex_unlock(&rt->fin_lock);

  pthread_mutex_lock(&rt->info_lock);
  rt->total_pause_ns += rec->pause_ns + mi.pause_durations_ns[1];
  uint64_t elapsed = rgc_now_ns() - rt->start_ns;
  mi.pause_time_percentage = elapsed ? 100.0 * (double)rt->total_pause_ns / (double)elapsed : 0;
  rt->info[RGC_GC_KIND_ANY] = mi;
  for (int hi = 0; hi < rec->nheaps && hi < RGC_MAX_HEAPS; hi++)
    memcpy(rt->last_mark[hi], rec->heap[hi].mark_bytes, sizeof rt->last_mark[hi]);
  rt->last_mark_index = rec->index;
  if (gcs_gen_is_ephemeral(rec->gen)) rt->info[RGC_GC_KIND_EPHEMERAL] = mi;
  else if (gcs_type_is_background(rec->type)) rt->info[RGC_GC_KIND_BACKGROUND] = mi;
  else rt->info[RGC_GC_KIND_FULL_BLOCKING] = mi;
  rgc_gc_callback cb = rt->gc_cb;
  void *ctx = rt->gc_cb_ctx;
  pthread_mutex_unlock(&rt->info_lock);
  if (cb) cb(ctx, &mi);
}

void rgc_set_gc_callback(rgc_runtime *rt, rgc_gc_callback fn, void *ctx) {
  pthread_mutex_lock(&rt->info_lock);
  rt->gc_cb = fn;
  rt->gc_cb_ctx = ctx;
  pthread_mutex_unlock(&rt->info_lock);
}

int64_t rgc_get_mark_bytes(rgc_runtime *rt, int heap, uint64_t out[4]) {
  _Static_assert(RGC_MARK_KINDS == 4, "rgc_get_mark_bytes returns four root kinds");
  if (heap < 0 || heap >= rt->nheaps) return -1;
  pthread_mutex_lock(&rt->info_lock);
  memcpy(out, rt->last_mark[heap], sizeof rt->last_mark[heap]);
  int64_t index = (int64_t)rt->last_mark_index;
  pthread_mutex_unlock(&rt->info_lock);
  return index;
}

int rgc_get_memory_info(rgc_runtime *rt, enum rgc_gc_kind kind, struct rgc_memory_info *out) {
  if ((unsigned)kind > RGC_GC_KIND_BACKGROUND) return -1;
  pthread_mutex_lock(&rt->info_lock);
  *out = rt->info[kind];
  pthread_mutex_unlock(&rt->info_lock);
  return 0;
}

uint64_t rgc_collection_count(rgc_runtime *rt, int gen) {
  if (gen < 0 || gen > GCS_GEN2) return 0;
  return atomic_load(&rt->counts[gen]);
}

void rgc_dump_heap(rgc_runtime *rt, FILE *out) {
  static const char *names[RGC_NGEN] = {"generation 0", "generation 1", "generation 2",
                                        "large object heap", "pinned object heap"};
  for (int hi = 0; hi < rt->nheaps; hi++) {
    struct rgc_heap *h = &rt->heaps[hi];
    pthread_mutex_lock(&h->lock);
    fprintf(out, "Number of GC Heaps: %d\n------------------------------\nHeap %d\n", rt->nheaps, hi);
    uint64_t total = 0, frag = 0;
    for (int g = 0; g < RGC_NGEN; g++) {
      uint64_t gs = 0, gf = 0;
      int nr = 0;
      for (struct rgc_region *r = h->gens[g]; r; r = r->next) nr++, gs += (uint64_t)(r->top - r->start),
                                                             gf += r->fl_bytes + r->fo_bytes;
      fprintf(out, "%s: %d region(s), size 0x%llx (%llu), fragmentation %llu\n", names[g], nr,
              (unsigned long long)gs, (unsigned long long)gs, (unsigned long long)gf);
      if (nr) fprintf(out, "         %-18s %-18s %-18s %10s\n", "segment", "begin", "allocated", "size");
      for (struct rgc_region *r = h->gens[g]; r; r = r->next)
        fprintf(out, "         %-18p %-18p %-18p 0x%llx(%llu)\n", (void *)r, (void *)r->start,
                (void *)r->top, (unsigned long long)(r->top - r->start),
                (unsigned long long)(r->top - r->start));
      total += gs;
      frag += gf;
    }
    fprintf(out, "Total Size: Size: 0x%llx (%llu) bytes.\n", (unsigned long long)total,
            (unsigned long long)total);
    fprintf(out, "Fragmentation: %llu bytes.\n", (unsigned long long)frag);
    pthread_mutex_unlock(&h->lock);
  }
  pthread_mutex_lock(&rt->region_lock);
  fprintf(out, "------------------------------\nGC Committed Heap Size: 0x%zx (%zu) bytes.\n",
          rt->committed, rt->committed);
  pthread_mutex_unlock(&rt->region_lock);
}
