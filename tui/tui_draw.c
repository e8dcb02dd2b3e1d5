/* tui_draw.c — one frame of `gcscope top`. Layout at H lines (80x24 and up):
 *   0        title bar: source, process n/N, filter, sort, FROZEN
 *   1..3     process header (flavour, uptime, % paused, counts, heap, alloc rate,
 *            max pause, last GC)
 *   4..5     heap sparklines: peak (before GC) and after, one cell per GC
 *   6        table header; then the GCs (newest first by default)
 *   H-7..H-2 bottom panel: rollup by generation, or the pause histogram (Tab)
 *   H-1      status line: keys, messages, the search prompt
 * Small terminals drop the bottom panel, then the sparklines. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_events.h"
#include "tui_term.h"
#include "tui_ui.h"

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

static void put(int y, int x, const char *s) {
  if (y < 0 || y >= LINES || x >= COLS) return;
  mvaddnstr(y, x, s, COLS - x);
}

/* A number in at most width chars: as many of `dec` decimals as fit; "-" if unknown. */
static const char *num(char *buf, int width, double v, int dec) {
  if (isnan(v)) return strcpy(buf, "-");
  if (isinf(v)) return strcpy(buf, v > 0 ? "inf" : "-inf");
  for (int d = dec; d >= 0; d--) {
    int n = snprintf(buf, 32, "%.*f", d, v);
    if (n <= width) return buf;
  }
  return buf;
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
  snprintf(line + len, sizeof line - (size_t)len, " | %s", ui->src ? ui->src->desc : "");
  style_on(TUI_PAIR_TITLE, A_REVERSE * !tui_term_has_colors());
  move(l->title, 0);
  for (int x = 0; x < COLS; x++) addch(' ');
  put(l->title, 0, line);
  style_off(TUI_PAIR_TITLE, A_REVERSE * !tui_term_has_colors());
}

static void draw_header(const struct tui_proc *p, const struct layout *l) {
  char line[512], a[32], b[32], c[32], d[32];
  if (!p) {
    put(l->header, 0, "No GC seen yet.");
    return;
  }
  struct tui_summary s;
  tui_proc_summary(p, &s);
  snprintf(line, sizeof line, "PID %d %.24s%s%s%s  up %s s  paused %s%%", p->pid,
           p->name[0] ? p->name : "?", p->flavour[0] ? " (" : "", p->flavour, p->flavour[0] ? ")" : "",
           num(a, 10, s.uptime_ms / 1000, 1), num(b, 6, s.pct_paused, 1));
  attron(A_BOLD);
  put(l->header, 0, line);
  attroff(A_BOLD);
  snprintf(line, sizeof line, "GCs 0:%u 1:%u 2:%u (BGC %u, FGC %u)  heap %s MB (max %s)  alloc %s MB/s",
           s.count[0], s.count[1], s.count[2], s.nbgc, s.nfgc, num(a, 9, s.heap_now_mb, 3),
           num(b, 9, s.heap_max_mb, 3), num(c, 9, s.alloc_rate_mbs, 1));
  put(l->header + 1, 0, line);
  char gen[16] = "", inc[32] = "";
  if (s.nincomplete) snprintf(inc, sizeof inc, "  (%u incomplete)", s.nincomplete);
  if (s.last)
    snprintf(line, sizeof line, "max pause %s ms  last GC #%lld %s %s, pause %s ms%s", num(a, 10, s.max_pause_ms, 3),
             (long long)s.last->number, tui_gc_gen_name(s.last, gen, sizeof gen),
             gcs_reason_name((uint32_t)s.last->reason), num(b, 10, s.last->pause_ms, 3), inc);
  else
    snprintf(line, sizeof line, "max pause %s ms", num(d, 10, s.max_pause_ms, 3));
  put(l->header + 2, 0, line);
}

/* Heap sizes over the last GCs: one cell per complete GC, both lines on the
 * scale of the largest peak shown. */
