/* gcs_rules.c — parsing and describing stop rules (gcs_rules.h). */
#include "gcs_rules.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gcs_enums.h"

void gcs_rule_builtin(struct gcs_rule *r, enum gcs_trigger_kind k, double over_ms) {
  memset(r, 0, sizeof *r);
  snprintf(r->name, sizeof r->name, "%s", gcs_trigger_name(k));
  r->form = GCS_RULE_BUILTIN;
  r->kind = k;
  r->over_ms = over_ms;
  r->gen = r->type = -1;
  r->reason = -1;
  r->action = GCS_RULE_CAPTURE;
}

/* A rule's error: the message into err, -1 returned. */
__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return -1;
}

/* A number >= 0 (finite), whole when want_int. */
static int number(const char *v, double *out, int want_int) {
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (end == v || *end || errno || !isfinite(d) || d < 0) return -1;
  if (want_int && d != floor(d)) return -1;
  *out = d;
  return 0;
}

/* A value of a schema map by name (case-insensitive) or number. */
static int map_value(const char *map, const char *v, int64_t *out) {
  double d;
  if (number(v, &d, 1) == 0 && d <= 4294967295.0) {
    *out = (int64_t)d;
    return 0;
  }
  const struct gcs_map_desc *m = gcs_map_find(map);
  for (int i = 0; m && i < m->nentries; i++)
    if (strcasecmp(m->entries[i].name, v) == 0) {
      *out = m->entries[i].value;
      return 0;
    }
  return -1;
}

static int event_kind(const char *v, enum gcs_kind *out) {
  for (int k = 0; k < GCS_KIND_COUNT; k++)
    if (strcmp(gcs_event_descs[k].name, v) == 0) {
      *out = (enum gcs_kind)k;
      return 0;
    }
  return -1;
}

static const char *const op_text[] = { "=", "!=", "<", "<=", ">", ">=" };

static int parse_where(const char *v, struct gcs_rule *r) {
  size_t n = strcspn(v, "=!<>");
  if (n == 0 || n >= sizeof r->where_field || !v[n]) return -1;
  memcpy(r->where_field, v, n);
  r->where_field[n] = '\0';
  const char *o = v + n;
  if (!strncmp(o, "!=", 2)) r->where_op = GCS_OP_NE, o += 2;
  else if (!strncmp(o, "<=", 2)) r->where_op = GCS_OP_LE, o += 2;
  else if (!strncmp(o, ">=", 2)) r->where_op = GCS_OP_GE, o += 2;
  else if (!strncmp(o, "==", 2)) r->where_op = GCS_OP_EQ, o += 2;
  else if (*o == '=') r->where_op = GCS_OP_EQ, o++;
  else if (*o == '<') r->where_op = GCS_OP_LT, o++;
  else if (*o == '>') r->where_op = GCS_OP_GT, o++;
  else return -1;
  double d;
  int64_t mv;
  if (number(o, &d, 1) == 0) r->where_value = (uint64_t)d;
  else if (!strcmp(r->where_field, "Reason") && map_value("suspend_reason", o, &mv) == 0) r->where_value = (uint64_t)mv;
  else if (!strcmp(r->where_field, "Type") && map_value("gc_type", o, &mv) == 0) r->where_value = (uint64_t)mv;
  else return -1;
  r->has_where = 1;
  return 0;
}

