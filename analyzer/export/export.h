/*
 * export.h — internals of `gcscope export`: the timeline model (processes,
 * tracks, slices, counter points; times in ns since the trace start), the
 * slice nesting walk and the two writers (Perfetto protobuf, Chrome JSON).
 */
#ifndef GCS_EXPORT_INTERNAL_H
#define GCS_EXPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sqlite3 sqlite3;

struct gcs_gcdb_gc;

/* One argument of a slice: a number, an integer, a string or a bool. */
enum exp_arg_kind { EXP_ARG_DOUBLE, EXP_ARG_INT, EXP_ARG_STR, EXP_ARG_BOOL };
struct exp_arg {
  const char *key;      /* static string */
  enum exp_arg_kind kind;
  double d;             /* EXP_ARG_DOUBLE */
  int64_t i;            /* EXP_ARG_INT, EXP_ARG_BOOL */
  const char *s;        /* EXP_ARG_STR: static, or owned by the process (exp_proc.gcs) */
};

#define EXP_MAX_ARGS 6

struct exp_slice {
  int64_t start, end;   /* ns since the trace start; end >= start */
  int64_t data_end;     /* the end the data gave, before clamping */
  int clamped;          /* 1: end was moved to its parent's end (nesting) */
  int level;            /* 0 a top-level slice, 1 a part of one (suspension, pause): at the
                           same start the lower level encloses the higher */
  int instant;          /* a point in time (start == end): Perfetto TYPE_INSTANT, JSON "i" */
  char name[64];
  const struct gcs_gcdb_gc *gc; /* non-NULL: the GC's identity and GCStats figures are args */
  int nargs;
  struct exp_arg args[EXP_MAX_ARGS]; /* further args */
};

struct exp_point {
  int64_t ts;
  double value;
};

enum exp_track_kind { EXP_TRACK_SLICES, EXP_TRACK_COUNTER };
struct exp_track {
  enum exp_track_kind kind;
  char name[64];
  struct exp_slice *slices;  /* EXP_TRACK_SLICES */
  size_t nslices, cap_slices;
  struct exp_point *points;  /* EXP_TRACK_COUNTER */
  size_t npoints, cap_points;
};

struct exp_proc {
  int64_t trace_id;
  int32_t pid;
  char name[128];
  char *cmdline;             /* malloc'ed or NULL */
  struct exp_track *tracks;
  size_t ntracks, cap_tracks;
  size_t gc_slices;          /* slices on the "GC pauses" track */
  size_t clamped;            /* slices clamped to their parent */
  struct gcs_gcdb_gc *gcs;   /* the process's GC rows (slices point into them) */
  size_t ngcs;
};

/* ---- model (export_model.c) ----------------------------------------------- */

/* Builds the timeline of process pid of trace trace_id (trace_start_ns: the
 * trace's first event). 0, or -1 with err. */
int exp_proc_load(sqlite3 *db, int64_t trace_id, int32_t pid, int64_t trace_start_ns, struct exp_proc *p,
                  char *err, size_t errlen);
void exp_proc_free(struct exp_proc *p);

/* Track building blocks (also used by the tests). NULL / -1 when out of memory. */
struct exp_track *exp_track_add(struct exp_proc *p, enum exp_track_kind kind, const char *name);
struct exp_slice *exp_slice_add(struct exp_track *t, int64_t start, int64_t end, const char *name);
/* Adds an argument; -1 when the slice has EXP_MAX_ARGS already. v of
 * exp_arg_str must outlive the process (static or in exp_proc.gcs). */
int exp_arg_double(struct exp_slice *s, const char *key, double v);  /* a non-finite v adds nothing */
int exp_arg_int(struct exp_slice *s, const char *key, int64_t v);
int exp_arg_bool(struct exp_slice *s, const char *key, int v);
int exp_arg_str(struct exp_slice *s, const char *key, const char *v);
/* Calls fn for every argument of s: its GC's identity and finite figures
 * (when s->gc is set), then its own. */
void exp_slice_args(const struct exp_slice *s, void (*fn)(const struct exp_arg *a, void *ctx), void *ctx);
int exp_point_add(struct exp_track *t, int64_t ts, double value);   /* a non-finite value adds nothing */

/* ---- nesting (export_nest.c) ---------------------------------------------- */

/* Sorts a slice track (start ascending, then level, then longer first) and clamps each slice
 * that would extend past its enclosing slice to that slice's end (clamped = 1,
 * args "clamped_from_end_ns"). Returns the number clamped, -1 out of memory.
 * After it, slices[] in order is a pre-order walk of a proper tree. */
long exp_nest(struct exp_track *t);
/* Sorts counter points by time (stable). */
void exp_points_sort(struct exp_track *t);

/* Walks a nested track in time order: begin(s) at s->start, end(s) at
 * s->end; inner slices end before their parents, and a slice that ends when
 * the next one starts ends first. Timestamps are non-decreasing. */
void exp_walk(const struct exp_track *t, void (*begin)(const struct exp_slice *s, void *ctx),
              void (*end)(const struct exp_slice *s, void *ctx), void *ctx);

/* ---- writers -------------------------------------------------------------- */

struct exp_writer;
struct exp_writer *exp_pb_open(FILE *out);
struct exp_writer *exp_json_open(FILE *out);
/* Writes one process and its tracks. 0, -1 on a write error. */
int exp_write_proc(struct exp_writer *w, const struct exp_proc *p);
/* Ends the file and frees w. 0, -1 on a write error. */
int exp_writer_close(struct exp_writer *w);

struct exp_writer_ops {
  int (*proc)(struct exp_writer *w, const struct exp_proc *p);
  int (*close)(struct exp_writer *w);
};
struct exp_writer {
  const struct exp_writer_ops *ops;
  FILE *out;
};

#endif
