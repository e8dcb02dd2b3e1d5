/* trc_replay.c — a recorded trace through the stop-trigger rules, timed by
 * the events' timestamps (trc_replay.h). */
#include "trc_replay.h"

#include "gcs_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_ctf_find.h"
#include "gcs_ctf_reader.h"
#include "gcs_nettrace.h"

struct replay {
  struct gcs_triggers *t;
  struct trc_replay *out;
  int pid;
  const struct gcs_trigger_pair *want;
  struct gcs_trigger_pair *cand;   /* pairs of want's kind and process */
  size_t ncand, capcand;
  int oom;
};

static void on_pair(const struct gcs_trigger_pair *p, void *ud) {
  struct replay *r = ud;
  if (p->fires) r->out->fired++;
  if (!r->want || p->kind != r->want->kind || p->pid != r->want->pid) return;
  if (r->ncand == r->capcand) {
    size_t cap = r->capcand ? 2 * r->capcand : 64;
    struct gcs_trigger_pair *c = realloc(r->cand, cap * sizeof *c);
    if (!c) {
      r->oom = 1;
      return;
    }
    r->cand = c;
    r->capcand = cap;
  }
  r->cand[r->ncand++] = *p;
}

static void span(struct trc_replay *o, uint64_t ts) {
  if (!ts) return;
  if (!o->first_ns || ts < o->first_ns) o->first_ns = ts;
  if (ts > o->last_ns) o->last_ns = ts;
}

static int on_event(const struct gcs_rd_event *e, void *ud) {
  struct replay *r = ud;
  r->out->events++;
  span(r->out, e->ev.ts_ns);
  if (!e->decoded || !gcs_triggers_event_needed(e->ev.kind)) return 0;
  if (r->pid > 0 && e->ev.pid != r->pid) return 0;
  gcs_triggers_feed(r->t, &e->ev, NULL);
  return 0;
}

static int on_nettrace_event(const struct gcs_event *ev, void *ud) {
  struct replay *r = ud;
  r->out->events++;
  span(r->out, ev->ts_ns);
  if (ev->kind == gcs_kind_SourceRequestStart || ev->kind == gcs_kind_SourceRequestStop) {
    uint8_t src = ev->u.SourceRequestStart.Source < 4 ? ev->u.SourceRequestStart.Source : 0;
    if (ev->kind == gcs_kind_SourceRequestStart) r->out->req_start[src]++;
    else r->out->req_stop[src]++;
  }
  if (!gcs_triggers_event_needed(ev->kind)) return 0;
  if (r->pid > 0 && ev->pid != r->pid) return 0;
  gcs_triggers_feed(r->t, ev, NULL);
  return 0;
}

static int on_lost(const struct gcs_rd_lost *l, void *ud) {
  struct replay *r = ud;
  r->out->lost += l->count;
  gcs_triggers_lost(r->t, l->begin_ns, l->ts_ns, l->count);
  return 0;
}

static uint64_t distance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* The candidate that is want's pause (see trc_replay.h). */
static void find_match(struct replay *r) {
  const struct gcs_trigger_pair *w = r->want;
  int by_index = w->kind != GCS_TRIGGER_SUSPEND_OVER || w->resolved;
  const struct gcs_trigger_pair *best = NULL;
  for (size_t i = 0; i < r->ncand; i++) {
    struct gcs_trigger_pair *c = &r->cand[i];
    if (by_index) {
      if (c->kind == GCS_TRIGGER_SUSPEND_OVER) gcs_triggers_resolve(r->t, c);
      if (c->gc_index != w->gc_index) continue;
      if (w->kind == GCS_TRIGGER_SUSPEND_OVER && !c->resolved) continue;
    }
    if (!best || distance(c->begin_ns, w->begin_ns) < distance(best->begin_ns, w->begin_ns)) best = c;
  }
  if (best) {
    r->out->matched = 1;
    r->out->match = *best;
  }
}

static int on_nettrace_lost(const struct gcs_nettrace_lost *l, void *ud) {
  gcs_triggers_lost(((struct replay *)ud)->t, l->begin_ns, l->end_ns, l->count);
  return 0;
}

/* An EventPipe .nettrace file. A cut stream counts as read: its intact part is the trace. */
static int read_nettrace(const char *path, struct replay *r, char *err, size_t errlen) {
  struct gcs_nettrace_info info;
  memset(&info, 0, sizeof info);
  int rc = gcs_nettrace_read_lost(path, on_nettrace_event, on_nettrace_lost, NULL, r, &info, err, errlen);
  r->out->lost = info.events_lost;
  r->out->truncated = info.truncated;
  return rc < 0 ? -1 : 0;
}

static int replay(const char *path, const struct gcs_trigger_thresholds *th, const struct gcs_rule *rule, int pid,
                  const struct gcs_trigger_pair *want, struct trc_replay *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  struct gcs_ctf_session *s = NULL;
  int ns = 0;
  int nettrace = gcs_nettrace_is_nettrace(path);
  if (!nettrace && gcs_ctf_find(path, &s, &ns, err, errlen)) return -1;
  if (!nettrace && ns == 0) {
    gcs_ctf_sessions_free(s, ns);   /* found nothing, but allocated */
    snprintf(err, errlen, "no LTTng trace in %s", path);
    return -1;
  }
  struct replay r = { .out = out, .pid = pid, .want = want };
  /* keep every GC: suspensions resolve to their GC at the end */
  r.t = gcs_triggers_new(0, on_pair, &r);
  if (!r.t) {
    gcs_ctf_sessions_free(s, ns);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  gcs_triggers_set_thresholds(r.t, th);
  if (rule) {
    /* the capture is a window of the recording: limits timed from its start
     * would not be the live ones */
    struct gcs_rule one = *rule;
    one.max_fires = 0;
    one.cooldown_ms = one.active_ms = 0;
    gcs_triggers_add_rule(r.t, &one);
  }
  const struct gcs_rd_callbacks cb = { .event = on_event, .lost = on_lost };
  int rc = nettrace ? read_nettrace(path, &r, err, errlen) : 0;
  for (int i = 0; i < ns && rc == 0; i++)
    if (gcs_ctf_read((const char *const *)s[i].dirs, s[i].ndirs, &cb, &r, NULL, NULL, err, errlen) < 0) rc = -1;
  gcs_ctf_sessions_free(s, ns);
  gcs_triggers_finish(r.t, &out->sum);
  if (rc == 0 && r.oom) {
    snprintf(err, errlen, "out of memory");
    rc = -1;
  }
  if (rc == 0 && want) find_match(&r);
  free(r.cand);
  gcs_triggers_free(r.t);
  return rc;
}

int trc_replay(const char *path, const struct gcs_trigger_thresholds *th, int pid,
               const struct gcs_trigger_pair *want, struct trc_replay *out, char *err, size_t errlen) {
  return replay(path, th, NULL, pid, want, out, err, errlen);
}

int trc_replay_rule(const char *path, const struct gcs_rule *rule, int pid, const struct gcs_trigger_pair *want,
                    struct trc_replay *out, char *err, size_t errlen) {
  return replay(path, NULL, rule, pid, want, out, err, errlen);
}