static void draw_sparklines(const struct tui_proc *p, const struct layout *l) {
  if (l->spark < 0 || !p) return;
  static const char *const blocks_utf8[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584",
                                             "\u2585", "\u2586", "\u2587", "\u2588" };
  static const char *const blocks_ascii[] = { " ", "_", ".", "-", "~", "=", "+", "*", "#" };
  const char *const *blocks = tui_term_utf8() ? blocks_utf8 : blocks_ascii;
  int width = COLS - 8 - 16;
  if (width < 4) return;
  /* the last `width` complete GCs */
  size_t idx[512];
  int n = 0;
  for (size_t i = p->ngcs; i-- > 0 && n < width && n < 512;)
    if (p->gcs[i].complete) idx[n++] = i;
  double max = 0;
  for (int k = 0; k < n; k++) {
    double v = p->gcs[idx[k]].peak_mb;
    if (!isnan(v) && v > max) max = v;
    v = p->gcs[idx[k]].after_mb;
    if (!isnan(v) && v > max) max = v;
  }
  char lab[64], a[32];
  for (int row = 0; row < 2; row++) {
    put(l->spark + row, 0, row == 0 ? "peak MB" : "aftr MB");
    move(l->spark + row, 8);
    for (int k = n - 1; k >= 0; k--) {
      const struct tui_gc *gc = &p->gcs[idx[k]];
      double v = row == 0 ? gc->peak_mb : gc->after_mb;
      int level = isnan(v) || max <= 0 ? 0 : (int)ceil(v * 8 / max);
      if (level > 8) level = 8;
      if (!isnan(v) && v > 0 && level == 0) level = 1;
      addstr(blocks[level]);
    }
    double last = n ? (row == 0 ? p->gcs[idx[0]].peak_mb : p->gcs[idx[0]].after_mb) : NAN;
    snprintf(lab, sizeof lab, row == 0 ? " max %s" : " now %s", num(a, 10, row == 0 ? max : last, 3));
    put(l->spark + row, 8 + width + 1, lab);
  }
}

struct column { enum tui_col col; int width; int left; };
static const struct column base_cols[] = {
  { TUI_COL_INDEX, 7, 0 }, { TUI_COL_START, 10, 0 }, { TUI_COL_GEN, 4, 1 },
  { TUI_COL_REASON, 11, 1 }, { TUI_COL_SUSPEND, 7, 0 }, { TUI_COL_PAUSE, 9, 0 },
  { TUI_COL_PEAK, 8, 0 }, { TUI_COL_AFTER, 8, 0 }, { TUI_COL_PROMOTED, 7, 0 },
  { TUI_COL_PCT, 6, 0 }, { TUI_COL_ALLOC, 8, 0 },
};
#define NCOLS ((int)(sizeof base_cols / sizeof base_cols[0]))

static void cell_text(const struct tui_gc *gc, enum tui_col c, int w, char *out) {
  char buf[48];
  switch (c) {
  case TUI_COL_INDEX:
    snprintf(out, 48, "%lld%s%s", (long long)gc->number, gc->complete ? "" : "?", gc->fired ? "!" : "");
    return;
  case TUI_COL_START: num(out, w, gc->pause_start_ms, 3); return;
  case TUI_COL_GEN: tui_gc_gen_name(gc, out, 16); return;
  case TUI_COL_REASON: snprintf(out, 48, "%.*s", w, gcs_reason_name((uint32_t)gc->reason)); return;
  case TUI_COL_SUSPEND: num(out, w, gc->suspend_ms, 3); return;
  case TUI_COL_PAUSE: num(out, w, gc->pause_ms, 3); return;
  case TUI_COL_PEAK: num(out, w, gc->peak_mb, 3); return;
  case TUI_COL_AFTER: num(out, w, gc->after_mb, 3); return;
  case TUI_COL_PROMOTED: num(out, w, gc->promoted_mb, 3); return;
  case TUI_COL_PCT: num(out, w, gc->pct_pause, 1); return;
  case TUI_COL_ALLOC: num(out, w, gc->alloc_mb, 3); return;
  default: (void)buf; out[0] = '\0'; return;
  }
}

static int row_line(char *line, size_t cap, const struct tui_gc *gc, int header, enum tui_col sort) {
  int len = 0;
  for (int i = 0; i < NCOLS; i++) {
    const struct column *c = &base_cols[i];
    if (len + c->width > COLS) break;
    char text[64];
    if (header) {
      snprintf(text, sizeof text, "%s%s", tui_col_name(c->col), c->col == sort ? "*" : "");
    } else {
      cell_text(gc, c->col, c->width, text);
    }
    len += snprintf(line + len, cap - (size_t)len, c->left ? "%-*.*s " : "%*.*s ", c->width, c->width, text);
    if ((size_t)len >= cap) break;
  }
  return len;
}

