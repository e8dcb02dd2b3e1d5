/*
 * gcs_db.h — the gcscope SQLite database: open/create it with the schema of
 * schemas/gcs_tables.h and its indexes, and import traces into it.
 *
 * gcs_import_paths is the one entry point every importer uses: `gcscope
 * import`, `gcscope stats TRACE` (import, then report), the tracer's
 * `--import` and the TUI. Each path may be an LTTng trace directory at any
 * level (session directory, perfcollect folder, ust/uid/...), a perfcollect
 * `.trace.zip`, or a `.nettrace` file. Each trace found is imported in its own
 * transaction: the traces row, the raw rows (tables_raw.def) and the GC
 * tables (tables_gc.def, via gcs_recon_store) are committed together or not
 * at all. A trace already in the database (same content identity) adds
 * nothing and is reported as "already imported". The indexes are created
 * with the schema (gcs_db_open) and maintained as the rows go in.
 *
 * Ownership: the caller owns the sqlite3 handle from gcs_db_open and closes
 * it with sqlite3_close. Threading: gcs_import_paths decodes each CTF trace
 * in a child process (fork; libbabeltrace2 may hang, crash or run away with
 * memory on damaged input) received by one extra thread, beside the SQLite
 * writer; a database handle is used by one caller thread at a time. Call it
 * where fork is safe (no other thread of the caller holds a lock the child
 * could need: libc's are handled by fork itself). Errors: functions return 0
 * on success, -1 with a one-line message (no newline, no program prefix) in
 * err; nothing is printed except the per-trace summary lines of
 * gcs_import_paths, written to opts->out.
 */
#ifndef GCS_DB_H
#define GCS_DB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sqlite3 sqlite3;

/* Default database path of every command (like perf's perf.data). */
#define GCS_DB_DEFAULT_PATH "gcscope.db"

/* Open (and create, with every table and view, if missing) the database at
 * path, configured for bulk loading. NULL on failure, with nothing written to
 * the file, when it is not SQLite, holds tables but no `traces` table ("not a
 * gcscope database"), or is read-only or in a read-only directory
 * ("permission denied"). */
sqlite3 *gcs_db_open(const char *path, char *err, size_t errlen);
/* (Also refused, nothing written: a path that is a directory, device, FIFO
 * or socket, or a link to one; a damaged database, gcs_db_views_read.) */

/* A gcscope database with a table dropped (by hand, or a tool that
 * "cleaned it up"): a view over it no longer reads, or a table no view
 * reads (frames, stacks, trigger_firings ...) is missing from a database
 * whose schema version (PRAGMA user_version, set by gcs_db_open) has it. The
 * one check of it, made by gcs_db_open (an import) and gcs_input_open (the
 * reports) before anything is written: the update of an older database
 * would make the table again, empty, and every figure would read zero. A
 * view over an absent legacy_* table is the update's own and reads as
 * fine; a database of version 0 (written before versions) lacking a table
 * no view reads is an older one, and gets it. 0, or -1 with *what and *why:
 * "view V does not read" and SQLite's reason (the first view by name), or
 * "table T is missing" and "dropped: schema version N has it"; the line:
 * "damaged database: WHAT (WHY)". */
int gcs_db_views_read(sqlite3 *db, char *what, size_t whatlen, char *why, size_t whylen);

/* What a trace lost, in words, the one text of import's summary and every
 * report's warning (traces.discarded and traces.packet_gaps): discarded is
 * the events discarded plus 1 per gap of missing packets, packet_gaps those
 * gaps (-1: not known, a trace imported before packet_gaps was stored).
 * "N events discarded by the tracer", "G gaps of missing packets (events
 * unknown)" (gaps in a stream's packet_seq_num: how many events is
 * unknown), both joined by ", " (the gaps first), or, not knowing the
 * split, "N events discarded or gaps of missing packets (import again to
 * tell)". Short, so that the warnings fit 80 columns with a short path.
 * buf holds 256 bytes at least; returns buf ("" when nothing was lost). */
const char *gcs_lost_text(int64_t discarded, int64_t packet_gaps, char *buf, size_t bufsz);

/* Register on db what reading a gcscope database needs: gcs_unpack(data),
 * the table-valued function that turns an event_blocks row back into one
 * row per event (the events and alloc_ticks views use it). gcs_db_open and
 * gcs_input_open call it; every other connection to a gcscope database must.
 * 0, or -1 (sqlite3_errmsg says why). */
int gcs_db_functions(sqlite3 *db);

