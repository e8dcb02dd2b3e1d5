/* stk_view.c — the stack views (stk_view.h): the model and its text, JSON
 * and folded renderings (pprof: stk_pprof.c). */
#include "stk_view.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_output.h"
#include "gcs_text.h"
#include "stk_view_internal.h"

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap : 16;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * elem);
  if (!q) return -1;
  *p = q;
  *cap = n;
  return 0;
}

static uint64_t hash_frames(const uint32_t *f, uint32_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  for (uint32_t i = 0; i < n; i++) { h ^= f[i]; h *= 0x100000001b3ull; h ^= h >> 29; }
  return h;
}

struct stk_view *stk_view_new(const char *event, const struct stk_frames *frames, int has_bytes) {
  struct stk_view *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  v->event = strdup(event);
  if (!v->event) { free(v); return NULL; }
  v->frames = *frames;
  v->has_bytes = has_bytes;
  return v;
}

void stk_view_free(struct stk_view *v) {
  if (!v) return;
  for (size_t p = 0; p < v->nprocs; p++) {
    struct sv_proc *pr = &v->procs[p];
    for (size_t g = 0; g < pr->ngroups; g++) {
      struct sv_group *gr = &pr->groups[g];
      for (size_t s = 0; s < gr->nstacks; s++) free(gr->stacks[s].f);
      free(gr->stacks);
      free(gr->index);
      free(gr->key);
    }
    free(pr->groups);
    free(pr->name);
  }
  free(v->procs);
  free(v->event);
  free(v);
}

static struct sv_proc *find_proc(struct stk_view *v, int64_t trace, int32_t pid, const char *name) {
  if (v->last_proc < v->nprocs && v->procs[v->last_proc].trace == trace && v->procs[v->last_proc].pid == pid)
    return &v->procs[v->last_proc];
  for (size_t i = 0; i < v->nprocs; i++)
    if (v->procs[i].trace == trace && v->procs[i].pid == pid) { v->last_proc = i; return &v->procs[i]; }
  if (grow((void **)&v->procs, &v->capprocs, v->nprocs + 1, sizeof *v->procs) != 0) return NULL;
  struct sv_proc *p = &v->procs[v->nprocs];
  memset(p, 0, sizeof *p);
  p->trace = trace;
  p->pid = pid;
  if (name && !(p->name = strdup(name))) return NULL;
  v->last_proc = v->nprocs++;
  return p;
}

static struct sv_group *find_group(struct sv_proc *p, const char *key) {
  for (size_t i = 0; i < p->ngroups; i++)
    if (strcmp(p->groups[i].key, key) == 0) return &p->groups[i];
  if (grow((void **)&p->groups, &p->capgroups, p->ngroups + 1, sizeof *p->groups) != 0) return NULL;
  struct sv_group *g = &p->groups[p->ngroups];
  memset(g, 0, sizeof *g);
  if (!(g->key = strdup(key))) return NULL;
  p->ngroups++;
  return g;
}

static int reindex(struct sv_group *g) {
  size_t cap = g->icap ? g->icap * 2 : 64;
  size_t *ix = calloc(cap, sizeof *ix);
  if (!ix) return -1;
  for (size_t i = 0; i < g->nstacks; i++) {
    size_t h = hash_frames(g->stacks[i].f, g->stacks[i].n) & (cap - 1);
    while (ix[h]) h = (h + 1) & (cap - 1);
    ix[h] = i + 1;
  }
  free(g->index);
  g->index = ix;
  g->icap = cap;
  return 0;
}

