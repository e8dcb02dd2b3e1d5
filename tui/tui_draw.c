/* tui_draw.c — one frame of `gcscope top`. Layout at H lines (80x24 and up):
 *   0        title bar: source, process n/N, filter, sort, FROZEN
 *   1..3     process header (flavour, uptime, % paused, counts, heap, alloc rate,
 *            max pause, last GC)
 *   4..5     sparklines over time: heap after GC and time paused per bucket
 *   6        table header; then the GCs (newest first by default)
 *   H-7..H-2 bottom panel: rollup by generation, or the pause histogram (Tab)
 *   H-1      status line: keys, messages, the search prompt
 * Small terminals drop the bottom panel, then the sparklines. */
#include <curses.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "gcs_events.h"
#include "gcs_text.h"
#include "tui_term.h"
#include "tui_ui.h"

#include <stdarg.h>

struct layout {
  int title, header, spark, thead, table, ntable, panel, status;
};

static void get_layout(struct layout *l) {
  int h = LINES;
  l->title = 0;
  l->header = 1;
  int spark = h >= 14;
  int panel = h >= 20;
  l->spark = spark ? 4 : -1;
  l->thead = spark ? 6 : 4;
  l->table = l->thead + 1;
  l->status = h - 1;
  l->panel = panel ? h - 7 : -1;
  l->ntable = (panel ? l->panel : l->status) - l->table;
  if (l->ntable < 1) l->ntable = 1;
}

/* Every string top draws goes through here: what a trace, a database or a
 * peer supplied (process names, command lines, event payloads, paths) is
 * shown with its control characters, C1 and bidirectional overrides and
 * isolates as '?' (gcs_text_printable, the one rule of every text report).
 * ncurses alone would show C0 as ^X but pass the overrides through, which
 * reorder the rest of the line on the terminal. Outside a UTF-8 locale
 * every other non-ASCII character is a '?' as well: ncurses would draw its
 * bytes as M-x forms, several columns each. buf holds cap bytes. */
static const char *printable(char *buf, size_t cap, const char *s) {
  gcs_text_printable(s, (size_t)-1, buf, cap);
  if (!tui_term_utf8()) {
    size_t o = 0;
    for (size_t i = 0; buf[i]; o++) {
      unsigned char c = (unsigned char)buf[i];
      buf[o] = c < 0x80 ? (char)c : '?';
      i += c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;   /* valid UTF-8 */
    }
    buf[o] = '\0';
  }
  return buf;
}

/* Widths are terminal columns, not bytes: a name in Japanese takes two
 * columns a character in three bytes, an accent over a letter none. Each
 * character of printable()'s valid UTF-8 takes wcwidth()'s columns (one
 * when wcwidth does not know it). Returns how many bytes of s fit in max
 * columns, cut at a character boundary (with the zero-width characters
 * that follow the last one), and their columns in *cols. */
static size_t cut_cols(const char *s, int max, int *cols) {
  size_t i = 0;
  int w = 0;
  while (s[i]) {
    unsigned char c = (unsigned char)s[i];
    int len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1fu : len == 3 ? c & 0x0fu : c & 0x07u;
    for (int k = 1; k < len; k++) cp = cp << 6 | ((unsigned char)s[i + (size_t)k] & 0x3fu);
    int cw = c < 0x80 ? 1 : wcwidth((wchar_t)cp);
    if (cw < 0) cw = 1;
    if (w + cw > max) break;
    w += cw;
    i += (size_t)len;
  }
  if (cols) *cols = w;
  return i;
}

static int text_cols(const char *s) {
  int w;
  cut_cols(s, 1 << 30, &w);
  return w;
}

static void draw_text(WINDOW *win, int y, int x, const char *s, int n) {
  char buf[2048];
  printable(buf, sizeof buf, s);
  mvwaddnstr(win, y, x, buf, (int)cut_cols(buf, n, NULL));
}

/* The same, before a name is laid out, so widths count what is drawn: at
 * most max columns of s (cut when max > 0), padded with spaces to pad
 * columns. out holds SAFE_MAX bytes. */
#define SAFE_MAX 512
static const char *fit(char *out, const char *s, int max, int pad) {
  char tmp[SAFE_MAX];
  printable(tmp, sizeof tmp, s);
  int w;
  size_t n = cut_cols(tmp, max > 0 ? max : 1 << 30, &w);
  memcpy(out, tmp, n);
  while (w < pad && n < SAFE_MAX - 1) out[n++] = ' ', w++;
  out[n] = '\0';
  return out;
}
static const char *safe(char *buf, const char *s) { return fit(buf, s, 0, 0); }

