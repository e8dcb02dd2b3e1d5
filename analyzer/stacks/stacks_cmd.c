/*
 * stacks_cmd.c — `gcscope stacks DB|TRACE`: the events of one kind with
 * their call stacks (schemas/tables_stacks.def), grouped per process by
 * type (AllocationTick), reason (GCTriggered), handle kind (GCHandle) or not
 * at all, rendered by stk_view.
 */
#include <math.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gcs_cli.h"
#include "gcs_enums.h"
#include "gcs_events.h"
#include "gcs_gcdb.h"
#include "gcs_output.h"
#include "gcs_stacks.h"
#include "gcs_stacks_cmd.h"
#include "stk_view.h"
#include "stk_view_internal.h"

#define CMD "stacks"


static const char SYNOPSIS[] =
    "DB|TRACE [--event EVENT] [--by KEY] [--format FMT] [-o FILE] [options]";
static const char ABOUT[] =
    "The call stacks of one kind of event, grouped per process: AllocationTick by\n"
    "type (PerfView's \"GC Heap Alloc Ignore Free (Coarse Sampling)\"; MB are the\n"
    "AllocationAmount, an estimate), GCTriggered by reason (who calls GC.Collect),\n"
    "GCHandle by handle kind (PerfView's \"Pinned Stacks\"), any event by name\n"
    "(\"Any Stacks\"). Text: top-down and bottom-up trees, inclusive and exclusive\n"
    "samples; folded: a line per stack (flamegraph.pl, inferno, speedscope); pprof:\n"
    "gzipped profile.proto. Record stacks with `gcscope record --dotnet --stacks`;\n"
    "dotnet-trace records them too.";

enum { O_EVENT, O_BY, O_PID, O_TRACE, O_FROM, O_TO, O_FORMAT, O_OUT, O_DB, O_TOP, O_MIN_PCT, O_DEPTH, O_WIDE, O_N };
static const struct gcs_cli_opt OPTS[O_N + 1] = {
  [O_EVENT] = { "event", 'e', GCS_CLI_STRING, 0, 0, "EVENT", "AllocationTick (default), GCTriggered, GCHandle,\nor any event name" },
  [O_BY] = { "by", 0, GCS_CLI_STRING, 0, 0, "KEY", "type (AllocationTick), reason (GCTriggered),\nkind (GCHandle; AllocationTick's Small/Large/Pinned)\nor none; default: the event's" },
  [O_PID] = GCS_OPT_PID,
  [O_TRACE] = GCS_OPT_TRACE,
  [O_FROM] = { "from", 0, GCS_CLI_DOUBLE, 0, 1e12, "MS", "events at or after MS ms from the trace start" },
  [O_TO] = { "to", 0, GCS_CLI_DOUBLE, 0, 1e12, "MS", "events at or before MS ms from the trace start" },
  [O_FORMAT] = GCS_OPT_FORMAT("text (default), json, folded or pprof"),
  [O_OUT] = { "output", 'o', GCS_CLI_STRING, 0, 0, "FILE", "write to FILE (pprof: needed on a terminal)" },
  [O_DB] = GCS_OPT_DB,
  [O_TOP] = { "top", 0, GCS_CLI_INT, 0, 1e9, "N", "text: groups per process (10; 0: all)" },
  [O_MIN_PCT] = { "min-pct", 0, GCS_CLI_DOUBLE, 0, 100, "PCT", "text: hide nodes under PCT % of the group (5)" },
  [O_DEPTH] = { "depth", 0, GCS_CLI_INT, 0, 1e6, "N", "text: tree levels shown (default: all)" },
  [O_WIDE] = { "wide", 'w', GCS_CLI_FLAG, 0, 0, NULL, "text: whole frames and group names (a long one is cut\nto the width: \"...\" and its end)" },
  { 0 },
};

enum fmt { F_TEXT, F_JSON, F_FOLDED, F_PPROF };
enum by { BY_DEFAULT, BY_TYPE, BY_REASON, BY_KIND, BY_NONE };

struct opts {
  const char *input, *db_path, *out_path;
  enum gcs_kind kind;
  const char *event_label;   /* as the views name it: AllocationTick, GCTriggered, GCHandle, ... */
  enum by by;
  long long pid, trace;
  double from_ms, to_ms;     /* NaN: open */
  enum fmt fmt;
  int top, depth, wide;
  double min_pct;
  long long only_trace;      /* read_samples: one trace of the input (-1: all) */
};

