/* out_table.c — the aligned text table of gcs_output.h.
 *
 * Cells are copied back to back into one growing text arena (offsets per
 * cell, column widths kept up to date on add), so a 100,000-row GC table costs
 * a few large allocations instead of one per cell, and printing builds each
 * line in one buffer instead of one formatted write per cell. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_output.h"

static int grow_text(struct rpt_table *t, size_t need) {
  if (t->text_len + need <= t->text_cap) return 0;
  size_t cap = t->text_cap ? t->text_cap : 4096;
  while (cap < t->text_len + need) cap *= 2;
  char *n = realloc(t->text, cap);
  if (!n) return -1;
  t->text = n;
  t->text_cap = cap;
  return 0;
}

void rpt_table_init(struct rpt_table *t, int ncols, const char *const *headers) {
  memset(t, 0, sizeof *t);
  t->ncols = ncols;
  t->right = calloc((size_t)ncols, 1);
  t->width = calloc((size_t)ncols, sizeof *t->width);
  t->nrows = -1;
  rpt_table_add(t, headers);
}

int rpt_table_add(struct rpt_table *t, const char *const *cells) {
  if (!t->right || !t->width) return -1;
  int row = t->nrows + 1;
  if (row + 1 > t->cap) {
    int nc = t->cap ? t->cap * 2 : 64;
    size_t *o = realloc(t->off, (size_t)nc * (size_t)t->ncols * sizeof *o);
    if (o) t->off = o;
    unsigned char *m = realloc(t->mark, (size_t)nc);
    if (m) t->mark = m;
    if (!o || !m) return -1;
    t->cap = nc;
  }
  size_t len[64], *lens = t->ncols <= 64 ? len : malloc((size_t)t->ncols * sizeof *lens), total = 0;
  if (!lens) return -1;
  for (int i = 0; i < t->ncols; i++) total += lens[i] = cells[i] ? strlen(cells[i]) : 0;
  if (grow_text(t, total + (size_t)t->ncols)) {
    if (lens != len) free(lens);
    return -1;
  }
  size_t *off = t->off + (size_t)row * (size_t)t->ncols;
  for (int i = 0; i < t->ncols; i++) {
    off[i] = t->text_len;
    if (lens[i]) memcpy(t->text + t->text_len, cells[i], lens[i]);
    t->text[t->text_len + lens[i]] = 0;
    t->text_len += lens[i] + 1;
    if ((int)lens[i] > t->width[i]) t->width[i] = (int)lens[i];
  }
  if (lens != len) free(lens);
  t->mark[row] = 0;
  t->nrows = row;
  return row;
}

const char *rpt_table_cell(const struct rpt_table *t, int row, int col) {
  return t->text + t->off[(size_t)row * (size_t)t->ncols + (size_t)col];
}

static void print_cols(const struct rpt_table *t, FILE *out, int color, const int *cols, int ncols);

/* Width of columns cols[0..n) printed side by side. */
static size_t cols_width(const struct rpt_table *t, const int *cols, int n) {
  size_t w = 0;
  for (int i = 0; i < n; i++) w += (size_t)t->width[cols[i]] + (i ? 2 : 0);
  return w;
}

void rpt_table_print(const struct rpt_table *t, FILE *out, int color) {
  if (t->nrows < 0 || t->ncols <= 0) return;
  int *cols = malloc((size_t)t->ncols * sizeof *cols);
  if (!cols) return;
  int all = 0;
  for (int c = 0; c < t->ncols; c++) cols[all++] = c;
  int keys = t->keys < 0 ? 0 : t->keys > t->ncols ? t->ncols : t->keys;
  if (t->max_width <= 0 || cols_width(t, cols, all) <= (size_t)t->max_width || keys >= t->ncols) {
    print_cols(t, out, color, cols, all);
    free(cols);
    return;
  }
  /* column groups: the keys, then as many of the rest as fit */
  int next = keys, group = 0;
  while (next < t->ncols) {
    int n = keys;
    cols[n++] = next++;
    while (next < t->ncols) {
      cols[n] = next;
      if (cols_width(t, cols, n + 1) > (size_t)t->max_width) break;
      n++;
      next++;
    }
    if (group++) fputc('\n', out);
    print_cols(t, out, color, cols, n);
  }
  free(cols);
}

static void print_cols(const struct rpt_table *t, FILE *out, int color, const int *cols, int ncols) {
  /* Widest possible line: every column padded, plus the last cell at full width. */
  size_t linecap = 16;
  for (int ci = 0; ci < ncols; ci++) linecap += (size_t)t->width[cols[ci]] + 2;
  char *line = malloc(linecap);
  if (!line) return;
  for (int r = 0; r <= t->nrows; r++) {
    int hl = color && t->mark[r];
    if (hl) fputs("\033[1;31m", out);
    size_t o = 0;
    for (int ci = 0; ci < ncols; ci++) {
      int c = cols[ci];
      const char *s = rpt_table_cell(t, r, c);
      size_t l = strlen(s), w = (size_t)t->width[c];
      int last = ci == ncols - 1;
      if (t->right[c]) { /* "%*s" */
        memset(line + o, ' ', w - l);
        memcpy(line + o + (w - l), s, l);
        o += w;
      } else if (last) { /* as is */
        memcpy(line + o, s, l);
        o += l;
      } else { /* "%-*s" */
        memcpy(line + o, s, l);
        memset(line + o + l, ' ', w - l);
        o += w;
      }
      if (!last) {
        line[o++] = ' ';
        line[o++] = ' ';
      }
    }
    fwrite(line, 1, o, out);
    if (hl) fputs("\033[0m", out);
    fputc('\n', out);
    if (r == 0) {
      size_t total = cols_width(t, cols, ncols);
      char *dash = malloc(total + 1);
      if (dash) {
        memset(dash, '-', total);
        dash[total] = '\n';
        fwrite(dash, 1, total + 1, out);
        free(dash);
      }
    }
  }
  free(line);
}

void rpt_table_free(struct rpt_table *t) {
  free(t->text);
  free(t->off);
  free(t->width);
  free(t->right);
  free(t->mark);
  memset(t, 0, sizeof *t);
}
