/* export_nest.c — slices on one track must nest: a child never extends past
 * its parent (Perfetto and the Chrome trace viewer both require it). */
#include <stdlib.h>

#include "export.h"

static int slice_order(const void *a, const void *b) {
  const struct exp_slice *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->level != y->level) return x->level < y->level ? -1 : 1; /* a GC encloses its suspension */
  if (x->end != y->end) return x->end > y->end ? -1 : 1;             /* else the longer one encloses */
  return 0;
}

long exp_nest(struct exp_track *t) {
  if (t->nslices == 0) return 0;
  qsort(t->slices, t->nslices, sizeof *t->slices, slice_order);
  size_t *stack = malloc(t->nslices * sizeof *stack);
  if (!stack) return -1;
  size_t depth = 0;
  long clamped = 0;
  for (size_t i = 0; i < t->nslices; i++) {
    struct exp_slice *s = &t->slices[i];
    while (depth && t->slices[stack[depth - 1]].end <= s->start && !(t->slices[stack[depth - 1]].end == s->start &&
                                                                      t->slices[stack[depth - 1]].start == s->start))
      depth--;
    if (depth) {
      const struct exp_slice *parent = &t->slices[stack[depth - 1]];
      if (s->end > parent->end) {
        s->end = parent->end;
        s->clamped = 1;
        clamped++;
        if (exp_arg_int(s, "clamped_from_end_ns", s->data_end) < 0) { free(stack); return -1; }
      }
    }
    stack[depth++] = i;
  }
  free(stack);
  return clamped;
}

static int point_order(const void *a, const void *b) {
  const struct exp_point *x = a, *y = b;
  return x->ts < y->ts ? -1 : x->ts > y->ts;
}

void exp_points_sort(struct exp_track *t) {
  /* stable: equal times keep insertion order (merge by index) */
  for (size_t i = 1; i < t->npoints; i++) {
    struct exp_point p = t->points[i];
    size_t j = i;
    while (j > 0 && point_order(&t->points[j - 1], &p) > 0) { t->points[j] = t->points[j - 1]; j--; }
    t->points[j] = p;
  }
}

void exp_walk(const struct exp_track *t, void (*begin)(const struct exp_slice *s, void *ctx),
              void (*end)(const struct exp_slice *s, void *ctx), void *ctx) {
  if (t->nslices == 0) return;
  const struct exp_slice **stack = malloc(t->nslices * sizeof *stack);
  if (!stack) return;
  size_t depth = 0;
  for (size_t i = 0; i < t->nslices; i++) {
    const struct exp_slice *s = &t->slices[i];
    /* a zero-length slice starting where its parent starts and ends stays inside it */
    while (depth && stack[depth - 1]->end <= s->start &&
           !(stack[depth - 1]->end == s->start && stack[depth - 1]->start == s->start))
      end(stack[--depth], ctx);
    begin(s, ctx);
    stack[depth++] = s;
  }
  while (depth) end(stack[--depth], ctx);
  free(stack);
}
