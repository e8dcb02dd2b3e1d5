/* tui_ui.c — view state and keys of `gcscope top` (drawing is in tui_draw.c). */
#include "tui_ui.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tui_ui_init(struct tui_ui *ui, struct tui_model *m, struct tui_source *src) {
  memset(ui, 0, sizeof *ui);
  ui->model = m;
  ui->src = src;
  ui->long_pause_ms = 200;     /* PerfView's "Pause > 200 Msec" table */
  ui->sort = TUI_COL_INDEX;    /* newest first */
  ui->follow = 1;
  ui->rows_model_gen = UINT64_MAX;
  ui->spark_window_ms = TUI_SPARK_WINDOW_MS;
}

void tui_ui_free(struct tui_ui *ui) {
  free(ui->rows);
  free(ui->frozen_n);
  free(ui->frozen_last_ms);
  free(ui->detail_ev);
  ui->rows = NULL;
  ui->frozen_n = NULL;
  ui->frozen_last_ms = NULL;
  ui->detail_ev = NULL;
}

const struct tui_proc *tui_ui_proc_view(struct tui_ui *ui, struct tui_proc *view) {
  size_t n = tui_model_nprocs(ui->model);
  if (ui->frozen && ui->frozen_nprocs < n) n = ui->frozen_nprocs;
  if (n == 0) return NULL;
  if (ui->proc >= n) ui->proc = 0;
  *view = *tui_model_proc_at(ui->model, ui->proc);
  if (ui->frozen && ui->proc < ui->frozen_nprocs) {
    if (view->ngcs > ui->frozen_n[ui->proc]) view->ngcs = ui->frozen_n[ui->proc];
    view->last_ms = ui->frozen_last_ms[ui->proc];
  }
  return view;
}

static void invalidate(struct tui_ui *ui) { ui->rows_model_gen = UINT64_MAX; }

void tui_ui_refresh_rows(struct tui_ui *ui) {
  uint64_t gen = tui_model_generation(ui->model);
  if (ui->frozen && ui->rows_model_gen != UINT64_MAX) return;   /* frozen: rows stay */
  if (gen == ui->rows_model_gen) return;
  struct tui_proc view;
  const struct tui_proc *p = tui_ui_proc_view(ui, &view);
  free(ui->rows);
  ui->rows = NULL;
  ui->nrows = 0;
  ui->rows_model_gen = gen;
  if (!p) return;
  long n = tui_proc_rows(p, ui->filter, ui->sort, ui->ascending, &ui->rows);
  if (n < 0) { ui->rows = NULL; snprintf(ui->msg, sizeof ui->msg, "out of memory"); return; }
  ui->nrows = n;
  /* Keep the selection on the same GC unless it follows the newest. */
  if (ui->follow || n == 0) {
    ui->sel = 0;
  } else {
    long found = -1;
    for (long i = 0; i < n; i++)
      if (p->gcs[ui->rows[i]].number == ui->sel_number) { found = i; break; }
    ui->sel = found >= 0 ? found : (ui->sel < n ? ui->sel : n - 1);
  }
  if (n > 0) ui->sel_number = p->gcs[ui->rows[ui->sel]].number;
}

static void move_sel(struct tui_ui *ui, long to) {
  if (ui->nrows == 0) return;
  if (to < 0) to = 0;
  if (to >= ui->nrows) to = ui->nrows - 1;
  ui->sel = to;
  ui->follow = ui->sel == 0;
  struct tui_proc view;
  const struct tui_proc *p = tui_ui_proc_view(ui, &view);
  if (p && ui->rows) ui->sel_number = p->gcs[ui->rows[to]].number;
}

static void freeze(struct tui_ui *ui, int on) {
  free(ui->frozen_n);
  free(ui->frozen_last_ms);
  ui->frozen_n = NULL;
  ui->frozen_last_ms = NULL;
  ui->frozen_nprocs = 0;
  ui->frozen = 0;
  if (on) {
    size_t n = tui_model_nprocs(ui->model);
    ui->frozen_n = calloc(n ? n : 1, sizeof *ui->frozen_n);
    ui->frozen_last_ms = calloc(n ? n : 1, sizeof *ui->frozen_last_ms);
    if (!ui->frozen_n || !ui->frozen_last_ms) {
      free(ui->frozen_n);
      free(ui->frozen_last_ms);
      ui->frozen_n = NULL;
      ui->frozen_last_ms = NULL;
      snprintf(ui->msg, sizeof ui->msg, "out of memory");
      return;
    }
    for (size_t i = 0; i < n; i++) {
      ui->frozen_n[i] = tui_model_proc_at(ui->model, i)->ngcs;
      ui->frozen_last_ms[i] = tui_model_proc_at(ui->model, i)->last_ms;
    }
    ui->frozen_nprocs = n;
    ui->frozen = 1;
  }
  invalidate(ui);
}

