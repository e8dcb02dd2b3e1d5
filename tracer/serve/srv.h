/*
 * srv.h — `gcscope serve`'s internals: the process table, one watcher thread
 * per attached .NET process (srv_proc.c) and the HTTP endpoint (srv_http.c).
 *
 * Threads: the main thread discovers processes, starts and joins watchers
 * and drops exited processes; each watcher owns its EventPipe session,
 * nettrace stream, reconstruction and stop rules; libmicrohttpd's thread
 * renders /metrics. srv.lock guards the table, every srv_pm and the
 * srv_proc fields marked (locked); everything else of a srv_proc is its
 * watcher's while it runs, the main thread's before and after.
 * Errors: watchers print one line "gcscope serve: pid N: ..." on stderr.
 */
#ifndef SRV_H
#define SRV_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "gcs_rules.h"
#include "srv_metrics.h"

#define SRV_DEFAULT_PORT 9646
#define SRV_MAX_PROCS 256

enum srv_state { SRV_ATTACHING, SRV_RUNNING, SRV_ENDED };

struct srv;

struct srv_proc {
  struct srv *srv;
  pid_t pid;
  unsigned long long start_time;   /* /proc/<pid>/stat field 22: tells pid reuse apart */
  pthread_t thread;
  int thread_live;                 /* started and not joined (main thread's) */
  atomic_int stop;                 /* main -> watcher: end the session */
  int wake[2];                     /* main -> watcher: a byte ends its wait */
  int retry;                       /* an attempt after a failed one: failures are not said again */
  enum srv_state state;            /* (locked) */
  int attached;                    /* (locked) the session ran */
  int lttng;                       /* followed through the LTTng live session
                                      (srv_lttng.c), not an EventPipe watcher */
  int superseded;                  /* (locked) ended, and a new process has its pid */
  int gone;                        /* (locked) the process exited */
  int64_t ended_ms;                /* (locked) monotonic ms when the watcher ended */
  struct srv_pm *pm;               /* (locked) NULL until attached */
};

struct srv {
  pthread_mutex_t lock;
  struct srv_proc *procs[SRV_MAX_PROCS];  /* (locked; changed by the main thread only) */
  int nprocs;                             /* (locked; changed by the main thread only) */
  struct srv_proc *pending[SRV_MAX_PROCS];/* (locked) processes srv_lttng.c found, which
                                             the main thread moves into procs */
  int npending;                           /* (locked) */
  /* configuration, read-only once watchers run */
  const struct gcs_rule *rules;
  int nrules;
  const char *rule_names[SRV_MAX_RULES];
  const char *outdir;                     /* -o: captures; NULL: none */
  uint64_t circular_bytes;                /* each flight recorder */
  int max_captures;                       /* per process */
  double capture_delay_s;
  int keep_stream;                        /* -o DIR --keep-stream: DIR/pid-PID/trace.nettrace */
  int max_procs;                          /* --max-processes */
};

/* The reconstruction's callbacks into one process's srv_pm (srv_proc.c),
 * ud a struct srv_sink: every figure under srv.lock. */
#include "gcs_recon.h"
struct srv_sink {
  struct srv *srv;
  struct srv_proc *p;
  struct gcs_recon *recon;
  int saw_bgc;
};
extern const struct gcs_recon_callbacks srv_sink_callbacks;

/* /proc/<pid>/stat's start time (0 if unreadable): tells pid reuse apart. */
unsigned long long srv_start_time_of(pid_t pid);
/* Processes not ended now (locked by the caller). */
int srv_count_active_locked(struct srv *s);

/* --lttng (srv_lttng.c): a session daemon and relayd (started if none, and
 * stopped by PID), one live session of every process's GC events (per-user
 * buffers, no tracker), and a reader thread feeding one reconstruction per
 * process into the table. keep_dir: where a relayd we start writes the
 * trace (kept); NULL: a temporary directory, and the trace files rotate.
 * Called by the main thread; 0, or -1 with err. */
int srv_lttng_start(struct srv *s, const char *keep_dir, char *err, size_t errlen);
/* End the reader (its processes' GCs open are closed as incomplete), then
 * the session, the relayd and daemon it started. Safe if not started. */
void srv_lttng_stop(struct srv *s);

int64_t srv_mono_ms(void);
uint64_t srv_real_ns(void);

/* Start a watcher thread for pid (p filled by the caller: srv, pid,
 * start_time; the rest zero). 0, or -1 with err. */
int srv_proc_start(struct srv_proc *p, char *err, size_t errlen);
/* Ask the watcher to stop (StopTracing, then the rest of the stream). */
void srv_proc_request_stop(struct srv_proc *p);
/* Join a watcher that ended (or was asked to stop) and free its session. */
void srv_proc_join(struct srv_proc *p);

/* /metrics on addr:port ("" addr: every interface); *bound_port gets the
 * port (for port 0). NULL with err on failure. */
struct MHD_Daemon;
struct MHD_Daemon *srv_http_start(struct srv *s, const char *addr, int port, int *bound_port, char *err,
                                  size_t errlen);
void srv_http_stop(struct MHD_Daemon *d);

#endif