/* The event a --event names. -1 if none. */
static int event_kind(const char *s, const char **label) {
  static const struct { const char *name; enum gcs_kind kind; const char *label; } alias[] = {
    { "AllocationTick", gcs_kind_GCAllocationTick, "AllocationTick" },
    { "GCAllocationTick", gcs_kind_GCAllocationTick, "AllocationTick" },
    { "GCHandle", gcs_kind_SetGCHandle, "GCHandle" },
    { "SetGCHandle", gcs_kind_SetGCHandle, "GCHandle" },
    { "Triggered", gcs_kind_GCTriggered, "GCTriggered" },
  };
  for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
    if (strcasecmp(s, alias[i].name) == 0) { *label = alias[i].label; return (int)alias[i].kind; }
  for (int k = 0; k < GCS_KIND_COUNT; k++)
    if (strcasecmp(s, gcs_event_descs[k].name) == 0 && !gcs_kind_is_symbols((enum gcs_kind)k)) {
      *label = gcs_event_descs[k].name;
      return k;
    }
  return -1;
}

static int parse(int argc, char **argv, struct opts *o) {
  memset(o, 0, sizeof *o);
  o->kind = gcs_kind_GCAllocationTick;
  o->event_label = "AllocationTick";
  o->pid = -1;
  o->trace = -1;
  o->only_trace = -1;
  o->from_ms = o->to_ms = NAN;
  o->top = 10;
  o->min_pct = 5;
  const struct gcs_cli_spec spec = { .cmd = CMD, .usage = SYNOPSIS, .about = ABOUT, .opts = OPTS };
  struct gcs_cli p;
  gcs_cli_init(&p, &spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&spec, stdout); return 1; }
    if (k == GCS_CLI_BAD) { gcs_cli_fail("%s", p.err); return 2; }
    switch (k) {
    case O_EVENT: {
      int kind = event_kind(p.value, &o->event_label);
      if (kind < 0) {
        gcs_cli_fail("--event: unknown event '%s' (see --help, gcscope events)", p.value);
        return 2;
      }
      o->kind = (enum gcs_kind)kind;
      break;
    }
    case O_BY:
      if (!strcmp(p.value, "type")) o->by = BY_TYPE;
      else if (!strcmp(p.value, "reason")) o->by = BY_REASON;
      else if (!strcmp(p.value, "kind")) o->by = BY_KIND;
      else if (!strcmp(p.value, "none")) o->by = BY_NONE;
      else { gcs_cli_fail("--by: type, reason, kind or none, not '%s'", p.value); return 2; }
      break;
    case O_PID: o->pid = p.ival; break;
    case O_TRACE: o->trace = p.ival; break;
    case O_FROM: o->from_ms = p.dval; break;
    case O_TO: o->to_ms = p.dval; break;
    case O_FORMAT:
      if (!strcmp(p.value, "text")) o->fmt = F_TEXT;
      else if (!strcmp(p.value, "json")) o->fmt = F_JSON;
      else if (!strcmp(p.value, "folded")) o->fmt = F_FOLDED;
      else if (!strcmp(p.value, "pprof")) o->fmt = F_PPROF;
      else { gcs_cli_fail("--format: text, json, folded or pprof, not '%s'", p.value); return 2; }
      break;
    case O_OUT: o->out_path = p.value; break;
    case O_DB: o->db_path = p.value; break;
    case O_TOP: o->top = (int)p.ival; break;
    case O_MIN_PCT: o->min_pct = p.dval; break;
    case O_DEPTH: o->depth = (int)p.ival; break;
    case O_WIDE: o->wide = 1; break;
    default: break;
    }
  }
  if (p.optind < argc) o->input = argv[p.optind];
  if (p.optind + 1 < argc) { gcs_cli_fail("one DB or TRACE only ('%s')", argv[p.optind + 1]); return 2; }
  if (!o->input) { gcs_cli_usage(&spec, stderr); return 2; }
  if (!isnan(o->from_ms) && !isnan(o->to_ms) && o->to_ms < o->from_ms) {
    gcs_cli_fail("--to %g is before --from %g", o->to_ms, o->from_ms);
    return 2;
  }
  int tick = o->kind == gcs_kind_GCAllocationTick, trig = o->kind == gcs_kind_GCTriggered,
      handle = o->kind == gcs_kind_SetGCHandle;
  if (o->by == BY_DEFAULT) o->by = tick ? BY_TYPE : trig ? BY_REASON : handle ? BY_KIND : BY_NONE;
  if ((o->by == BY_TYPE && !tick) || (o->by == BY_REASON && !trig) || (o->by == BY_KIND && !tick && !handle)) {
    gcs_cli_fail("--by %s: %s events have none (see --help)",
                  o->by == BY_TYPE ? "type" : o->by == BY_REASON ? "reason" : "kind", o->event_label);
    return 2;
  }
  if (o->fmt == F_PPROF && !o->out_path && isatty(STDOUT_FILENO)) {
    gcs_cli_fail("--format pprof is binary: give -o FILE (or redirect stdout)");
    return 2;
  }
  return 0;
}

