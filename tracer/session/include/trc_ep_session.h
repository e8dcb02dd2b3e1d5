/*
 * trc_ep_session.h — one EventPipe session on a .NET process, as `gcscope
 * record --dotnet` and `gcscope top --dotnet` start it: launch mode (a
 * COMMAND started with DOTNET_DiagnosticPorts=<our socket>,suspend; the
 * runtime connects back and waits until the session runs, so its first GC is
 * in the stream) or attach mode (the process's own diagnostic socket), then
 * the nettrace stream read as it arrives, StopTracing on a second connection.
 *
 * Ownership: struct trc_ep_session is the caller's; trc_ep_close releases
 * what trc_ep_start acquired (it never kills a running COMMAND: the caller
 * decides, with trc_ep_kill_child).
 * Threading: one thread.
 * Errors: functions return -1 with one line (no "gcscope CMD:" prefix) in
 * err; nothing is printed.
 */
#ifndef TRC_EP_SESSION_H
#define TRC_EP_SESSION_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gcs_dsipc.h"
#include "trc_child.h"
#include "gcs_nettrace.h"
#include "trc_profile.h"

#define TRC_EP_EOF (-2)             /* trc_ep_read: the runtime closed the stream */

struct trc_ep_session {
  struct gcs_dsipc_endpoint ep;
  int launch;                       /* COMMAND started by us */
  struct trc_child child;
  int child_status, child_done;     /* wait status once reaped */
  pid_t pid;                        /* the traced process */
  int stream_fd;
  uint64_t session;
  int stopped;                      /* StopTracing sent */
  int pidfd;                        /* the traced process's pidfd (-1: none; then waits tick every 100 ms) */
  int pid_exited;                   /* the pidfd said the process exited (no longer polled) */
  int wake_fd;                      /* the caller's: readable wakes the waits (a signal's self-pipe); -1: none (0 is stdin) */
};

struct trc_ep_start_cfg {
  char **command;                   /* launch mode: COMMAND [ARGS], NULL-terminated */
  pid_t pid;                        /* attach mode (command NULL) */
  enum trc_profile profile;
  int stacks;                       /* a call stack with every event, method events and the
                                       rundown at the end (record --stacks) */
  int settings_rundown;             /* the rundown's runtime information and GC settings at
                                       the end (record; cheap: no method rundown) */
  int child_out_fd;                 /* launch: COMMAND's stdout/stderr (-1: ours) */
  int child_in_fd;                  /* launch: COMMAND's stdin (-1: ours) */
  const volatile sig_atomic_t *interrupted;  /* non-zero: give up waiting */
  int wake_fd;                      /* readable: trc_ep_read returns early (a signal's self-pipe); -1: none (0 is stdin) */
  const struct gcs_nettrace_reqspec *requests;  /* --requests: their providers too (and the */
  int nrequests;                    /* TplEventSource keyword that sets activity ids) */
};

/* Start the session. On failure everything is released (a held COMMAND is
 * killed). */
int trc_ep_start(struct trc_ep_session *s, const struct trc_ep_start_cfg *cfg, char *err, size_t errlen);
/* Read what the stream has within timeout_ms (-1: no deadline): bytes read
 * (> 0), 0 if nothing came, TRC_EP_EOF at the end of the stream, -1 on an
 * error. The wait blocks in poll() on the stream and returns 0 early when
 * something else needs the caller: the process exited (its pidfd), a
 * runtime connected to our port (answered here), wake_fd is readable
 * (drained here). Without a pidfd, no wait is longer than 100 ms. */
long trc_ep_read(struct trc_ep_session *s, void *buf, size_t cap, int timeout_ms, char *err, size_t errlen);
/* Launch mode, after trc_ep_close (no port left to answer): block in
 * waitpid() until COMMAND exits or a signal interrupts the wait. */
void trc_ep_wait_child(struct trc_ep_session *s);
/* Launch mode: answer runtimes that COMMAND's children start (they go on
 * untraced), and reap COMMAND if it exited. */
void trc_ep_serve(struct trc_ep_session *s);
/* Has the traced process exited? (launch: reaps COMMAND) */
int trc_ep_target_gone(struct trc_ep_session *s);
/* StopTracing (best effort once the process is gone); 0 or -1 with err. */
int trc_ep_stop(struct trc_ep_session *s, char *err, size_t errlen);
/* Launch mode: SIGTERM COMMAND, then SIGKILL after grace_ms; reaps it. */
void trc_ep_kill_child(struct trc_ep_session *s, int grace_ms);
void trc_ep_close(struct trc_ep_session *s);

#endif
