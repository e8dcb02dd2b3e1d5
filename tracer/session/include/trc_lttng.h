/*
 * trc_lttng.h — the LTTng side of `gcscope record`, through liblttng-ctl only:
 * a session daemon started on demand, a recording session (local, relayd,
 * live or snapshot/flight-recorder), its channel, contexts, events and vpid
 * tracker, and an lttng-relayd started on demand for live sessions.
 *
 * Errors: functions return 0 on success, -1 with a one-line reason in err;
 * liblttng-ctl's own stderr messages are silenced, and a session daemon that
 * closes its socket mid-request cannot kill the caller with SIGPIPE. Every
 * request to the session daemon is bounded in time (trc_ctl_begin below).
 * Threading: call from one thread (the watchdog is this module's own thread).
 * Ownership: plain structs owned by the caller; trc_daemon_stop /
 * trc_session_destroy release what they hold.
 */
#ifndef TRC_LTTNG_H
#define TRC_LTTNG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct trc_daemon {
  pid_t pid;        /* the lttng-sessiond we started, 0 if one already ran */
};

/* Make sure a session daemon answers: use the running one, or fork/exec
 * lttng-sessiond (in its own process group, so a Ctrl-C meant for the traced
 * command does not kill it) and wait until it answers. A running one must
 * answer a read-only request (the session list, asked from a child process
 * killed by its PID after the wait) within $GCSCOPE_SESSIOND_TIMEOUT seconds
 * (1 to 3600, default 10), else err is "lttng-sessiond (pid N) does not
 * answer within S s; restart it", or, when its listen queue is full (it
 * accepts no connection, so its pid is not known), "lttng-sessiond (SOCKET)
 * accepts no connection within S s (its listen queue is full); restart it".
 * A $GCSCOPE_SESSIOND_TIMEOUT or $GCSCOPE_FLUSH_TIMEOUT that is not a number
 * of seconds in range is refused here, before anything starts. Forks: call
 * before anything a child should not inherit runs. */
int trc_daemon_ensure(struct trc_daemon *d, char *err, size_t errlen);
/* Stop the daemon we started (SIGTERM, then SIGKILL after 5 s), by PID. */
void trc_daemon_stop(struct trc_daemon *d);

/* The lttng-relayd live port (`lttng-relayd` without options). */
#define TRC_LIVE_PORT 5344

struct trc_relayd {
  pid_t pid;        /* the lttng-relayd we started, 0 if one already listened */
};

/* Make sure an lttng-relayd listens on 127.0.0.1:TRC_LIVE_PORT: use the one
 * there, or fork/exec `lttng-relayd` with its default ports (own process
 * group, output silenced; `-o output_dir` when not NULL: where it writes the
 * traces) and wait up to 5 s for its live port. */
int trc_relayd_ensure(struct trc_relayd *r, const char *output_dir, char *err, size_t errlen);
/* Stop the relayd we started (SIGTERM, then SIGKILL after 5 s), by PID. */
void trc_relayd_stop(struct trc_relayd *r);
/* Is something accepting TCP connections on 127.0.0.1:port? */
int trc_port_listening(int port);

struct trc_session_cfg {
  const char *name;
  const char *path;            /* absolute local output dir (normal sessions) */
  const char *relayd;          /* net:// URL instead of path, or NULL; required
                                  for a live session; its ports must accept a
                                  connection (checked first, trc_relayd_url.h) */
  int snapshot;                /* flight-recorder session: overwrite, mmap */
  uint64_t live_timer_us;      /* > 0: live session streaming to relayd, its data
                                  flushed at least this often (not with snapshot) */
  uint64_t subbuf_size, num_subbuf;  /* 0 = LTTng's defaults */
  uint64_t tracefile_size;     /* > 0: each stream's trace files rotate at this
                                  size (bytes), keeping tracefile_count of them
                                  (the oldest are deleted): a bounded trace */
  uint64_t tracefile_count;
  const char *const *events;
  int nevents;
  pid_t pid;                   /* vpid tracker, 0 = every process */
};