/* ---- reading ---------------------------------------------------------------- */

struct procname { int64_t trace; int32_t pid; char *name; };

static const char *proc_name(const struct procname *v, size_t n, int64_t trace, int32_t pid) {
  for (size_t i = 0; i < n; i++)
    if (v[i].trace == trace && v[i].pid == pid) return v[i].name;
  return NULL;
}

static const char *frame_cb(void *ud, uint32_t i, int *resolved) {
  return gcs_stacks_frame((const struct gcs_stacks_db *)ud, i, resolved);
}

static const char *map_or_unknown(const char *map, int64_t v, char *buf, size_t n) {
  if (v < 0) return "unknown";
  const char *s = v <= UINT32_MAX ? gcs_map_name(map, (uint32_t)v) : NULL;
  if (s) return s;
  snprintf(buf, n, "%s %lld", map, (long long)v);
  return buf;
}

struct reader {
  const struct opts *o;
  const struct gcs_stacks_db *sdb;
  struct stk_view *v;
  struct procname *pn;
  size_t npn;
  uint64_t with_stack;
  int oom;
};

static int on_sample(const struct gcs_stacks_sample *x, void *ud) {
  struct reader *r = ud;
  const struct opts *o = r->o;
  const struct gcs_stack_row *st = x->stack_id > 0 ? gcs_stacks_get(r->sdb, x->stack_id) : NULL;
  char buf[64];
  const char *key;
  switch (o->by) {
  case BY_TYPE: key = x->type_name; break;
  case BY_REASON: key = map_or_unknown("gc_reason", x->value, buf, sizeof buf); break;
  case BY_KIND: key = map_or_unknown(o->kind == gcs_kind_GCAllocationTick ? "alloc_kind" : "handle_kind", x->value, buf,
                                     sizeof buf); break;
  default: key = o->event_label; break;
  }
  if (st && st->depth) r->with_stack++;
  if (stk_view_add(r->v, x->trace_id, x->pid, proc_name(r->pn, r->npn, x->trace_id, x->pid), key ? key : "unknown",
                   st ? st->frame : NULL, st ? st->depth : 0, x->bytes) != 0) {
    r->oom = 1;
    return 1;
  }
  return 0;
}

/* Fills the view. Returns the number of samples, -1 after a message on errf (if any). */
static long long read_samples(sqlite3 *db, const struct opts *o, const struct gcs_stacks_db *sdb, struct stk_view *v,
                              uint64_t *with_stack, FILE *errf) {
  struct reader r = { o, sdb, v, NULL, 0, 0, 0 };
  sqlite3_stmt *q = NULL;
  long long n = -1;
  char err[512];
  if (sqlite3_prepare_v2(db, "SELECT trace_id, pid, name FROM processes WHERE " GCS_IN_INPUT("trace_id"), -1, &q,
                         NULL) != SQLITE_OK) {
    snprintf(err, sizeof err, "database: %s", sqlite3_errmsg(db));
    goto fail;
  }
  while (sqlite3_step(q) == SQLITE_ROW) {
    struct procname *np = realloc(r.pn, (r.npn + 1) * sizeof *r.pn);
    if (!np) { snprintf(err, sizeof err, "out of memory"); goto fail; }
    r.pn = np;
    const char *name = (const char *)sqlite3_column_text(q, 2);
    r.pn[r.npn].trace = sqlite3_column_int64(q, 0);
    r.pn[r.npn].pid = sqlite3_column_int(q, 1);
    r.pn[r.npn].name = name ? strdup(name) : NULL;
    r.npn++;
  }
  struct gcs_stacks_query sq = { o->kind, o->only_trace, (int32_t)o->pid,
                                 isnan(o->from_ms) ? -1 : (int64_t)llround(o->from_ms * 1e6),
                                 isnan(o->to_ms) ? -1 : (int64_t)llround(o->to_ms * 1e6) };
  n = gcs_stacks_samples(db, &sq, on_sample, &r, err, sizeof err);
  if (r.oom) { snprintf(err, sizeof err, "out of memory"); n = -1; }
  if (n < 0) goto fail;
  *with_stack = r.with_stack;
  goto out;
fail:
  if (errf) fprintf(errf, "gcscope %s: %s\n", CMD, err);
  n = -1;
out:
  sqlite3_finalize(q);
  for (size_t i = 0; i < r.npn; i++) free(r.pn[i].name);
  free(r.pn);
  return n;
}

