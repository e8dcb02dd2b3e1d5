/*
 * import_writer.h — writes one trace's decoded events into the raw tables
 * (tables_raw.def) with prepared statements, feeds them to the GC
 * reconstruction, and keeps what the processes row needs (internal to
 * gcs_import).
 *
 * Threading: used by one thread (the one holding the database). Ownership:
 * the writer owns its statements, caches and recon object; imw_close frees
 * them. The caller owns the transaction (BEGIN/COMMIT/ROLLBACK).
 * Errors: -1 with a one-line message in err.
 */
#ifndef IMPORT_WRITER_H
#define IMPORT_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_events.h"

typedef struct sqlite3 sqlite3;
struct imw;

/* What is known about one process of the trace. */
struct imw_proc {
  int32_t pid;
  int used;
  char name[64];          /* procname, "" if unknown */
  uint64_t first_ns, last_ns;
  uint64_t events, gc_events;
  char *command_line;     /* NULL if unknown */
  char *runtime_version;  /* NULL if unknown */
  int server_gc, concurrent_gc, heap_count;  /* -1 if unknown */
  int startup_seen;       /* RuntimeInformationStart/-Rundown: StartupFlags known */
  uint32_t startup_flags;
  int settings_seen;      /* GCSettingsRundown (a current runtime's rundown) */
  int64_t hard_limit;     /* GCSettingsRundown.HardLimit, -1 if unknown */
  struct gcs_ev_GCSettingsRundown settings; /* the last one, when settings_seen */
  int origin;             /* GCS_ORIGIN_*, -1 if no GC event */
};

struct imw *imw_open(sqlite3 *db, int64_t trace_id, char *err, size_t errlen);
void imw_close(struct imw *w);

/* Time origin of the GC figures (*_msec): the trace start. Call before the
 * first imw_event; without it the first GC event is the origin. */
void imw_set_time_origin(struct imw *w, uint64_t ts_ns);

/* One decoded GC event (time order). */
int imw_event(struct imw *w, const struct gcs_event *ev, char *err, size_t errlen);
/* Discarded events reported by the source. */
/* A statedump module of pid (lttng_ust_statedump:bin_info), for librgc's
 * stacks. 0, or -1 with a message. */
int imw_module(struct imw *w, int32_t pid, uint64_t baddr, uint64_t memsz, const char *path, int is_pic,
               char *err, size_t errlen);
/* count events lost in stream somewhere in [begin_ns, end_ns] (gcs_recon_lost;
 * 0: unknown), discarded events or, with IMW_LOST_PACKETS, missing packets;
 * a row of lost_events. Every source gives a window: LTTng's packets, and
 * EventPipe's sequence gaps (a capture thread's previous event to the event
 * or sequence point after the gap), so no loss is left unplaced; end_ns
 * UINT64_MAX: to the end of the trace (a CTF stream cut short; its row's
 * ts_ns is NULL). 0, or -1 with a message. */
#define IMW_LOST_PACKETS 1u
int imw_lost(struct imw *w, const char *stream, uint64_t begin_ns, uint64_t end_ns, uint64_t count,
             unsigned flags, char *err, size_t errlen);
/* The reader's loss horizon (gcs_recon_lost_horizon). */
void imw_lost_horizon(struct imw *w, uint64_t ts_ns);

/* The process record for pid (created if new); NULL on allocation failure. */
struct imw_proc *imw_proc(struct imw *w, int32_t pid);
/* Count one event (any provider) of pid at ts for the processes table. */
void imw_count_event(struct imw *w, int32_t pid, uint64_t ts_ns, const char *procname, int gc);

/* End of the trace: unmatched requests, processes rows (host may be NULL),
 * reconstruction finish + store. */
int imw_finish(struct imw *w, const char *host, char *err, size_t errlen);

uint64_t imw_gc_events(const struct imw *w);
/* After imw_finish: the GCs written while the events were read
 * (gcs_recon_store_final), and the most GCs done and not written yet at
 * once (before each early store, and after the last event). */
void imw_store_counts(const struct imw *w, uint64_t *stored_early, uint64_t *held_max);
/* The most GCs the reconstruction held in memory at once (gcs_recon_held_max:
 * the ones written while reading are freed). */
uint64_t imw_gcs_held_max(const struct imw *w);
uint64_t imw_gcs(const struct imw *w);     /* GCs reconstructed (after finish) */
uint64_t imw_lost_total(const struct imw *w);
int imw_process_count(const struct imw *w);
/* Σ gcs_proc_summary.array_events_left_out over the processes (after finish). */
uint64_t imw_array_events_left_out(const struct imw *w);

#endif /* IMPORT_WRITER_H */