static void put(int y, int x, const char *s) {
  if (y < 0 || y >= LINES || x >= COLS) return;
  draw_text(stdscr, y, x, s, COLS - x);
}

static void style_on(int pair, int extra) {
  if (tui_term_has_colors() && pair) attron(COLOR_PAIR(pair));
  if (extra) attron(extra);
}
static void style_off(int pair, int extra) {
  if (tui_term_has_colors() && pair) attroff(COLOR_PAIR(pair));
  if (extra) attroff(extra);
}

static void draw_title(struct tui_ui *ui, const struct layout *l) {
  char line[512];
  size_t n = tui_model_nprocs(ui->model);
  /* the source goes last: on a narrow terminal only it is cut */
  int len = snprintf(line, sizeof line, " gcscope top");
  if (n > 1) len += snprintf(line + len, sizeof line - (size_t)len, " | proc %zu/%zu", ui->proc + 1, n);
  len += snprintf(line + len, sizeof line - (size_t)len, " | %s | sort %s %s",
                  tui_filter_name(ui->filter), tui_col_name(ui->sort), ui->ascending ? "asc" : "desc");
  if (ui->frozen) len += snprintf(line + len, sizeof line - (size_t)len, " | FROZEN");
  if (ui->src && ui->src->loading) len += snprintf(line + len, sizeof line - (size_t)len, " | LOADING");
  if (ui->src && ui->src->live) {
    /* how old the newest event is: a stream that lags or stopped says so */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    double age = ((double)now.tv_sec * 1e9 + (double)now.tv_nsec - (double)ui->src->last_event_ns) / 1e9;
    if (!ui->src->last_event_ns) len += snprintf(line + len, sizeof line - (size_t)len, " | no event yet");
    else len += snprintf(line + len, sizeof line - (size_t)len, " | last event %.1f s ago", age < 0 ? 0.0 : age);
  }
  char desc[SAFE_MAX];
  snprintf(line + len, sizeof line - (size_t)len, " | %s", ui->src ? safe(desc, ui->src->desc) : "");
  style_on(TUI_PAIR_TITLE, A_REVERSE * !tui_term_has_colors());
  move(l->title, 0);
  for (int x = 0; x < COLS; x++) addch(' ');
  put(l->title, 0, line);
  style_off(TUI_PAIR_TITLE, A_REVERSE * !tui_term_has_colors());
}

/* A header line made of segments: each is drawn whole or, with the ones after
 * it, not at all, so a number is never cut at the right edge. */
struct segs { char s[6][160]; int n; };
static void seg(struct segs *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void seg(struct segs *g, const char *fmt, ...) {
  if (g->n >= 6) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g->s[g->n++], sizeof g->s[0], fmt, ap);
  va_end(ap);
}
static void put_segs(int y, const struct segs *g) {
  int x = 0;
  for (int i = 0; i < g->n; i++) {
    int n = text_cols(g->s[i]);
    if (x + n > COLS && i > 0) break;
    put(y, x, g->s[i]);
    x += n;
  }
}

static const char *full(char *buf, double v, int dec) {
  if (isnan(v)) return strcpy(buf, "unknown");   /* not known yet, or not in the events */
  snprintf(buf, 32, "%.*f", dec, v);
  return buf;
}

static void draw_header(const struct tui_proc *p, const struct layout *l) {
  char a[32], b[32];
  if (!p) {
    put(l->header, 0, "No GC seen yet.");
    return;
  }
  struct tui_summary s;
  tui_proc_summary(p, &s);
  struct segs g = { .n = 0 };
  char name[SAFE_MAX], flavour[SAFE_MAX];
  seg(&g, "PID %d %s%s%s%s", p->pid, p->name[0] ? fit(name, p->name, 24, 0) : "?", p->flavour[0] ? " (" : "",
      safe(flavour, p->flavour), p->flavour[0] ? ")" : "");
  seg(&g, "  up %s s", full(a, s.uptime_ms / 1000, 1));
  seg(&g, "  paused %s%%", full(a, s.pct_paused, 1));
  attron(A_BOLD);
  put_segs(l->header, &g);
  attroff(A_BOLD);
  g.n = 0;
  seg(&g, "GCs 0:%u 1:%u 2:%u (BGC %u, FGC %u)", s.count[0], s.count[1], s.count[2], s.nbgc, s.nfgc);
  seg(&g, "  heap %s MB (max %s)", full(a, s.heap_now_mb, 3), full(b, s.heap_max_mb, 3));
  seg(&g, "  alloc %s MB/s", full(a, s.alloc_rate_mbs, 1));
  struct tui_req_summary rq;
  if (tui_proc_requests(p, TUI_REQ_WINDOW_MS, &rq))
    seg(&g, "  req %s/s p99 %s ms", full(a, rq.rate_per_s, 1), full(b, rq.p99_ms, 3));
  put_segs(l->header + 1, &g);
  g.n = 0;
  char gen[16] = "";
  seg(&g, "max pause %s ms", full(a, s.max_pause_ms, 3));
  /* with the heap count now: the newest GC's (server GC with DATAS changes it) */
  char heaps[24] = "";
  if (s.last && s.last->heap_count > 1) snprintf(heaps, sizeof heaps, ", %d heaps", s.last->heap_count);
  if (s.last)
    seg(&g, "  last GC #%lld %s %s, pause %s ms%s", (long long)s.last->number,
        tui_gc_gen_name(s.last, gen, sizeof gen), gcs_reason_name((uint32_t)s.last->reason),
        full(b, s.last->pause_ms, 3), heaps);
  if (s.nincomplete) seg(&g, "  (%u incomplete)", s.nincomplete);
  put_segs(l->header + 2, &g);
}

