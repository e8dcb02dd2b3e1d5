/* trc_fire.c — stop-trigger descriptions and rules for record (trc_fire.h). */
#include "trc_fire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gcs_enums.h"
#include "gcs_rules.h"

void trc_fire_describe(const struct gcs_trigger_pair *p, char *buf, size_t n) {
  if (p->kind == GCS_TRIGGER_WINDOW) {
    snprintf(buf, n, "%.1f %% paused up to GC #%u", p->value, p->gc_index);
    return;
  }
  if (p->kind == GCS_TRIGGER_EVENT_PAIR) {
    snprintf(buf, n, "event pair (Count %u)", p->gc_index);
    return;
  }
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

struct gcs_triggers *trc_rules_new(const struct trc_opts *o, int keep_gcs) {
  struct gcs_triggers *m = gcs_triggers_new(keep_gcs, NULL, NULL);
  if (!m) return NULL;
  gcs_triggers_set_thresholds(m, &o->stop_on);
  for (int i = 0; i < o->nrules; i++)
    if (gcs_triggers_add_rule(m, &o->rules[i])) {
      gcs_triggers_free(m);
      return NULL;
    }
  return m;
}

void trc_fire_label(const struct gcs_triggers *m, const struct gcs_trigger_pair *f, char *buf, size_t n) {
  const struct gcs_rule *rule = gcs_triggers_rule(m, f->rule);
  char desc[300];
  if (!rule) {
    snprintf(buf, n, "trigger %s", gcs_trigger_name(f->kind));
  } else if (rule->form == GCS_RULE_BUILTIN && !strcmp(rule->name, gcs_trigger_name(rule->kind))) {
    snprintf(buf, n, "trigger %s %g ms", rule->name, rule->over_ms);   /* a --stop-on-... flag */
  } else {
    gcs_rule_describe(rule, desc, sizeof desc);
    snprintf(buf, n, "rule %s", desc);
  }
}

void trc_fire_announce(const struct gcs_triggers *m, const struct gcs_trigger_pair *f, double delay_sec) {
  const struct gcs_rule *rule = gcs_triggers_rule(m, f->rule);
  char desc[320], what[96];
  trc_fire_label(m, f, desc, sizeof desc);
  if (f->kind == GCS_TRIGGER_WINDOW) snprintf(what, sizeof what, "GC #%u, %.1f %% paused", f->gc_index, f->value);
  else if (f->resolved || (f->kind != GCS_TRIGGER_SUSPEND_OVER && f->kind != GCS_TRIGGER_EVENT_PAIR))
    snprintf(what, sizeof what, "GC #%u, %.3f ms", f->gc_index, f->ms);
  else snprintf(what, sizeof what, "%.3f ms", f->ms);
  if (rule && rule->action == GCS_RULE_LOG)
    printf("gcscope record: %s fired (pid %d %s); logged\n", desc, f->pid, what);
  else if (delay_sec > 0)
    printf("gcscope record: %s fired (pid %d %s); capturing in %g s\n", desc, f->pid, what, delay_sec);
  else
    printf("gcscope record: %s fired (pid %d %s)\n", desc, f->pid, what);
  fflush(stdout);
}

void trc_fire_run(const struct gcs_rule *rule, const struct gcs_trigger_pair *f, const char *capture) {
  if (!rule || !rule->run[0]) return;
  fflush(stdout);
  fflush(stderr);
  pid_t p = fork();
  if (p < 0) {
    fprintf(stderr, "gcscope record: rule %s: cannot run its command: %s\n", rule->name, strerror(errno));
    return;
  }
  if (p == 0) {
    /* a grandchild runs it: record neither waits for it nor leaves a zombie */
    if (fork() != 0) _exit(0);
    char v[64];
    setenv("GCSCOPE_RULE", rule->name, 1);
    snprintf(v, sizeof v, "%d", (int)f->pid);
    setenv("GCSCOPE_PID", v, 1);
    snprintf(v, sizeof v, "%u", f->gc_index);
    setenv("GCSCOPE_GC", v, 1);
    snprintf(v, sizeof v, "%.3f", f->kind == GCS_TRIGGER_WINDOW ? f->value : f->ms);
    setenv("GCSCOPE_VALUE", v, 1);
    setenv("GCSCOPE_CAPTURE", capture ? capture : "", 1);
    execl("/bin/sh", "sh", "-c", rule->run, (char *)NULL);
    _exit(127);
  }
  waitpid(p, NULL, 0);
}

void trc_fire_note(const char *outdir, const struct gcs_triggers *m, const struct gcs_trigger_pair *f,
                   const char *capture, const char *verdict) {
  char path[4200];
  snprintf(path, sizeof path, "%s/firings.tsv", outdir);
  int fresh = access(path, F_OK) != 0;
  FILE *o = fopen(path, "a");
  if (!o) return;
  if (fresh) fprintf(o, "rule\tkind\tpid\tgc\tms\tvalue\tbegin_ns\tend_ns\tcapture\tverdict\n");
  const struct gcs_rule *rule = gcs_triggers_rule(m, f->rule);
  fprintf(o, "%s\t%s\t%d\t%u\t%.6f\t%.6f\t%llu\t%llu\t%s\t%s\n", rule ? rule->name : "?", gcs_trigger_name(f->kind),
          (int)f->pid, f->gc_index, f->ms, f->value, (unsigned long long)f->begin_ns, (unsigned long long)f->end_ns,
          capture ? capture : "-", verdict);
  fclose(o);
}
