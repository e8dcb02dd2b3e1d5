/* gcsim_check.c — the key=value report of a run and each scenario's GC
 * signature judged on it (the facts come from rgc_collection_count,
 * rgc_get_memory_info samples and gcsim's own counters). */
#include <stdarg.h>
#include <string.h>

#include "gcsim.h"

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

void gcsim_facts_print(const struct gcsim_facts *f, FILE *out) {
  const struct gcsim_observed *ob = &f->ob;
#define U(k, v) fprintf(out, "%s=%llu\n", k, (unsigned long long)(v))
  fprintf(out, "scenario=%s\n", f->scenario);
  fprintf(out, "seconds_taken=%.3f\n", f->seconds_taken);
  fprintf(out, "cpu_seconds_taken=%.3f\n", f->cpu_seconds_taken);
  U("threads", f->threads);
  U("gc_server", f->gc_server);
  U("gc_concurrent", f->gc_concurrent);
  U("soh_allocated_bytes", f->soh_bytes);
  U("loh_allocated_bytes", f->loh_bytes);
  U("poh_allocated_bytes", f->poh_bytes);
  U("total_allocated_bytes", f->total_allocated);
  U("gc_count", f->gc_count);
  U("gen0_gcs", f->gen0_gcs);
  U("gen1_gcs", f->gen1_gcs);
  U("gen2_gcs", f->gen2_gcs);
  U("induced_gcs", f->induced);
  U("num_created_with_finalizers", f->fin_created);
  U("num_finalized", f->finalized);
  U("requests", f->requests);
  U("pinned_handles", f->pinned_handles);
  U("slow_spins", f->slow_spins);
  fprintf(out, "slow_max_pause_ms=%.3f\n", (double)f->slow_max_pause_ns / 1e6);
  U("final_heap_size_bytes", f->final_heap_size);
  U("final_fragmentation_bytes", f->final_fragmentation);
  U("sampled_gcs", ob->samples);
  U("sampled_ephemeral_gcs", ob->eph_samples);
  U("sampled_full_blocking_gcs", ob->full_samples);
  U("sampled_background_gcs", ob->bgc_samples);
  fprintf(out, "max_pause_ms=%.3f\n", (double)ob->max_pause_ns / 1e6);
  fprintf(out, "max_ephemeral_pause_ms=%.3f\n", (double)ob->max_eph_pause_ns / 1e6);
  fprintf(out, "mean_ephemeral_pause_ms=%.3f\n", ob->eph_samples ? (double)ob->sum_eph_pause_ns / 1e6 / (double)ob->eph_samples : 0.0);
  fprintf(out, "ephemeral_promoted_ratio=%.4f\n", ratio(ob->sum_eph_promoted, ob->sum_eph_gen0_before));
  U("max_pinned_objects", ob->max_pinned_objects);
  U("max_gen0_fragmentation_after_bytes", ob->max_gen0_frag_after);
  fprintf(out, "gen0_fragmentation_after_ratio=%.4f\n",
          ratio(ob->max_gen0_frag_after, ob->gen0_size_after_at_max_frag));
  U("max_finalization_pending", ob->max_finalization_pending);
  U("background_gcs_with_two_pauses", ob->bgc_with_two_pauses);
  fprintf(out, "full_gc_live_after_bytes=");
  for (unsigned i = 0; i < ob->full_n; i++) fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)ob->full_live_after[i]);
  fprintf(out, "\n");
  if (f->probe.ran) {
    U("finalizer_probe_short_weak_cleared_gc1", f->probe.short_cleared_gc1);
    U("finalizer_probe_long_weak_alive_gc1", f->probe.long_alive_gc1);
    fprintf(out, "finalizer_probe_generation_after_gc1=%d\n", f->probe.gen_after_gc1);
    U("finalizer_probe_finalized", f->probe.finalized_before_gc2);
    U("finalizer_probe_long_weak_cleared_gc2", f->probe.long_cleared_gc2);
  }
#undef U
}

struct verdict { int ok; char *why; size_t len, used; };

static void need(struct verdict *v, int cond, const char *fmt, ...) {
  if (cond) return;
  v->ok = 0;
  if (v->used + 3 >= v->len) return;
  if (v->used) v->used += (size_t)snprintf(v->why + v->used, v->len - v->used, "; ");
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(v->why + v->used, v->len - v->used, fmt, ap);
  va_end(ap);
  if (n > 0) v->used += (size_t)n < v->len - v->used ? (size_t)n : v->len - v->used - 1;
}

