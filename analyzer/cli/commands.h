/*
 * commands.h — the subcommands of the umbrella `gcscope` command. Each is
 * implemented by the library that owns the feature; gcscope.c only dispatches.
 * Convention: argv[0] is the subcommand name; return the process exit status
 * (0 ok, 1 runtime error, 2 usage error); errors are printed as one line
 * "gcscope <cmd>: ..." on stderr.
 */
#ifndef GCS_COMMANDS_H
#define GCS_COMMANDS_H

int gcs_cmd_record(int argc, char **argv);   /* tracer/ */
int gcs_cmd_import(int argc, char **argv);   /* analyzer/import/ */
int gcs_cmd_stats(int argc, char **argv);    /* analyzer/report/ */
int gcs_cmd_sql(int argc, char **argv);      /* analyzer/report/ */
int gcs_cmd_events(int argc, char **argv);   /* analyzer/report/ */
int gcs_cmd_impact(int argc, char **argv);   /* analyzer/insight/ */
int gcs_cmd_triggers(int argc, char **argv); /* analyzer/insight/ */
int gcs_cmd_allocs(int argc, char **argv);   /* analyzer/insight/ */
int gcs_cmd_handles(int argc, char **argv);  /* analyzer/insight/ */
int gcs_cmd_heaps(int argc, char **argv);    /* analyzer/insight/ */
int gcs_cmd_advise(int argc, char **argv);   /* analyzer/insight/ */
int gcs_cmd_top(int argc, char **argv);      /* tui/ */

#endif
