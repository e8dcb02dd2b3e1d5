/*
 * rpt_line.h — line editing and history for `gcscope sql`'s interactive
 * shell, when stdin and stdout are a terminal (no library: termios and the
 * VT100 keys every terminal sends).
 *
 * Keys: printable characters insert; Left/Right, Home/End (and Ctrl-A/E)
 * move; Backspace and Delete erase; Ctrl-U erases to the start, Ctrl-K to the
 * end; Up/Down walk the history; Ctrl-C abandons the line (0 is returned); Ctrl-D on an empty line ends the input.
 * History: the lines entered, kept in memory (the last RPT_LINE_HISTORY) and
 * in the file given to rpt_line_open ($HOME/.gcscope_history), read at open
 * and rewritten at close.
 *
 * Ownership: rpt_line_open allocates, rpt_line_close frees (and restores the
 * terminal if a read was interrupted). Threading: one thread. Errors: none
 * reported; a history file that cannot be read or written is ignored.
 */
#ifndef RPT_LINE_H
#define RPT_LINE_H

#include <stddef.h>

#define RPT_LINE_HISTORY 500

struct rpt_line;

/* NULL when stdin or stdout is not a terminal (read lines with fgets then). */
struct rpt_line *rpt_line_open(const char *history_path);
/* One line into buf (with its '\n'); returns its length, 0 when Ctrl-C
 * abandoned it (buf ""), or -1 at the end of input. */
long rpt_line_read(struct rpt_line *l, const char *prompt, char *buf, size_t cap);
void rpt_line_close(struct rpt_line *l);

#endif
