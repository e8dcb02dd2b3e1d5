/*
 * gcs_tui.h — the live view's command: `gcscope top`.
 *
 * The model (tui_model.h, no ncurses) and the source interface (tui_source.h)
 * are public so the model's tests link without a terminal; drawing, input and
 * the live and database sources are internal to tui/.
 *
 * Errors: the command prints one line "gcscope top: ..." on stderr and returns
 * the exit status (0 ok, 1 runtime error, 2 usage error).
 * Threading: call from the main thread; it owns the terminal until it returns.
 */
#ifndef GCS_TUI_H
#define GCS_TUI_H

int gcs_cmd_top(int argc, char **argv);

#endif
