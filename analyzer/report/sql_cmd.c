/* sql_cmd.c — `gcscope sql DB [QUERY] [--write] [--csv|--json]`: run SQL on a
 * gcscope database (read-only unless --write: SQLITE_OPEN_READONLY) and print
 * an aligned table, CSV or JSON. Without QUERY, statements are read from
 * stdin (a prompt is shown when stdin is a terminal). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "gcs_cli.h"
#include "gcs_report.h"
#include "gcs_db.h"
#include "gcs_gcdb.h"
#include "rpt_line.h"
#include "gcs_output.h"

enum { OUT_TABLE, OUT_CSV, OUT_JSON };

/* The aligned table is printed whole (its widths need every row), so it is
 * held in memory: at most this many rows, never an unbounded growth (a
 * recursive query without LIMIT). CSV and JSON stream. */
#define SQL_TABLE_MAX_ROWS 1000000

static int run_one(sqlite3 *db, sqlite3_stmt *s, int mode, FILE *o) {
  int n = sqlite3_column_count(s);
  struct rpt_table t;
  const char **cells = calloc((size_t)(n ? n : 1), sizeof *cells);
  char **bufs = calloc((size_t)(n ? n : 1), sizeof *bufs);
  if (!cells || !bufs) { free(cells); free(bufs); return -1; }
  if (n) {
    for (int c = 0; c < n; c++) cells[c] = sqlite3_column_name(s, c);
    if (mode == OUT_TABLE) rpt_table_init(&t, n, cells);
    else if (mode == OUT_CSV) {
      for (int c = 0; c < n; c++) { if (c) fputc(',', o); rpt_csv_str(o, cells[c]); }
      fputc('\n', o);
    } else fputc('[', o);
  }
  int rc, rows = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (mode == OUT_JSON) fprintf(o, "%s\n {", rows ? "," : "");
    for (int c = 0; c < n; c++) {
      int ty = sqlite3_column_type(s, c);
      const char *txt = (const char *)sqlite3_column_text(s, c);
      if (mode == OUT_TABLE) {
        cells[c] = ty == SQLITE_NULL ? "NULL" : txt;
        if (c == 0 && rows == 0) for (int k = 0; k < n; k++) t.right[k] = 0;
        if (ty == SQLITE_INTEGER || ty == SQLITE_FLOAT) t.right[c] = 1;
      } else if (mode == OUT_CSV) {
        if (c) fputc(',', o);
        if (ty != SQLITE_NULL) rpt_csv_str(o, txt);
      } else {
        fprintf(o, "%s", c ? ", " : "");
        rpt_json_str(o, sqlite3_column_name(s, c));
        fputs(": ", o);
        if (ty == SQLITE_NULL) fputs("null", o);
        else if (ty == SQLITE_INTEGER) fprintf(o, "%lld", (long long)sqlite3_column_int64(s, c));
        else if (ty == SQLITE_FLOAT) rpt_json_num(o, sqlite3_column_double(s, c));
        else rpt_json_str(o, txt);
      }
    }
    if (mode == OUT_TABLE && rows == SQL_TABLE_MAX_ROWS) {
      rc = SQLITE_TOOBIG;
      break;
    }
    if (mode == OUT_TABLE && rpt_table_add(&t, cells) < 0) {
      rc = SQLITE_NOMEM;
      break;
    }
    if (mode == OUT_JSON) fputc('}', o);
    if (mode == OUT_CSV) fputc('\n', o);
    rows++;
  }
  if (n) {
    /* the table is printed whole or not at all: after an error, only the error */
    if (mode == OUT_TABLE) { if (rc == SQLITE_DONE) rpt_table_print(&t, o, 0); rpt_table_free(&t); }
    else if (mode == OUT_JSON) fputs("]\n", o);
  }
  free(cells);
  free(bufs);
  if (rc == SQLITE_TOOBIG) {
    gcs_cli_error("sql", "over %d rows: the aligned table is held whole, so it stops here (--csv and --json "
                  "stream any number; or LIMIT)", SQL_TABLE_MAX_ROWS);
    return -1;
  }
  if (rc == SQLITE_NOMEM) {
    gcs_cli_error("sql", "out of memory for the aligned table (--csv and --json stream)");
    return -1;
  }
  if (rc != SQLITE_DONE) {
    gcs_cli_error("sql", "%s", sqlite3_errmsg(db));   /* printable, cut: the query comes back in it */
    return -1;
  }
  return 0;
}

