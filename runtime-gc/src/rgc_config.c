/* rgc_config.c — configuration defaults and the RGC_* environment knobs
 * (named after the CLR's GC configuration knobs). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "rgc_internal.h"

void rgc_config_default(struct rgc_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->concurrent = 1;
  cfg->heap_count = 0;
  cfg->loh_threshold = 85000;
  cfg->high_mem_percent = 90;
  cfg->compact_mode = RGC_COMPACT_AUTO;
}

static int parse_u64(const char *name, const char *s, uint64_t *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  if (!*s || *s == '-') goto bad;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) goto bad;
  *out = v;
  return 0;
bad:
  if (err) snprintf(err, errlen, "%s: not a non-negative integer: '%s'", name, s);
  return -1;
}

int rgc_config_from_env(struct rgc_config *cfg, char *err, size_t errlen) {
  enum knob { SERVER, CONCURRENT, HEAP_COUNT, GEN0_SIZE, GEN0_MAX_BUDGET, LOH_THRESHOLD,
              HEAP_HARD_LIMIT, HIGH_MEM_PERCENT, VERIFY_HEAP, NO_AFFINITIZE };
  static const struct { const char *name; enum knob which; } knobs[] = {
    {"RGC_gcServer", SERVER}, {"RGC_gcConcurrent", CONCURRENT}, {"RGC_GCHeapCount", HEAP_COUNT},
    {"RGC_GCgen0size", GEN0_SIZE}, {"RGC_GCgen0MaxBudget", GEN0_MAX_BUDGET},
    {"RGC_GCLOHThreshold", LOH_THRESHOLD}, {"RGC_GCHeapHardLimit", HEAP_HARD_LIMIT},
    {"RGC_GCHighMemPercent", HIGH_MEM_PERCENT}, {"RGC_VERIFY_HEAP", VERIFY_HEAP},
    {"RGC_GCNoAffinitize", NO_AFFINITIZE},
  };
  for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
    const char *s = getenv(knobs[i].name);
    uint64_t v;
    if (!s) continue;
    if (parse_u64(knobs[i].name, s, &v, err, errlen)) return -1;
    switch (knobs[i].which) {
    case SERVER: cfg->server = v != 0; break;
    case CONCURRENT: cfg->concurrent = v != 0; break;
    case HEAP_COUNT: cfg->heap_count = (unsigned)v; if (v != cfg->heap_count) goto range; break;
    case GEN0_SIZE: cfg->gen0_size = v; break;
    case GEN0_MAX_BUDGET: cfg->gen0_max_budget = v; break;
    case LOH_THRESHOLD: cfg->loh_threshold = v; break;
    case HEAP_HARD_LIMIT: cfg->heap_hard_limit = v; break;
    case HIGH_MEM_PERCENT: cfg->high_mem_percent = (unsigned)v; if (v > 100) goto range; break;
    case VERIFY_HEAP: cfg->verify_heap = v != 0; break;
    case NO_AFFINITIZE: cfg->no_affinitize = v != 0; break;
    }
    continue;
  range:
    if (err) snprintf(err, errlen, "%s: value out of range: '%s'", knobs[i].name, s);
    return -1;
  }
  const char *m = getenv("RGC_GCCompactMode");
  if (m) {
    if (!strcmp(m, "auto")) cfg->compact_mode = RGC_COMPACT_AUTO;
    else if (!strcmp(m, "compact")) cfg->compact_mode = RGC_COMPACT_ALWAYS;
    else if (!strcmp(m, "sweep")) cfg->compact_mode = RGC_COMPACT_NEVER;
    else {
      if (err) snprintf(err, errlen, "RGC_GCCompactMode: expected auto, compact or sweep: '%s'", m);
      return -1;
    }
  }
  return 0;
}

/* Validate and derive the budgets. Returns 0 or -1 with err. */
int rgc_config_check(struct rgc_config *cfg, uint64_t *gen0_min, uint64_t *gen0_max,
                     char *err, size_t errlen);
int rgc_config_check(struct rgc_config *cfg, uint64_t *gen0_min, uint64_t *gen0_max,
                     char *err, size_t errlen) {
#define FAIL(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
  if (!cfg->server && cfg->heap_count > 1)
    FAIL("RGC_GCHeapCount=%u: workstation GC has exactly 1 heap (RGC_gcServer=1 for more)", cfg->heap_count);
  if (cfg->heap_count > RGC_MAX_HEAPS)
    FAIL("RGC_GCHeapCount=%u: at most %d heaps", cfg->heap_count, RGC_MAX_HEAPS);
  if (cfg->loh_threshold < 1024 || cfg->loh_threshold > RGC_REGION_SIZE / 4)
    FAIL("RGC_GCLOHThreshold=%zu: must be between 1024 and %zu bytes", cfg->loh_threshold,
         RGC_REGION_SIZE / 4);
  if (cfg->gen0_size && (cfg->gen0_size < 64 * 1024 || cfg->gen0_size > ((uint64_t)1 << 32)))
    FAIL("RGC_GCgen0size=%zu: must be between 65536 and 4294967296 bytes", cfg->gen0_size);
  if (cfg->heap_hard_limit && cfg->heap_hard_limit < 16 * RGC_REGION_SIZE)
    FAIL("RGC_GCHeapHardLimit=%zu: must be 0 or at least %zu bytes", cfg->heap_hard_limit,
         16 * RGC_REGION_SIZE);
  if (cfg->high_mem_percent < 1 || cfg->high_mem_percent > 100)
    FAIL("RGC_GCHighMemPercent=%u: must be between 1 and 100", cfg->high_mem_percent);
  uint64_t g0 = cfg->gen0_size;
  if (!cfg->heap_count) {
    long ncpu = cfg->server ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    if (ncpu < 1) ncpu = 1;
    if (ncpu > RGC_MAX_HEAPS) ncpu = RGC_MAX_HEAPS;
    cfg->heap_count = (unsigned)ncpu;
  }
  if (!g0) {
    /* CoreCLR (WKS): max(4/5 of the largest cache, 256 KB) * 5/8. Capped at
     * 6 MB: VMs often report implausible cache sizes. */
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 <= 0) l3 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l3 <= 0) l3 = 1 << 20;
    g0 = (uint64_t)l3 * 4 / 5;
    if (g0 < 256 * 1024) g0 = 256 * 1024;
    g0 = g0 * 5 / 8;
    if (g0 > 6u * 1024 * 1024) g0 = 6u * 1024 * 1024;
  }
  uint64_t gmax = cfg->gen0_max_budget ? cfg->gen0_max_budget
                                       : (g0 > 6u * 1024 * 1024 ? g0 : 6u * 1024 * 1024);
  if (gmax < g0) FAIL("RGC_GCgen0MaxBudget=%llu: smaller than the gen0 size %llu",
                      (unsigned long long)gmax, (unsigned long long)g0);
  *gen0_min = g0;
  *gen0_max = gmax;
  return 0;
#undef FAIL
}
