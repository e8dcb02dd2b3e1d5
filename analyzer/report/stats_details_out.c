/* stats_details_out.c — issue 26's figures in `gcscope stats` JSON and
 * text: each GC's per-generation table, pinning, mark times, LOH
 * compaction, revisits and fit buckets; each process's GC settings and
 * start-up flags. Unknown is null (JSON) or "not in trace (...)" (text). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gcs_enums.h"
#include "gcs_events.h"
#include "gcs_output.h"
#include "stats_details.h"

static void key(struct rpt_wbuf *w, const char *k) {
  rpt_wbuf_str(w, ", \"");
  rpt_wbuf_str(w, k);
  rpt_wbuf_str(w, "\": ");
}

/* A byte count or count that may be unknown (NaN): null. */
static void num(struct rpt_wbuf *w, double v) { rpt_wbuf_json_num(w, v); }

void st_json_gc_details(struct rpt_wbuf *w, const struct st_proc *p, const struct st_gc *g) {
  char k[64];
  for (int gen = GCS_GEN0; gen <= GCS_GEN_POH; gen++)
    for (int f = 0; f < ST_GENF_N; f++) {
      snprintf(k, sizeof k, "%s_%s_mb", st_gen_keys[gen], st_genf_names[f]);
      key(w, k);
      num(w, g->genf[gen][f]);
    }
  /* PerfView's pinning figures (GetPinnedObjectSizes, GetPinnedObjectPercentage,
   * TotalPinnedPlugSize, TotalUserPinnedPlugSize) */
  key(w, "pinned_object_sizes");
  num(w, g->pin_obj_bytes);
  key(w, "pinned_object_pct");
  num(w, !isnan(g->pin_obj_bytes) && g->pin_plug_bytes > 0 ? floor(g->pin_obj_bytes * 100.0 / g->pin_plug_bytes) : NAN);
  key(w, "pinned_plug_mb");
  num(w, g->pin_plug_bytes / 1e6);
  key(w, "user_pinned_plug_mb");
  num(w, g->user_pin_plug_bytes / 1e6);

  key(w, "mark_times");
  if (!g->nmark) {
    rpt_wbuf_str(w, "null");
  } else {
    rpt_wbuf_str(w, "[");
    int first = 1;
    for (int i = g->mark0; i < g->mark0 + g->nmark;) {
      int heap = p->marks[i].heap;
      rpt_wbuf_str(w, first ? "{\"heap\": " : ", {\"heap\": ");
      first = 0;
      rpt_wbuf_i64(w, heap);
      /* every named kind, null where this heap did not report it */
      for (int kind = 0; kind < GCS_ROOT_KIND_N; kind++) {
        const char *stem = st_mark_stem(kind);
        if (!stem) continue;
        double ms = NAN, by = NAN;
        for (int j = i; j < g->mark0 + g->nmark && p->marks[j].heap == heap; j++)
          if (p->marks[j].kind == kind) {
            ms = p->marks[j].msec;
            by = p->marks[j].bytes;
          }
        snprintf(k, sizeof k, "mark_%s_msec", stem);
        key(w, k);
        num(w, ms);
        snprintf(k, sizeof k, "mark_%s_promoted_bytes", stem);
        key(w, k);
        num(w, by);
      }
      rpt_wbuf_str(w, "}");
      while (i < g->mark0 + g->nmark && p->marks[i].heap == heap) i++;
    }
    rpt_wbuf_str(w, "]");
  }

  key(w, "loh_compact");
  if (!g->nloh) {
    rpt_wbuf_str(w, "null");
  } else {
    rpt_wbuf_str(w, "[");
    for (int i = g->loh0; i < g->loh0 + g->nloh; i++) {
      const struct st_lohc *c = &p->lohc[i];
      rpt_wbuf_str(w, i > g->loh0 ? ", {\"heap\": " : "{\"heap\": ");
      rpt_wbuf_i64(w, c->heap);
      key(w, "time_plan_usec");
      num(w, c->plan_us);
      key(w, "time_compact_usec");
      num(w, c->compact_us);
      key(w, "time_relocate_usec");
      num(w, c->relocate_us);
      key(w, "total_refs");
      num(w, c->total_refs);
      key(w, "zero_refs");
      num(w, c->zero_refs);
      rpt_wbuf_str(w, "}");
    }
    rpt_wbuf_str(w, "]");
  }

  key(w, "bgc_revisit");
  if (isnan(g->revisit[0])) {
    rpt_wbuf_str(w, "null");
  } else {
    rpt_wbuf_str(w, "{\"pages\": ");
    num(w, g->revisit[0] + g->revisit[2]);
    key(w, "objects");
    num(w, g->revisit[1] + g->revisit[3]);
    key(w, "soh_pages");
    num(w, g->revisit[0]);
    key(w, "soh_objects");
    num(w, g->revisit[1]);
    key(w, "loh_pages");
    num(w, g->revisit[2]);
    key(w, "loh_objects");
    num(w, g->revisit[3]);
    rpt_wbuf_str(w, "}");
  }

  /* GCFitBucketInfo: one list per kind, each event's buckets */
  for (int kind = GCS_BUCKET_KIND_FL_ITEM; kind <= GCS_BUCKET_KIND_PLUG; kind++) {
    key(w, kind == GCS_BUCKET_KIND_FL_ITEM ? "free_list_buckets" : "plugs_in_condemned_buckets");
    int n = 0, seq = -1;
    for (int i = g->fit0; i < g->fit0 + g->nfit; i++) {
      const struct st_fit *b = &p->fits[i];
      if (b->kind != kind) continue;
      if (b->seq != seq) {
        rpt_wbuf_str(w, n ? "]}, {\"total_size\": " : "[{\"total_size\": ");
        num(w, b->total_size);
        rpt_wbuf_str(w, ", \"buckets\": [");
        seq = b->seq;
      } else {
        rpt_wbuf_str(w, ", ");
      }
      rpt_wbuf_str(w, "{\"index\": ");
      rpt_wbuf_i64(w, b->bucket);
      key(w, "count");
      num(w, b->count);
      key(w, "size");
      num(w, b->size);
      rpt_wbuf_str(w, "}");
      n++;
    }
    rpt_wbuf_str(w, n ? "]}]" : "null");
  }
}

