/* test_export_units.c — white-box tests of analyzer/export: the nesting walk
 * (clamping, order of begins and ends), the protobuf bytes of a packet worked
 * out by hand from the wire format, and the JSON's exact µs timestamps,
 * escaping and the absence of non-finite numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "export.h"

struct trace_log {
  char s[512];
  int64_t last;
  int depth, max_depth, backwards;
};

static void log_begin(const struct exp_slice *s, void *ctx) {
  struct trace_log *l = ctx;
  if (s->start < l->last) l->backwards = 1;
  l->last = s->start;
  if (++l->depth > l->max_depth) l->max_depth = l->depth;
  snprintf(l->s + strlen(l->s), sizeof l->s - strlen(l->s), "B%s@%lld ", s->name, (long long)s->start);
}

static void log_end(const struct exp_slice *s, void *ctx) {
  struct trace_log *l = ctx;
  if (s->end < l->last) l->backwards = 1;
  l->last = s->end;
  l->depth--;
  snprintf(l->s + strlen(l->s), sizeof l->s - strlen(l->s), "E%s@%lld ", s->name, (long long)s->end);
}

static const struct exp_arg *find_arg(const struct exp_slice *s, const char *key) {
  for (int i = 0; i < s->nargs; i++)
    if (!strcmp(s->args[i].key, key)) return &s->args[i];
  return NULL;
}

static void test_nesting(void) {
  struct exp_proc p = { 0 };
  struct exp_track *t = exp_track_add(&p, EXP_TRACK_SLICES, "t");
  /* added out of order on purpose */
  exp_slice_add(t, 8, 15, "c");            /* starts inside a, ends after it: cut at 10 */
  struct exp_slice *s = exp_slice_add(t, 0, 12, "s");
  s->level = 1;                             /* a's suspension, outliving a: cut at 10 */
  exp_slice_add(t, 0, 10, "a");
  exp_slice_add(t, 5, 7, "b");
  exp_slice_add(t, 10, 20, "d");            /* starts where a ends: a sibling */
  exp_slice_add(t, 20, 20, "z");            /* zero length where d ends: after d */
  exp_slice_add(t, 30, 25, "r");            /* end before start: zero length */
  CHECK_EQ_INT(exp_nest(t), 2);
  struct trace_log l = { .last = -1 };
  exp_walk(t, log_begin, log_end, &l);
  CHECK_STR(l.s, "Ba@0 Bs@0 Bb@5 Eb@7 Bc@8 Ec@10 Es@10 Ea@10 Bd@10 Ed@20 Bz@20 Ez@20 Br@30 Er@30 ");
  CHECK_EQ_INT(l.backwards, 0);
  CHECK_EQ_INT(l.depth, 0);
  CHECK_EQ_INT(l.max_depth, 3);
  for (size_t i = 0; i < t->nslices; i++) {
    const struct exp_slice *x = &t->slices[i];
    const struct exp_arg *a = find_arg(x, "clamped_from_end_ns");
    if (!strcmp(x->name, "s") || !strcmp(x->name, "c")) {
      CHECK(x->clamped && x->end == 10 && a);
      CHECK_EQ_INT(a ? a->i : -1, !strcmp(x->name, "s") ? 12 : 15);
    } else {
      CHECK(!x->clamped && !a);
    }
  }
  exp_proc_free(&p);
}

static void test_args_and_points(void) {
  struct exp_proc p = { 0 };
  struct exp_track *t = exp_track_add(&p, EXP_TRACK_SLICES, "t");
  struct exp_slice *s = exp_slice_add(t, 0, 1, "x");
  CHECK_EQ_INT(exp_arg_double(s, "nan", NAN), 0);
  CHECK_EQ_INT(exp_arg_double(s, "inf", INFINITY), 0);
  CHECK_EQ_INT(s->nargs, 0);
  for (int i = 0; i < EXP_MAX_ARGS; i++) CHECK_EQ_INT(exp_arg_int(s, "k", i), 0);
  CHECK_EQ_INT(exp_arg_int(s, "one too many", 1), -1);
  struct exp_track *c = exp_track_add(&p, EXP_TRACK_COUNTER, "c");
  exp_point_add(c, 30, 3);
  exp_point_add(c, 10, 1);
  exp_point_add(c, 30, 4);
  exp_point_add(c, 20, NAN);
  exp_point_add(c, 20, 2);
  exp_points_sort(c);
  CHECK_EQ_INT(c->npoints, 4);
  double want[] = { 1, 2, 3, 4 }; /* by time; equal times keep their order */
  for (size_t i = 0; i < c->npoints && i < 4; i++) CHECK_NEAR(c->points[i].value, want[i], 0);
  exp_proc_free(&p);
}

static size_t write_to(struct exp_writer *(*open_fn)(FILE *), const struct exp_proc *p, unsigned char *buf,
                       size_t cap) {
  FILE *f = tmpfile();
  struct exp_writer *w = open_fn(f);
  CHECK_EQ_INT(exp_write_proc(w, p), 0);
  CHECK_EQ_INT(exp_writer_close(w), 0);
  rewind(f);
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = 0;
  fclose(f);
  return n;
}

