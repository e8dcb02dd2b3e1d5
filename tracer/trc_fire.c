/* trc_fire.c — stop-trigger descriptions and rules for record (trc_fire.h). */
#include "trc_fire.h"

#include <stdio.h>

#include "gcs_enums.h"

/* trc_opts indexes its trigger options by the rules' kinds. */
_Static_assert(TRC_GC_OVER == (int)GCS_TRIGGER_GC_OVER && TRC_SUSPEND_OVER == (int)GCS_TRIGGER_SUSPEND_OVER &&
                   TRC_BGC_FINAL_OVER == (int)GCS_TRIGGER_BGC_FINAL_OVER && TRC_NKINDS == (int)GCS_TRIGGER_NKINDS,
               "trc_trigger_kind and gcs_trigger_kind differ");

void trc_fire_describe(const struct gcs_trigger_pair *p, char *buf, size_t n) {
  if (p->kind == GCS_TRIGGER_SUSPEND_OVER && !gcs_suspend_is_for_gc(p->reason)) {
    const char *rn = gcs_map_name("suspend_reason", p->reason);
    snprintf(buf, n, "suspension (%s, no GC)", rn ? rn : "reason ?");
  } else if (p->gen >= 0) {
    snprintf(buf, n, "GC #%u gen%d %s", p->gc_index, p->gen, gcs_gc_type_name((uint32_t)p->type));
  } else if (p->kind == GCS_TRIGGER_SUSPEND_OVER) {
    snprintf(buf, n, "suspension with Count %u (its GCStart not seen)", p->gc_index);
  } else {
    snprintf(buf, n, "GC #%u gen?", p->gc_index);
  }
}

void trc_rules_thresholds(const struct trc_opts *o, double thr[GCS_TRIGGER_NKINDS]) {
  for (int k = 0; k < GCS_TRIGGER_NKINDS; k++) thr[k] = o->trigger_on[k] ? o->trigger_ms[k] : -1;
}

struct gcs_triggers *trc_rules_new(const struct trc_opts *o, int keep_gcs) {
  struct gcs_triggers *m = gcs_triggers_new(keep_gcs, NULL, NULL);
  if (!m) return NULL;
  for (int k = 0; k < TRC_NKINDS; k++)
    if (o->trigger_on[k]) gcs_triggers_set_threshold(m, (enum gcs_trigger_kind)k, o->trigger_ms[k]);
  return m;
}