int stk_view_add(struct stk_view *v, int64_t trace_id, int32_t pid, const char *proc_name, const char *key,
                 const uint32_t *frames, uint32_t n, uint64_t bytes) {
  struct sv_proc *p = find_proc(v, trace_id, pid, proc_name);
  if (!p) return -1;
  struct sv_group *g = find_group(p, key ? key : "unknown");
  if (!g) return -1;
  g->samples++;
  g->bytes += bytes;
  p->samples++;
  v->samples++;
  if (n == 0) { g->stackless++; g->stackless_bytes += bytes; return 0; }
  if ((g->nstacks + 1) * 2 > g->icap && reindex(g) != 0) return -1;
  size_t h = hash_frames(frames, n) & (g->icap - 1);
  for (; g->index[h]; h = (h + 1) & (g->icap - 1)) {
    struct sv_stack *s = &g->stacks[g->index[h] - 1];
    if (s->n == n && memcmp(s->f, frames, n * sizeof *frames) == 0) {
      s->samples++;
      s->bytes += bytes;
      return 0;
    }
  }
  if (grow((void **)&g->stacks, &g->capstacks, g->nstacks + 1, sizeof *g->stacks) != 0) return -1;
  struct sv_stack *s = &g->stacks[g->nstacks];
  if (!(s->f = malloc(n * sizeof *frames))) return -1;
  memcpy(s->f, frames, n * sizeof *frames);
  s->n = n;
  s->samples = 1;
  s->bytes = bytes;
  g->index[h] = ++g->nstacks;
  return 0;
}

uint64_t stk_view_samples(const struct stk_view *v) { return v->samples; }

const char *sv_frame(const struct stk_view *v, uint32_t i, int *resolved) {
  int r = 0;
  const char *s = v->frames.name(v->frames.ud, i, &r);
  if (resolved) *resolved = r;
  return s ? s : "unknown";
}

