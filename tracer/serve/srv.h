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
  int gone;                        /* (locked) the process exited */
  int64_t ended_ms;                /* (locked) monotonic ms when the watcher ended */
  struct srv_pm *pm;               /* (locked) NULL until attached */
};

struct srv {
  pthread_mutex_t lock;
  struct srv_proc *procs[SRV_MAX_PROCS];  /* (locked) */
  int nprocs;                             /* (locked) */
  /* configuration, read-only once watchers run */
  const struct gcs_rule *rules;
  int nrules;
  const char *rule_names[SRV_MAX_RULES];
  const char *outdir;                     /* -o: captures; NULL: none */
  uint64_t circular_bytes;                /* each flight recorder */
  int max_captures;                       /* per process */
  double capture_delay_s;
  int keep_stream;                        /* -o DIR --keep-stream: DIR/pid-PID/trace.nettrace */
};

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
