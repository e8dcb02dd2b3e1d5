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

int gcs_cmd_stats(int argc, char **argv);
int gcs_cmd_sql(int argc, char **argv);
int gcs_cmd_events(int argc, char **argv);

#endif