/* Two sparklines over time (tui_proc_sparklines): the heap size after GC
 * (largest per bucket) and the time paused (sum per bucket) over the last
 * TUI_SPARK_WINDOW_MS of the process's timeline (or all of it if shorter),
 * one cell per bucket, the newest on the right; empty buckets are blank. */
#define SPARK_LABEL 9
#define SPARK_RIGHT 30             /* the scale labels: more if they need it */
#define SPARK_MAX 120
static void spark_labels(const struct tui_spark *sp, char lab[2][96]) {
  char a[32], b[32];
  if (sp->ngcs == 0) snprintf(lab[0], 96, " no GC in the window");
  else snprintf(lab[0], 96, " %s..%s MB", full(a, sp->heap_lo_mb, 3), full(b, sp->heap_max_mb, 3));
  double w_s = (sp->end_ms - sp->start_ms) / 1000;
  if (sp->whole) snprintf(b, sizeof b, "all %.*f s", w_s < 10 ? 1 : 0, w_s);
  else if (w_s >= 3600) snprintf(b, sizeof b, "last %.0f h", w_s / 3600);
  else if (w_s >= 120) snprintf(b, sizeof b, "last %.0f min", w_s / 60);
  else snprintf(b, sizeof b, "last %.0f s", w_s);
  /* the largest cell's total pause, not one GC's (the header's "max pause") */
  snprintf(lab[1], 96, " max %s/cell, %s", full(a, sp->pause_max_ms, 3), b);
}

static void draw_sparklines(const struct tui_ui *ui, const struct tui_proc *p, const struct layout *l) {
  if (l->spark < 0 || !p) return;
  static const char *const blocks_utf8[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584",
                                             "\u2585", "\u2586", "\u2587", "\u2588" };
  static const char *const blocks_ascii[] = { " ", "_", ".", "-", "~", "=", "+", "*", "#" };
  const char *const *blocks = tui_term_utf8() ? blocks_utf8 : blocks_ascii;
  put(l->spark, 0, "heap MB");
  put(l->spark + 1, 0, "pause ms");
  double heap[SPARK_MAX], pause[SPARK_MAX];
  struct tui_spark sp;
  char lab[2][96];
  /* the labels are whole: the lines give up cells when they need more room
   * (the pause scale can grow a digit with wider buckets: try again) */
  int right = SPARK_RIGHT, width = 0;
  for (int tries = 0; tries < 3; tries++) {
    width = COLS - SPARK_LABEL - right;
    if (width > SPARK_MAX) width = SPARK_MAX;
    if (width < 4) return;
    if (tui_proc_sparklines(p, ui->spark_window_ms, width, heap, pause, &sp) != 0) return;
    spark_labels(&sp, lab);
    int need = (int)(strlen(lab[0]) > strlen(lab[1]) ? strlen(lab[0]) : strlen(lab[1]));
    if (SPARK_LABEL + width + need <= COLS) break;
    right = need;
  }
  move(l->spark, SPARK_LABEL);
  for (int k = 0; k < width; k++) addstr(blocks[tui_spark_level_range(heap[k], sp.heap_lo_mb, sp.heap_max_mb)]);
  move(l->spark + 1, SPARK_LABEL);
  for (int k = 0; k < width; k++) addstr(blocks[tui_spark_level(pause[k], sp.pause_max_ms)]);
  put(l->spark, SPARK_LABEL + width, lab[0]);
  put(l->spark + 1, SPARK_LABEL + width, lab[1]);
}