int gcs_rule_parse(const char *line, struct gcs_rule *r, char *err, size_t errlen) {
  gcs_rule_builtin(r, GCS_TRIGGER_GC_OVER, -1);
  r->name[0] = '\0';
  r->kind = GCS_TRIGGER_NKINDS; /* not given yet */
  r->start = r->stop = GCS_KIND_COUNT;
  r->window_ms = r->above_pct = -1;
  const char *p = line;
  while (isspace((unsigned char)*p)) p++;
  size_t nl = strcspn(p, ": \t");
  if (nl == 0 || p[nl] != ':') return fail(err, errlen, "a rule starts with its name and a colon (NAME: KEY=VALUE ...)");
  if (nl >= sizeof r->name) return fail(err, errlen, "rule name too long (at most %d characters)", (int)sizeof r->name - 1);
  memcpy(r->name, p, nl);
  r->name[nl] = '\0';
  p += nl + 1;
  int have_over = 0, have_pair = 0, have_metric = 0, have_above = 0;
  for (;;) {
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    size_t tl = strcspn(p, " \t\r\n\v\f");
    char tok[600];
    if (tl >= sizeof tok) return fail(err, errlen, "%s: a value is too long", r->name);
    memcpy(tok, p, tl);
    tok[tl] = '\0';
    char *eq = strchr(tok, '=');
    if (!eq) return fail(err, errlen, "'%s': expected KEY=VALUE", tok);
    *eq = '\0';
    const char *k = tok, *v = eq + 1;
    if (!strcmp(k, "run")) {   /* the rest of the line */
      const char *rest = strchr(p, '=') + 1;
      size_t rl = strlen(rest);
      while (rl && isspace((unsigned char)rest[rl - 1])) rl--;
      if (!rl) return fail(err, errlen, "run=: no command");
      if (rl >= sizeof r->run) return fail(err, errlen, "run=: command too long");
      memcpy(r->run, rest, rl);
      r->run[rl] = '\0';
      break;
    }
    p += tl;
    if (!*v) return fail(err, errlen, "%s=: no value", k);
    double d;
    int64_t mv;
    if (!strcmp(k, "pair")) {
      int found = 0;
      for (int i = 0; i < GCS_TRIGGER_NKINDS; i++)
        if (!strcmp(v, gcs_trigger_name((enum gcs_trigger_kind)i))) r->kind = (enum gcs_trigger_kind)i, found = 1;
      if (!found) return fail(err, errlen, "pair=%s: expected gc-over, suspend-over or bgc-final-pause-over", v);
      have_pair = 1;
    } else if (!strcmp(k, "over")) {
      if (number(v, &r->over_ms, 0)) return fail(err, errlen, "over=%s: expected milliseconds (a number >= 0)", v);
      have_over = 1;
    } else if (!strcmp(k, "gen")) {
      if (number(v, &d, 1) || d > 2) return fail(err, errlen, "gen=%s: expected 0, 1 or 2", v);
      r->gen = (int)d;
    } else if (!strcmp(k, "type")) {
      if (!strcasecmp(v, "nonconcurrent")) r->type = GCS_GC_TYPE_NON_CONCURRENT;
      else if (!strcasecmp(v, "background")) r->type = GCS_GC_TYPE_BACKGROUND;
      else if (!strcasecmp(v, "foreground")) r->type = GCS_GC_TYPE_FOREGROUND;
      else return fail(err, errlen, "type=%s: expected nonconcurrent, background or foreground", v);
    } else if (!strcmp(k, "reason")) {
      if (map_value("gc_reason", v, &mv) && map_value("suspend_reason", v, &mv))
        return fail(err, errlen, "reason=%s: not a GC or suspend reason (a name like AllocSmall, or a number)", v);
      r->reason = mv;
    } else if (!strcmp(k, "pid")) {
      if (number(v, &d, 1) || d < 1 || d > 2147483647.0) return fail(err, errlen, "pid=%s: expected a process id", v);
      r->pid = (int32_t)d;
    } else if (!strcmp(k, "start") || !strcmp(k, "stop")) {
      enum gcs_kind ek;
      if (event_kind(v, &ek)) return fail(err, errlen, "%s: unknown event '%s'", k, v);
      if (!strcmp(k, "start")) r->start = ek; else r->stop = ek;
    } else if (!strcmp(k, "key")) {
      if (!strcmp(v, "thread")) r->key = GCS_RULE_KEY_THREAD;
      else if (!strcmp(v, "process")) r->key = GCS_RULE_KEY_PROCESS;
      else if (!strcmp(v, "count")) r->key = GCS_RULE_KEY_COUNT;
      else return fail(err, errlen, "key=%s: expected thread, process or count", v);
    } else if (!strcmp(k, "where")) {
      if (parse_where(v, r)) return fail(err, errlen, "where=%s: expected FIELD OP VALUE, e.g. Reason=1 or Depth>=1", v);
    } else if (!strcmp(k, "metric")) {
      if (strcmp(v, "pct-pause")) return fail(err, errlen, "metric=%s: the one metric is pct-pause", v);
      have_metric = 1;
    } else if (!strcmp(k, "window")) {
      if (number(v, &d, 0) || d <= 0) return fail(err, errlen, "window=%s: expected seconds (> 0)", v);
      r->window_ms = d * 1000;
    } else if (!strcmp(k, "above")) {
      if (number(v, &d, 0) || d >= 100) return fail(err, errlen, "above=%s: expected a percentage below 100", v);
      r->above_pct = d;
      have_above = 1;
    } else if (!strcmp(k, "sustain")) {
      if (number(v, &d, 0)) return fail(err, errlen, "sustain=%s: expected seconds", v);
      r->sustain_ms = d * 1000;
    } else if (!strcmp(k, "max")) {
      if (number(v, &d, 1) || d < 1 || d > 1000000) return fail(err, errlen, "max=%s: expected a count >= 1", v);
      r->max_fires = (int)d;
    } else if (!strcmp(k, "cooldown")) {
      if (number(v, &d, 0)) return fail(err, errlen, "cooldown=%s: expected seconds", v);
      r->cooldown_ms = d * 1000;
    } else if (!strcmp(k, "for")) {
      if (number(v, &d, 0) || d <= 0) return fail(err, errlen, "for=%s: expected seconds (> 0)", v);
      r->active_ms = d * 1000;
    } else if (!strcmp(k, "action")) {
      if (!strcmp(v, "capture")) r->action = GCS_RULE_CAPTURE;
      else if (!strcmp(v, "stop")) r->action = GCS_RULE_STOP;
      else if (!strcmp(v, "log")) r->action = GCS_RULE_LOG;
      else return fail(err, errlen, "action=%s: expected capture, stop or log", v);
    } else {
      return fail(err, errlen, "unknown key '%s' (see docs/tracer.md, Stop rules)", k);
    }
  }
  int have_events = r->start != GCS_KIND_COUNT || r->stop != GCS_KIND_COUNT;
  if (have_pair + have_events + have_metric != 1)
    return fail(err, errlen, "%s: give exactly one of pair=, start=/stop= or metric=", r->name);
  if (have_pair) {
    r->form = GCS_RULE_BUILTIN;
    if (!have_over) return fail(err, errlen, "%s: pair= needs over=MS", r->name);
    if (r->kind == GCS_TRIGGER_SUSPEND_OVER && (r->gen >= 0 || r->type >= 0))
      return fail(err, errlen, "%s: a suspension closes before its GC starts: gen= and type= are for gc-over and "
                  "bgc-final-pause-over", r->name);
  } else if (have_events) {
    r->form = GCS_RULE_EVENT_PAIR;
    if (r->start == GCS_KIND_COUNT || r->stop == GCS_KIND_COUNT)
      return fail(err, errlen, "%s: start= and stop= go together", r->name);
    if (!have_over) return fail(err, errlen, "%s: start=/stop= needs over=MS", r->name);
    if (r->gen >= 0 || r->type >= 0 || r->reason >= 0)
      return fail(err, errlen, "%s: gen=, type= and reason= are for pair=; use where=FIELD OP VALUE", r->name);
    if (gcs_rule_events_ok(r, err, errlen)) return -1;
  } else {
    r->form = GCS_RULE_WINDOW;
    if (r->window_ms <= 0 || !have_above) return fail(err, errlen, "%s: metric=pct-pause needs window=SEC and above=PCT", r->name);
    if (have_over || r->gen >= 0 || r->type >= 0 || r->reason >= 0 || r->has_where)
      return fail(err, errlen, "%s: metric= takes window=, above=, sustain= and pid= only", r->name);
  }
  if (r->form != GCS_RULE_WINDOW && (r->window_ms >= 0 || have_above || r->sustain_ms > 0))
    return fail(err, errlen, "%s: window=, above= and sustain= are for metric=", r->name);
  return 0;
}