/* The input's processes are all librgc's. */
static int rgc_only(sqlite3 *db) {
  sqlite3_stmt *q;
  int yes = 0;
  if (sqlite3_prepare_v2(db, "SELECT count(*) > 0 AND sum(p.origin <> 'rgc') = 0 FROM processes p WHERE "
                         GCS_IN_INPUT("p.trace_id"), -1, &q, NULL) == SQLITE_OK) {
    if (sqlite3_step(q) == SQLITE_ROW) yes = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
  }
  return yes;
}

/* Why the view's stacks are missing or partly unresolved, as one line each. */
static void explain(sqlite3 *db, const struct gcs_stacks_db *sdb, const struct opts *o, uint64_t samples,
                    uint64_t with_stack, FILE *out) {
  if (with_stack == 0) {
    int lttng_clr = 0, rgc = 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT EXISTS (SELECT 1 FROM traces t JOIN processes p ON p.trace_id = t.id WHERE "
                           GCS_IN_INPUT("t.id") " AND t.source = 'lttng' AND p.origin = 'clr'), "
                           "EXISTS (SELECT 1 FROM processes p WHERE " GCS_IN_INPUT("p.trace_id") " AND p.origin = 'rgc')",
                           -1, &q, NULL) == SQLITE_OK) {
      if (sqlite3_step(q) == SQLITE_ROW) {
        lttng_clr = sqlite3_column_int(q, 0);
        rgc = sqlite3_column_int(q, 1);
      }
      sqlite3_finalize(q);
    }
    if (rgc && !lttng_clr && gcs_stacks_count(sdb) == 0)
      sv_wrapf(out, 80, "note: none of the %llu %s events has a stack: record with gcscope record --stacks "
               "(librgc walks stacks in a process started with RGC_Stacks=1)",
               (unsigned long long)samples, o->event_label);
    else if (gcs_stacks_count(sdb) > 0)
      sv_wrapf(out, 80, "note: none of the %llu %s events has a stack, while other events of the same recording "
               "have: the runtime recorded none for this event", (unsigned long long)samples, o->event_label);
    else if (lttng_clr)
      sv_wrapf(out, 80, "note: none of the %llu %s events has a stack: CoreCLR's LTTng events carry no stacks; record "
              "over EventPipe: gcscope record --dotnet --stacks", (unsigned long long)samples, o->event_label);
    else
      sv_wrapf(out, 80, "note: none of the %llu %s events has a stack: record with gcscope record --dotnet --stacks "
              "(or dotnet-trace collect)", (unsigned long long)samples, o->event_label);
    return;
  }
  size_t n;
  const struct gcs_stacks_symbols *sym = gcs_stacks_symbols(sdb, &n);
  uint64_t addr = 0, unres = 0, rundown = 0, jit = 0, modules = 0;
  const char *native_note = NULL;
  for (size_t i = 0; i < n; i++) {
    if (o->pid >= 0 && sym[i].pid != o->pid) continue;
    addr += sym[i].addresses;
    unres += sym[i].unresolved;
    rundown += sym[i].rundown_methods;
    jit += sym[i].jit_methods;
    modules += sym[i].native_modules;
    if (!native_note) native_note = sym[i].native_note;
  }
  if (!unres) return;
  if (modules)   /* librgc: native frames, named from the statedump's modules */
    sv_wrapf(out, 80, "note: %llu of %llu frame addresses did not resolve (printed as module+0xOFF or 0xADDRESS): %s",
             (unsigned long long)unres, (unsigned long long)addr,
             native_note ? native_note : "outside every module of the statedump");
  else if (!rundown && !jit && rgc_only(db))
    sv_wrapf(out, 80, "note: %llu of %llu frame addresses did not resolve (printed as 0xADDRESS): no statedump: "
             "record with gcscope record --stacks, which names the modules (start the program after the session)",
             (unsigned long long)unres, (unsigned long long)addr);
  else if (!rundown)
    sv_wrapf(out, 80, "note: %llu of %llu frame addresses did not resolve (printed as 0xADDRESS): no rundown%s: record "
            "with gcscope record --dotnet --stacks", (unsigned long long)unres, (unsigned long long)addr,
            jit ? " (only the methods compiled during the recording are named)" : "");
  else
    sv_wrapf(out, 80, "note: %llu of %llu frame addresses are outside every managed method (the runtime's and native "
            "libraries' code, [native code] in the trees): EventPipe names managed code only",
            (unsigned long long)unres, (unsigned long long)addr);
}


/* The text's width: the terminal's when stdout is one (80 at least), else 80. */
static int term_width(void) {
  struct winsize ws;
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 80)
    return ws.ws_col > 400 ? 400 : ws.ws_col;
  return 80;
}