int trc_session_create(const struct trc_session_cfg *c, char *err, size_t errlen);
int trc_session_start(const char *name, char *err, size_t errlen);
/* Stop (waits until the data is flushed) and destroy (waits too). Both are
 * safe to call on a session that is already stopped. The stop waits for the
 * consumer's flush at most $GCSCOPE_FLUSH_TIMEOUT seconds (1 to 86400,
 * default TRC_FLUSH_TIMEOUT_DEFAULT); past it, it returns
 * TRC_STOP_FLUSH_LATE with "the LTTng consumer did not finish writing the
 * trace within S s (GCSCOPE_FLUSH_TIMEOUT)" in err, the session stopped and
 * left as it is (what the consumer wrote stays; destroying it is the
 * caller's choice: trc_session_destroy_wait with a timeout). */
#define TRC_FLUSH_TIMEOUT_DEFAULT 300
#define TRC_STOP_FLUSH_LATE (-2)
int trc_session_stop(const char *name, char *err, size_t errlen);
int trc_session_destroy(const char *name, char *err, size_t errlen);
/* trc_session_destroy waiting at most timeout_ms (-1: no limit; 0 counts
 * as 1, which asks for the destruction without waiting for it) for the
 * destruction to complete (a live session's relayd may be gone). */
int trc_session_destroy_wait(const char *name, int timeout_ms, char *err, size_t errlen);
/* Write a snapshot of a snapshot session to a local dir or relayd URL. */
int trc_snapshot_record(const char *session, const char *snap_name, const char *path,
                        const char *url, char *err, size_t errlen);

/* Sub-buffer size and count for a ring of total_mb (10^6 bytes) over all
 * CPUs: 4 sub-buffers per CPU, size a power of two >= 4 KiB. */
void trc_circular_geometry(double total_mb, long ncpus, uint64_t *subbuf, uint64_t *num);
/* The sub-buffer size and count a session's channel gets: the requested
 * values, or LTTng's defaults for gcscope's per-user UST channel (0 if
 * unknown). */
void trc_channel_geometry(uint64_t subbuf_req, uint64_t num_req, uint64_t *subbuf, uint64_t *num);

/* Every liblttng-ctl request gcscope makes (those above, and the trigger
 * watcher's in tracer/lttng) is bounded: the caller names it in
 * trc_ctl_begin (printf-style), makes it, names each further request of the
 * same step with trc_ctl_next, and ends with trc_ctl_end. A watchdog thread
 * (one per process, started at the first request, every signal blocked)
 * gives each request $GCSCOPE_SESSIOND_TIMEOUT seconds (default 10). A
 * request that outlives it has this process's connections to the session
 * daemon (its client and notification sockets) shut down, so the blocked
 * call returns; a call still waiting in connect() on a daemon whose listen
 * queue is full (no connection yet to shut down) is woken by SIGURG, sent to
 * the calling thread (a handler that does nothing is installed for it,
 * without SA_RESTART, unless the process has its own; trc_ctl_begin
 * unblocks it in the calling thread until trc_ctl_end). trc_ctl_next then
 * returns -1 (make no more requests) and trc_ctl_end fills err with
 * "lttng-sessiond (pid N) does not answer \"REQUEST\" within S s; restart
 * it" (or "lttng-sessiond (SOCKET) accepts no connection for \"REQUEST\"
 * within S s (its listen queue is full); restart it") and returns -1. From then on the daemon
 * counts as hung for the whole process: trc_ctl_begin refuses at once with
 * the same line, so cleaning up does not wait again, and what gcscope made
 * inside the daemon (its session, its triggers) stays there until the daemon
 * is restarted. trc_ctl_begin also blocks SIGPIPE in the calling thread and
 * silences liblttng-ctl until trc_ctl_end. Not nested; one thread at a time. */
int trc_ctl_begin(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int trc_ctl_next(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int trc_ctl_end(char *err, size_t errlen);
/* The line saying the session daemon did not answer, once a request went
 * unanswered in this process; NULL until then. */
const char *trc_ctl_hung(void);
/* $GCSCOPE_SESSIOND_TIMEOUT seconds (1 to 3600), 10 when unset; -1 with a
 * line in err when it is not such a number. */
int trc_ctl_timeout(int *secs, char *err, size_t errlen);
/* This process's sockets connected to the session daemon's notification
 * socket (found by their peer's path in /proc/self/fd): up to max fds, their
 * count returned. Lets the trigger watcher check what arrives on its
 * channel before liblttng-ctl reads it (trc_watch.c). */
int trc_ctl_notification_fds(int *fds, int max);
/* The pid at the other end of a connected unix socket (SO_PEERCRED), 0 if
 * unknown. */
pid_t trc_ctl_peer_pid(int fd);

#endif