/* Without --write only statements that read run. The connection is
 * read-only, but some statements write elsewhere through it: VACUUM INTO
 * writes a new file, ATTACH may create one. sqlite3_stmt_readonly() is true
 * only for statements that change no database file. */
static int refused_write(sqlite3_stmt *s) {
  if (!sqlite3_stmt_readonly(s)) return 1;
  const char *sql = sqlite3_sql(s);
  sql += strspn(sql, " \t\r\n(");
  return strncasecmp(sql, "VACUUM", 6) == 0 || strncasecmp(sql, "ATTACH", 6) == 0;
}

static int run_sql(sqlite3 *db, const char *sql, int mode, int write) {
  const char *tail = sql;
  while (tail && *tail) {
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, tail, -1, &s, &tail) != SQLITE_OK) {
      gcs_cli_error("sql", "%s", sqlite3_errmsg(db));   /* printable, cut: the query comes back in it */
      return -1;
    }
    if (!s) continue; /* whitespace or comment */
    if (!write && refused_write(s)) {
      gcs_cli_error("sql", "'%.40s' would write (read-only: use --write)", sqlite3_sql(s));
      sqlite3_finalize(s);
      return -1;
    }
    int rc = run_one(db, s, mode, stdout);
    sqlite3_finalize(s);
    if (rc) return -1;
  }
  return 0;
}

/* The shell's dot-commands, as sqlite3's: .tables, .schema [NAME], .mode
 * table|csv|json, .help, .quit. Returns 1 to quit, -1 after an error. */
static int dot_command(sqlite3 *db, char *line, int *mode) {
  line[strcspn(line, "\r\n")] = 0;
  char *cmd = strtok(line, " \t"), *arg = strtok(NULL, " \t");
  if (strcmp(cmd, ".quit") == 0 || strcmp(cmd, ".exit") == 0) return 1;
  if (strcmp(cmd, ".help") == 0) {
    printf(".tables             tables and views\n.schema [NAME]      their CREATE statements\n"
           ".mode table|csv|json  output format\n.quit               leave\n");
    return 0;
  }
  if (strcmp(cmd, ".tables") == 0)
    return run_sql(db, "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
                       "AND name NOT LIKE 'sqlite_%' ORDER BY name", *mode, 0) ? -1 : 0;
  if (strcmp(cmd, ".schema") == 0) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND (?1 IS NULL OR name = ?1) "
                               "ORDER BY type DESC, name", -1, &st, NULL) != SQLITE_OK)
      return -1;
    if (arg) sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) printf("%s;\n", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return 0;
  }
  if (strcmp(cmd, ".mode") == 0 && arg) {
    if (strcmp(arg, "table") == 0) *mode = OUT_TABLE;
    else if (strcmp(arg, "csv") == 0) *mode = OUT_CSV;
    else if (strcmp(arg, "json") == 0) *mode = OUT_JSON;
    else {
      fprintf(stderr, "gcscope sql: .mode: table, csv or json\n");
      return -1;
    }
    return 0;
  }
  gcs_cli_error("sql", "unknown command '%s' (.help lists them)", cmd);
  return -1;
}

enum { O_WRITE, O_CSV, O_JSON };

static const struct gcs_cli_opt sql_opts[] = {
  [O_WRITE] = { "write", 0, GCS_CLI_FLAG, 0, 0, NULL, "allow statements that change the database" },
  [O_CSV] = { "csv", 0, GCS_CLI_FLAG, 0, 0, NULL, "CSV output" },
  [O_JSON] = { "json", 0, GCS_CLI_FLAG, 0, 0, NULL, "JSON output" },
  { 0 },
};