/* --- the GC table ---------------------------------------------------------
 * Every column is as wide as its widest cell on screen so far (or its title),
 * and numbers are printed whole: when the terminal is too narrow, columns are
 * dropped in tui_col_priority order (tui_cols_fit), never cut. Reason is text:
 * at most REASON_MAX cells. */
#define REASON_MAX 13
#define MARKER_W 8                 /* " +N cols" */

static void cell_text(const struct tui_gc *gc, enum tui_col c, char *out, size_t len) {
  double v = NAN;
  int dec = 3;
  switch (c) {
  case TUI_COL_INDEX:
    snprintf(out, len, "%lld%s%s", (long long)gc->number, gc->complete ? "" : "?", gc->fired ? "!" : "");
    return;
  case TUI_COL_GEN: tui_gc_gen_name(gc, out, len); return;
  case TUI_COL_REASON: snprintf(out, len, "%.*s", REASON_MAX, gcs_reason_name((uint32_t)gc->reason)); return;
  case TUI_COL_START: v = gc->pause_start_ms; break;
  case TUI_COL_SUSPEND: v = gc->suspend_ms; break;
  case TUI_COL_PAUSE: v = gc->pause_ms; break;
  case TUI_COL_PEAK: v = gc->peak_mb; break;
  case TUI_COL_AFTER: v = gc->after_mb; break;
  case TUI_COL_PROMOTED: v = gc->promoted_mb; break;
  case TUI_COL_PCT: v = gc->pct_pause; dec = 1; break;
  case TUI_COL_ALLOC: v = gc->alloc_mb; break;
  default: out[0] = '\0'; return;
  }
  if (isnan(v)) snprintf(out, len, "unknown");   /* e.g. a GC without its heap stats */
  else snprintf(out, len, "%.*f", dec, v);
}

static int col_left(enum tui_col c) { return c == TUI_COL_GEN || c == TUI_COL_REASON; }

/* Widths from the rows on screen and the titles; which columns fit. */
static void fit_columns(struct tui_ui *ui, const struct tui_proc *p, int nvisible, int width[TUI_COL_COUNT]) {
  if (ui->colw_proc != ui->proc) { memset(ui->colw, 0, sizeof ui->colw); ui->colw_proc = ui->proc; }
  char text[64];
  for (int r = 0; p && r < nvisible; r++) {
    const struct tui_gc *gc = &p->gcs[ui->rows[ui->top + r]];
    for (int c = 0; c < TUI_COL_COUNT; c++) {
      cell_text(gc, (enum tui_col)c, text, sizeof text);
      int n = (int)strlen(text);
      if (n > ui->colw[c]) ui->colw[c] = n;
    }
  }
  for (int c = 0; c < TUI_COL_COUNT; c++) {
    int title = (int)strlen(tui_col_name((enum tui_col)c)) + (c == (int)ui->sort);
    width[c] = ui->colw[c] > title ? ui->colw[c] : title;
  }
  ui->ncols_hidden = tui_cols_fit(width, COLS, MARKER_W, ui->col_shown);
}

static int row_line(struct tui_ui *ui, char *line, size_t cap, const struct tui_gc *gc, const int width[TUI_COL_COUNT]) {
  int len = 0;
  line[0] = '\0';
  for (int c = 0; c < TUI_COL_COUNT; c++) {
    if (!ui->col_shown[c]) continue;
    char text[64];
    if (!gc) snprintf(text, sizeof text, "%s%s", tui_col_name((enum tui_col)c), c == (int)ui->sort ? "*" : "");
    else cell_text(gc, (enum tui_col)c, text, sizeof text);
    len += snprintf(line + len, cap - (size_t)len, col_left((enum tui_col)c) ? "%s%-*.*s" : "%s%*.*s",
                    len ? " " : "", width[c], width[c], text);
    if ((size_t)len >= cap) { len = (int)cap - 1; break; }
  }
  return len;
}

/* The note at the right of the table title: the hidden columns' names when
 * they fit, else how many are hidden. */
static void hidden_note(struct tui_ui *ui, int used, char *out, size_t len) {
  out[0] = '\0';
  if (!ui->ncols_hidden) return;
  int n = snprintf(out, len, " hidden:");
  for (int c = 0; c < TUI_COL_COUNT && n < (int)len; c++)
    if (!ui->col_shown[c]) n += snprintf(out + n, len - (size_t)n, " %s", tui_col_name((enum tui_col)c));
  if (used + n > COLS)
    snprintf(out, len, " +%d col%s", ui->ncols_hidden, ui->ncols_hidden == 1 ? "" : "s");
}