static void draw_table(struct tui_ui *ui, const struct tui_proc *p, const struct layout *l) {
  char line[512];
  row_line(line, sizeof line, NULL, 1, ui->sort);
  attron(A_BOLD | A_UNDERLINE);
  move(l->thead, 0);
  for (int x = 0; x < COLS; x++) addch(' ');
  put(l->thead, 0, line);
  attroff(A_BOLD | A_UNDERLINE);
  if (!p || ui->nrows == 0) {
    const char *why = ui->src && ui->src->note[0] ? ui->src->note
                      : p ? "no GC matches the filter (g changes it)" : "waiting for GCs...";
    put(l->table, 2, why);
    return;
  }
  /* keep the selection visible */
  if (ui->sel < ui->top) ui->top = ui->sel;
  if (ui->sel >= ui->top + l->ntable) ui->top = ui->sel - l->ntable + 1;
  if (ui->top > ui->nrows - l->ntable) ui->top = ui->nrows - l->ntable;
  if (ui->top < 0) ui->top = 0;
  for (int r = 0; r < l->ntable && ui->top + r < ui->nrows; r++) {
    long i = ui->top + r;
    const struct tui_gc *gc = &p->gcs[ui->rows[i]];
    row_line(line, sizeof line, gc, 0, ui->sort);
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

static void draw_rollup(const struct tui_proc *p, int y) {
  char line[256], v[8][32];
  attron(A_BOLD);
  put(y, 0, "GC rollup by generation (ms, MB)                                  Tab: histogram");
  attroff(A_BOLD);
  snprintf(line, sizeof line, "%-4s %6s %9s %9s %10s %10s %10s %9s %4s", "Gen", "Count", "MaxPause",
           "MaxPeakMB", "MaxAlloc/s", "TotPause", "TotAllocMB", "MeanPause", "Ind");
  attron(A_UNDERLINE);
  put(y + 1, 0, line);
  attroff(A_UNDERLINE);
  if (!p) return;
  struct tui_rollup r[4];
  tui_proc_rollup(p, r);
  static const char *const names[4] = { "ALL", "0", "1", "2" };
  for (int k = 0; k < 4; k++) {
    snprintf(line, sizeof line, "%-4s %6u %9s %9s %10s %10s %10s %9s %4u", names[k], r[k].count,
             num(v[0], 9, r[k].max_pause_ms, 3), num(v[1], 9, r[k].max_peak_mb, 3),
             num(v[2], 10, r[k].max_alloc_rate_mbs, 1), num(v[3], 10, r[k].total_pause_ms, 3),
             num(v[4], 10, r[k].total_alloc_mb, 3), num(v[5], 9, r[k].mean_pause_ms, 3), r[k].induced);
    put(y + 2 + k, 0, line);
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
  char cell[32];
  put(y + 4, 0, "ms");
  put(y + 5, 0, "GCs");
  for (int b = 0; b < TUI_NBUCKETS; b++) {
    int x = 4 + b * 5;
    if (x + 5 > COLS) break;
    /* 3 text rows of 8 levels each */
    int level = max ? (int)((counts[b] * 24 + max - 1) / max) : 0;
    for (int r = 0; r < 3; r++) {
      int fill = level - (2 - r) * 8;
      if (fill < 0) fill = 0;
      if (fill > 8) fill = 8;
      move(y + 1 + r, x + 1);
      for (int k = 0; k < 3; k++) addstr(blocks[fill]);
    }
    snprintf(cell, sizeof cell, "%5s", tui_bucket_label(b));
    put(y + 4, x, cell);
    snprintf(cell, sizeof cell, "%5u", counts[b]);
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
  static const char *const types[] = { "NonConcurrentGC", "BackgroundGC", "ForegroundGC" };
  add_line(ls, "GC #%lld  Gen %s  %s  Reason %s  pid %d%s", (long long)gc->number,
           tui_gc_gen_name(gc, gen, sizeof gen), gc->type >= 0 && gc->type <= 2 ? types[gc->type] : "?",
           gcs_reason_name((uint32_t)gc->reason), gc->pid,
           gc->complete ? (gc->fired ? "  (a stop rule fired on it)" : "") : "  (incomplete)");
  add_line(ls, "Pause start %s ms   GC start %s ms   GC duration %s ms",
           num(a, 12, gc->pause_start_ms, 3), num(b, 12, gc->start_ms, 3), num(c, 12, gc->duration_ms, 3));
  add_line(ls, "Suspend %s ms   Pause %s ms   %% Pause time %s", num(a, 12, gc->suspend_ms, 3),
           num(b, 12, gc->pause_ms, 3), num(c, 8, gc->pct_pause, 1));
  if (gc->type == GCS_GC_TYPE_BACKGROUND)
    add_line(ls, "BGC pauses: initial %s ms, final (SuspendForGCPrep) %s ms",
             num(a, 12, gc->bgc_pause1_ms, 3), num(b, 12, gc->bgc_pause2_ms, 3));
  add_line(ls, "Alloc %s MB measured; PerfView %s MB (gen0 %s) %s MB/s", num(a, 12, gc->alloc_mb, 3),
           num(d, 12, gc->alloc_perfview_mb, 3), num(b, 12, gc->gen0_alloc_mb, 3), num(c, 12, gc->alloc_rate_mbs, 1));
  add_line(ls, "Heap: peak %s MB, after %s MB, promoted %s MB", num(a, 12, gc->peak_mb, 3), num(b, 12, gc->after_mb, 3),
           num(c, 12, gc->promoted_mb, 3));
  add_line(ls, "%s", "");
  add_line(ls, "%-6s %12s %12s", "Gen", "Before MB", "After MB");
  static const char *const gens[TUI_NGENS] = { "gen0", "gen1", "gen2", "LOH", "POH" };
  for (int g = 0; g < TUI_NGENS; g++)
    add_line(ls, "%-6s %12s %12s", gens[g], num(a, 12, gc->gen_before_mb[g], 3), num(b, 12, gc->gen_after_mb[g], 3));
  add_line(ls, "%s", "");
  if (ui->detail_nev == 0) {
    add_line(ls, "Events: none recorded for this GC%s", ui->src && ui->src->ops->gc_events ? "" : " (source keeps none)");
    return;
  }
  add_line(ls, "Events (%ld)  %10s %9s  %-22s %s", ui->detail_nev, "Time ms", "+ms", "Event", "Payload");
  double t0 = ui->detail_ev[0].ms;
  for (long i = 0; i < ui->detail_nev; i++) {
    const struct tui_evline *e = &ui->detail_ev[i];
    add_line(ls, "  %14s %9s  %-22s %s", num(a, 14, e->ms, 3), num(b, 9, e->ms - t0, 3), e->name, e->text);
  }
}

static void help_lines(struct lines *ls) {
  static const char *const text[] = {
    "gcscope top: keys",
    "",
    "  Up/Down, j/k    select a GC          PgUp/PgDn  page      Home/End  first/last",
    "  Enter, Right    the selected GC's detail: its events with times, sizes per",
    "                  generation before/after, both pauses of a background GC",
    "  s               sort by the next column (the sorted column is marked *)",
    "  r               reverse the sort order",
    "  g               filter: all, gen0, gen1, gen2, background, foreground,",
    "                  blocking gen2, induced",
    "  p               choose the process",
    "  /  then n       search: a GC number, a reason (Induced), a Gen (2B); n = next",
    "  f               freeze the view (new GCs are kept and shown when resumed)",
    "  Tab, h          bottom panel: rollup by generation / pause histogram",
    "  ?               this help          q  quit (also Ctrl-C)",
    "",
    "Figures are PerfView's GCStats: Pause = SuspendEEBegin..RestartEEEnd; a BGC's",
    "pause is its initial plus final pause. % paused = total pause / (first pause",
    "start .. last GC end). Heap MB is 10^6 bytes; Peak = before GC. Rows in red",
    "paused >= the long-pause threshold, yellow >= a quarter of it; ? = incomplete.",
    "",
    "Esc or q closes this help.",
  };
  for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) add_line(ls, "%s", text[i]);
}

static void draw_overlay(struct tui_ui *ui) {
  struct lines ls = { 0 };
  const char *title = "";
  if (ui->overlay == TUI_OV_DETAIL) { detail_lines(ui, &ls); title = " GC detail (Esc closes) "; }
  else if (ui->overlay == TUI_OV_HELP) { help_lines(&ls); title = " Help "; }
  else if (ui->overlay == TUI_OV_PROCS) {
    title = " Choose a process (Enter) ";
    for (size_t i = 0; i < tui_model_nprocs(ui->model); i++) {
      const struct tui_proc *p = tui_model_proc_at(ui->model, i);
      add_line(&ls, "%c PID %-7d %-24.24s %-24.24s %zu GCs", (long)i == ui->proc_sel ? '>' : ' ',
               p->pid, p->name[0] ? p->name : "?", p->flavour, p->ngcs);
    }
  }
  int h = LINES - 2, w = COLS;
  if (h < 3 || w < 10) { free(ls.v); return; }
  WINDOW *win = newwin(h, w, 1, 0);
  if (!win) { free(ls.v); return; }
  werase(win);
  box(win, 0, 0);
  mvwaddnstr(win, 0, 2, title, w - 4);
  int inner = h - 2;
  if (ui->ov_scroll > ls.n - inner) ui->ov_scroll = ls.n - inner > 0 ? ls.n - inner : 0;
  long first = ui->overlay == TUI_OV_PROCS ? (ui->proc_sel >= inner ? ui->proc_sel - inner + 1 : 0) : ui->ov_scroll;
  for (int r = 0; r < inner && first + r < ls.n; r++) {
    int sel = ui->overlay == TUI_OV_PROCS && first + r == ui->proc_sel;
    if (sel) wattron(win, A_REVERSE);
    mvwaddnstr(win, 1 + r, 1, ls.v[first + r], w - 2);
    if (sel) wattroff(win, A_REVERSE);
  }
  if (ls.n > inner) mvwaddnstr(win, h - 1, w - 22, " Up/Down PgUp/PgDn ", 19);
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
  draw_sparklines(p, &l);
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