int gcs_rule_events_ok(const struct gcs_rule *r, char *err, size_t errlen) {
  if (r->form != GCS_RULE_EVENT_PAIR) return 0;
  enum gcs_kind ks[2] = { r->start, r->stop };
  for (int i = 0; i < 2; i++)
    if (!gcs_triggers_event_needed(ks[i]))
      return fail(err, errlen, "%s: the rules see only GCSuspendEEBegin, GCSuspendEEEnd, GCStart, GCEnd, GCHeapStats "
                  "and GCRestartEEEnd, not %s", r->name, gcs_event_descs[ks[i]].name);
  const char *const *have = gcs_triggers_event_fields(r->start);
  if (r->has_where) {
    int ok = 0;
    for (const char *const *f = have; *f; f++) ok |= !strcmp(*f, r->where_field);
    if (!ok) return fail(err, errlen, "%s: where= can test only the fields the rules read of the start event (%s)",
                         r->name, have[0] ? "Reason, Count, Depth, Type" : "none for this event");
  }
  if (r->key == GCS_RULE_KEY_COUNT) {
    for (int i = 0; i < 2; i++) {
      int ok = 0;
      for (const char *const *f = gcs_triggers_event_fields(ks[i]); *f; f++) ok |= !strcmp(*f, "Count");
      if (!ok) return fail(err, errlen, "%s: key=count needs a Count field, which %s lacks", r->name, gcs_event_descs[ks[i]].name);
    }
  }
  return 0;
}