int gcsim_signature(enum gcsim_scenario s, const struct gcsim_facts *f, char *why, size_t whylen) {
  struct verdict v = {1, why, whylen, 0};
  const struct gcsim_observed *ob = &f->ob;
  if (whylen) why[0] = '\0';
  double promoted = ratio(ob->sum_eph_promoted, ob->sum_eph_gen0_before);
  switch (s) {
  case GCSIM_SC_CUSTOM:
  case GCSIM_SC_COUNT:
    break;
  case GCSIM_SC_ALLOC_HEAVY:
    need(&v, f->gen0_gcs >= 10, "only %llu gen0 GCs (want >= 10)", (unsigned long long)f->gen0_gcs);
    need(&v, f->gen0_gcs >= 4 * (f->gen1_gcs + f->gen2_gcs),
         "gen0 GCs (%llu) not >= 4x the gen1+gen2 GCs (%llu)", (unsigned long long)f->gen0_gcs,
         (unsigned long long)(f->gen1_gcs + f->gen2_gcs));
    need(&v, ob->eph_samples >= 1, "no ephemeral GC sampled");
    need(&v, promoted <= 0.05, "ephemeral GCs promote %.3f of gen0 (want <= 0.05: tiny pauses)", promoted);
    break;
  case GCSIM_SC_HIGH_SURVIVAL:
    need(&v, ob->eph_samples >= 3, "only %llu ephemeral GCs sampled (want >= 3)",
         (unsigned long long)ob->eph_samples);
    need(&v, promoted >= 0.2, "ephemeral GCs promote %.3f of gen0 (want >= 0.2)", promoted);
    break;
  case GCSIM_SC_LOH_CHURN:
    need(&v, f->gen2_gcs >= 3, "only %llu gen2 GCs (want >= 3)", (unsigned long long)f->gen2_gcs);
    need(&v, f->gen2_gcs * 2 >= f->gc_count, "gen2 GCs are %llu of %llu GCs (want at least half)",
         (unsigned long long)f->gen2_gcs, (unsigned long long)f->gc_count);
    need(&v, f->loh_bytes > f->soh_bytes, "LOH bytes %llu not above SOH bytes %llu",
         (unsigned long long)f->loh_bytes, (unsigned long long)f->soh_bytes);
    break;
  case GCSIM_SC_PINNING:
    need(&v, f->pinned_handles > 0, "no pinned handle made");
    need(&v, ob->max_pinned_objects > 0, "no sampled GC saw a pinned object");
    need(&v, ob->max_gen0_frag_after > 0 &&
         ratio(ob->max_gen0_frag_after, ob->gen0_size_after_at_max_frag) >= 0.1,
         "gen0 fragmentation after ephemeral GCs %.3f of gen0 (want >= 0.1)",
         ratio(ob->max_gen0_frag_after, ob->gen0_size_after_at_max_frag));
    break;
  case GCSIM_SC_FINALIZERS:
    need(&v, f->fin_created > 0 && f->finalized > 0, "no finalizer ran (%llu created, %llu finalized)",
         (unsigned long long)f->fin_created, (unsigned long long)f->finalized);
    need(&v, f->probe.ran, "the finalizer probe did not run");
    if (f->probe.ran) {
      need(&v, f->probe.short_cleared_gc1, "probe: short weak handle not cleared by the first GC");
      need(&v, f->probe.long_alive_gc1 && f->probe.gen_after_gc1 == 1,
           "probe: dead finalizable object not kept and promoted to gen1 (generation %d)",
           f->probe.gen_after_gc1);
      need(&v, f->probe.finalized_before_gc2, "probe: finalizer did not run");
      need(&v, f->probe.long_cleared_gc2, "probe: object still alive after finalization and a gen1 GC");
    }
    break;
  case GCSIM_SC_INDUCED:
    need(&v, f->induced >= 3, "only %llu induced GCs (want >= 3)", (unsigned long long)f->induced);
    need(&v, f->gen2_gcs >= f->induced, "gen2 GCs %llu fewer than the %llu induced",
         (unsigned long long)f->gen2_gcs, (unsigned long long)f->induced);
    break;
  case GCSIM_SC_SLOW_SUSPENSION:
    need(&v, f->slow_spins >= 1, "the slow thread never ran");
    need(&v, f->slow_ms && f->slow_max_pause_ns >= (uint64_t)f->slow_ms * 500000u,
         "longest pause seen after a %u ms delay was %.1f ms (want >= half of it)", f->slow_ms,
         (double)f->slow_max_pause_ns / 1e6);
    break;
  case GCSIM_SC_BGC:
    need(&v, f->gc_concurrent == 1, "the runtime was not created with background GC");
    need(&v, ob->bgc_samples >= 1, "no background GC sampled");
    need(&v, ob->bgc_with_two_pauses >= 1, "no background GC with two pauses sampled");
    break;
  case GCSIM_SC_LEAK: {
    need(&v, ob->full_n >= 3, "only %u full blocking GCs sampled (want >= 3)", ob->full_n);
    unsigned grew = 0;
    for (unsigned i = 1; i < ob->full_n; i++) grew += ob->full_live_after[i] > ob->full_live_after[i - 1];
    need(&v, ob->full_n < 2 || grew == ob->full_n - 1,
         "live heap after full GCs grew in only %u of %u intervals", grew, ob->full_n ? ob->full_n - 1 : 0);
    break;
  }
  case GCSIM_SC_SERVER:
    need(&v, f->gc_server == 1, "the runtime was not created with server GC");
    need(&v, f->gc_count >= 1, "no GC happened");
    break;
  }
  return v.ok;
}