int gcs_cmd_stacks(int argc, char **argv) {
  struct opts o;
  int a = parse(argc, argv, &o);
  if (a) return a == 1 ? 0 : 2;
  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = o.trace, .db_path = o.db_path};
  if (gcs_input_open_report(CMD, o.input, &io, &in)) return 1;
  struct gcs_stacks_db *sdb = gcs_stacks_load(in.db, err, sizeof err);
  if (!sdb) {
    fprintf(stderr, "gcscope %s: %s\n", CMD, err);
    gcs_input_close(&in);
    return 1;
  }
  struct stk_frames fr = { frame_cb, sdb };
  struct stk_view *v = stk_view_new(o.event_label, &fr, o.kind == gcs_kind_GCAllocationTick);
  int status = 1;
  FILE *out = NULL;
  uint64_t with_stack = 0;
  if (!v) { fprintf(stderr, "gcscope %s: out of memory\n", CMD); goto done; }
  long long n = read_samples(in.db, &o, sdb, v, &with_stack, stderr);
  if (n < 0) goto done;
  if (n == 0) {
    if (o.pid >= 0 || !isnan(o.from_ms) || !isnan(o.to_ms))
      fprintf(stderr, "gcscope %s: no %s events in %s with --pid/--from/--to\n", CMD, o.event_label, o.input);
    else
      fprintf(stderr, "gcscope %s: no %s events in %s%s\n", CMD, o.event_label, o.input,
              o.kind == gcs_kind_GCAllocationTick ? " (record with --profile alloc)"
              : o.kind == gcs_kind_SetGCHandle    ? " (record with --profile handles)" : "");
    goto done;
  }
  FILE *pager = !o.out_path && o.fmt == F_TEXT && isatty(STDOUT_FILENO) ? rpt_pager_open() : NULL;
  out = o.out_path ? fopen(o.out_path, o.fmt == F_PPROF ? "wb" : "w") : pager ? pager : stdout;
  if (!out) { fprintf(stderr, "gcscope %s: %s: cannot write (%s)\n", CMD, o.out_path, strerror(errno)); goto done; }
  int rc = 0;
  switch (o.fmt) {
  case F_TEXT: {
    struct stk_text_opts to = { term_width(), o.min_pct, o.top, o.depth,
                                o.kind == gcs_kind_SetGCHandle
                                    ? "GCHandle.Alloc's fast path records none (on .NET 9+ it fires SetGCHandle "
                                      "without a transition frame; only its slow path has a stack)"
                                    : NULL, o.wide };
    if (o.kind == gcs_kind_GCAllocationTick)
      sv_wrap(out, 80, "AllocationTick: a sample about every 100 KB allocated per heap and kind; MB are the samples' "
              "AllocationAmount (an estimate)");
    rc = stk_view_text(v, out, &to);
    if (rc == 0) { fputc('\n', out); explain(in.db, sdb, &o, (uint64_t)n, with_stack, out); }
    break;
  }
  case F_JSON: rc = stk_view_json(v, out); break;
  case F_FOLDED: rc = stk_view_folded(v, out, 0); break;
  case F_PPROF: rc = stk_view_pprof(v, out, err, sizeof err); break;
  }
  if (o.fmt != F_TEXT) explain(in.db, sdb, &o, (uint64_t)n, with_stack, stderr);
  if (o.out_path && fclose(out) != 0) rc = -1;
  if (pager) rpt_pager_close(pager);
  out = NULL;
  if (rc != 0) {
    /* (A write error on stdout: the umbrella's line, with its cause.) */
    if (o.out_path || pager || (o.fmt == F_PPROF && err[0]))
      fprintf(stderr, "gcscope %s: %s\n", CMD, o.fmt == F_PPROF && err[0] ? err : "write failed");
    goto done;
  }
  status = 0;
done:
  if (out && out != stdout) fclose(out);
  stk_view_free(v);
  gcs_stacks_db_free(sdb);
  gcs_input_close(&in);
  return status;
}

/* ---- diff --stacks -------------------------------------------------------------- */

/* One stack of either run: group key and frame names (leaf first), as text. */
struct dstack { char *sig; uint64_t a_s, b_s, a_b, b_b; };
struct dset { struct dstack *v; size_t n, cap; };

static char *signature(const struct stk_view *v, const char *key, const uint32_t *f, uint32_t n) {
  size_t len = strlen(key) + 2;
  for (uint32_t k = 0; k < n; k++) len += strlen(sv_frame(v, f[k], NULL)) + 1;
  char *s = malloc(len);
  if (!s) return NULL;
  size_t o = (size_t)snprintf(s, len, "%s", key);
  for (uint32_t k = 0; k < n; k++) o += (size_t)snprintf(s + o, len - o, "\x1f%s", sv_frame(v, f[k], NULL));
  return s;
}

