/* rpt_line.c — line editing and history for the sql shell (rpt_line.h). */
#include "rpt_line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#define LINE_MAX_BYTES 4000

struct rpt_line {
  char *hist[RPT_LINE_HISTORY];
  int nhist;
  char path[4096];
  struct termios saved;
  int raw;
};

static void add_history(struct rpt_line *l, const char *s) {
  if (!*s || (l->nhist && !strcmp(l->hist[l->nhist - 1], s))) return;
  char *c = strdup(s);
  if (!c) return;
  if (l->nhist == RPT_LINE_HISTORY) {
    free(l->hist[0]);
    memmove(l->hist, l->hist + 1, (RPT_LINE_HISTORY - 1) * sizeof *l->hist);
    l->nhist--;
  }
  l->hist[l->nhist++] = c;
}

struct rpt_line *rpt_line_open(const char *history_path) {
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) return NULL;
  struct rpt_line *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  if (history_path) {
    snprintf(l->path, sizeof l->path, "%s", history_path);
    FILE *f = fopen(history_path, "r");
    char b[LINE_MAX_BYTES + 2];
    while (f && fgets(b, sizeof b, f)) {
      b[strcspn(b, "\n")] = '\0';
      add_history(l, b);
    }
    if (f) fclose(f);
  }
  return l;
}

static void raw_on(struct rpt_line *l) {
  if (tcgetattr(STDIN_FILENO, &l->saved) != 0) return;
  struct termios t = l->saved;
  t.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG | IEXTEN);
  t.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  if (tcsetattr(STDIN_FILENO, TCSADRAIN, &t) == 0) l->raw = 1;
}

static void raw_off(struct rpt_line *l) {
  if (l->raw) tcsetattr(STDIN_FILENO, TCSADRAIN, &l->saved);  /* typed-ahead input is kept */
  l->raw = 0;
}

static void redraw(const char *prompt, const char *b, size_t len, size_t pos) {
  printf("\r%s%.*s\x1b[K", prompt, (int)len, b);
  if (len > pos) printf("\x1b[%zuD", len - pos);
  fflush(stdout);
}

static int get_byte(void) {
  unsigned char c;
  return read(STDIN_FILENO, &c, 1) == 1 ? c : -1;
}

long rpt_line_read(struct rpt_line *l, const char *prompt, char *out, size_t cap) {
  char b[LINE_MAX_BYTES + 1];
  size_t len = 0, pos = 0;
  int hi = l->nhist;               /* history index being shown; nhist: the new line */
  char pending[LINE_MAX_BYTES + 1] = "";
  raw_on(l);
  fputs(prompt, stdout);
  fflush(stdout);
  long ret = -1;
  for (;;) {
    int c = get_byte();
    if (c < 0) { ret = len ? (long)len : -1; break; }
    if (c == '\r' || c == '\n') { ret = (long)len; break; }
    if (c == 4) {                                   /* Ctrl-D */
      if (!len) break;
      if (pos < len) { memmove(b + pos, b + pos + 1, len - pos - 1); len--; }
    } else if (c == 3) {                            /* Ctrl-C: abandon the line */
      fputs("^C", stdout);
      ret = -2;
      break;
    } else if (c == 127 || c == 8) {                /* Backspace */
      if (pos) { memmove(b + pos - 1, b + pos, len - pos); pos--; len--; }
    } else if (c == 1) pos = 0;                     /* Ctrl-A */
    else if (c == 5) pos = len;                     /* Ctrl-E */
    else if (c == 21) { memmove(b, b + pos, len - pos); len -= pos; pos = 0; }   /* Ctrl-U */
    else if (c == 11) len = pos;                    /* Ctrl-K */
    else if (c == 27) {                             /* an escape sequence */
      int c1 = get_byte(), c2 = get_byte();
      if (c1 == '[' && c2 >= '0' && c2 <= '9') {
        int c3 = get_byte();
        if (c2 == '3' && c3 == '~' && pos < len) { memmove(b + pos, b + pos + 1, len - pos - 1); len--; }
        else if ((c2 == '1' || c2 == '7') && c3 == '~') pos = 0;
        else if ((c2 == '4' || c2 == '8') && c3 == '~') pos = len;
      } else if (c1 == '[' || c1 == 'O') {
        if (c2 == 'D' && pos) pos--;
        else if (c2 == 'C' && pos < len) pos++;
        else if (c2 == 'H') pos = 0;
        else if (c2 == 'F') pos = len;
        else if ((c2 == 'A' && hi > 0) || (c2 == 'B' && hi < l->nhist)) {
          if (hi == l->nhist) { memcpy(pending, b, len); pending[len] = '\0'; }
          hi += c2 == 'A' ? -1 : 1;
          const char *s = hi == l->nhist ? pending : l->hist[hi];
          len = pos = strlen(s) < LINE_MAX_BYTES ? strlen(s) : LINE_MAX_BYTES;
          memcpy(b, s, len);
        }
      }
    } else if (c >= 32 && len < LINE_MAX_BYTES) {   /* insert (UTF-8 bytes pass through) */
      memmove(b + pos + 1, b + pos, len - pos);
      b[pos++] = (char)c;
      len++;
    }
    redraw(prompt, b, len, pos);
  }
  raw_off(l);
  fputs("\n", stdout);
  fflush(stdout);
  if (ret == -2) {
    if (cap) out[0] = '\0';
    return 0;
  }
  if (ret < 0) return -1;
  b[len] = '\0';
  add_history(l, b);
  size_t n = len + 2 <= cap ? len : cap >= 2 ? cap - 2 : 0;
  memcpy(out, b, n);
  out[n] = '\n';
  out[n + 1] = '\0';
  return (long)n + 1;
}

void rpt_line_close(struct rpt_line *l) {
  if (!l) return;
  raw_off(l);
  if (l->path[0]) {
    FILE *f = fopen(l->path, "w");
    for (int i = 0; f && i < l->nhist; i++) fprintf(f, "%s\n", l->hist[i]);
    if (f) fclose(f);
  }
  for (int i = 0; i < l->nhist; i++) free(l->hist[i]);
  free(l);
}
