/*
 * tui_live_session.h — the LTTng side of `gcscope top -- COMMAND`: a session
 * daemon (gcs_session's trc_daemon_ensure), an lttng-relayd if none listens on
 * the live port (trc_relayd_ensure: started, and stopped by its PID), a live
 * session streaming to it (trc_session_create in live mode: live timer, the
 * gcs_session's "gc" profile events, vpid/vtid/procname contexts, vpid tracker on
 * COMMAND), and COMMAND itself (gcs_session's trc_child: held until tracing
 * runs, so its first GC is recorded).
 *
 * Ownership: struct tui_lsess is owned by the caller; tui_lsess_close undoes
 * everything tui_lsess_open did, in reverse, and is safe after a failed open.
 * Errors: tui_lsess_open returns -1 with one line in err.
 * Threading: one thread.
 */
#ifndef TUI_LIVE_SESSION_H
#define TUI_LIVE_SESSION_H

#include <stddef.h>
#include <sys/types.h>

#include "trc_child.h"
#include "trc_lttng.h"
#include "trc_outdir.h"

struct tui_lsess {
  char name[64];               /* session name: gcscope-top-<pid> */
  char host[256];              /* this host's name (the relayd's /host/ part) */
  int session_created;
  struct trc_daemon daemon;
  struct trc_relayd relayd;    /* the relayd we started, pid 0 if one already listened */
  struct trc_child child;
  pid_t child_pid;             /* COMMAND, 0 once reaped */
  int child_released;          /* exec'd (else still held on its pipe) */
  int child_status;            /* wait status once reaped */
  char out_path[300];          /* COMMAND's stdout/stderr go here, not to the screen */
  char trace_dir[4096];        /* where the relayd we started writes the live trace ("" if
                                  a relayd already listened: its own output directory) */
  int trace_is_temp;           /* trace_dir is ours to remove at close (no -o DIR) */
  struct trc_outdir keep;      /* -o DIR, made (or refused) by gcs_session's one rule */
  int have_keep, opened;       /* keep made; the open went through (else close undoes keep) */
};

/* keep_dir (-o DIR): the relayd we start writes the trace there and it is
 * kept; NULL: a temporary directory removed at close. keep_dir is made as
 * `record -o` makes its directory (trc_outdir_make: one holding a recording
 * is refused, before COMMAND starts); after a failed open, close removes
 * what was made there that holds no byte. */
int tui_lsess_open(struct tui_lsess *s, char **command, long live_timer_us, const char *keep_dir, char *err,
                   size_t errlen);
/* Has COMMAND exited? Reaps it; returns 1 once (and after), 0 while it runs. */
int tui_lsess_child_exited(struct tui_lsess *s);
void tui_lsess_close(struct tui_lsess *s);

#endif /* TUI_LIVE_SESSION_H */