static void jbool(FILE *o, const char *k, int v) {
  fprintf(o, ", \"%s\": %s", k, v < 0 ? "null" : v ? "true" : "false");
}
static void jint(FILE *o, const char *k, int64_t v) {
  if (v < 0) fprintf(o, ", \"%s\": null", k);
  else fprintf(o, ", \"%s\": %lld", k, (long long)v);
}

/* A flags map's name for one bit, or its hex text ("0x40") in hex. */
static const char *bit_name(const char *map, uint32_t bit, char hex[16]) {
  const char *name = gcs_map_name(map, bit);
  if (name) return name;
  snprintf(hex, 16, "0x%x", bit);
  return hex;
}

/* Names of the set bits of a flags map, as a JSON array. */
static void flag_names(FILE *o, const char *map, int64_t v) {
  fputc('[', o);
  int n = 0;
  for (int b = 0; b < 32; b++) {
    uint32_t bit = UINT32_C(1) << b;
    if (!((uint64_t)v & bit)) continue;
    char hex[16];
    fprintf(o, "%s", n++ ? ", " : "");
    rpt_json_str(o, bit_name(map, bit, hex));
  }
  fputc(']', o);
}

void st_json_settings(FILE *o, const struct st_proc *p) {
  const struct st_settings *t = &p->set;
  int has = t->bits >= 0;
  fprintf(o, ", \"gc_settings\": {\"hard_limit_bytes\": ");
  if (p->hard_limit >= 0) fprintf(o, "%lld", (long long)p->hard_limit);
  else fputs("null", o);
  jbool(o, "server", p->server_gc);
  jbool(o, "concurrent", p->concurrent_gc);
  jint(o, "heap_count", p->heap_count);
  jbool(o, "hard_limit_configured", has ? (t->bits & GCS_GC_SETTINGS_HARD_LIMIT_CONFIG) != 0 : -1);
  jbool(o, "large_pages", has ? (t->bits & GCS_GC_SETTINGS_LARGE_PAGES) != 0 : -1);
  jbool(o, "no_affinitize", has ? (t->bits & GCS_GC_SETTINGS_NO_AFFINITIZE) != 0 : -1);
  jint(o, "loh_threshold_bytes", t->loh_threshold);
  jint(o, "physical_memory_config_bytes", t->physical_memory_config);
  jint(o, "gen0_min_budget_config_bytes", t->gen0_min_budget_config);
  jint(o, "gen0_max_budget_config_bytes", t->gen0_max_budget_config);
  jint(o, "high_mem_percent_config", t->high_mem_percent_config);
  fprintf(o, ", \"settings_bits\": ");
  if (has) flag_names(o, "gc_settings", t->bits);
  else fputs("null", o);
  fprintf(o, "}, \"startup_flags\": ");
  if (t->startup_flags < 0) {
    fputs("null", o);
  } else {
    fprintf(o, "{\"value\": %lld, \"names\": ", (long long)t->startup_flags);
    flag_names(o, "startup_flags", t->startup_flags);
    fputc('}', o);
  }
}

size_t st_flags_text(char *buf, size_t n, const char *map, uint64_t v) {
  size_t at = 0;
  buf[0] = 0;
  for (int b = 0; b < 32; b++) {
    uint32_t bit = UINT32_C(1) << b;
    if (!(v & bit)) continue;
    char hex[16];
    int w = snprintf(buf + at, n - at, "%s%s", at ? ", " : "", bit_name(map, bit, hex));
    if (w < 0 || (size_t)w >= n - at) break;
    at += (size_t)w;
  }
  return at;
}