static void draw_table(struct tui_ui *ui, const struct tui_proc *p, const struct layout *l) {
  char line[1024], note[256];
  int width[TUI_COL_COUNT];
  /* keep the selection visible */
  if (ui->sel < ui->top) ui->top = ui->sel;
  if (ui->sel >= ui->top + l->ntable) ui->top = ui->sel - l->ntable + 1;
  if (ui->top > ui->nrows - l->ntable) ui->top = ui->nrows - l->ntable;
  if (ui->top < 0) ui->top = 0;
  long nvisible = p ? ui->nrows - ui->top : 0;
  if (nvisible > l->ntable) nvisible = l->ntable;
  fit_columns(ui, p, (int)nvisible, width);
  int used = row_line(ui, line, sizeof line, NULL, width);
  hidden_note(ui, used, note, sizeof note);
  attron(A_BOLD | A_UNDERLINE);
  move(l->thead, 0);
  for (int x = 0; x < COLS; x++) addch(' ');
  put(l->thead, 0, line);
  if (note[0]) put(l->thead, COLS - (int)strlen(note), note);
  attroff(A_BOLD | A_UNDERLINE);
  if (!p || ui->nrows == 0) {
    const char *why = ui->src && ui->src->note[0] ? ui->src->note
                      : p ? "no GC matches the filter (g changes it)" : "waiting for GCs...";
    put(l->table, 2, why);
    return;
  }
  for (int r = 0; r < nvisible; r++) {
    long i = ui->top + r;
    const struct tui_gc *gc = &p->gcs[ui->rows[i]];
    row_line(ui, line, sizeof line, gc, width);
    int pair = 0, extra = 0;
    if (!gc->complete) pair = TUI_PAIR_DIM;
    else if (!isnan(gc->pause_ms) && gc->pause_ms >= ui->long_pause_ms) { pair = TUI_PAIR_LONG; extra = A_BOLD; }
    else if (!isnan(gc->pause_ms) && gc->pause_ms >= ui->long_pause_ms / 4) pair = TUI_PAIR_WARN;
    if (i == ui->sel) extra |= A_REVERSE;
    style_on(pair, extra);
    if (i == ui->sel) { move(l->table + r, 0); for (int x = 0; x < COLS; x++) addch(' '); }
    put(l->table + r, 0, line);
    style_off(pair, extra);
  }
}

/* The rollup: columns as wide as their widest number (at least their usual
 * width); the columns that do not fit at the right are left out, never cut. */
static void draw_rollup(const struct tui_proc *p, int y) {
  enum { NC = 9 };
  static const char *const titles[NC] = { "Gen", "Count", "MaxPause", "MaxPeakMB", "MaxAlloc/s", "TotPause",
                                          "TotAllocMB", "MeanPause", "Ind" };
  static const int minw[NC] = { 4, 6, 9, 9, 10, 10, 10, 9, 4 };
  static const char *const names[4] = { "ALL", "0", "1", "2" };
  char cell[5][NC][40];
  struct tui_rollup r[4];
  if (p) tui_proc_rollup(p, r);
  for (int c = 0; c < NC; c++) snprintf(cell[0][c], sizeof cell[0][c], "%s", titles[c]);
  for (int k = 0; p && k < 4; k++) {
    char (*v)[40] = cell[1 + k];
    snprintf(v[0], 40, "%s", names[k]);
    snprintf(v[1], 40, "%u", r[k].count);
    full(v[2], r[k].max_pause_ms, 3);
    full(v[3], r[k].max_peak_mb, 3);
    full(v[4], r[k].max_alloc_rate_mbs, 1);
    full(v[5], r[k].total_pause_ms, 3);
    full(v[6], r[k].total_alloc_mb, 3);
    full(v[7], r[k].mean_pause_ms, 3);
    snprintf(v[8], 40, "%u", r[k].induced);
  }
  int nrow = p ? 5 : 1, w[NC], ncol = 0, used = -1;
  for (int c = 0; c < NC; c++) {
    w[c] = minw[c];
    for (int k = 0; k < nrow; k++) if ((int)strlen(cell[k][c]) > w[c]) w[c] = (int)strlen(cell[k][c]);
    if (ncol == c && used + 1 + w[c] <= COLS) { used += 1 + w[c]; ncol++; }
  }
  attron(A_BOLD);
  put(y, 0, "GC rollup by generation (ms, MB)                                  Tab: histogram");
  attroff(A_BOLD);
  for (int k = 0; k < nrow; k++) {
    char line[512];
    int len = 0;
    for (int c = 0; c < ncol; c++)
      len += snprintf(line + len, sizeof line - (size_t)len, c == 0 ? "%-*s" : " %*s", w[c], cell[k][c]);
    if (k == 0) attron(A_UNDERLINE);
    put(y + 1 + k, 0, line);
    if (k == 0) attroff(A_UNDERLINE);
  }
}

