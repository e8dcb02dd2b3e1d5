/*
 * gcs_insight.h — the analyses over an imported database: `gcscope impact`,
 * `triggers`, `allocs`, `handles`, `heaps` and `advise`.
 *
 * The analyses are pure and live in core/analysis (gcs_analysis, public
 * headers ins_*.h; the GCStats report and diff use them too); this library,
 * gcs_insight, is the commands: they load inputs from the database, call the
 * analyses and print. Everything else is internal.
 *
 * Errors: each command prints one line "gcscope CMD: ..." on stderr and returns
 * the exit status (0 ok, 1 runtime error, 2 usage error).
 * Threading: call from the main thread.
 */
#ifndef GCS_INSIGHT_H
#define GCS_INSIGHT_H

int gcs_cmd_impact(int argc, char **argv);
int gcs_cmd_triggers(int argc, char **argv);
int gcs_cmd_allocs(int argc, char **argv);
int gcs_cmd_handles(int argc, char **argv);
int gcs_cmd_heaps(int argc, char **argv);
int gcs_cmd_advise(int argc, char **argv);

/* The advisor's findings for one process as an HTML block (for the GCStats
 * HTML report, gcs_report_set_findings): severity, title, evidence, next
 * step; "cannot judge" or "no findings" said as such. 0, or -1 on a
 * database error (nothing written). */
#include <stdio.h>
typedef struct sqlite3 sqlite3;
int gcs_insight_findings_html(sqlite3 *db, long long trace_id, int pid, FILE *out);

#endif