static int has_bytes(const unsigned char *buf, size_t n, const unsigned char *want, size_t wn) {
  for (size_t i = 0; i + wn <= n; i++)
    if (!memcmp(buf + i, want, wn)) return 1;
  return 0;
}

static void test_protobuf(void) {
  struct exp_proc p = { .pid = 7 };
  strcpy(p.name, "p");
  struct exp_track *t = exp_track_add(&p, EXP_TRACK_SLICES, "g");
  struct exp_slice *s = exp_slice_add(t, 300, 301, "n");
  exp_arg_int(s, "i", -1);
  exp_arg_double(s, "d", 1.0);
  static unsigned char buf[4096];
  size_t n = write_to(exp_pb_open, &p, buf, sizeof buf);
  /* Trace.packet (field 1, length 22): TracePacket { trusted_packet_sequence_id (10) = 1,
   * sequence_flags (13) = 1, first_packet_on_sequence (87, key 696 = b8 05) = 1,
   * track_descriptor (60, key 482 = e2 03, length 12) { uuid (1) = 1, name (2) = "p",
   * process (3, length 5) { pid (1) = 7, process_name (6) = "p" } } } */
  const unsigned char first[] = { 0x0a, 0x16, 0x50, 0x01, 0x68, 0x01, 0xb8, 0x05, 0x01, 0xe2, 0x03, 0x0c,
                                  0x08, 0x01, 0x12, 0x01, 'p', 0x1a, 0x05, 0x08, 0x07, 0x32, 0x01, 'p' };
  CHECK(n > sizeof first && !memcmp(buf, first, sizeof first));
  /* the child track: uuid 2, parent_uuid (5) 1, name "g" */
  const unsigned char child[] = { 0x08, 0x02, 0x28, 0x01, 0x12, 0x01, 'g' };
  CHECK(has_bytes(buf, n, child, sizeof child));
  /* the begin: sequence 1, SEQ_NEEDS_INCREMENTAL_STATE, timestamp (8) = 300 (ac 02); type (9) = 1 on track 2 */
  const unsigned char begin_ts[] = { 0x50, 0x01, 0x68, 0x02, 0x40, 0xac, 0x02 };
  const unsigned char begin_te[] = { 0x48, 0x01, 0x58, 0x02 };
  CHECK(has_bytes(buf, n, begin_ts, sizeof begin_ts) && has_bytes(buf, n, begin_te, sizeof begin_te));
  /* int_value (4) = -1: ten-byte two's complement varint; double_value (5) = 1.0: fixed64 LE */
  const unsigned char minus1[] = { 0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
  const unsigned char one[] = { 0x29, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f };
  CHECK(has_bytes(buf, n, minus1, sizeof minus1) && has_bytes(buf, n, one, sizeof one));
  /* the end: timestamp 301 (ad 02), type (9) = 2 */
  const unsigned char end_ts[] = { 0x40, 0xad, 0x02 };
  const unsigned char end_te[] = { 0x48, 0x02, 0x58, 0x02 };
  CHECK(has_bytes(buf, n, end_ts, sizeof end_ts) && has_bytes(buf, n, end_te, sizeof end_te));
  exp_proc_free(&p);
}

static void test_json(void) {
  struct exp_proc p = { .pid = 9 };
  strcpy(p.name, "a\"b\n");
  struct exp_track *t = exp_track_add(&p, EXP_TRACK_SLICES, "g");
  struct exp_slice *s = exp_slice_add(t, 1234567, 1234568, "GC#1");
  exp_arg_double(s, "x", 0.1);
  exp_arg_double(s, "nan", NAN);
  exp_arg_bool(s, "b", 1);
  exp_arg_str(s, "s", "q\\");
  struct exp_track *c = exp_track_add(&p, EXP_TRACK_COUNTER, "c");
  exp_point_add(c, 5, 2.5);
  static unsigned char buf[4096];
  write_to(exp_json_open, &p, buf, sizeof buf);
  const char *j = (const char *)buf;
  CHECK_HAS(j, "{\"ph\":\"M\",\"pid\":9,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"a\\\"b\\u000a\"}}");
  CHECK_HAS(j, "{\"ph\":\"X\",\"pid\":9,\"tid\":1,\"name\":\"GC#1\",\"cat\":\"gc\",\"ts\":1234.567,\"dur\":0.001,"
               "\"args\":{\"x\":0.1,\"b\":true,\"s\":\"q\\\\\"}}");
  CHECK_HAS(j, "{\"ph\":\"C\",\"pid\":9,\"tid\":0,\"name\":\"c\",\"cat\":\"gc\",\"ts\":0.005,\"args\":{\"value\":2.5}}");
  CHECK(!strstr(j, "nan") && !strstr(j, "NaN") && !strstr(j, "inf"));
  exp_proc_free(&p);
}

int main(void) {
  test_nesting();
  test_args_and_points();
  test_protobuf();
  test_json();
  return check_done();
}
