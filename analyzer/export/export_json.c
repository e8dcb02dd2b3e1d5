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

#include "export.h"
#include "gcs_output.h"

struct json_writer {
  struct exp_writer base;
  int nevents, nargs;
  int32_t pid, tid;
};

/* µs with three decimals: the exact ns value */
static void json_us(FILE *f, int64_t ns) {
  if (ns < 0) ns = 0;
  fprintf(f, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
}

static void event_start(struct json_writer *w, const char *ph, const char *name) {
  FILE *f = w->base.out;
  fputs(w->nevents++ ? ",\n" : "\n", f);
  fprintf(f, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"name\":", ph, (int)w->pid, (int)w->tid);
  rpt_json_str(f, name);
}

static void metadata(struct json_writer *w, const char *what, const char *key, const char *value) {
  event_start(w, "M", what);
  fputs(",\"args\":{", w->base.out);
  rpt_json_str(w->base.out, key);
  fputc(':', w->base.out);
  rpt_json_str(w->base.out, value);
  fputs("}}", w->base.out);
}

static void json_arg(const struct exp_arg *a, void *ctx) {
  struct json_writer *w = ctx;
  FILE *f = w->base.out;
  if (w->nargs++) fputc(',', f);
  rpt_json_str(f, a->key);
  fputc(':', f);
  switch (a->kind) {
  case EXP_ARG_DOUBLE: rpt_json_num(f, a->d); break;
  case EXP_ARG_INT: fprintf(f, "%" PRId64, a->i); break;
  case EXP_ARG_BOOL: fputs(a->i ? "true" : "false", f); break;
  case EXP_ARG_STR: rpt_json_str(f, a->s); break;
  }
}

static void slice_x(const struct exp_slice *s, void *ctx) {
  struct json_writer *w = ctx;
  FILE *f = w->base.out;
  event_start(w, s->instant ? "i" : "X", s->name);
  fputs(",\"cat\":\"gc\",\"ts\":", f);
  json_us(f, s->start);
  if (s->instant) {
    fputs(",\"s\":\"t\"", f);   /* scoped to its thread (track) */
  } else {
    fputs(",\"dur\":", f);
    json_us(f, s->end - s->start);
  }
  fputs(",\"args\":{", f);
  w->nargs = 0;
  exp_slice_args(s, json_arg, w);
  fputs("}}", f);
}

static void slice_none(const struct exp_slice *s, void *ctx) { (void)s; (void)ctx; }

static int json_proc(struct exp_writer *base, const struct exp_proc *p) {
  struct json_writer *w = (struct json_writer *)base;
  FILE *f = base->out;
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
        fputs(",\"cat\":\"gc\",\"ts\":", f);
        json_us(f, t->points[k].ts);
        fputs(",\"args\":{\"value\":", f);
        rpt_json_num(f, t->points[k].value);
        fputs("}}", f);
      }
      continue;
    }
    if (t->nslices == 0) continue;
    w->tid = (int32_t)i + 1;
    metadata(w, "thread_name", "name", t->name);
    event_start(w, "M", "thread_sort_index");
    fprintf(f, ",\"args\":{\"sort_index\":%d}}", (int)i);
    exp_walk(t, slice_x, slice_none, w);
  }
  return ferror(f) ? -1 : 0;
}

static int json_close(struct exp_writer *base) {
  fputs("\n]}\n", base->out);
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
  fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"gcscope export\"},\"traceEvents\":[", out);
  return &w->base;
}
