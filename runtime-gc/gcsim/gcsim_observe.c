/* gcsim_observe.c — in-process sampling with rgc_get_memory_info, the way
 * .NET programs poll GC.GetGCMemoryInfo: every field of one answer describes
 * the same GC, so each distinct GC index caught is one consistent sample. Sampling
 * can miss GCs (several may happen between two polls); the signatures only
 * rely on what a sample of them shows. */
#include <string.h>

#include "gcsim.h"

void gcsim_observe_sample(rgc_runtime *rt, struct gcsim_observed *ob, uint64_t *last_index) {
  struct rgc_memory_info mi;
  /* Background GCs are asked for by kind: foreground GCs inside a BGC would
   * otherwise hide it from the ANY sample. */
  if (rgc_get_memory_info(rt, RGC_GC_KIND_BACKGROUND, &mi) == 0 && mi.index &&
      mi.index != ob->last_bgc_index) {
    ob->last_bgc_index = mi.index;
    ob->bgc_samples++;
    if (mi.pause_durations_ns[0] && mi.pause_durations_ns[1]) ob->bgc_with_two_pauses++;
  }
  if (rgc_get_memory_info(rt, RGC_GC_KIND_ANY, &mi) || mi.index == 0 || mi.index == *last_index)
    return;
  *last_index = mi.index;
  ob->samples++;
  uint64_t pause = mi.pause_durations_ns[0] + mi.pause_durations_ns[1];
  if (pause > ob->max_pause_ns) ob->max_pause_ns = pause;
  if (mi.finalization_pending_count > ob->max_finalization_pending)
    ob->max_finalization_pending = mi.finalization_pending_count;
  if (mi.pinned_objects_count > ob->max_pinned_objects) ob->max_pinned_objects = mi.pinned_objects_count;
  if (mi.concurrent) {
    /* counted above */
  } else if (mi.generation < RGC_MAX_GENERATION) {
    ob->eph_samples++;
    ob->sum_eph_pause_ns += mi.pause_durations_ns[0];
    if (mi.pause_durations_ns[0] > ob->max_eph_pause_ns) ob->max_eph_pause_ns = mi.pause_durations_ns[0];
    ob->sum_eph_promoted += mi.promoted_bytes;
    ob->sum_eph_gen0_before += mi.generation_info[0].size_before;
    if (mi.generation_info[0].fragmentation_after > ob->max_gen0_frag_after) {
      ob->max_gen0_frag_after = mi.generation_info[0].fragmentation_after;
      ob->gen0_size_after_at_max_frag = mi.generation_info[0].size_after;
    }
  } else {
    ob->full_samples++;
  }
}

void gcsim_observe_full(rgc_runtime *rt, struct gcsim_observed *ob) {
  struct rgc_memory_info mi;
  if (rgc_get_memory_info(rt, RGC_GC_KIND_FULL_BLOCKING, &mi) || mi.index == 0 ||
      mi.index == ob->last_full_index || ob->full_n >= GCSIM_MAX_FULL_SAMPLES)
    return;
  ob->last_full_index = mi.index;
  ob->full_live_after[ob->full_n++] = mi.heap_size_bytes - mi.fragmented_bytes;
}
