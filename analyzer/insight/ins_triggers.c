/* ins_triggers.c — offline evaluation of the GC stop triggers (see ins_triggers.h). */
#include "ins_triggers.h"

#include <stdlib.h>

#include "gcs_events.h"

const char *const ins_trigger_names[INS_TRIG_N] = {"gc-over", "suspend-over", "bgc-final-pause-over"};

/* An open start, keyed by (pid, key): key is the GC Count for gc-over and the
 * thread id for the suspension triggers. Few are open at once, so a flat array. */
struct open_start {
  int32_t pid;
  int64_t key;
  int32_t tid;
  uint32_t count;
  int64_t ts;
};

struct trig_state {
  struct open_start *open;
  size_t n_open, cap_open;
  struct ins_trig_pair *pairs;
  size_t n_pairs, cap_pairs;
};

struct ins_trig {
  struct trig_state s[INS_TRIG_N];
};

struct ins_trig *ins_trig_new(void) { return calloc(1, sizeof(struct ins_trig)); }

void ins_trig_free(struct ins_trig *t) {
  if (!t) return;
  for (int i = 0; i < INS_TRIG_N; i++) {
    free(t->s[i].open);
    free(t->s[i].pairs);
  }
  free(t);
}

static int open_set(struct trig_state *s, int32_t pid, int64_t key, const struct ins_tev *ev) {
  for (size_t i = 0; i < s->n_open; i++)
    if (s->open[i].pid == pid && s->open[i].key == key) {
      s->open[i] = (struct open_start){pid, key, ev->tid, ev->count, ev->ts_ns};
      return 0;
    }
  if (s->n_open == s->cap_open) {
    size_t nc = s->cap_open ? s->cap_open * 2 : 16;
    struct open_start *no = realloc(s->open, nc * sizeof *no);
    if (!no) return -1;
    s->open = no;
    s->cap_open = nc;
  }
  s->open[s->n_open++] = (struct open_start){pid, key, ev->tid, ev->count, ev->ts_ns};
  return 0;
}

static int close_pair(struct trig_state *s, int32_t pid, int64_t key, int64_t ts) {
  for (size_t i = 0; i < s->n_open; i++) {
    if (s->open[i].pid != pid || s->open[i].key != key) continue;
    struct open_start o = s->open[i];
    s->open[i] = s->open[--s->n_open];
    if (s->n_pairs == s->cap_pairs) {
      size_t nc = s->cap_pairs ? s->cap_pairs * 2 : 64;
      struct ins_trig_pair *np = realloc(s->pairs, nc * sizeof *np);
      if (!np) return -1;
      s->pairs = np;
      s->cap_pairs = nc;
    }
    s->pairs[s->n_pairs++] =
        (struct ins_trig_pair){pid, o.tid, o.count, o.ts, ts, (double)(ts - o.ts) / 1e6};
    return 0;
  }
  return 0; /* orphan stop: ignored */
}

int ins_trig_feed(struct ins_trig *t, const struct ins_tev *ev) {
  int rc = 0;
  switch (ev->kind) {
  case INS_TEV_GC_START:
    if (ev->arg != 1) rc = open_set(&t->s[INS_TRIG_GC], ev->pid, ev->count, ev);
    break;
  case INS_TEV_GC_END:
    rc = close_pair(&t->s[INS_TRIG_GC], ev->pid, ev->count, ev->ts_ns);
    break;
  case INS_TEV_SUSPEND_BEGIN:
    rc = open_set(&t->s[INS_TRIG_SUSPEND], ev->pid, ev->tid, ev);
    if (rc == 0 && ev->arg == 6) rc = open_set(&t->s[INS_TRIG_BGC_FINAL], ev->pid, ev->tid, ev);
    break;
  case INS_TEV_SUSPEND_END:
    rc = close_pair(&t->s[INS_TRIG_SUSPEND], ev->pid, ev->tid, ev->ts_ns);
    break;
  case INS_TEV_RESTART_END:
    rc = close_pair(&t->s[INS_TRIG_BGC_FINAL], ev->pid, ev->tid, ev->ts_ns);
    break;
  }
  return rc;
}

const struct ins_trig_pair *ins_trig_pairs(const struct ins_trig *t, enum ins_trigger which, size_t *n) {
  *n = t->s[which].n_pairs;
  return t->s[which].pairs;
}

int ins_trig_fires(double ms, double threshold_ms) { return ms > threshold_ms; }

int ins_tev_from_event(const struct gcs_event *ev, struct ins_tev *t) {
  *t = (struct ins_tev){.ts_ns = (int64_t)ev->ts_ns, .pid = ev->pid, .tid = ev->tid};
  switch (ev->kind) {
  case gcs_kind_GCSuspendEEBegin:
    t->kind = INS_TEV_SUSPEND_BEGIN;
    t->count = ev->u.GCSuspendEEBegin.Count;
    t->arg = ev->u.GCSuspendEEBegin.Reason;
    return 0;
  case gcs_kind_GCSuspendEEEnd: t->kind = INS_TEV_SUSPEND_END; return 0;
  case gcs_kind_GCStart:
    t->kind = INS_TEV_GC_START;
    t->count = ev->u.GCStart.Count;
    t->arg = ev->u.GCStart.Type;
    return 0;
  case gcs_kind_GCEnd:
    t->kind = INS_TEV_GC_END;
    t->count = ev->u.GCEnd.Count;
    return 0;
  case gcs_kind_GCRestartEEEnd: t->kind = INS_TEV_RESTART_END; return 0;
  default: return -1;
  }
}
