/* ins_triggers.c — offline evaluation of the GC stop triggers (see ins_triggers.h). */
#include "ins_triggers.h"

#include <math.h>
#include <stdlib.h>

#include "gcs_rules.h"

/* pairs kept per kind: the three pairs, event pairs, the windowed metric */
#define NKEPT (GCS_TRIGGER_WINDOW + 1)

struct pairs {
  struct gcs_trigger_pair *v;
  size_t n, cap;
};

struct ins_trig {
  struct gcs_triggers *rules;
  struct pairs p[NKEPT];
  int failed;
};

static void keep_pair(const struct gcs_trigger_pair *pair, void *ud) {
  struct ins_trig *t = ud;
  if ((int)pair->kind < 0 || (int)pair->kind >= NKEPT) return;
  struct pairs *s = &t->p[pair->kind];
  if (s->n == s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 64;
    struct gcs_trigger_pair *nv = realloc(s->v, nc * sizeof *nv);
    if (!nv) {
      t->failed = 1;
      return;
    }
    s->v = nv;
    s->cap = nc;
  }
  s->v[s->n++] = *pair;
}

struct ins_trig *ins_trig_new(const struct gcs_trigger_thresholds *th, const struct gcs_rule *rules, int nrules) {
  struct ins_trig *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->rules = gcs_triggers_new(0, keep_pair, t);   /* 0: keep every GC to resolve at the end */
  if (!t->rules) {
    free(t);
    return NULL;
  }
  gcs_triggers_every_rule(t->rules, 1);   /* each rule's own firings */
  gcs_triggers_set_thresholds(t->rules, th);
  for (int i = 0; i < nrules; i++)
    if (gcs_triggers_add_rule(t->rules, &rules[i])) {
      ins_trig_free(t);
      return NULL;
    }
  return t;
}

void ins_trig_free(struct ins_trig *t) {
  if (!t) return;
  gcs_triggers_free(t->rules);
  for (int k = 0; k < NKEPT; k++) free(t->p[k].v);
  free(t);
}

int ins_trig_feed(struct ins_trig *t, const struct gcs_event *ev) {
  if (gcs_triggers_event_needed(ev->kind)) gcs_triggers_feed(t->rules, ev, NULL);
  return t->failed ? -1 : 0;
}

void ins_trig_finish(struct ins_trig *t) {
  gcs_triggers_finish(t->rules, NULL);
  for (int k = 0; k < NKEPT; k++)
    for (size_t i = 0; i < t->p[k].n; i++) gcs_triggers_resolve(t->rules, &t->p[k].v[i]);
}

const struct gcs_trigger_pair *ins_trig_pairs(const struct ins_trig *t, enum gcs_trigger_kind k, size_t *n) {
  if ((int)k < 0 || (int)k >= NKEPT) {
    *n = 0;
    return NULL;
  }
  *n = t->p[k].n;
  return t->p[k].v;
}

const struct gcs_triggers *ins_trig_rules(const struct ins_trig *t) { return t->rules; }
