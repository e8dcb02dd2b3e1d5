/* stk_text.c — the text rendering of the stack views: per process and group,
 * a top-down tree (callers first, as PerfView's CallTree) and a bottom-up one
 * (the frames nearest the event first, PerfView's Callers view of the
 * leaves), with inclusive and exclusive samples and MB. Runs of frames that
 * are bare addresses (native code outside every known method or module) are
 * one node, "[native code]" (a module+0xOFF frame is shown as is); the bottom-up tree starts at the first resolved frame
 * when a stack has one (the runtime's own frames under it are all alike). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_output.h"
#include "stk_view.h"
#include "stk_view_internal.h"

#define NATIVE UINT32_MAX   /* a run of unresolved frames */
#define MAX_INDENT 24

struct node {
  uint32_t frame;
  uint64_t incl, excl, incl_b, excl_b;
  size_t child, next;   /* node index + 1, 0: none */
};
struct tree { struct node *v; size_t n, cap; };

static size_t add_node(struct tree *t, uint32_t frame) {
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    struct node *v = realloc(t->v, cap * sizeof *v);
    if (!v) return 0;
    t->v = v;
    t->cap = cap;
  }
  memset(&t->v[t->n], 0, sizeof t->v[t->n]);
  t->v[t->n].frame = frame;
  return ++t->n;
}

/* The child of node parent (index + 1) for frame, made if missing; 0: out of memory. */
static size_t child_of(struct tree *t, size_t parent, uint32_t frame) {
  for (size_t c = t->v[parent - 1].child; c; c = t->v[c - 1].next)
    if (t->v[c - 1].frame == frame) return c;
  size_t c = add_node(t, frame);
  if (!c) return 0;
  t->v[c - 1].next = t->v[parent - 1].child;
  t->v[parent - 1].child = c;
  return c;
}

/* The displayed frames of a stack, root first (top-down) or leaf first
 * (bottom-up): unresolved runs folded. Returns their count. */
static uint32_t display(const struct stk_view *v, const struct sv_stack *s, int top_down, uint32_t *out) {
  uint32_t n = 0;
  int any_resolved = 0;
  for (uint32_t k = 0; k < s->n; k++) {
    uint32_t f = s->f[top_down ? s->n - 1 - k : k];
    int r;
    const char *name = sv_frame(v, f, &r);
    r |= strncmp(name, "0x", 2) != 0;   /* module+0xOFF (librgc, no symbol) is shown as is */
    any_resolved |= r;
    uint32_t d = r ? f : NATIVE;
    if (d == NATIVE && n && out[n - 1] == NATIVE) continue;
    out[n++] = d;
  }
  if (!top_down && any_resolved && n && out[0] == NATIVE) {
    memmove(out, out + 1, (n - 1) * sizeof *out);
    n--;
  }
  return n;
}

static int build(const struct stk_view *v, const struct sv_group *g, int top_down, struct tree *t) {
  if (!add_node(t, NATIVE)) return -1;   /* the root */
  uint32_t *buf = NULL;
  size_t cap = 0;
  for (size_t i = 0; i < g->nstacks; i++) {
    const struct sv_stack *s = &g->stacks[i];
    if (s->n > cap) {
      uint32_t *nb = realloc(buf, s->n * sizeof *nb);
      if (!nb) { free(buf); return -1; }
      buf = nb;
      cap = s->n;
    }
    uint32_t n = display(v, s, top_down, buf);
    size_t at = 1, self = 1;
    t->v[0].incl += s->samples;
    t->v[0].incl_b += s->bytes;
    for (uint32_t k = 0; k < n; k++) {
      at = child_of(t, at, buf[k]);
      if (!at) { free(buf); return -1; }
      t->v[at - 1].incl += s->samples;
      t->v[at - 1].incl_b += s->bytes;
      if (k == 0) self = at;
    }
    /* Exclusive: the samples of the frame nearest the event. Top-down that
     * is the path's last node; bottom-up its first, so that a first-level
     * node's excl is that frame's own (PerfView's), as in the top-down tree. */
    if (top_down) self = at;
    t->v[self - 1].excl += s->samples;
    t->v[self - 1].excl_b += s->bytes;
  }
  free(buf);
  return 0;
}

