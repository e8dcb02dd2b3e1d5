/* export_json.c — the timeline as Chrome's Trace Event Format (JSON object
 * form): {"displayTimeUnit": "ms", "traceEvents": [...]}. Per process: "M"
 * events process_name, process_labels (the command line), and per slice
 * track thread_name and thread_sort_index (each track is a thread, tid 1, 2,
 * ... in track order); "X" complete events for slices (ts and dur in µs,
 * written exactly from ns with three decimals); "C" counter events (one
 * series "value" per counter name). Non-finite numbers never appear: such
 * args and counter values are not added to the model. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "gcs_output.h"

struct json_writer {
  struct exp_writer base;
  int nevents, nargs;
  int32_t pid, tid;
  struct rpt_wbuf o;   /* every byte goes through it: 64 KB writes, no stdio call per field */
};

/* µs with three decimals: the exact ns value ("%" PRId64 ".%03d") */
static void json_us(struct rpt_wbuf *o, int64_t ns) {
  if (ns < 0) ns = 0;
  rpt_wbuf_i64(o, ns / 1000);
  char *p = rpt_wbuf_room(o, 4);
  int f = (int)(ns % 1000);
  p[0] = '.';
  p[1] = (char)('0' + f / 100);
  p[2] = (char)('0' + f / 10 % 10);
  p[3] = (char)('0' + f % 10);
  o->n += 4;
}

#define PUT(o, lit) rpt_wbuf_mem((o), lit, sizeof lit - 1)

static void event_start(struct json_writer *w, const char *ph, const char *name) {
  struct rpt_wbuf *o = &w->o;
  if (w->nevents++) PUT(o, ",\n");
  else PUT(o, "\n");
  PUT(o, "{\"ph\":\"");
  rpt_wbuf_str(o, ph);
  PUT(o, "\",\"pid\":");
  rpt_wbuf_i64(o, w->pid);
  PUT(o, ",\"tid\":");
  rpt_wbuf_i64(o, w->tid);
  PUT(o, ",\"name\":");
  rpt_wbuf_json_str(o, name);
}

static void metadata(struct json_writer *w, const char *what, const char *key, const char *value) {
  event_start(w, "M", what);
  PUT(&w->o, ",\"args\":{");
  rpt_wbuf_json_str(&w->o, key);
  rpt_wbuf_char(&w->o, ':');
  rpt_wbuf_json_str(&w->o, value);
  PUT(&w->o, "}}");
}

static void json_arg(const struct exp_arg *a, void *ctx) {
  struct json_writer *w = ctx;
  struct rpt_wbuf *o = &w->o;
  if (w->nargs++) rpt_wbuf_char(o, ',');
  rpt_wbuf_json_str(o, a->key);
  rpt_wbuf_char(o, ':');
  switch (a->kind) {
  case EXP_ARG_DOUBLE: rpt_wbuf_json_num(o, a->d); break;
  case EXP_ARG_INT: rpt_wbuf_i64(o, a->i); break;
  case EXP_ARG_BOOL: if (a->i) PUT(o, "true"); else PUT(o, "false"); break;
  case EXP_ARG_STR: rpt_wbuf_json_str(o, a->s); break;
  }
}

static void slice_x(const struct exp_slice *s, void *ctx) {
  struct json_writer *w = ctx;
  struct rpt_wbuf *o = &w->o;
  event_start(w, s->instant ? "i" : "X", s->name);
  PUT(o, ",\"cat\":\"gc\",\"ts\":");
  json_us(o, s->start);
  if (s->instant) {
    PUT(o, ",\"s\":\"t\"");   /* scoped to its thread (track) */
  } else {
    PUT(o, ",\"dur\":");
    json_us(o, s->end - s->start);
  }
  PUT(o, ",\"args\":{");
  w->nargs = 0;
  exp_slice_args(s, json_arg, w);
  PUT(o, "}}");
}

static void slice_none(const struct exp_slice *s, void *ctx) { (void)s; (void)ctx; }

static int json_proc(struct exp_writer *base, const struct exp_proc *p) {
  struct json_writer *w = (struct json_writer *)base;
  struct rpt_wbuf *o = &w->o;
  w->pid = p->pid;
  w->tid = 0;
  metadata(w, "process_name", "name", p->name);
  if (p->cmdline) metadata(w, "process_labels", "labels", p->cmdline);
  for (size_t i = 0; i < p->ntracks; i++) {
    const struct exp_track *t = &p->tracks[i];
    if (t->kind == EXP_TRACK_COUNTER) {
      w->tid = 0;
      for (size_t k = 0; k < t->npoints; k++) {
        event_start(w, "C", t->name);
        PUT(o, ",\"cat\":\"gc\",\"ts\":");
        json_us(o, t->points[k].ts);
        PUT(o, ",\"args\":{\"value\":");
        rpt_wbuf_json_num(o, t->points[k].value);
        PUT(o, "}}");
      }
      continue;
    }
    if (t->nslices == 0) continue;
    w->tid = (int32_t)i + 1;
    metadata(w, "thread_name", "name", t->name);
    event_start(w, "M", "thread_sort_index");
    PUT(o, ",\"args\":{\"sort_index\":");
    rpt_wbuf_i64(o, (int)i);
    PUT(o, "}}");
    exp_walk(t, slice_x, slice_none, w);
  }
  rpt_wbuf_flush(o);
  return ferror(base->out) ? -1 : 0;
}

static int json_close(struct exp_writer *base) {
  struct json_writer *w = (struct json_writer *)base;
  PUT(&w->o, "\n]}\n");
  rpt_wbuf_flush(&w->o);
  int rc = ferror(base->out) ? -1 : 0;
  free(base);
  return rc;
}

static const struct exp_writer_ops json_ops = { json_proc, json_close };

struct exp_writer *exp_json_open(FILE *out) {
  struct json_writer *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->base.ops = &json_ops;
  w->base.out = out;
  w->o.f = out;
  PUT(&w->o, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"gcscope export\"},\"traceEvents\":[");
  return &w->base;
}
