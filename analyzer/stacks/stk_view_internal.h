/* stk_view_internal.h — the model behind stk_view.h, shared by its renderers. */
#ifndef STK_VIEW_INTERNAL_H
#define STK_VIEW_INTERNAL_H

#include <stdio.h>

#include "stk_view.h"

struct sv_stack { uint32_t *f; uint32_t n; uint64_t samples, bytes; };
struct sv_group {
  char *key;
  uint64_t samples, bytes, stackless, stackless_bytes;
  struct sv_stack *stacks; size_t nstacks, capstacks;
  size_t *index; size_t icap;   /* frames -> stacks index + 1 */
};
struct sv_proc {
  int64_t trace;
  int32_t pid;
  char *name;
  uint64_t samples;
  struct sv_group *groups; size_t ngroups, capgroups;
};
struct stk_view {
  char *event;
  struct stk_frames frames;
  int has_bytes;
  uint64_t samples;
  struct sv_proc *procs; size_t nprocs, capprocs, last_proc;
};

const char *sv_frame(const struct stk_view *v, uint32_t i, int *resolved);
/* malloc'ed arrays of pointers, largest first (caller frees). NULL: out of memory. */
const struct sv_group **sv_sorted_groups(const struct stk_view *v, const struct sv_proc *p);
const struct sv_stack **sv_sorted_stacks(const struct sv_group *g);
/* text, words wrapped at width columns (continuation lines indented by 2). */
void sv_wrap(FILE *out, int width, const char *text);
void sv_wrapf(FILE *out, int width, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* STK_VIEW_INTERNAL_H */
