/*
 * import_firings.c — the stop-rule firings `gcscope record` wrote beside its
 * captures (OUTDIR/firings.tsv, tracer/trc_fire.h) into trigger_firings,
 * inside the trace's import transaction: the lines naming this capture, and
 * the logged ones (no capture) that fall inside the trace's time span.
 */
#include "import_firings.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFIELDS 10

/* Split line at tabs into f[NFIELDS]; 0 when it has exactly that many. */
static int split(char *line, char *f[NFIELDS]) {
  line[strcspn(line, "\r\n")] = '\0';
  int n = 0;
  for (char *p = line;; n++) {
    if (n == NFIELDS) return -1;
    f[n] = p;
    char *tab = strchr(p, '\t');
    if (!tab) break;
    *tab = '\0';
    p = tab + 1;
  }
  return n == NFIELDS - 1 ? 0 : -1;
}

static int to_u64(const char *s, uint64_t *v) {
  char *end;
  if (!*s) return -1;
  *v = strtoull(s, &end, 10);
  return *end ? -1 : 0;
}

int import_firings(sqlite3 *db, int64_t trace_id, const char *label, uint64_t start_ns, uint64_t end_ns,
                   int *stored) {
  *stored = 0;
  /* Walk up from the trace (a capture's CTF session lies two levels below
   * the recording's directory, a .nettrace capture one) to the directory
   * holding firings.tsv; the component just below it is the capture's name. */
  char dir[4096], path[4200], name[512];
  snprintf(dir, sizeof dir, "%s", label);
  FILE *f = NULL;
  for (int up = 0; up < 3 && !f; up++) {
    size_t l = strlen(dir);
    while (l > 1 && dir[l - 1] == '/') dir[--l] = '\0';
    char *slash = strrchr(dir, '/');
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : dir);
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    snprintf(path, sizeof path, "%s/firings.tsv", dir);
    f = fopen(path, "r");
    if (!strcmp(dir, ".") || !strcmp(dir, "/")) break;
  }
  if (!f) return 0;   /* none: not a triggered recording */
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "INSERT INTO trigger_firings (trace_id, pid, gc_index, rule, kind, duration_msec, value, "
                         "begin_ns, end_ns, capture, verdict) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                         -1, &st, NULL) != SQLITE_OK) {
    fclose(f);
    return -1;
  }
  char line[1024];
  int rc = 0, first = 1;
  while (fgets(line, sizeof line, f)) {
    char *fl[NFIELDS];
    if (first) {   /* the header */
      first = 0;
      if (strncmp(line, "rule\t", 5) == 0) continue;
    }
    uint64_t pid, gc, b, e;
    if (split(line, fl) || to_u64(fl[2], &pid) || to_u64(fl[3], &gc) || to_u64(fl[6], &b) || to_u64(fl[7], &e))
      continue;   /* not a line record wrote */
    int mine = strcmp(fl[8], name) == 0 ||
               (strcmp(fl[8], "-") == 0 && start_ns && e >= start_ns && e <= end_ns);
    if (!mine) continue;
    sqlite3_bind_int64(st, 1, trace_id);
    sqlite3_bind_int64(st, 2, (int64_t)pid);
    sqlite3_bind_int64(st, 3, (int64_t)gc);
    sqlite3_bind_text(st, 4, fl[0], -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, fl[1], -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 6, strtod(fl[4], NULL));
    sqlite3_bind_double(st, 7, strtod(fl[5], NULL));
    sqlite3_bind_int64(st, 8, (int64_t)b);
    sqlite3_bind_int64(st, 9, (int64_t)e);
    if (strcmp(fl[8], "-") == 0) sqlite3_bind_null(st, 10);
    else sqlite3_bind_text(st, 10, fl[8], -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 11, fl[9], -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) rc = -1;
    sqlite3_reset(st);
    if (rc) break;
    (*stored)++;
  }
  sqlite3_finalize(st);
  fclose(f);
  return rc;
}