static void open_detail(struct tui_ui *ui) {
  struct tui_proc view;
  const struct tui_proc *p = tui_ui_proc_view(ui, &view);
  if (!p || ui->nrows == 0) return;
  ui->detail_gc = p->gcs[ui->rows[ui->sel]];
  free(ui->detail_ev);
  ui->detail_ev = NULL;
  ui->detail_nev = ui->src && ui->src->ops->gc_events
                   ? ui->src->ops->gc_events(ui->src, &ui->detail_gc, &ui->detail_ev) : 0;
  if (ui->detail_nev < 0) { ui->detail_nev = 0; snprintf(ui->msg, sizeof ui->msg, "could not read the GC's events"); }
  ui->overlay = TUI_OV_DETAIL;
  ui->ov_scroll = 0;
}

/* Find the next row (after the selection, wrapping) matching the search. */
static void search_next(struct tui_ui *ui) {
  struct tui_proc view;
  const struct tui_proc *p = tui_ui_proc_view(ui, &view);
  if (!p || !ui->search[0]) return;
  for (long k = 1; k <= ui->nrows; k++) {
    long i = (ui->sel + k) % ui->nrows;
    if (tui_gc_matches(&p->gcs[ui->rows[i]], ui->search)) {
      move_sel(ui, i);
      snprintf(ui->msg, sizeof ui->msg, "/%s: GC #%lld", ui->search,
               (long long)p->gcs[ui->rows[i]].number);
      return;
    }
  }
  snprintf(ui->msg, sizeof ui->msg, "/%s: not found", ui->search);
}

static void search_key(struct tui_ui *ui, int ch) {
  if (ch == 27) { ui->searching = 0; ui->msg[0] = '\0'; return; }
  if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
    ui->searching = 0;
    search_next(ui);
    return;
  }
  if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
    if (ui->search_len) ui->search[--ui->search_len] = '\0';
    return;
  }
  if (ch >= 32 && ch < 127 && ui->search_len + 1 < sizeof ui->search) {
    ui->search[ui->search_len++] = (char)ch;
    ui->search[ui->search_len] = '\0';
  }
}

/* The sort menu: one key per column (mnemonic, none of them j, k or q). */
static const char sort_keys[TUI_COL_COUNT] = { 'i', 't', 'g', 'r', 'u', 'p', 'e', 'a', 'm', '%', 'l' };
int tui_ui_sort_key(enum tui_col c) { return (unsigned)c < TUI_COL_COUNT ? sort_keys[c] : '?'; }

static void sorted_msg(struct tui_ui *ui) {
  snprintf(ui->msg, sizeof ui->msg, "sorted by %s%s", tui_col_name(ui->sort), ui->ascending ? " (ascending)" : "");
}

/* Sort by c: a new column in its natural direction (numbers descending, Gen
 * and Reason ascending), the current one reversed. */
static void sort_by(struct tui_ui *ui, enum tui_col c) {
  if (c == ui->sort) ui->ascending = !ui->ascending;
  else { ui->sort = c; ui->ascending = c == TUI_COL_GEN || c == TUI_COL_REASON; }
  ui->follow = 1;
  invalidate(ui);
  sorted_msg(ui);
}

static void sort_menu_key(struct tui_ui *ui, int ch) {
  switch (ch) {
  case 'q': case 27: case KEY_LEFT: case KEY_BACKSPACE: ui->overlay = TUI_OV_NONE; return;
  case KEY_UP: case 'k': if (ui->sort_sel > 0) ui->sort_sel--; return;
  case KEY_DOWN: case 'j': if (ui->sort_sel + 1 < TUI_COL_COUNT) ui->sort_sel++; return;
  case KEY_HOME: ui->sort_sel = 0; return;
  case KEY_END: ui->sort_sel = TUI_COL_COUNT - 1; return;
  case '\n': case '\r': case KEY_ENTER:
    sort_by(ui, (enum tui_col)ui->sort_sel);
    ui->overlay = TUI_OV_NONE;
    return;
  default:
    for (int c = 0; c < TUI_COL_COUNT; c++)
      if (ch == sort_keys[c]) { sort_by(ui, (enum tui_col)c); ui->overlay = TUI_OV_NONE; return; }
    return;
  }
}