static int dset_add(struct dset *d, char *sig, int side, uint64_t samples, uint64_t bytes) {
  for (size_t i = 0; i < d->n; i++)   /* linear: a few thousand distinct stacks at most */
    if (strcmp(d->v[i].sig, sig) == 0) {
      free(sig);
      if (side) { d->v[i].b_s += samples; d->v[i].b_b += bytes; } else { d->v[i].a_s += samples; d->v[i].a_b += bytes; }
      return 0;
    }
  if (d->n == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 256;
    struct dstack *nv = realloc(d->v, cap * sizeof *nv);
    if (!nv) { free(sig); return -1; }
    d->v = nv;
    d->cap = cap;
  }
  struct dstack *e = &d->v[d->n++];
  memset(e, 0, sizeof *e);
  e->sig = sig;
  if (side) { e->b_s = samples; e->b_b = bytes; } else { e->a_s = samples; e->a_b = bytes; }
  return 0;
}

static int dset_fill(struct dset *d, const struct stk_view *v, int side) {
  for (size_t p = 0; p < v->nprocs; p++)
    for (size_t g = 0; g < v->procs[p].ngroups; g++) {
      const struct sv_group *gr = &v->procs[p].groups[g];
      for (size_t s = 0; s <= gr->nstacks; s++) {
        int none = s == gr->nstacks;
        if (none && !gr->stackless) break;
        char *sig = none ? signature(v, gr->key, NULL, 0) : signature(v, gr->key, gr->stacks[s].f, gr->stacks[s].n);
        if (!sig || dset_add(d, sig, side, none ? gr->stackless : gr->stacks[s].samples,
                             none ? gr->stackless_bytes : gr->stacks[s].bytes) != 0)
          return -1;
      }
    }
  return 0;
}

static int by_bytes_diff;
static int cmp_dstack(const void *x, const void *y) {
  const struct dstack *a = x, *b = y;
  double da = by_bytes_diff ? fabs((double)a->b_b - (double)a->a_b) : fabs((double)a->b_s - (double)a->a_s);
  double db = by_bytes_diff ? fabs((double)b->b_b - (double)b->a_b) : fabs((double)b->b_s - (double)b->a_s);
  if (da != db) return da > db ? -1 : 1;
  return strcmp(a->sig, b->sig);
}

/* One side: its input, stacks and view. */
struct dside { struct gcs_input in; struct gcs_stacks_db *sdb; struct stk_view *v; int open; uint64_t samples, with; };

static int dside_load(struct dside *s, const char *arg, const struct opts *o, char *err, size_t errlen) {
  struct gcs_input_opts io = {.trace_id = -1, .db_path = o->db_path};
  if (gcs_input_open_report("diff", arg, &io, &s->in)) { err[0] = '\0'; return -1; }   /* it said why */
  s->open = 1;
  if (!(s->sdb = gcs_stacks_load(s->in.db, err, errlen))) return -1;
  struct stk_frames fr = { frame_cb, s->sdb };
  if (!(s->v = stk_view_new(o->event_label, &fr, o->kind == gcs_kind_GCAllocationTick))) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  long long n = read_samples(s->in.db, o, s->sdb, s->v, &s->with, stderr);
  if (n < 0) { snprintf(err, errlen, "%s: could not read its events", arg); return -1; }
  s->samples = (uint64_t)n;
  return 0;
}

static void dside_free(struct dside *s) {
  stk_view_free(s->v);
  gcs_stacks_db_free(s->sdb);
  if (s->open) gcs_input_close(&s->in);
}

/* A stack's text for a diff line: "key: leaf <- caller <- ..." cut to width. */
static void diff_line_name(const char *sig, char *out, size_t n) {
  size_t o = 0;
  for (const char *c = sig; *c && o + 1 < n; c++) {
    if (*c == '\x1f') {
      const char *sep = o && out[o - 1] != ' ' && c == sig + strcspn(sig, "\x1f") ? ": " : " <- ";
      for (const char *q = sep; *q && o + 1 < n; q++) out[o++] = *q;
    } else {
      out[o++] = *c;
    }
  }
  if (!strchr(sig, '\x1f')) snprintf(out + o, n - o, ": [no stack]");
  else out[o] = '\0';
}

