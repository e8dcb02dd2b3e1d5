/* A planted violation for lint.gc_enums_planted: two bare GC numbers. */
static int is_gen2_bgc(const struct gc *g) {
  return g->gen == 2 && g->type == GCS_GC_TYPE_BACKGROUND;
}
static void reset(struct gc *g) { g->reason = 1; g->type = -1; }