/* Groups of a process, largest first (bytes when the event has them, then samples, then key). */
static const struct stk_view *sort_view;
static int cmp_group(const void *a, const void *b) {
  const struct sv_group *x = *(const struct sv_group *const *)a, *y = *(const struct sv_group *const *)b;
  if (sort_view->has_bytes && x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
  if (x->samples != y->samples) return x->samples > y->samples ? -1 : 1;
  return strcmp(x->key, y->key);
}
static int cmp_stack(const void *a, const void *b) {
  const struct sv_stack *x = *(const struct sv_stack *const *)a, *y = *(const struct sv_stack *const *)b;
  if (x->samples != y->samples) return x->samples > y->samples ? -1 : 1;
  if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
  if (x->n != y->n) return x->n < y->n ? -1 : 1;
  return memcmp(x->f, y->f, x->n * sizeof *x->f);
}

const struct sv_group **sv_sorted_groups(const struct stk_view *v, const struct sv_proc *p) {
  const struct sv_group **g = malloc((p->ngroups ? p->ngroups : 1) * sizeof *g);
  if (!g) return NULL;
  for (size_t i = 0; i < p->ngroups; i++) g[i] = &p->groups[i];
  sort_view = v;
  qsort(g, p->ngroups, sizeof *g, cmp_group);
  return g;
}

const struct sv_stack **sv_sorted_stacks(const struct sv_group *g) {
  const struct sv_stack **s = malloc((g->nstacks ? g->nstacks : 1) * sizeof *s);
  if (!s) return NULL;
  for (size_t i = 0; i < g->nstacks; i++) s[i] = &g->stacks[i];
  qsort(s, g->nstacks, sizeof *s, cmp_stack);
  return s;
}

/* ---- JSON ------------------------------------------------------------------ */

int stk_view_json(const struct stk_view *v, FILE *out) {
  fputs("{\"processes\":[", out);
  for (size_t p = 0; p < v->nprocs; p++) {
    const struct sv_proc *pr = &v->procs[p];
    const struct sv_group **gs = sv_sorted_groups(v, pr);
    if (!gs) return -1;
    fprintf(out, "%s{\"pid\":%d,\"name\":", p ? "," : "", pr->pid);
    if (pr->name) rpt_json_str(out, pr->name); else fputs("null", out);
    fputs(",\"groups\":[", out);
    for (size_t g = 0; g < pr->ngroups; g++) {
      const struct sv_group *gr = gs[g];
      fprintf(out, "%s{\"event\":", g ? "," : "");
      rpt_json_str(out, v->event);
      fputs(",\"key\":", out);
      rpt_json_str(out, gr->key);
      fprintf(out, ",\"samples\":%llu,\"bytes\":%llu,\"stacks\":[", (unsigned long long)gr->samples,
              (unsigned long long)gr->bytes);
      const struct sv_stack **ss = sv_sorted_stacks(gr);
      if (!ss) { free(gs); return -1; }
      int first = 1;
      for (size_t s = 0; s < gr->nstacks; s++) {
        fprintf(out, "%s{\"frames\":[", first ? "" : ",");
        first = 0;
        for (uint32_t k = 0; k < ss[s]->n; k++) {
          if (k) fputc(',', out);
          rpt_json_str(out, sv_frame(v, ss[s]->f[k], NULL));
        }
        fprintf(out, "],\"samples\":%llu,\"bytes\":%llu}", (unsigned long long)ss[s]->samples,
                (unsigned long long)ss[s]->bytes);
      }
      if (gr->stackless)
        fprintf(out, "%s{\"frames\":[],\"samples\":%llu,\"bytes\":%llu}", first ? "" : ",",
                (unsigned long long)gr->stackless, (unsigned long long)gr->stackless_bytes);
      fputs("]}", out);
      free(ss);
    }
    fputs("]}", out);
    free(gs);
  }
  fputs("]}\n", out);
  return ferror(out) ? -1 : 0;
}

/* ---- folded ---------------------------------------------------------------- */

/* A frame in a folded line: ';' separates frames, a line end ends the stack
 * and the last blank comes before the count. A name is the traced program's
 * bytes: gcs_text_printable makes every control character (CR and LF among
 * them; C1, the bidirectional overrides) and every byte of invalid UTF-8 a
 * '?', and a ';' is written ':', so each line is one stack with its count
 * (before, a CR or a ';' split a frame or a line: a flame graph added the
 * count to a wrong stack). */
static void folded_name(FILE *out, const char *s) {
  char small[256];
  size_t n = strlen(s);
  char *safe = n < sizeof small ? small : malloc(n + 1);   /* never longer than s */
  if (!safe) { fputc('?', out); return; }   /* out of memory: the name unknown */
  gcs_text_printable(s, n, safe, n + 1);
  for (char *p = safe; *p; p++) fputc(*p == ';' ? ':' : *p, out);
  if (safe != small) free(safe);
}

int stk_view_folded(const struct stk_view *v, FILE *out, int by_bytes) {
  for (size_t p = 0; p < v->nprocs; p++) {
    const struct sv_proc *pr = &v->procs[p];
    const struct sv_group **gs = sv_sorted_groups(v, pr);
    if (!gs) return -1;
    for (size_t g = 0; g < pr->ngroups; g++) {
      const struct sv_group *gr = gs[g];
      const struct sv_stack **ss = sv_sorted_stacks(gr);
      if (!ss) { free(gs); return -1; }
      for (size_t s = 0; s <= gr->nstacks; s++) {
        int none = s == gr->nstacks;
        if (none && !gr->stackless) break;
        uint64_t count = none ? (by_bytes ? gr->stackless_bytes : gr->stackless)
                              : (by_bytes ? ss[s]->bytes : ss[s]->samples);
        if (count == 0) continue;
        if (v->nprocs > 1) {
          folded_name(out, pr->name ? pr->name : "unknown");
          fprintf(out, " (%d);", pr->pid);
        }
        if (pr->ngroups > 1) { folded_name(out, gr->key); fputc(';', out); }
        if (none) {
          fputs("[no stack]", out);
        } else {
          for (uint32_t k = ss[s]->n; k > 0; k--) {
            folded_name(out, sv_frame(v, ss[s]->f[k - 1], NULL));
            if (k > 1) fputc(';', out);
          }
        }
        fprintf(out, " %llu\n", (unsigned long long)count);
      }
      free(ss);
    }
    free(gs);
  }
  return ferror(out) ? -1 : 0;
}

/* ---- wrapped text -------------------------------------------------------- */

void sv_wrap(FILE *out, int width, const char *text) {
  int col = 0, fresh = 1;   /* fresh: at the start of a line (after its indent) */
  for (const char *w = text; *w;) {
    size_t n = strcspn(w, " ");
    if (!fresh && col + 1 + (int)n > width) { fputs("\n  ", out); col = 2; fresh = 1; }
    if (!fresh) { fputc(' ', out); col++; }
    fresh = 0;
    fwrite(w, 1, n, out);
    col += (int)n;
    w += n;
    while (*w == ' ') w++;
  }
  fputc('\n', out);
}

void sv_wrapf(FILE *out, int width, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  sv_wrap(out, width, buf);
}
