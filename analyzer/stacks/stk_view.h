/*
 * stk_view.h — the stack views of `gcscope stacks` (PerfView's "Any Stacks",
 * "GC Heap Alloc Ignore Free", "Pinned Stacks"), pure: samples in, a model
 * of processes -> groups (type, reason, handle kind) -> distinct stacks out,
 * rendered as text trees, JSON, folded lines or pprof. No SQLite.
 *
 * Frames are strings owned by the caller (they must outlive the view);
 * a stack is the list of its frames' indexes, leaf first. Errors: -1 when
 * out of memory. Threading: one thread per view.
 */
#ifndef STK_VIEW_H
#define STK_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct stk_view;

/* frame_name(i) / frame_resolved(i) for the frame indexes the stacks use. */
struct stk_frames {
  const char *(*name)(void *ud, uint32_t i, int *resolved);
  void *ud;
};

struct stk_view *stk_view_new(const char *event, const struct stk_frames *frames, int has_bytes);
void stk_view_free(struct stk_view *v);

/* One sample: the process (trace, pid, name or NULL), its group key, its
 * stack (frame indexes leaf first; n 0 and frames NULL: recorded without a
 * stack) and its bytes (0 when the event carries no amount). */
int stk_view_add(struct stk_view *v, int64_t trace_id, int32_t pid, const char *proc_name, const char *key,
                 const uint32_t *frames, uint32_t n, uint64_t bytes);

uint64_t stk_view_samples(const struct stk_view *v);

struct stk_text_opts {
  int width;         /* columns (80) */
  double min_pct;    /* tree nodes below this % of their group are not printed */
  int top_groups;    /* groups per process (0: all) */
  int max_depth;     /* tree levels printed (0: all) */
  const char *stackless_why;  /* after "N of M samples have no stack: "; NULL: generic */
  int wide;          /* 1: whole frames and group names; 0: a long one cut to the width ("..." and its end) */
};

/* Top-down and bottom-up trees per process and group. */
int stk_view_text(const struct stk_view *v, FILE *out, const struct stk_text_opts *o);
/* {"processes":[{"pid":N,"name":S,"groups":[{"event":S,"key":S,"samples":N,
 * "bytes":N,"stacks":[{"frames":[S,...],"samples":N,"bytes":N}]}]}]} */
int stk_view_json(const struct stk_view *v, FILE *out);
/* "root;...;leaf COUNT" per distinct stack (prefix "pid N;key;" when
 * more than one process or group); count = samples, or bytes with by_bytes. */
int stk_view_folded(const struct stk_view *v, FILE *out, int by_bytes);
/* profile.proto (gzipped): sample types samples/count (and bytes/bytes),
 * one location per frame, with process and key as sample labels. */
int stk_view_pprof(const struct stk_view *v, FILE *out, char *err, size_t errlen);

#endif /* STK_VIEW_H */
