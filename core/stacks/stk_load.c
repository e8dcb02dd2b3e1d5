/* stk_load.c — the stacks of a database's traces, for reports (gcs_stacks.h). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_stacks.h"

struct gcs_stacks_db {
  struct gcs_stack_row *rows; size_t nrows, caprows;   /* sorted by id */
  uint32_t *fidx; size_t nfidx, capfidx;               /* all rows' frame indexes */
  char **fname; int *fres; size_t nframes, capframes;  /* frame index -> name */
  int64_t *fid;                                        /* frame index -> frames.id, sorted */
  struct gcs_stacks_symbols *sym; size_t nsym, capsym;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap : 64;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * elem);
  if (!q) return -1;
  *p = q;
  *cap = n;
  return 0;
}

static int has_table(sqlite3 *db, const char *schema, const char *name) {
  sqlite3_stmt *s;
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT 1 FROM %s.sqlite_master WHERE type = 'table' AND name = ?1", schema);
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) return 0;
  sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
  int yes = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return yes;
}

static long frame_index(const struct gcs_stacks_db *s, int64_t id) {
  size_t lo = 0, hi = s->nframes;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (s->fid[mid] < id) lo = mid + 1; else hi = mid;
  }
  return lo < s->nframes && s->fid[lo] == id ? (long)lo : -1;
}

void gcs_stacks_db_free(struct gcs_stacks_db *s) {
  if (!s) return;
  for (size_t i = 0; i < s->nframes; i++) free(s->fname[i]);
  free(s->fname);
  free(s->fres);
  free(s->fid);
  free(s->rows);
  free(s->fidx);
  for (size_t i = 0; i < s->nsym; i++) free((char *)(uintptr_t)s->sym[i].native_note);
  free(s->sym);
  free(s);
}

struct gcs_stacks_db *gcs_stacks_load(sqlite3 *db, char *err, size_t errlen) {
  struct gcs_stacks_db *s = calloc(1, sizeof *s);
  if (!s) { snprintf(err, errlen, "out of memory"); return NULL; }
  if (!has_table(db, "main", "stacks") || !has_table(db, "main", "frames")) return s;
  const char *filter = has_table(db, "temp", "input_traces") ? " WHERE trace_id IN (SELECT id FROM temp.input_traces)" : "";
  char sql[512];
  sqlite3_stmt *q = NULL;
  snprintf(sql, sizeof sql, "SELECT id, name, resolved FROM frames%s ORDER BY id", filter);
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) goto dberr;
  while (sqlite3_step(q) == SQLITE_ROW) {
    size_t cap = s->capframes;
    if (grow((void **)&s->fname, &s->capframes, s->nframes + 1, sizeof *s->fname) != 0) goto oom;
    if (cap != s->capframes) {
      int *r = realloc(s->fres, s->capframes * sizeof *r);
      int64_t *f = r ? realloc(s->fid, s->capframes * sizeof *f) : NULL;
      if (r) s->fres = r;
      if (!f) goto oom;
      s->fid = f;
    }
    const char *name = (const char *)sqlite3_column_text(q, 1);
    if (!(s->fname[s->nframes] = strdup(name ? name : "unknown"))) goto oom;
    s->fid[s->nframes] = sqlite3_column_int64(q, 0);
    s->fres[s->nframes] = sqlite3_column_int(q, 2);
    s->nframes++;
  }
  sqlite3_finalize(q);
  snprintf(sql, sizeof sql, "SELECT id, trace_id, pid, depth, truncated, frames FROM stacks%s ORDER BY id", filter);
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) goto dberr;
  while (sqlite3_step(q) == SQLITE_ROW) {
    if (grow((void **)&s->rows, &s->caprows, s->nrows + 1, sizeof *s->rows) != 0) goto oom;
    struct gcs_stack_row *r = &s->rows[s->nrows];
    r->id = sqlite3_column_int64(q, 0);
    r->trace_id = sqlite3_column_int64(q, 1);
    r->pid = sqlite3_column_int(q, 2);
    r->truncated = sqlite3_column_int(q, 4);
    r->frame = NULL;
    r->depth = 0;
    size_t start = s->nfidx;
    const char *t = (const char *)sqlite3_column_text(q, 5);
    /* "[12,13,14]": frames.id, leaf first. */
    for (const char *c = t ? t : ""; *c;) {
      if (*c < '0' || *c > '9') { c++; continue; }
      char *end;
      long long id = strtoll(c, &end, 10);
      c = end;
      long fi = frame_index(s, id);
      if (fi < 0) continue;  /* a damaged row: the frame is skipped */
      if (grow((void **)&s->fidx, &s->capfidx, s->nfidx + 1, sizeof *s->fidx) != 0) goto oom;
      s->fidx[s->nfidx++] = (uint32_t)fi;
    }
    r->depth = (uint32_t)(s->nfidx - start);
    r->frame = (const uint32_t *)(uintptr_t)start;  /* an offset until fidx stops moving */
    s->nrows++;
  }
  sqlite3_finalize(q);
  for (size_t i = 0; i < s->nrows; i++) s->rows[i].frame = s->fidx + (uintptr_t)s->rows[i].frame;
  if (has_table(db, "main", "stack_symbols")) {
    snprintf(sql, sizeof sql, "SELECT trace_id, pid, jit_methods, rundown_methods, addresses, unresolved, "
             "native_modules, native_note FROM stack_symbols%s", filter);
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) goto dberr;
    while (sqlite3_step(q) == SQLITE_ROW) {
      if (grow((void **)&s->sym, &s->capsym, s->nsym + 1, sizeof *s->sym) != 0) goto oom;
      struct gcs_stacks_symbols *y = &s->sym[s->nsym++];
      y->trace_id = sqlite3_column_int64(q, 0);
      y->pid = sqlite3_column_int(q, 1);
      y->jit_methods = (uint64_t)sqlite3_column_int64(q, 2);
      y->rundown_methods = (uint64_t)sqlite3_column_int64(q, 3);
      y->addresses = (uint64_t)sqlite3_column_int64(q, 4);
      y->unresolved = (uint64_t)sqlite3_column_int64(q, 5);
      y->native_modules = (uint64_t)sqlite3_column_int64(q, 6);
      y->native_note = NULL;
      const char *note = (const char *)sqlite3_column_text(q, 7);
      if (note && !(y->native_note = strdup(note))) goto oom;
    }
    sqlite3_finalize(q);
  }
  return s;
dberr:
  snprintf(err, errlen, "database: %s", sqlite3_errmsg(db));
  sqlite3_finalize(q);
  gcs_stacks_db_free(s);
  return NULL;
oom:
  snprintf(err, errlen, "out of memory");
  sqlite3_finalize(q);
  gcs_stacks_db_free(s);
  return NULL;
}

const struct gcs_stack_row *gcs_stacks_get(const struct gcs_stacks_db *s, int64_t id) {
  size_t lo = 0, hi = s->nrows;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (s->rows[mid].id < id) lo = mid + 1; else hi = mid;
  }
  return lo < s->nrows && s->rows[lo].id == id ? &s->rows[lo] : NULL;
}

const char *gcs_stacks_frame(const struct gcs_stacks_db *s, uint32_t i, int *resolved) {
  if (i >= s->nframes) { if (resolved) *resolved = 0; return "unknown"; }
  if (resolved) *resolved = s->fres[i];
  return s->fname[i];
}

const struct gcs_stacks_symbols *gcs_stacks_symbols(const struct gcs_stacks_db *s, size_t *n) {
  *n = s->nsym;
  return s->sym;
}

size_t gcs_stacks_count(const struct gcs_stacks_db *s) { return s->nrows; }