static const struct gcs_cli_spec sql_spec = {
  .cmd = "sql",
  .usage = "DB [QUERY] [--write] [--csv|--json]",
  .opts = sql_opts,
};

int gcs_cmd_sql(int argc, char **argv) {
  const char *path = NULL, *query = NULL;
  int write = 0, mode = OUT_TABLE;
  struct gcs_cli p;
  gcs_cli_init(&p, &sql_spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&sql_spec, stdout); return 0; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
    if (k == O_WRITE) write = 1;
    else if (k == O_CSV) mode = OUT_CSV;
    else if (k == O_JSON) mode = OUT_JSON;
  }
  if (p.optind < argc) path = argv[p.optind];
  if (p.optind + 1 < argc) query = argv[p.optind + 1];
  if (p.optind + 2 < argc) return gcs_cli_fail("give the query as one argument (quote it)");
  if (!path) {
    gcs_cli_usage(&sql_spec, stderr);
    return GCS_CLI_USAGE_STATUS;
  }
  char err[600];
  struct gcs_input in;
  struct gcs_input_opts io = {.trace_id = -1, .db_only = 1, .writable = write, .damaged_ok = 1};
  sqlite3 *db = gcs_input_open(path, &io, &in, err, sizeof err) == 0 ? in.db : NULL;
  if (db && gcs_db_harden(db) != 0) { sqlite3_close(db); db = NULL; snprintf(err, sizeof err, "%s: cannot make the connection defensive", path); }
  if (!db) {
    gcs_cli_error("sql", "%s", err);
    return 1;
  }
  int rc = 0;
  if (query && query[strspn(query, " \t")] == '.') {
    /* A dot-command as the argument, as sqlite3 DB ".tables" runs it. */
    char *line = strdup(query + strspn(query, " \t"));
    rc = line && dot_command(db, line, &mode) >= 0 ? 0 : 1;
    free(line);
  } else if (query) {
    rc = run_sql(db, query, mode, write) ? 1 : 0;
  } else {
    int tty = isatty(STDIN_FILENO);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap), line[4096];
    if (!buf) { sqlite3_close(db); return 1; }
    buf[0] = 0;
    /* On a terminal: line editing and history ($HOME/.gcscope_history). */
    char hist[4096] = "";
    const char *home = getenv("HOME");
    if (home && *home) snprintf(hist, sizeof hist, "%s/.gcscope_history", home);
    struct rpt_line *ed = rpt_line_open(hist[0] ? hist : NULL);
    if (tty && !ed) { fputs("gcscope> ", stdout); fflush(stdout); }
    for (;;) {
      long got = ed ? rpt_line_read(ed, len ? "   ...> " : "gcscope> ", line, sizeof line)
                    : fgets(line, sizeof line, stdin) ? (long)strlen(line) : -1;
      if (got < 0) break;
      if (got == 0 && ed) {   /* Ctrl-C: the statement being typed is dropped, as sqlite3 does */
        len = 0;
        buf[0] = 0;
        continue;
      }
      size_t l = strlen(line);
      if (len + l + 1 > cap) {
        while (len + l + 1 > cap) cap *= 2;
        char *nb = realloc(buf, cap);
        if (!nb) break;
        buf = nb;
      }
      if (len == 0 && line[0] == '.') {
        int d = dot_command(db, line, &mode);
        if (d > 0) break;
        if (d < 0) rc = 1;
        if (tty && !ed) { fputs("gcscope> ", stdout); fflush(stdout); }
        continue;
      }
      memcpy(buf + len, line, l + 1);
      len += l;
      if (sqlite3_complete(buf)) {
        if (run_sql(db, buf, mode, write)) rc = 1;
        len = 0;
        buf[0] = 0;
      }
      if (tty && !ed) { fputs(len ? "   ...> " : "gcscope> ", stdout); fflush(stdout); }
    }
    if (len && strspn(buf, " \t\r\n") != len && run_sql(db, buf, mode, write)) rc = 1;
    if (tty && !ed) fputc('\n', stdout);
    rpt_line_close(ed);
    free(buf);
  }
  sqlite3_close(db);
  return rc;
}