/* Make a connection safe for SQL a user (or a crafted database file) brings:
 * SQLITE_DBCONFIG_DEFENSIVE on (no writable_schema, no writes to shadow
 * tables or sqlite_dbpage), trusted_schema off (a view or trigger in the
 * file may call only innocuous functions), the two-argument
 * fts3_tokenizer() off, and fts3_tokenizer() refused altogether by an
 * authorizer (its one-argument form returns a memory address). gcs_db_open
 * and gcs_input_open call it; so must any other connection gcscope opens.
 * Replaces the connection's authorizer. 0, or -1 when a setting did not
 * take. */
int gcs_db_harden(sqlite3 *db);

/* 1 when db has every column this gcscope writes (gcs_db_open adds those a
 * database made by an older gcscope lacks). */
int gcs_db_is_current(sqlite3 *db);

/* 1 when db holds gcs (or gc_gens, gc_heaps, gc_heap_gens) as a table (made
 * before the compact GC tables,
 * schemas/gcs_tables.h): reports read it as it is; an import into it is
 * refused (gcs_import_paths_db). */
int gcs_db_gc_layout_old(sqlite3 *db);

/* Create the indexes of GCS_INDEX_SQL (if missing; gcs_db_open does). */
int gcs_db_create_indexes(sqlite3 *db, char *err, size_t errlen);

/* Where an import is, for a progress line (gcs_import_opts.progress). */
struct gcs_import_progress {
  const char *label;            /* the trace being read */
  uint64_t events;              /* GC events read so far */
  uint64_t gcs;                 /* GCs reconstructed so far */
  double elapsed_s;             /* since this trace began */
  double fraction;              /* 0..1 of the trace read (bytes of a .nettrace; the
                                   span of the CTF packet index); -1 when unknown */
  int done;                     /* 1: the trace is read (the last call for it) */
};

/* A gcs_import_opts.progress that draws one line on stderr, rewritten in
 * place and erased at done (set it only when stderr is a terminal). */
void gcs_import_progress_line(const struct gcs_import_progress *p, void *ud);

struct gcs_import_opts {
  FILE *out;                    /* summary lines and notes; NULL: stdout */
  int quiet;                    /* 1: print nothing */
  const atomic_int *cancel;     /* if not NULL and set (e.g. by a SIGINT handler,
                                   on any thread), the trace being imported is rolled back and
                                   gcs_import_paths fails with "interrupted" */
  uint64_t fail_after_events;   /* testing hook: fail the import after this many
                                   GC events (0: never), to exercise the rollback */
  int verbose;                  /* 1: after each trace's summary, a line with the
                                   CPU time of the decoding and writing threads */
  /* CTF traces are decoded in a child process (libbabeltrace2 may hang, run
   * away with memory or crash on damaged input; any of it fails the trace
   * with one message and rolls it back): */
  unsigned decode_timeout_s;    /* kill it after this long without progress; 0: the
                                   GCSCOPE_DECODE_TIMEOUT environment variable, or 30 */
  uint64_t decode_mem_bytes;    /* its address-space limit; 0: GCSCOPE_DECODE_MEM_MB,
                                   or 4 x the trace's size, at least 4 GiB */
  /* If set, called about every 200 ms while a trace is read, and once with
   * done = 1 before its summary line, from the importing thread. */
  void (*progress)(const struct gcs_import_progress *p, void *ud);
  void *progress_ud;
};

#define GCS_IMPORT_MAX_IDS 256

/* Totals over every path of one call. */
struct gcs_import_totals {
  int traces_imported;          /* traces committed by this call */
  int traces_skipped;           /* already in the database */
  uint64_t events, gcs, discarded;
  double decode_cpu_s, write_cpu_s;  /* CPU time of the two import threads (LTTng traces) */
  /* traces.id of every trace the paths hold, imported now or already there, in
   * the order found; ntrace_ids counts them all, the first GCS_IMPORT_MAX_IDS
   * are listed. */
  int ntrace_ids;
  int64_t trace_ids[GCS_IMPORT_MAX_IDS];
};

/* Import paths into the database at db_path (created if missing). opts and
 * totals may be NULL. Stops at the first failing path: traces committed
 * before it stay, the failing one leaves nothing; a database file this call
 * created (or found empty) is removed (or emptied) when nothing was
 * committed. "No GC events" is a warning (in the summary line), not an
 * error. */
int gcs_import_paths(const char *db_path, const char *const *paths, int npaths,
                     const struct gcs_import_opts *opts, char *err, size_t errlen);

/* Same, into a database opened by gcs_db_open (which creates the schema and
 * its indexes), with totals. */
int gcs_import_paths_db(sqlite3 *db, const char *const *paths, int npaths,
                        const struct gcs_import_opts *opts, struct gcs_import_totals *totals,
                        char *err, size_t errlen);

#endif /* GCS_DB_H */
