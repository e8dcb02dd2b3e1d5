/*
 * ins_db.h — what the insight commands read from the gcscope database
 * (tables_raw.def, tables_gc.def), converted to the inputs of the pure
 * analyses (ins_impact.h, ins_advise.h, ins_triggers.h). The database is
 * opened with gcs_input_open (gcs_gcdb.h); GC rows and pauses come from its
 * loaders. Processes are those of the input's traces (temp.input_traces).
 *
 * Ownership: arrays returned through pointers are malloc'ed; free() them.
 * Threading: one database handle per thread. Errors: functions return 0, or -1
 * with a one-line message in err (no prefix); nothing is printed.
 */
#ifndef INS_DB_H
#define INS_DB_H

#include <stddef.h>
#include <stdint.h>

#include "ins_advise.h"
#include "ins_impact.h"

typedef struct sqlite3 sqlite3;

struct ins_proc_key {
  int64_t trace_id;
  int32_t pid;
  char name[64];            /* process name, "" if unknown */
  int64_t first_ns, last_ns;/* first/last event of the process, 0 if unknown */
  int64_t trace_start_ns;   /* traces.start_ns (PerfView's time base) */
};

/* Processes having GCs (or requests when with_requests) in the input's
 * traces, ordered by trace and pid. */
int ins_db_processes(sqlite3 *db, int with_requests, struct ins_proc_key **out, size_t *n, char *err, size_t errlen);

/* The pauses of one process: the gc_pauses view (tables_gc.def). */
int ins_db_pauses(sqlite3 *db, const struct ins_proc_key *p, struct ins_pause **out, size_t *n, char *err,
                  size_t errlen);

/* Complete request pairs of one process (requests table). */
int ins_db_requests(sqlite3 *db, const struct ins_proc_key *p, struct ins_request **out, size_t *n, char *err,
                    size_t errlen);

/* Complete GCs of one process in GC order, as the advisor sees them. */
int ins_db_gcs(sqlite3 *db, const struct ins_proc_key *p, struct ins_gc **out, size_t *n, char *err, size_t errlen);

/* ins_db_gcs and ins_db_pauses of one process from one pass over its GC rows:
 * the same GCs in the same order, the same pauses in GC order (each GC's
 * pause, then its background GC final pause), and how many of its GCs are
 * complete (complete = 1) and incomplete (complete = 0). */
int ins_db_gcs_pauses(sqlite3 *db, const struct ins_proc_key *p, struct ins_gc **gcs, size_t *ng,
                      struct ins_pause **pauses, size_t *npz, long *complete, long *incomplete, char *err,
                      size_t errlen);

/* PerfView's per-process duration and total pause (gc_process_summary),
 * server GC and heap count (processes); worst-window fields are left NaN.
 * Returns -1 if the process has no summary row (*s is still filled: duration
 * 0, the server fields if known). */
int ins_db_summary(sqlite3 *db, const struct ins_proc_key *p, struct ins_proc_summary *s);

/* One "Name=value" token of a payload text (gcs_event_format); copies the
 * value into buf. Returns 0 if found. */
int ins_payload_field(const char *payload, const char *name, char *buf, size_t cap);

#endif /* INS_DB_H */