int gcs_rules_load(const char *path, struct gcs_rule **rules, int *n, char *err, size_t errlen) {
  *rules = NULL;
  *n = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  char line[2048], why[512];
  int lineno = 0, cap = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (!strchr(line, '\n') && !feof(f)) {
      snprintf(err, errlen, "%s:%d: line too long", path, lineno);
      goto bad;
    }
    line[strcspn(line, "\r\n")] = '\0';
    char *hash = strchr(line, '#');
    struct gcs_rule r;
    /* a '#' inside run= belongs to the command */
    char *run = strstr(line, "run=");
    if (hash && (!run || hash < run)) *hash = '\0';
    const char *s = line;
    while (isspace((unsigned char)*s)) s++;
    if (!*s) continue;
    if (gcs_rule_parse(s, &r, why, sizeof why)) {
      snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
      goto bad;
    }
    for (int i = 0; i < *n; i++)
      if (!strcmp((*rules)[i].name, r.name)) {
        snprintf(err, errlen, "%s:%d: rule '%s' defined twice", path, lineno, r.name);
        goto bad;
      }
    if (*n == GCS_TRIGGERS_MAX_RULES) {
      snprintf(err, errlen, "%s:%d: more than %d rules", path, lineno, GCS_TRIGGERS_MAX_RULES);
      goto bad;
    }
    if (*n == cap) {
      cap = cap ? cap * 2 : 8;
      struct gcs_rule *nr = realloc(*rules, (size_t)cap * sizeof *nr);
      if (!nr) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto bad;
      }
      *rules = nr;
    }
    (*rules)[(*n)++] = r;
  }
  if (ferror(f)) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    goto bad;
  }
  fclose(f);
  if (*n == 0) {
    snprintf(err, errlen, "%s: no rule in the file", path);
    free(*rules);
    *rules = NULL;
    return -1;
  }
  return 0;
bad:
  fclose(f);
  free(*rules);
  *rules = NULL;
  *n = 0;
  return -1;
}

void gcs_rule_describe(const struct gcs_rule *r, char *buf, size_t n) {
  char extra[160] = "", what[200];
  size_t at = 0;
#define ADD(...) do { if (at < sizeof extra) at += (size_t)snprintf(extra + at, sizeof extra - at, __VA_ARGS__); } while (0)
  if (r->gen >= 0) ADD(", gen %d", r->gen);
  if (r->type >= 0) ADD(", %s", gcs_gc_type_name((uint32_t)r->type));
  if (r->reason >= 0) {
    const char *rn = r->kind == GCS_TRIGGER_SUSPEND_OVER ? gcs_map_name("suspend_reason", (uint32_t)r->reason)
                                                         : gcs_map_name("gc_reason", (uint32_t)r->reason);
    ADD(", reason %s", rn ? rn : "?");
  }
  if (r->has_where) ADD(", %s%s%llu", r->where_field, op_text[r->where_op], (unsigned long long)r->where_value);
  if (r->pid) ADD(", pid %d", (int)r->pid);
#undef ADD
  switch (r->form) {
  case GCS_RULE_BUILTIN: snprintf(what, sizeof what, "%s > %g ms", gcs_trigger_name(r->kind), r->over_ms); break;
  case GCS_RULE_EVENT_PAIR:
    snprintf(what, sizeof what, "%s -> %s by %s > %g ms", gcs_event_descs[r->start].name,
             gcs_event_descs[r->stop].name,
             r->key == GCS_RULE_KEY_THREAD ? "thread" : r->key == GCS_RULE_KEY_PROCESS ? "process" : "Count",
             r->over_ms);
    break;
  default:
    if (r->sustain_ms > 0)
      snprintf(what, sizeof what, "%% paused over %g s > %g %% for %g s", r->window_ms / 1000, r->above_pct,
               r->sustain_ms / 1000);
    else
      snprintf(what, sizeof what, "%% paused over %g s > %g %%", r->window_ms / 1000, r->above_pct);
    break;
  }
  snprintf(buf, n, "%s (%s%s)", r->name, what, extra);
}
