/* stk_hint.c — the advisor's sentence from the stacks (gcs_stacks.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_enums.h"
#include "gcs_stacks.h"

#define TALLY_MAX 4096

struct tally { const char *name; uint64_t samples, bytes; };

struct hint_ctx {
  const struct gcs_stacks_db *sdb;
  enum gcs_stacks_hint_kind what;
  struct tally *t;
  size_t n;
  uint64_t total, total_bytes, stackless;
};

/* The frame that names a stack's culprit: for GC.Collect the first frame past
 * System.GC's own; else the nearest to the event that is not the runtime's
 * own (System.*, Microsoft.*, Internal.*), else the nearest resolved one,
 * else the leaf. */
static const char *culprit(const struct gcs_stacks_db *sdb, const struct gcs_stack_row *st, int induced) {
  const char *first_resolved = NULL;
  for (uint32_t k = 0; k < st->depth; k++) {
    int r;
    const char *name = gcs_stacks_frame(sdb, st->frame[k], &r);
    if (induced) {
      if (strncmp(name, "System.GC.", 10) != 0) return name;
      continue;
    }
    if (!r) continue;
    if (!first_resolved) first_resolved = name;
    if (strncmp(name, "System.", 7) && strncmp(name, "Microsoft.", 10) && strncmp(name, "Internal.", 9)) return name;
  }
  if (first_resolved) return first_resolved;
  return gcs_stacks_frame(sdb, st->frame[st->depth - 1], NULL);
}

static int on_sample(const struct gcs_stacks_sample *s, void *ud) {
  struct hint_ctx *c = ud;
  if (c->what == GCS_STACKS_HINT_INDUCED && !(s->value >= 0 && gcs_reason_is_requested((uint32_t)s->value))) return 0;
  if (c->what == GCS_STACKS_HINT_PINS && s->value != GCS_HANDLE_KIND_PINNED) return 0;
  c->total++;
  c->total_bytes += s->bytes;
  const struct gcs_stack_row *st = s->stack_id > 0 ? gcs_stacks_get(c->sdb, s->stack_id) : NULL;
  if (!st || st->depth == 0) { c->stackless++; return 0; }
  const char *name = culprit(c->sdb, st, c->what == GCS_STACKS_HINT_INDUCED);
  for (size_t i = 0; i < c->n; i++)
    if (strcmp(c->t[i].name, name) == 0) { c->t[i].samples++; c->t[i].bytes += s->bytes; return 0; }
  if (c->n == TALLY_MAX) return 0;   /* the rest are too small to name */
  c->t[c->n++] = (struct tally){ name, 1, s->bytes };
  return 0;
}

static int cmp_tally(const void *a, const void *b) {
  const struct tally *x = a, *y = b;
  if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
  if (x->samples != y->samples) return x->samples > y->samples ? -1 : 1;
  return strcmp(x->name, y->name);
}

int gcs_stacks_hint(sqlite3 *db, int64_t trace_id, int32_t pid, enum gcs_stacks_hint_kind what, char *out,
                    size_t outlen) {
  out[0] = '\0';
  char err[256];
  struct gcs_stacks_db *sdb = gcs_stacks_load(db, err, sizeof err);
  if (!sdb) return -1;
  struct hint_ctx c = { sdb, what, calloc(TALLY_MAX, sizeof(struct tally)), 0, 0, 0, 0 };
  int rc = -1;
  if (!c.t) goto done;
  rc = 0;
  if (gcs_stacks_count(sdb) == 0) goto done;
  struct gcs_stacks_query q = { what == GCS_STACKS_HINT_ALLOC ? gcs_kind_GCAllocationTick
                                : what == GCS_STACKS_HINT_INDUCED ? gcs_kind_GCTriggered : gcs_kind_SetGCHandle,
                                trace_id, pid, -1, -1 };
  if (gcs_stacks_samples(db, &q, on_sample, &c, err, sizeof err) < 0) { rc = -1; goto done; }
  if (!c.n && !(what == GCS_STACKS_HINT_PINS && c.stackless)) goto done;
  qsort(c.t, c.n, sizeof *c.t, cmp_tally);
  size_t len = 0;
#define APPEND(...) do { if (len < outlen) { int k_ = snprintf(out + len, outlen - len, __VA_ARGS__); \
                          if (k_ > 0) len += (size_t)k_; } } while (0)
  if (what == GCS_STACKS_HINT_INDUCED) APPEND("GC.Collect is called from ");
  else if (what == GCS_STACKS_HINT_ALLOC) APPEND("Top allocating code (AllocationTick stacks, first frame outside System.*): ");
  else if (c.n) APPEND("Pinned handles are made in ");
  else APPEND("Pinned handles: none has a stack");
  for (size_t i = 0; i < c.n && i < 3; i++) {
    if (what == GCS_STACKS_HINT_ALLOC)
      APPEND("%s%s %.1f MB (%.0f %%)", i ? ", " : "", c.t[i].name, (double)c.t[i].bytes / 1e6,
             c.total_bytes ? 100.0 * (double)c.t[i].bytes / (double)c.total_bytes : 0.0);
    else
      APPEND("%s%s (%llu of %llu)", i ? ", " : "", c.t[i].name, (unsigned long long)c.t[i].samples,
             (unsigned long long)c.total);
  }
  if (c.n > 3) APPEND(" and %zu more", c.n - 3);
  if (c.stackless && c.n)
    APPEND("; %llu of %llu without a stack%s", (unsigned long long)c.stackless, (unsigned long long)c.total,
           what == GCS_STACKS_HINT_PINS ? " (GCHandle.Alloc's fast path records none)" : "");
  if (c.stackless && !c.n) APPEND(" (%llu, GCHandle.Alloc's fast path records none)", (unsigned long long)c.stackless);
  APPEND(". gcscope stacks --event %s shows the trees.",
         what == GCS_STACKS_HINT_ALLOC ? "AllocationTick" : what == GCS_STACKS_HINT_INDUCED ? "GCTriggered" : "GCHandle");
#undef APPEND
  rc = 1;
done:
  free(c.t);
  gcs_stacks_db_free(sdb);
  return rc;
}
