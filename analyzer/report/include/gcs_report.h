/*
 * gcs_report.h — the reports over an imported database: `gcscope stats`
 * (PerfView's GCStats), `gcscope events` and `gcscope sql`.
 *
 * Everything else in analyzer/report/ (the GCStats model, its text, HTML, CSV
 * and JSON writers, the table printer) is internal.
 *
 * Errors: each command prints one line "gcscope CMD: ..." on stderr and returns
 * the exit status (0 ok, 1 runtime error, 2 usage error).
 * Threading: call from the main thread.
 */
#ifndef GCS_REPORT_H
#define GCS_REPORT_H

#include <stdio.h>

int gcs_cmd_stats(int argc, char **argv);

/* The HTML report puts the advisor's findings at the top of each process
 * when given a function that writes them (gcs_insight_findings_html; the
 * umbrella sets it, so gcs_report needs no link to the advisor). It gets the
 * open database, a trace id and pid, and returns 0 (-1: nothing written). */
typedef struct sqlite3 sqlite3;
typedef int (*gcs_report_findings_fn)(sqlite3 *db, long long trace_id, int pid, FILE *out);
void gcs_report_set_findings(gcs_report_findings_fn fn);
int gcs_cmd_sql(int argc, char **argv);
int gcs_cmd_events(int argc, char **argv);

#endif