/* The names of the set bits of a flags map, ", "-separated ("none"). */
static void flags_text(char *buf, size_t n, const char *map, int64_t v) {
  if (!st_flags_text(buf, n, map, (uint64_t)v)) snprintf(buf, n, "none");
}

int st_settings_lines(const struct st_proc *p, char lines[][ST_SUMMARY_LINE], int max) {
  const struct st_settings *t = &p->set;
  char f[120];
  int n = 0;
  if (n < max) {
    if (t->startup_flags < 0) {
      snprintf(lines[n++], ST_SUMMARY_LINE, "Start-up flags: not in trace (RuntimeInformationStart)");
    } else {
      flags_text(f, sizeof f, "startup_flags", t->startup_flags);
      snprintf(lines[n++], ST_SUMMARY_LINE, "Start-up flags: %s", f);
    }
  }
  if (n < max && t->bits < 0)
    snprintf(lines[n++], ST_SUMMARY_LINE, "GC settings: not in trace (GCSettingsRundown: a .NET 8+ recording's end)");
  if (n < max && t->bits >= 0) {
    flags_text(f, sizeof f, "gc_settings", t->bits);
    snprintf(lines[n++], ST_SUMMARY_LINE, "GC settings: LOH threshold %lld bytes; settings flags: %s",
             (long long)t->loh_threshold, f);
  }
  /* What the user configured (0: not set) */
  const struct { const char *name; int64_t v; } cfg[] = {
    { "GCTotalPhysicalMemory", t->physical_memory_config }, { "gen0 min budget", t->gen0_min_budget_config },
    { "gen0 max budget", t->gen0_max_budget_config }, { "GCHighMemPercent", t->high_mem_percent_config },
  };
  size_t at = 0;
  char c[ST_SUMMARY_LINE];
  c[0] = 0;
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
    if (cfg[i].v > 0) {
      int w = snprintf(c + at, sizeof c - at, "%s%s %lld", at ? ", " : "Configured: ", cfg[i].name, (long long)cfg[i].v);
      if (w < 0 || (size_t)w >= sizeof c - at) break;
      at += (size_t)w;
    }
  if (at && n < max) snprintf(lines[n++], ST_SUMMARY_LINE, "%s", c);
  return n;
}

int st_summary_lines(const struct st_proc *p, char lines[][ST_SUMMARY_LINE], int max) {
  const struct st_settings *t = &p->set;
  char a[48], b[48], c[48];
  int n = 0;
  if (n < max) {
    if (t->loh_compactions > 0)
      snprintf(lines[n++], ST_SUMMARY_LINE, "LOH compactions: %lld (first GC #%lld, longest %s msec compacting)",
               (long long)t->loh_compactions, (long long)t->loh_first_gc,
               rpt_num(a, sizeof a, t->loh_max_compact_us / 1e3, 3));
    else
      snprintf(lines[n++], ST_SUMMARY_LINE, "LOH compactions: none in trace (GCLOHCompact, .NET 6+)");
  }
  if (n < max) {
    if (t->pin_object_events <= 0)
      snprintf(lines[n++], ST_SUMMARY_LINE,
               "Pinned objects: not in trace (PinObjectAtGCTime: profiles alloc, handles, verbose)");
    else if (t->pin_plug_events <= 0)
      snprintf(lines[n++], ST_SUMMARY_LINE, "Pinned objects: in %lld GC%s, at most %s bytes in one",
               (long long)t->pin_gcs, t->pin_gcs == 1 ? "" : "s", rpt_num(a, sizeof a, t->pin_max_obj_bytes, 0));
    else
      snprintf(lines[n++], ST_SUMMARY_LINE,
               "Pinned objects: in %lld GC%s, at most %s bytes in one; pinned plugs %s MB (by the user %s MB)",
               (long long)t->pin_gcs, t->pin_gcs == 1 ? "" : "s", rpt_num(a, sizeof a, t->pin_max_obj_bytes, 0),
               rpt_num(b, sizeof b, t->pin_plug_bytes / 1e6, 3), rpt_num(c, sizeof c, t->pin_user_plug_bytes / 1e6, 3));
  }
  if (n < max && t->array_events_left_out > 0)
    snprintf(lines[n++], ST_SUMMARY_LINE, "Left out: %lld GCLOHCompact/GCFitBucketInfo event%s, cut short or too long",
             (long long)t->array_events_left_out, t->array_events_left_out == 1 ? "" : "s");
  if (n < max && t->revisit_bgcs > 0)
    snprintf(lines[n++], ST_SUMMARY_LINE, "Background GC revisits: %s pages, %s objects over %lld BGC%s",
             rpt_num(a, sizeof a, t->revisit_pages, 0), rpt_num(b, sizeof b, t->revisit_objects, 0),
             (long long)t->revisit_bgcs, t->revisit_bgcs == 1 ? "" : "s");
  return n;
}