int gcs_stacks_diff(int argc, char **argv) {
  /* argv: "diff" ... with --stacks somewhere: parse stacks' options (without --stacks) and two operands. */
  char **av = calloc((size_t)argc + 1, sizeof *av);
  if (!av) return 1;
  int n = 0;
  for (int i = 0; i < argc; i++)
    if (strcmp(argv[i], "--stacks") != 0) av[n++] = argv[i];
  const char *a_arg = NULL, *b_arg = NULL;
  /* the operands: the first two arguments that are neither options nor option values */
  struct opts o;
  int rc = 2;
  struct dside A = { 0 }, B = { 0 };
  struct dset d = { 0 };
  {
    const struct gcs_cli_spec spec = { .cmd = "diff", .usage = "BASE CANDIDATE --stacks [--event AllocationTick|GCTriggered|"
                                       "GCHandle|NAME] [--by ...] [--pid PID] [--from MS] [--to MS] [--format text|json] [--top N]",
                                       .about = "Two runs' stacks of one event compared stack by stack (samples, and MB "
                                                "for AllocationTick): the stacks that changed most first.",
                                       .opts = OPTS };
    memset(&o, 0, sizeof o);
    o.kind = gcs_kind_GCAllocationTick;
    o.event_label = "AllocationTick";
    o.pid = -1;
    o.trace = o.only_trace = -1;
    o.from_ms = o.to_ms = NAN;
    o.top = 20;
    struct gcs_cli p;
    gcs_cli_init(&p, &spec, n, av);
    for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
      if (k == GCS_CLI_HELP) { gcs_cli_usage(&spec, stdout); rc = 0; goto out; }
      if (k == GCS_CLI_BAD) { gcs_cli_fail("%s", p.err); goto out; }
      switch (k) {
      case O_EVENT: {
        int kind = event_kind(p.value, &o.event_label);
        if (kind < 0) { gcs_cli_fail("--event: '%s' is not an event gcscope stores", p.value); goto out; }
        o.kind = (enum gcs_kind)kind;
        break;
      }
      case O_BY:
        o.by = !strcmp(p.value, "type") ? BY_TYPE : !strcmp(p.value, "reason") ? BY_REASON
             : !strcmp(p.value, "kind") ? BY_KIND : !strcmp(p.value, "none") ? BY_NONE : -1;
        if ((int)o.by < 0) { gcs_cli_fail("--by: type, reason, kind or none, not '%s'", p.value); goto out; }
        break;
      case O_PID: o.pid = p.ival; break;
      case O_FROM: o.from_ms = p.dval; break;
      case O_TO: o.to_ms = p.dval; break;
      case O_FORMAT:
        if (!strcmp(p.value, "text")) o.fmt = F_TEXT;
        else if (!strcmp(p.value, "json")) o.fmt = F_JSON;
        else { gcs_cli_fail("--format with --stacks: text or json, not '%s'", p.value); goto out; }
        break;
      case O_DB: o.db_path = p.value; break;
      case O_TOP: o.top = (int)p.ival; break;
      case O_TRACE: gcs_cli_fail("--trace: give each run as its own DB or TRACE"); goto out;
      default: gcs_cli_fail("%s is not an option of diff --stacks", p.opt); goto out;
      }
    }
    if (n - p.optind != 2) { gcs_cli_fail("expected BASE and CANDIDATE (got %d input%s)", n - p.optind, n - p.optind == 1 ? "" : "s"); goto out; }
    a_arg = av[p.optind];
    b_arg = av[p.optind + 1];
    int tick = o.kind == gcs_kind_GCAllocationTick, trig = o.kind == gcs_kind_GCTriggered, handle = o.kind == gcs_kind_SetGCHandle;
    if (o.by == BY_DEFAULT) o.by = tick ? BY_TYPE : trig ? BY_REASON : handle ? BY_KIND : BY_NONE;
    if ((o.by == BY_TYPE && !tick) || (o.by == BY_REASON && !trig) || (o.by == BY_KIND && !tick && !handle)) {
      gcs_cli_fail("--by: %s events have no such group", o.event_label);
      goto out;
    }
  }
  rc = 1;
  char err[600];
  if (dside_load(&A, a_arg, &o, err, sizeof err) || dside_load(&B, b_arg, &o, err, sizeof err)) {
    if (err[0]) fprintf(stderr, "gcscope diff: %s\n", err);
    goto out;
  }
  if (A.samples == 0 && B.samples == 0) {
    fprintf(stderr, "gcscope diff: no %s events in %s or %s\n", o.event_label, a_arg, b_arg);
    goto out;
  }
  if (dset_fill(&d, A.v, 0) || dset_fill(&d, B.v, 1)) { fprintf(stderr, "gcscope diff: out of memory\n"); goto out; }
  by_bytes_diff = o.kind == gcs_kind_GCAllocationTick;
  if (d.n) qsort(d.v, d.n, sizeof *d.v, cmp_dstack);
  uint64_t ab = 0, bb = 0;
  for (size_t i = 0; i < d.n; i++) { ab += d.v[i].a_b; bb += d.v[i].b_b; }
  if (o.fmt == F_JSON) {
    printf("{\"event\":");
    rpt_json_str(stdout, o.event_label);
    printf(",\"base\":{\"samples\":%llu,\"bytes\":%llu},\"candidate\":{\"samples\":%llu,\"bytes\":%llu},\"stacks\":[",
           (unsigned long long)A.samples, (unsigned long long)ab, (unsigned long long)B.samples, (unsigned long long)bb);
    for (size_t i = 0; i < d.n; i++) {
      const char *sig = d.v[i].sig;
      size_t kl = strcspn(sig, "\x1f");
      char *key = strndup(sig, kl);
      printf("%s{\"key\":", i ? "," : "");
      rpt_json_str(stdout, key ? key : "");
      free(key);
      printf(",\"frames\":[");
      int first = 1;
      for (const char *c = sig + kl; *c == '\x1f';) {
        c++;
        size_t fl = strcspn(c, "\x1f");
        char *f = strndup(c, fl);
        printf("%s", first ? "" : ",");
        rpt_json_str(stdout, f ? f : "");
        free(f);
        first = 0;
        c += fl;
      }
      printf("],\"base_samples\":%llu,\"candidate_samples\":%llu,\"base_bytes\":%llu,\"candidate_bytes\":%llu}",
             (unsigned long long)d.v[i].a_s, (unsigned long long)d.v[i].b_s, (unsigned long long)d.v[i].a_b,
             (unsigned long long)d.v[i].b_b);
    }
    printf("]}\n");
  } else {
    int tick = o.kind == gcs_kind_GCAllocationTick;
    printf("%s stacks\nbase:      %s\ncandidate: %s\n", o.event_label, a_arg, b_arg);
    if (tick)
      printf("base %llu samples %.3f MB, candidate %llu samples %.3f MB (%+.3f MB)\n\n", (unsigned long long)A.samples,
             (double)ab / 1e6, (unsigned long long)B.samples, (double)bb / 1e6, ((double)bb - (double)ab) / 1e6);
    else
      printf("base %llu samples, candidate %llu samples (%+lld)\n\n", (unsigned long long)A.samples,
             (unsigned long long)B.samples, (long long)B.samples - (long long)A.samples);
    if (tick) printf("%9s %9s %9s  %s\n", "delta MB", "base MB", "cand MB", "group: stack (leaf <- callers)");
    else printf("%7s %7s %7s  %s\n", "delta", "base", "cand", "group: stack (leaf <- callers)");
    size_t shown = o.top > 0 && (size_t)o.top < d.n ? (size_t)o.top : d.n;
    for (size_t i = 0; i < shown; i++) {
      char name[512];
      diff_line_name(d.v[i].sig, name, sizeof name);
      int room = tick ? 80 - 31 : 80 - 25;
      if ((int)strlen(name) > room) { name[room - 2] = '.'; name[room - 1] = '.'; name[room] = '\0'; }
      if (tick)
        printf("%+9.3f %9.3f %9.3f  %s\n", ((double)d.v[i].b_b - (double)d.v[i].a_b) / 1e6, (double)d.v[i].a_b / 1e6,
               (double)d.v[i].b_b / 1e6, name);
      else
        printf("%+7lld %7llu %7llu  %s\n", (long long)d.v[i].b_s - (long long)d.v[i].a_s,
               (unsigned long long)d.v[i].a_s, (unsigned long long)d.v[i].b_s, name);
    }
    if (shown < d.n) printf("(%zu more stacks: --top N, or --format json)\n", d.n - shown);
  }
  rc = ferror(stdout) ? 1 : 0;
out:
  for (size_t i = 0; i < d.n; i++) free(d.v[i].sig);
  free(d.v);
  dside_free(&A);
  dside_free(&B);
  free(av);
  return rc;
}

/* `allocs ARGS --stacks`: `stacks --event AllocationTick ARGS`. */
int gcs_cmd_allocs_stacks(int argc, char **argv) {
  char **av = calloc((size_t)argc + 3, sizeof *av);
  if (!av) { fprintf(stderr, "gcscope allocs: out of memory\n"); return 1; }
  int n = 0;
  av[n++] = "stacks";
  av[n++] = "--event";
  av[n++] = "AllocationTick";
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--stacks") != 0) av[n++] = argv[i];
  int rc = gcs_cmd_stacks(n, av);
  free(av);
  return rc;
}
