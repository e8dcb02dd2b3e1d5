/*
 * tui_ui.h — the screen of `gcscope top`: what the user looks at (process,
 * filter, sort, selection, overlays) and the key handling, drawn with ncurses
 * from a model (tui_model.h) and a source (tui_source.h) for GC details.
 *
 * Drawing never clears the screen: each frame is erase() + draw +
 * wnoutrefresh + doupdate, so ncurses sends only the changed cells (no
 * flicker), and KEY_RESIZE just draws the next frame at the new size.
 *
 * Ownership: the ui borrows the model and the source (both outlive it).
 * Threading: one thread (the screen loop).
 */
#ifndef TUI_UI_H
#define TUI_UI_H

#include <stddef.h>
#include <stdint.h>

#include "tui_model.h"
#include "tui_source.h"

enum tui_overlay { TUI_OV_NONE, TUI_OV_HELP, TUI_OV_DETAIL, TUI_OV_PROCS, TUI_OV_SORT };
enum tui_panel { TUI_PANEL_ROLLUP, TUI_PANEL_HISTOGRAM, TUI_PANEL_COUNT };

struct tui_ui {
  struct tui_model *model;
  struct tui_source *src;
  double long_pause_ms;        /* pauses >= this are red; >= a quarter of it yellow */

  size_t proc;                 /* index of the process shown */
  enum tui_filter filter;
  enum tui_col sort;
  int ascending;
  enum tui_panel panel;
  double spark_window_ms;      /* the sparklines' window (w: 60 s, 10 s, 5 min, 1 h) */

  /* table columns (tui_draw.c): widths of the widest cell seen in the shown
   * process (they only grow, so columns do not jump while scrolling) and
   * which columns the last frame showed (tui_cols_fit) */
  int colw[TUI_COL_COUNT];
  size_t colw_proc;
  unsigned char col_shown[TUI_COL_COUNT];
  int ncols_hidden;

  /* the table: rows of the shown process after filter+sort */
  size_t *rows;
  long nrows;
  uint64_t rows_model_gen;     /* model generation the rows were built from */
  long sel, top;               /* selected row and first visible row */
  int page_rows;               /* table rows on screen at the last frame (PgUp/PgDn step) */
  int64_t sel_number;          /* GC number of the selected row (kept across updates) */
  int follow;                  /* selection stays on the first row as GCs arrive */

  /* freeze: the view keeps showing the GCs present when `f` was pressed */
  int frozen;
  size_t *frozen_n;            /* per process: GC count at freeze time */
  double *frozen_last_ms;      /* per process: its latest time at freeze time (the
                                  sparklines' window and the uptime stay put too) */
  size_t frozen_nprocs;

  enum tui_overlay overlay;
  long ov_scroll;              /* detail/help scroll position */
  long proc_sel;               /* process chooser selection */
  long sort_sel;               /* sort menu selection (a column) */
  struct tui_gc detail_gc;     /* copy of the GC shown in detail (sizes filled by the source) */
  struct tui_evline *detail_ev;
  long detail_nev;

  int searching;               /* typing after `/` */
  char search[64];
  size_t search_len;
  char msg[160];               /* one-shot status message */
  int quit;
};

void tui_ui_init(struct tui_ui *ui, struct tui_model *m, struct tui_source *src);
void tui_ui_free(struct tui_ui *ui);
/* Rebuild the rows if the model or the view settings changed. */
void tui_ui_refresh_rows(struct tui_ui *ui);
/* The process shown, as the view sees it (frozen: clamped to freeze time).
 * Fills *view and returns it, or NULL if there is no process yet. */
const struct tui_proc *tui_ui_proc_view(struct tui_ui *ui, struct tui_proc *view);
/* The sort menu's key for column c ('i' GC#, 't' Start, 'p' Pause ...). */
int tui_ui_sort_key(enum tui_col c);
/* Handle one key (ncurses key code). */
void tui_ui_key(struct tui_ui *ui, int ch);
/* Draw one frame (erase, draw, doupdate). */
void tui_ui_draw(struct tui_ui *ui);

#endif /* TUI_UI_H */