static struct node *sort_nodes;
static int cmp_child(const void *a, const void *b) {
  const struct node *x = &sort_nodes[*(const size_t *)a - 1], *y = &sort_nodes[*(const size_t *)b - 1];
  if (x->incl != y->incl) return x->incl > y->incl ? -1 : 1;
  return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static void count_text(char *buf, size_t n, uint64_t v) { snprintf(buf, n, "%llu", (unsigned long long)v); }

static void print_line(const struct stk_view *v, FILE *out, const struct stk_text_opts *o, const struct node *nd,
                       int depth) {
  char incl[24], excl[24], mb[32] = "";
  count_text(incl, sizeof incl, nd->incl);
  count_text(excl, sizeof excl, nd->excl);
  if (v->has_bytes) snprintf(mb, sizeof mb, "%.3f", (double)nd->incl_b / 1e6);
  int prefix = v->has_bytes ? fprintf(out, "%7s %7s %10s  ", incl, excl, mb) : fprintf(out, "%7s %7s  ", incl, excl);
  int indent = depth < MAX_INDENT ? depth : MAX_INDENT;
  const char *name = nd->frame == NATIVE ? "[native code]" : sv_frame(v, nd->frame, NULL);
  int room = o->width - prefix - indent;
  if (room < 12) room = 12;
  fprintf(out, "%*s", indent, "");
  if (depth > MAX_INDENT) {  /* deeper than the indent shows: say how deep */
    char mark[16];
    int m = snprintf(mark, sizeof mark, "+%d ", depth - MAX_INDENT);
    fputs(mark, out);
    room -= m;
    if (room < 8) room = 8;
  }
  char fit[1024];
  fprintf(out, "%s\n", o->wide ? rpt_printable(fit, sizeof fit, name)
                                : rpt_fit_name(fit, sizeof fit, name, (size_t)room));  /* keep Class.Method */
}

static int walk(const struct stk_view *v, FILE *out, const struct stk_text_opts *o, struct tree *t, size_t at,
                int depth, uint64_t total) {
  size_t nkids = 0;
  for (size_t c = t->v[at - 1].child; c; c = t->v[c - 1].next) nkids++;
  if (!nkids) return 0;
  size_t *kids = malloc(nkids * sizeof *kids);
  if (!kids) return -1;
  size_t k = 0;
  for (size_t c = t->v[at - 1].child; c; c = t->v[c - 1].next) kids[k++] = c;
  sort_nodes = t->v;
  qsort(kids, nkids, sizeof *kids, cmp_child);
  int rc = 0;
  for (k = 0; k < nkids && rc == 0; k++) {
    const struct node *nd = &t->v[kids[k] - 1];
    if (total && 100.0 * (double)nd->incl / (double)total < o->min_pct) continue;
    print_line(v, out, o, nd, depth);
    if (o->max_depth && depth + 1 >= o->max_depth) continue;
    rc = walk(v, out, o, t, kids[k], depth + 1, total);
  }
  free(kids);
  return rc;
}

static int print_tree(const struct stk_view *v, FILE *out, const struct stk_text_opts *o, const struct sv_group *g,
                      int top_down) {
  struct tree t = {0};
  if (build(v, g, top_down, &t) != 0) { free(t.v); return -1; }
  if (v->has_bytes)
    fprintf(out, "%7s %7s %10s  %s\n", "incl", "excl", "incl MB",
            top_down ? "top-down (callers first)" : "bottom-up (the frames nearest the event first)");
  else
    fprintf(out, "%7s %7s  %s\n", "incl", "excl",
            top_down ? "top-down (callers first)" : "bottom-up (the frames nearest the event first)");
  int rc = walk(v, out, o, &t, 1, 0, g->samples);
  free(t.v);
  return rc;
}

int stk_view_text(const struct stk_view *v, FILE *out, const struct stk_text_opts *o) {
  for (size_t p = 0; p < v->nprocs; p++) {
    const struct sv_proc *pr = &v->procs[p];
    const struct sv_group **gs = sv_sorted_groups(v, pr);
    if (!gs) return -1;
    uint64_t proc_bytes = 0;
    for (size_t g = 0; g < pr->ngroups; g++) proc_bytes += pr->groups[g].bytes;
    char pname[256];
    fprintf(out, "%spid %d (%.24s), trace %lld: %llu %s sample%s, %zu group%s\n", p ? "\n" : "", pr->pid,
            pr->name ? rpt_printable(pname, sizeof pname, pr->name) : "unknown", (long long)pr->trace, (unsigned long long)pr->samples, v->event,
            pr->samples == 1 ? "" : "s", pr->ngroups, pr->ngroups == 1 ? "" : "s");
    size_t shown = o->top_groups > 0 && (size_t)o->top_groups < pr->ngroups ? (size_t)o->top_groups : pr->ngroups;
    for (size_t g = 0; g < shown; g++) {
      const struct sv_group *gr = gs[g];
      double pct = pr->samples ? 100.0 * (double)gr->samples / (double)pr->samples : 0;
      char figures[160];
      int fl = snprintf(figures, sizeof figures, "%llu sample%s (%.1f %%)", (unsigned long long)gr->samples,
                        gr->samples == 1 ? "" : "s", pct);
      if (v->has_bytes && fl > 0 && (size_t)fl < sizeof figures)
        snprintf(figures + fl, sizeof figures - (size_t)fl, ", %.3f MB (%.1f %% of the bytes)",
                 (double)gr->bytes / 1e6, proc_bytes ? 100.0 * (double)gr->bytes / (double)proc_bytes : 0.0);
      char key[1024];
      const char *k = o->wide ? rpt_printable(key, sizeof key, gr->key)
                              : rpt_fit_name(key, sizeof key, gr->key, (size_t)o->width - 3);
      if (rpt_text_cols(k) + strlen(figures) + 5 <= (size_t)o->width) fprintf(out, "\n== %s: %s\n", k, figures);
      else fprintf(out, "\n== %s\n   %s\n", k, figures);
      if (gr->stackless)
        sv_wrapf(out, o->width, "%llu of %llu %s: %s", (unsigned long long)gr->stackless,
                 (unsigned long long)gr->samples, gr->samples == 1 ? "sample has no stack" : "samples have no stack",
                 o->stackless_why ? o->stackless_why : "recorded without one");
      if (gr->nstacks == 0) continue;
      if (print_tree(v, out, o, gr, 1) != 0 || (fputs("\n", out), print_tree(v, out, o, gr, 0)) != 0) {
        free(gs);
        return -1;
      }
    }
    if (shown < pr->ngroups)
      fprintf(out, "\n(%zu more group%s: --top N shows more, --format json all)\n", pr->ngroups - shown,
              pr->ngroups - shown == 1 ? "" : "s");
    free(gs);
  }
  return ferror(out) ? -1 : 0;
}