static void draw_histogram(const struct tui_proc *p, int y) {
  attron(A_BOLD);
  put(y, 0, "Pause histogram (ms, bucket = lower edge)                         Tab: rollup");
  attroff(A_BOLD);
  unsigned counts[TUI_NBUCKETS] = { 0 };
  if (p) tui_proc_histogram(p, counts);
  unsigned max = 0;
  for (int b = 0; b < TUI_NBUCKETS; b++) if (counts[b] > max) max = counts[b];
  static const char *const utf8[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584",
                                      "\u2585", "\u2586", "\u2587", "\u2588" };
  static const char *const ascii[] = { " ", ".", ".", ":", ":", "|", "|", "#", "#" };
  const char *const *blocks = tui_term_utf8() ? utf8 : ascii;
  /* counts whole: cells widen for 6+ digit counts when the terminal has room,
   * else counts of 100000 and more are shown in thousands ("150k") */
  char cell[32];
  int cw = 5;
  snprintf(cell, sizeof cell, "%u", max);
  if ((int)strlen(cell) + 1 > cw && 4 + TUI_NBUCKETS * ((int)strlen(cell) + 1) <= COLS) cw = (int)strlen(cell) + 1;
  put(y + 4, 0, "ms");
  put(y + 5, 0, "GCs");
  for (int b = 0; b < TUI_NBUCKETS; b++) {
    int x = 4 + b * cw;
    if (x + cw > COLS) break;
    /* 3 text rows of 8 levels each */
    int level = max ? (int)((counts[b] * 24 + max - 1) / max) : 0;
    for (int r = 0; r < 3; r++) {
      int fill = level - (2 - r) * 8;
      if (fill < 0) fill = 0;
      if (fill > 8) fill = 8;
      move(y + 1 + r, x + cw - 4);
      for (int k = 0; k < 3; k++) addstr(blocks[fill]);
    }
    snprintf(cell, sizeof cell, "%*s", cw, tui_bucket_label(b));
    put(y + 4, x, cell);
    if (cw == 5 && counts[b] >= 100000) snprintf(cell, sizeof cell, "%4uk", (counts[b] + 500) / 1000);
    else snprintf(cell, sizeof cell, "%*u", cw, counts[b]);
    put(y + 5, x, cell);
  }
}

static void draw_status(struct tui_ui *ui, const struct layout *l) {
  char line[256];
  if (ui->searching) snprintf(line, sizeof line, "/%s_", ui->search);
  else if (ui->msg[0]) snprintf(line, sizeof line, "%s", ui->msg);
  else if (ui->src && ui->src->note[0] && ui->nrows > 0) snprintf(line, sizeof line, "%s", ui->src->note);
  else snprintf(line, sizeof line, "q quit  ? help  Enter detail  s sort  g filter  p proc  / search  f freeze");
  attron(A_REVERSE);
  move(l->status, 0);
  for (int x = 0; x < COLS - 1; x++) addch(' ');
  put(l->status, 0, line);
  attroff(A_REVERSE);
}

/* --- overlays ----------------------------------------------------------- */