static void overlay_key(struct tui_ui *ui, int ch) {
  if (ui->overlay == TUI_OV_SORT) { sort_menu_key(ui, ch); return; }
  size_t nprocs = tui_model_nprocs(ui->model);
  switch (ch) {
  case 'q': case 27: case '?': case KEY_LEFT: case KEY_BACKSPACE:
    ui->overlay = TUI_OV_NONE;
    return;
  case '\n': case '\r': case KEY_ENTER:
    if (ui->overlay == TUI_OV_PROCS && nprocs) {
      ui->proc = (size_t)ui->proc_sel;
      ui->follow = 1;
      invalidate(ui);
    }
    ui->overlay = TUI_OV_NONE;
    return;
  case KEY_UP: case 'k':
    if (ui->overlay == TUI_OV_PROCS) { if (ui->proc_sel > 0) ui->proc_sel--; }
    else if (ui->ov_scroll > 0) ui->ov_scroll--;
    return;
  case KEY_DOWN: case 'j':
    if (ui->overlay == TUI_OV_PROCS) { if ((size_t)ui->proc_sel + 1 < nprocs) ui->proc_sel++; }
    else ui->ov_scroll++;
    return;
  case KEY_NPAGE: ui->ov_scroll += 10; return;
  case KEY_PPAGE: ui->ov_scroll = ui->ov_scroll > 10 ? ui->ov_scroll - 10 : 0; return;
  case KEY_HOME: ui->ov_scroll = 0; ui->proc_sel = 0; return;
  default: return;
  }
}

void tui_ui_key(struct tui_ui *ui, int ch) {
  if (ch == ERR) return;
  if (ui->searching) { search_key(ui, ch); return; }
  if (ch == KEY_RESIZE) return;    /* the next frame uses the new size */
  if (ui->overlay != TUI_OV_NONE) { overlay_key(ui, ch); return; }
  ui->msg[0] = '\0';
  int page = ui->page_rows;
  if (page < 1) page = 1;
  switch (ch) {
  case 'q': case 'Q': ui->quit = 1; break;
  case KEY_UP: case 'k': move_sel(ui, ui->sel - 1); break;
  case KEY_DOWN: case 'j': move_sel(ui, ui->sel + 1); break;
  case KEY_PPAGE: move_sel(ui, ui->sel - page); break;
  case KEY_NPAGE: move_sel(ui, ui->sel + page); break;
  case KEY_HOME: move_sel(ui, 0); break;
  case KEY_END: move_sel(ui, ui->nrows - 1); break;
  case 's':
    ui->overlay = TUI_OV_SORT;
    ui->sort_sel = ui->sort;
    break;
  case 'S':
    sort_by(ui, (enum tui_col)((ui->sort + 1) % TUI_COL_COUNT));
    break;
  case 'r':
    sort_by(ui, ui->sort);
    break;
  case 'g':
    ui->filter = (enum tui_filter)((ui->filter + 1) % TUI_FILTER_COUNT);
    ui->follow = 1;
    invalidate(ui);
    snprintf(ui->msg, sizeof ui->msg, "showing %s GCs", tui_filter_name(ui->filter));
    break;
  case 'p':
    if (tui_model_nprocs(ui->model) == 0) { snprintf(ui->msg, sizeof ui->msg, "no process yet"); break; }
    ui->overlay = TUI_OV_PROCS;
    ui->proc_sel = (long)ui->proc;
    break;
  case '\n': case '\r': case KEY_ENTER: case KEY_RIGHT:
    open_detail(ui);
    break;
  case '/':
    ui->searching = 1;
    ui->search_len = 0;
    ui->search[0] = '\0';
    break;
  case 'n': search_next(ui); break;
  case 'f':
    freeze(ui, !ui->frozen);
    snprintf(ui->msg, sizeof ui->msg, ui->frozen ? "frozen: new GCs are kept but not shown (f resumes)"
                                                 : "following new GCs");
    break;
  case '\t': case 'h':
    ui->panel = (enum tui_panel)((ui->panel + 1) % TUI_PANEL_COUNT);
    break;
  case 'w': {
    static const double windows[] = { 60e3, 10e3, 300e3, 3600e3 };
    size_t k = 0, n = sizeof windows / sizeof windows[0];
    while (k < n && windows[k] != ui->spark_window_ms) k++;
    ui->spark_window_ms = windows[(k + 1) % n];
    snprintf(ui->msg, sizeof ui->msg, "sparklines: the last %.0f %s (or all of a shorter timeline)",
             ui->spark_window_ms >= 3600e3 ? ui->spark_window_ms / 3600e3 : ui->spark_window_ms >= 120e3
             ? ui->spark_window_ms / 60e3 : ui->spark_window_ms / 1e3,
             ui->spark_window_ms >= 3600e3 ? "h" : ui->spark_window_ms >= 120e3 ? "min" : "s");
    break;
  }
  case '?':
    ui->overlay = TUI_OV_HELP;
    ui->ov_scroll = 0;
    break;
  default: break;
  }
}
