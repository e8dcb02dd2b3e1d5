/*
 * trc_sig.h — how `gcscope record` takes SIGINT/SIGTERM and sleeps, for both
 * transports (LTTng: lttng/trc_lttng_rec.c; EventPipe: eventpipe/trc_eventpipe.c),
 * and for the sessions of gcs_session.h (trc_ep_session's pidfd).
 *
 * trc_sig_begin() installs a handler that notes the signal (trc_sig, how many
 * in trc_nsig, whether kill() sent it rather than the terminal in
 * trc_sig_forward) and writes a byte to a self-pipe; with wake_on_child a
 * SIGCHLD handler writes one too. Every wait polls that pipe, so a signal or
 * the command's exit ends a sleep at once, also one arriving just before it
 * (the byte stays in the pipe): no periodic wake-ups. trc_sig_end() restores
 * the previous handlers and closes the pipe.
 *
 * Ownership: the pipe is this module's; pidfds from trc_pidfd_open are the
 * caller's to close. Threading: one recording per process, one thread.
 * Errors: a pipe that cannot be made leaves trc_sig_fd() at -1; sleeps are
 * then capped at TRC_SIG_BLIND_MS so signals are still seen.
 */
#ifndef TRC_SIG_H
#define TRC_SIG_H

#include <signal.h>
#include <sys/types.h>

#define TRC_SIG_BLIND_MS 100

extern volatile sig_atomic_t trc_sig;          /* the last SIGINT/SIGTERM, 0: none yet */
extern volatile sig_atomic_t trc_sig_forward;  /* it was sent by kill(): pass it on to the command */
extern volatile sig_atomic_t trc_nsig;         /* how many arrived */

void trc_sig_begin(int wake_on_child);
void trc_sig_end(void);
/* The pipe's read end (-1: none). Readable after a signal; trc_sig_drain empties it. */
int trc_sig_fd(void);
void trc_sig_drain(void);

/* A descriptor that becomes readable when process pid exits (Linux >= 5.3),
 * close-on-exec; -1 where unavailable. */
int trc_pidfd_open(pid_t pid);

/* Has process pid exited? Gone (ESRCH), or a zombie its parent has not
 * reaped yet, which still answers kill(pid, 0) (its state in /proc tells):
 * the check for when no pidfd is at hand. */
int trc_pid_exited(pid_t pid);

/* Sleep until a signal, pidfd (>= 0) readable, or timeout_ms (>= 0) passes.
 * Returns 1 if the pidfd is readable (the process exited), else 0. */
int trc_sig_sleep(int pidfd, int timeout_ms);

#endif