struct lines { char (*v)[256]; int n, cap; };
static void add_line(struct lines *ls, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void add_line(struct lines *ls, const char *fmt, ...) {
  if (ls->n == ls->cap) {
    int cap = ls->cap ? ls->cap * 2 : 64;
    char (*nv)[256] = realloc(ls->v, (size_t)cap * sizeof *nv);
    if (!nv) return;
    ls->v = nv;
    ls->cap = cap;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ls->v[ls->n++], 256, fmt, ap);
  va_end(ap);
}

static void detail_lines(struct tui_ui *ui, struct lines *ls) {
  const struct tui_gc *gc = &ui->detail_gc;
  char gen[16], a[32], b[32], c[32], d[32];
  const char *type = gc->type >= 0 ? gcs_map_name("gc_type", (uint32_t)gc->type) : NULL;
  add_line(ls, "GC #%lld  Gen %s  %s  Reason %s  pid %d%s", (long long)gc->number,
           tui_gc_gen_name(gc, gen, sizeof gen), type ? type : "?",
           gcs_reason_name((uint32_t)gc->reason), gc->pid,
           gc->complete ? (gc->fired ? "  (a stop rule fired on it)" : "") : "  (incomplete)");
  /* numbers whole; at most 3 per line so a line fits 78 cells with 12-digit figures */
  add_line(ls, "Pause start %s ms   GC start %s ms", full(a, gc->pause_start_ms, 3), full(b, gc->start_ms, 3));
  add_line(ls, "GC duration %s ms   Suspend %s ms   Pause %s ms", full(a, gc->duration_ms, 3),
           full(b, gc->suspend_ms, 3), full(c, gc->pause_ms, 3));
  if (gc->type == GCS_GC_TYPE_BACKGROUND)
    add_line(ls, "BGC pauses: initial %s ms, final (SuspendForGCPrep) %s ms",
             full(a, gc->bgc_pause1_ms, 3), full(b, gc->bgc_pause2_ms, 3));
  add_line(ls, "Alloc %s MB measured; PerfView %s MB (gen0 %s)", full(a, gc->alloc_mb, 3),
           full(d, gc->alloc_perfview_mb, 3), full(b, gc->gen0_alloc_mb, 3));
  add_line(ls, "Alloc rate %s MB/s   %% Pause time %s", full(a, gc->alloc_rate_mbs, 1), full(b, gc->pct_pause, 1));
  add_line(ls, "Heap: peak %s MB, after %s MB, promoted %s MB", full(a, gc->peak_mb, 3), full(b, gc->after_mb, 3),
           full(c, gc->promoted_mb, 3));
  if (!isnan(gc->committed_mb))
    add_line(ls, "Committed %s MB at its end (TotalCommittedBytes)", full(a, gc->committed_mb, 3));
  add_line(ls, "%s", "");
  add_line(ls, "%-6s %12s %12s", "Gen", "Before MB", "After MB");
  static const char *const gens[TUI_NGENS] = { "gen0", "gen1", "gen2", "LOH", "POH" };
  for (int g = 0; g < TUI_NGENS; g++)
    add_line(ls, "%-6s %12s %12s", gens[g], full(a, gc->gen_before_mb[g], 3), full(b, gc->gen_after_mb[g], 3));
  add_line(ls, "%s", "");
  if (ui->detail_nev == 0) {
    add_line(ls, "Events: none recorded for this GC%s", ui->src && ui->src->ops->gc_events ? "" : " (source keeps none)");
    return;
  }
  add_line(ls, "Events (%ld)  %10s %9s  %-22s %s", ui->detail_nev, "Time ms", "+ms", "Event", "Payload");
  double t0 = ui->detail_ev[0].ms;
  for (long i = 0; i < ui->detail_nev; i++) {
    const struct tui_evline *e = &ui->detail_ev[i];
    char name[SAFE_MAX], text[SAFE_MAX];
    add_line(ls, "  %14s %9s  %s %s", full(a, e->ms, 3), full(b, e->ms - t0, 3), fit(name, e->name, 0, 22),
             safe(text, e->text));
  }
}

/* Fits 80x24: at most 20 lines of at most 78 cells (tui.top_db checks it). */
static void help_lines(struct lines *ls) {
  static const char *const text[] = {
    "gcscope top: keys (docs/tui.md tells more)",
    "  Up/Down j/k  select a GC      PgUp/PgDn  a page      Home/End  first/last",
    "  Enter        the GC's detail: its events, sizes per generation, BGC pauses",
    "  s            sort menu: a column's letter or Enter; the same one reverses",
    "  S  r         sort by the next column / reverse the order",
    "  g            filter: all, gen0, gen1, gen2, background, foreground,",
    "               blocking gen2, induced",
    "  p  f         choose the process / freeze the view (f again follows)",
    "  /  n         search a GC number, a reason or a Gen (2B) / the next match",
    "  Tab  h       bottom panel: rollup by generation / pause histogram",
    "  w            sparkline window: the last 60 s, 10 s, 5 min or 1 h",
    "  ?  q         this help / quit (also Ctrl-C)",
    "The screen",
    "  heap MB      heap after GC, the largest per time bucket, on the scale shown",
    "               (its bottom: the smallest heap or half the largest)",
    "  pause ms     time paused per bucket (sum, from 0); blank: no GC in it",
    "  GC table     * sorted column; 6? incomplete; 6! a stop rule fired; red:",
    "               pause >= --long-pause, yellow >= a quarter; +N cols: N",
    "               columns hidden (a wider terminal shows them, none is cut)",
    "PerfView's GCStats figures (a BGC's pause = initial + final). Esc closes.",
  };
  for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) add_line(ls, "%s", text[i]);
}

/* The sort menu: a small box under the title, one line per column. */
static void draw_sort_menu(struct tui_ui *ui) {
  int h = TUI_COL_COUNT + 4, w = 40;
  if (h > LINES - 1) h = LINES - 1;           /* a short terminal: the lines that fit */
  if (w > COLS - 2) w = COLS - 2;
  if (h < 3 || w < 16) return;
  WINDOW *win = newwin(h, w, 1, 2);
  if (!win) return;
  werase(win);
  box(win, 0, 0);
  draw_text(win, 0, 2, " Sort by (Esc closes) ", w - 4);
  for (int c = 0; c < TUI_COL_COUNT; c++) {
    char line[64];
    const char *state = c == (int)ui->sort ? (ui->ascending ? "now: asc" : "now: desc")
                        : ui->col_shown[c] ? "" : "(hidden)";
    snprintf(line, sizeof line, " %c  %-9s %s", tui_ui_sort_key((enum tui_col)c), tui_col_name((enum tui_col)c), state);
    if (1 + c > h - 2) break;
    if (c == ui->sort_sel) wattron(win, A_REVERSE);
    draw_text(win, 1 + c, 1, line, w - 2);
    if (c == ui->sort_sel) wattroff(win, A_REVERSE);
  }
  if (TUI_COL_COUNT + 2 <= h - 2) draw_text(win, TUI_COL_COUNT + 2, 1, " letter/Enter sorts; again reverses", w - 2);
  wnoutrefresh(win);
  delwin(win);
}

static void draw_overlay(struct tui_ui *ui) {
  if (ui->overlay == TUI_OV_SORT) { draw_sort_menu(ui); return; }
  struct lines ls = { 0 };
  const char *title = "";
  if (ui->overlay == TUI_OV_DETAIL) { detail_lines(ui, &ls); title = " GC detail (Esc closes) "; }
  else if (ui->overlay == TUI_OV_HELP) { help_lines(&ls); title = " Help "; }
  else if (ui->overlay == TUI_OV_PROCS) {
    title = " Choose a process (Enter) ";
    for (size_t i = 0; i < tui_model_nprocs(ui->model); i++) {
      const struct tui_proc *p = tui_model_proc_at(ui->model, i);
      char name[SAFE_MAX], flavour[SAFE_MAX];
      add_line(&ls, "%c PID %-7d %s %s %zu GCs", (long)i == ui->proc_sel ? '>' : ' ', p->pid,
               fit(name, p->name[0] ? p->name : "?", 24, 24), fit(flavour, p->flavour, 24, 24), p->ngcs);
    }
  }
  int h = LINES - 2, w = COLS;
  if (h < 3 || w < 10) { free(ls.v); return; }
  WINDOW *win = newwin(h, w, 1, 0);
  if (!win) { free(ls.v); return; }
  werase(win);
  box(win, 0, 0);
  draw_text(win, 0, 2, title, w - 4);
  int inner = h - 2;
  if (ui->ov_scroll > ls.n - inner) ui->ov_scroll = ls.n - inner > 0 ? ls.n - inner : 0;
  long first = ui->overlay == TUI_OV_PROCS ? (ui->proc_sel >= inner ? ui->proc_sel - inner + 1 : 0) : ui->ov_scroll;
  for (int r = 0; r < inner && first + r < ls.n; r++) {
    int sel = ui->overlay == TUI_OV_PROCS && first + r == ui->proc_sel;
    if (sel) wattron(win, A_REVERSE);
    draw_text(win, 1 + r, 1, ls.v[first + r], w - 2);
    if (sel) wattroff(win, A_REVERSE);
  }
  if (ls.n > inner) draw_text(win, h - 1, w - 22, " Up/Down PgUp/PgDn ", 19);
  wnoutrefresh(win);
  delwin(win);
  free(ls.v);
}

void tui_ui_draw(struct tui_ui *ui) {
  struct layout l;
  get_layout(&l);
  ui->page_rows = l.ntable;   /* the key handling pages by what is on screen */
  tui_ui_refresh_rows(ui);
  struct tui_proc view;
  const struct tui_proc *p = tui_ui_proc_view(ui, &view);
  erase();
  draw_title(ui, &l);
  draw_header(p, &l);
  draw_sparklines(ui, p, &l);
  draw_table(ui, p, &l);
  if (l.panel >= 0) {
    if (ui->panel == TUI_PANEL_ROLLUP) draw_rollup(p, l.panel);
    else draw_histogram(p, l.panel);
  }
  draw_status(ui, &l);
  wnoutrefresh(stdscr);
  if (ui->overlay != TUI_OV_NONE) draw_overlay(ui);
  doupdate();
}
