/*
 * trc_eventpipe.c — the EventPipe transport of `gcscope record`
 * (trc_eventpipe.h) for the capture controller (trc_capture.h).
 *
 * One thread, one loop, blocked in poll() on what it waits for: the
 * session's connection, the process's exit (a pidfd), a signal (a self-pipe
 * the handler writes to), with a timeout only for a deadline (--duration, a
 * capture that is due). Nothing wakes it while the program runs quietly. Without a trigger, what arrives is
 * appended to trace.nettrace (a killed gcscope leaves the prefix received so
 * far) and the summary replays the file through the stop-trigger rules
 * (trc_replay, core/triggers), as the LTTng path's summary does. With
 * triggers, the stream is decoded as it arrives (gcs_nettrace_stream, live
 * mode) into the controller's rules, timed by the events' own timestamps,
 * and kept in a flight recorder (trc_ep_flight.h) the controller has written
 * out as capture-K.nettrace.
 */
#include "trc_eventpipe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gcs_dsipc.h"
#include "gcs_nettrace.h"
#include "gcs_triggers.h"
#include "trc_capture.h"
#include "trc_ep_flight.h"
#include "trc_ep_session.h"
#include "trc_fire.h"
#include "trc_replay.h"
#include "trc_sig.h"

#define DRAIN_AFTER_STOP_MS 10000  /* StopTracing: the runtime flushes, then closes */
#define DRAIN_AFTER_EXIT_MS 3000   /* the process is gone: its socket closes at once */
#define LIVE_LAG_NS 500000000ull   /* events are ordered across threads this long after they arrive */

static int64_t mono_ms(void) { return trc_capture_now_ms(); }

struct eprec {
  struct trc_ep_session s;
  int out_fd;                        /* trace.nettrace (the controller's trace_path), -1 with triggers */
  uint64_t bytes;                    /* received (written, without triggers) */
  uint64_t max_bytes;                /* --max-size in bytes; 0: no limit */
  int capped;                        /* stopped at max_bytes */
  uint8_t head[8];                   /* the stream's first bytes: "Nettrace" */
  size_t headn;
  int exited;
  /* triggers: the stream decoded live into the controller, the flight recorder */
  struct gcs_nettrace_stream *ns;
  struct trc_epf *fr;
  uint64_t last_ts;                  /* the newest event's timestamp */
  uint64_t req_start[4], req_stop[4]; /* --requests with triggers: request events seen, by source */
  int no_requests;                   /* --requests named a pair none of whose events came */
  /* the traced process as /proc showed it at the start, written beside the
   * first capture (process.tsv) */
  char comm[64], cmdline[4096], version[128];
  int process_noted;
  int64_t last_bytes_ms;             /* when the stream last brought bytes (monotonic) */
  int idle_flushed;                  /* the pending events were delivered since */
};

int trc_eventpipe_wanted(const struct trc_opts *o) {
  if (o->transport == TRC_TRANSPORT_EVENTPIPE) return 1;
  if (o->transport == TRC_TRANSPORT_LTTNG) return 0;
  if (o->dotnet) return 1;
  return o->pid > 0 && gcs_dsipc_has_socket(o->pid);
}

static int usage_error(const char *what, const char *why) {
  fprintf(stderr, "gcscope record: %s is not available over EventPipe (%s)\n", what, why);
  return 2;
}

static int check_options(const struct trc_opts *o) {
  if (o->relayd) return usage_error("--relayd", "it streams LTTng traces; use --transport lttng");
  if (o->subbuf_size || o->num_subbuf)
    return usage_error("--buffer-size/--num-subbuf", "they size LTTng's buffers; the runtime's are its own");
  if (o->circular_mb > 0 && !trc_opts_any_trigger(o))
    return usage_error("--circular-mb without a --stop-on-... trigger", "the whole stream is written to disk");
  if (!o->command && !o->pid) {
    fprintf(stderr, "gcscope record: --dotnet needs a COMMAND (launch) or --pid PID\n");
    return 2;
  }
  return 0;
}

/* ---- triggers on the live stream ----------------------------------------- */

static int on_live_event(const struct gcs_event *ev, void *ud) {
  struct trc_capture *c = ud;
  struct eprec *r = c->tx;
  if (ev->ts_ns > r->last_ts) r->last_ts = ev->ts_ns;
  if (ev->kind == gcs_kind_SourceRequestStart || ev->kind == gcs_kind_SourceRequestStop) {
    uint8_t src = ev->u.SourceRequestStart.Source < 4 ? ev->u.SourceRequestStart.Source : 0;
    if (ev->kind == gcs_kind_SourceRequestStart) r->req_start[src]++;
    else r->req_stop[src]++;
  }
  if (gcs_triggers_event_needed(ev->kind)) trc_capture_event(c, ev);
  return 0;
}

/* A capture thread's sequence gap, with its window (gcs_nettrace_lost): the
 * GCs whose events span it are incomplete for the rules too. */
static int on_live_lost(const struct gcs_nettrace_lost *l, void *ud) {
  struct trc_capture *c = ud;
  gcs_triggers_lost(c->m, l->begin_ns, l->end_ns, l->count);
  return 0;
}

static int on_live_object(const struct gcs_nettrace_object *o, void *ud) {
  return trc_epf_add(o, ((struct eprec *)((struct trc_capture *)ud)->tx)->fr);
}

/* The rules are timed by the events: re-armed after the newest one. */
static uint64_t rearm_ns(struct trc_capture *c) { return ((struct eprec *)c->tx)->last_ts + 1; }

static void note_process(struct eprec *r, const char *outdir);

static int write_capture(struct trc_capture *c, const char *name, const char *path, char *err, size_t errlen) {
  (void)name;
  if (gcs_nettrace_write_requests(path, c->o->requests, c->o->nrequests, err, errlen)) return -1;
  int rc = trc_epf_write(((struct eprec *)c->tx)->fr, path, err, errlen);
  if (rc == 0) note_process(c->tx, c->outdir);
  return rc;
}

/* The traced process's name and command line, read while it runs: a
 * capture keeps the flight recorder's last blocks, not the stream's first
 * ones where the runtime names its process, so record notes them in
 * OUTDIR/process.tsv beside the first capture and `import` names a
 * capture's process from it (core/import). Best effort. */
static void read_process(struct eprec *r, pid_t pid) {
  char path[64];
  /* the runtime's own answer (ProcessInfo2, as `gcscope ps` asks): its
   * version, which an attach-mode stream does not carry */
  struct gcs_dsipc_endpoint ep;
  static struct gcs_dsipc_process_info info;
  char err[256];
  if (!r->s.launch && gcs_dsipc_attach_pid(&ep, pid, err, sizeof err) == 0) {   /* launch: RuntimeInformation says */
    ep.timeout_ms = 2000;
    if (gcs_dsipc_process_info(&ep, &info, err, sizeof err) == 0)
      snprintf(r->version, sizeof r->version, "%.*s", (int)strcspn(info.runtime_version, "+"), info.runtime_version);
  }
  snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
  FILE *f = fopen(path, "r");
  if (f) {
    if (fgets(r->comm, sizeof r->comm, f)) r->comm[strcspn(r->comm, "\n\t")] = '\0';
    fclose(f);
  }
  snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
  f = fopen(path, "r");
  if (f) {
    size_t n = fread(r->cmdline, 1, sizeof r->cmdline - 1, f);
    fclose(f);
    r->cmdline[n] = '\0';
    while (n > 0 && r->cmdline[n - 1] == '\0') n--;
    for (size_t i = 0; i < n; i++)
      if (r->cmdline[i] == '\0' || r->cmdline[i] == '\t' || r->cmdline[i] == '\n') r->cmdline[i] = ' ';
  }
}

static void note_process(struct eprec *r, const char *outdir) {
  if (r->process_noted || (!r->comm[0] && !r->cmdline[0])) return;
  r->process_noted = 1;
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/process.tsv", outdir);
  FILE *f = fopen(path, "w");
  if (!f) return;
  fprintf(f, "pid\tname\tcommand_line\truntime_version\n%d\t%s\t%s\t%s\n", (int)r->s.pid, r->comm, r->cmdline,
          r->version);
  fclose(f);
}

/* ---- the stream ---------------------------------------------------------- */

static int write_all(struct trc_capture *c, const uint8_t *buf, size_t n) {
  struct eprec *r = c->tx;
  for (size_t off = 0; off < n;) {
    ssize_t w = write(r->out_fd, buf + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) { snprintf(c->err, sizeof c->err, "writing %s: %s", c->trace_path, strerror(errno)); return -1; }
    off += (size_t)w;
  }
  return 0;
}

/* Take what the connection has: 1 at the end of the stream, 0 otherwise,
 * -1 on an error (in c->err). */
static int pump(struct trc_capture *c, int timeout_ms) {
  static uint8_t buf[1 << 16];
  struct eprec *r = c->tx;
  if (r->capped) return 1;
  if (r->ns && !r->idle_flushed) {   /* wake when the stream has been quiet for the lag */
    int64_t left = (int64_t)(LIVE_LAG_NS / 1000000) - (mono_ms() - r->last_bytes_ms);
    if (left < 0) left = 0;
    if (timeout_ms < 0 || timeout_ms > left) timeout_ms = (int)left;
  }
  long got = trc_ep_read(&r->s, buf, sizeof buf, timeout_ms, c->err, sizeof c->err);
  if (got == TRC_EP_EOF) return 1;
  if (got == 0 && r->ns && !r->idle_flushed && mono_ms() - r->last_bytes_ms >= (int64_t)(LIVE_LAG_NS / 1000000)) {
    /* quiet for the ordering lag: what is pending is all there is (an idle
     * runtime sends nothing newer to push it out), so the rules see it now */
    char err[512];
    r->idle_flushed = 1;
    if (gcs_nettrace_stream_idle(r->ns, err, sizeof err)) {
      snprintf(c->err, sizeof c->err, "cannot decode the stream, the triggers cannot work: %s", err);
      return -1;
    }
  }
  if (got <= 0) return (int)got;
  /* Whatever answers on the socket chose these bytes: they must be a
   * nettrace stream from the first byte on. */
  for (long i = 0; r->headn < sizeof r->head && i < got; i++) r->head[r->headn++] = buf[i];
  if (r->headn == sizeof r->head && r->bytes < sizeof r->head && memcmp(r->head, "Nettrace", 8) != 0) {
    snprintf(c->err, sizeof c->err, "pid %d: what its diagnostic socket sent is not a nettrace stream (no "
             "\"Nettrace\" magic)%s%s", (int)r->s.pid, r->out_fd >= 0 ? "; the bytes received are in " : "",
             r->out_fd >= 0 ? c->trace_path : "");
    if (r->out_fd >= 0) (void)write_all(c, buf, (size_t)got);
    return -1;
  }
  /* --max-size: the file stops there (cut like a killed recording: the
   * whole blocks before the cut are the trace). */
  if (r->max_bytes && r->out_fd >= 0 && r->bytes + (uint64_t)got >= r->max_bytes) {
    got = (long)(r->max_bytes - r->bytes);
    r->capped = 1;
  }
  r->last_bytes_ms = mono_ms();
  r->idle_flushed = 0;
  if (r->bytes == 0 && r->out_fd >= 0) note_process(r, c->outdir);   /* a trace has begun: its process's note */
  r->bytes += (uint64_t)got;
  if (r->out_fd >= 0 && got > 0 && write_all(c, buf, (size_t)got)) return -1;
  if (r->capped) return 1;
  if (r->ns) {
    char err[512];
    if (gcs_nettrace_stream_feed(r->ns, buf, (size_t)got, err, sizeof err)) {
      snprintf(c->err, sizeof c->err, "cannot decode the stream, the triggers cannot work: %s", err);
      return -1;
    }
  }
  return 0;
}

static void stop_session(struct eprec *r) {
  char err[512];
  if (trc_ep_stop(&r->s, err, sizeof err)) fprintf(stderr, "gcscope record: %s\n", err);
}

static int record_loop(struct trc_capture *c) {
  struct eprec *r = c->tx;
  const struct trc_opts *o = c->o;
  int64_t end = o->duration_sec > 0 ? mono_ms() + (int64_t)(o->duration_sec * 1000) : 0;
  for (;;) {
    int p = trc_sig ? 0 : pump(c, trc_capture_wait_ms(c, end));
    trc_ep_serve(&r->s);   /* processes the command starts go on untraced */
    if (p == 1 && r->capped) {   /* --max-size: the session is stopped, what it still sends is dropped */
      stop_session(r);
      c->eof = 1;
      break;
    }
    if (p == 1) { c->eof = 1; break; }
    if (p < 0) return -1;
    if (trc_capture_due(c)) {
      printf("gcscope record: all %d capture%s taken%s\n", c->captures, c->captures == 1 ? "" : "s",
             r->s.launch ? "; waiting for the command to exit" : "");
      fflush(stdout);
      stop_session(r);
      return trc_capture_drain(c, DRAIN_AFTER_STOP_MS);
    }
    if (trc_ep_target_gone(&r->s)) {
      r->exited = 1;
      return trc_capture_drain(c, DRAIN_AFTER_EXIT_MS);
    }
    if (trc_sig || (end && mono_ms() >= end)) {
      stop_session(r);
      if (trc_capture_drain(c, DRAIN_AFTER_STOP_MS)) return -1;
      /* --duration: like timeout(1), the command is asked to stop too. */
      if (r->s.launch && !trc_sig) {
        trc_ep_serve(&r->s);
        if (!r->s.child_done && kill(r->s.child.pid, SIGTERM) == 0) c->command_stopped = 1;
      }
      return 0;
    }
  }
  r->exited = trc_ep_target_gone(&r->s);
  if (!r->exited && !r->s.launch) {
    /* the runtime closes the stream as its process exits: give it a moment */
    if (r->s.pidfd >= 0)   /* up to 1 s for its exit; a signal ends the wait */
      r->exited = trc_sig_sleep(r->s.pidfd, 1000) || trc_ep_target_gone(&r->s);
    else
      for (int i = 0; i < 20 && !(r->exited = trc_ep_target_gone(&r->s)); i++) usleep(50000);
  }
  return 0;
}

/* A runtime that dies mid-session closes the stream without the
 * end-of-stream tag (FastSerialization's NullReference, one byte 0x01). When
 * the stream was cut between two blocks, that byte makes the file whole; if
 * the file still does not read whole, it is put back as received. Returns 1
 * if the tag was added. */
static int stream_whole(const char *path) {
  char err[512];
  struct gcs_nettrace_info info;
  memset(&info, 0, sizeof info);
  return gcs_nettrace_read(path, NULL, NULL, &info, err, sizeof err) == 0 && !info.truncated;
}

static int close_cut_stream(const struct trc_capture *c) {
  const struct eprec *r = c->tx;
  if (!c->eof || stream_whole(c->trace_path)) return 0;
  int fd = open(c->trace_path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return 0;
  int added = write(fd, "\x01", 1) == 1;
  if (added && !stream_whole(c->trace_path)) {
    added = 0;
    if (ftruncate(fd, (off_t)r->bytes) != 0) {}
  }
  close(fd);
  return added;
}

/* --requests: what came of each pair; a pair none of whose events came is
 * one error line (the trace is kept). */
static void print_requests(struct trc_capture *c, const uint64_t *start, const uint64_t *stop) {
  struct eprec *r = c->tx;
  const struct trc_opts *o = c->o;
  for (int i = 0; i < o->nrequests; i++) {
    const struct gcs_nettrace_reqspec *q = &o->requests[i];
    int src = q->source;
    if (src == GCS_NT_REQ_CUSTOM && i > 0 && o->requests[i - 1].source == GCS_NT_REQ_CUSTOM) continue;
    if (start[src] + stop[src] == 0) {
      r->no_requests = 1;
      if (src == GCS_NT_REQ_ASPNET)
        fprintf(stderr, "gcscope record: no %s events: is this an ASP.NET Core app?\n", q->provider);
      else if (src == GCS_NT_REQ_HTTP)
        fprintf(stderr, "gcscope record: no %s events: does this app send requests with HttpClient?\n", q->provider);
      else
        fprintf(stderr, "gcscope record: no %s %s/%s events came\n", q->provider, q->start, q->stop);
      continue;
    }
    printf("gcscope record: %s requests: %llu started, %llu ended\n",
           src == GCS_NT_REQ_ASPNET ? "ASP.NET Core" : src == GCS_NT_REQ_HTTP ? "HttpClient" : "custom",
           (unsigned long long)start[src], (unsigned long long)stop[src]);
  }
}

/* The whole stream on disk: summarised from the file, as `gcscope stats` reads it. */
static int print_trace_summary(struct trc_capture *c) {
  const struct eprec *r = c->tx;
  int closed = close_cut_stream(c);
  static struct trc_replay rp;
  char err[512] = "";
  int rc = trc_replay(c->trace_path, NULL, 0, NULL, &rp, err, sizeof err);
  printf("gcscope record: trace in %s (%llu bytes)\n", c->trace_path, (unsigned long long)r->bytes);
  trc_capture_print_counts(&rp.sum, 1, rc == 0 && !rp.truncated ? "" : "; the part of the stream that was decoded");
  if (rp.lost) printf(" (%llu events lost)", (unsigned long long)rp.lost);
  printf("\n");
  if (closed)
    printf("gcscope record: the stream ended without its end-of-stream tag (the runtime did not close the session); "
           "gcscope added it after the last whole block\n");
  if (r->capped)
    printf("gcscope record: the trace reached --max-size (%.0f MB): the recording stopped there\n",
           (double)r->max_bytes / 1e6);
  if (rc == 0 && rp.truncated)
    printf("gcscope record: the stream was cut inside a block; its whole blocks are the trace (import keeps them)\n");
  if ((rc != 0 || rp.truncated) && !c->eof)
    printf("gcscope record: the stream did not end (the runtime did not close it in time)\n");
  if (rc == 0) print_requests(c, rp.req_start, rp.req_stop);
  /* Not even a Trace object: no trace a reader can open (exit 1). */
  if (rc != 0) snprintf(c->err, sizeof c->err, "no usable trace: %s", err);
  return rc != 0 ? -1 : 0;
}

/* Triggers: the stream was decoded live, by the events' own timestamps. */
static void print_watch_summary(struct trc_capture *c) {
  const struct eprec *r = c->tx;
  char err[512];
  int cut = gcs_nettrace_stream_finish(r->ns, err, sizeof err);
  struct gcs_trigger_summary t;
  gcs_triggers_finish(c->m, &t);
  /* due after the stream ended (the process exited): the kept blocks hold it */
  trc_capture_last(c);
  trc_capture_report(c);
  trc_capture_print_counts(&t, 1, "");
  const struct gcs_nettrace_info *info = gcs_nettrace_stream_info(r->ns);
  if (info && info->events_lost) printf(" (%llu events lost)", (unsigned long long)info->events_lost);
  printf(" (%llu bytes of stream)\n", (unsigned long long)r->bytes);
  if (cut > 0 && c->eof) printf("gcscope record: the stream ended inside a block: %s\n", err);
  print_requests(c, r->req_start, r->req_stop);
}

static void finish_child(struct eprec *r) {
  if (!r->s.launch || r->s.child.pid <= 0) return;
  if (trc_sig && trc_sig_forward) {
    trc_ep_serve(&r->s);
    if (!r->s.child_done) kill(r->s.child.pid, trc_sig);
  }
  /* The session is closed: a runtime the command starts now finds no port
   * and goes on. Block until the command exits; a second signal gives up. */
  int nsig = trc_nsig;
  while (!r->s.child_done) {
    trc_ep_wait_child(&r->s);
    if (r->s.child_done || (trc_nsig != nsig && trc_nsig > 1)) break;
  }
}

static int start_watch(struct trc_capture *c) {
  struct eprec *r = c->tx;
  const struct trc_opts *o = c->o;
  double mb = o->circular_mb > 0 ? o->circular_mb : TRC_DEFAULT_TRIGGER_CIRCULAR_MB;
  r->fr = trc_epf_new((uint64_t)(mb * 1e6));
  r->ns = r->fr ? gcs_nettrace_stream_new("the EventPipe stream", on_live_event, on_live_object, c) : NULL;
  if (r->ns) gcs_nettrace_stream_set_lost(r->ns, on_live_lost, NULL);
  if (!r->ns) { snprintf(c->err, sizeof c->err, "out of memory"); return -1; }
  gcs_nettrace_stream_set_live(r->ns, LIVE_LAG_NS);
  for (int i = 0; i < o->nrequests; i++)
    if (o->requests[i].source == GCS_NT_REQ_CUSTOM) gcs_nettrace_stream_add_requests(r->ns, &o->requests[i]);
  return 0;
}

/* An attach that failed: its line names the process (a runtime that never
 * answers says only which request went unanswered). */
static void name_pid(char *err, size_t errlen, pid_t pid) {
  char p1[32], p2[48];
  snprintf(p1, sizeof p1, "process %d ", (int)pid);
  snprintf(p2, sizeof p2, "dotnet-diagnostic-%d-", (int)pid);
  if (!strncmp(err, p1, strlen(p1)) || strstr(err, p2)) return;
  char tmp[PATH_MAX + 600];
  snprintf(tmp, sizeof tmp, "pid %d: %s", (int)pid, err);
  size_t n = strlen(tmp) < errlen ? strlen(tmp) : errlen - 1;
  memcpy(err, tmp, n);
  err[n] = '\0';
}

static int record(struct trc_capture *c) {
  struct eprec *r = c->tx;
  const struct trc_opts *o = c->o;
  if (c->triggers) {
    if (start_watch(c)) return -1;
  } else {
    snprintf(c->trace_path, sizeof c->trace_path, "%s/%s", c->outdir, TRC_EP_TRACE_NAME);
    r->out_fd = open(c->trace_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (r->out_fd < 0) {
      snprintf(c->err, sizeof c->err, "cannot write %s: %s", c->trace_path, strerror(errno));
      return -1;
    }
    if (gcs_nettrace_write_requests(c->trace_path, o->requests, o->nrequests, c->err, sizeof c->err)) return -1;
  }
  r->max_bytes = o->max_size_mb > 0 ? (uint64_t)(o->max_size_mb * 1e6) : 0;
  struct trc_ep_start_cfg cfg = { .command = o->command, .pid = o->pid, .profile = o->profile, .stacks = o->stacks, .settings_rundown = 1,
                                  .child_out_fd = -1, .child_in_fd = -1, .interrupted = &trc_sig,
                                  .wake_fd = trc_sig_fd(), .requests = o->requests,
                                  .nrequests = o->nrequests };
  if (trc_ep_start(&r->s, &cfg, c->err, sizeof c->err)) {
    if (!o->command) name_pid(c->err, sizeof c->err, o->pid);
    return -1;
  }
  read_process(r, r->s.pid);   /* noted beside trace.nettrace's first bytes (pump); with triggers, the first capture */
  if (c->triggers)
    printf("gcscope record: watching pid %d over EventPipe for long pauses (flight recorder %g MB in memory, "
           "captures in %s)\n", (int)r->s.pid, o->circular_mb > 0 ? o->circular_mb : TRC_DEFAULT_TRIGGER_CIRCULAR_MB,
           c->outdir);
  else
    printf("gcscope record: recording pid %d over EventPipe to %s\n", (int)r->s.pid, c->trace_path);
  fflush(stdout);
  int rc = record_loop(c);
  trc_ep_close(&r->s);
  if (r->out_fd >= 0) close(r->out_fd);
  r->out_fd = -1;
  if (rc) return -1;
  /* A session that sent nothing, or less than a stream's first 8 bytes: no
   * trace at all (exit 1, not "0 GCs"); the controller removes an empty
   * file with the directory it made (trc_outdir.h). */
  if (r->bytes == 0) {
    snprintf(c->err, sizeof c->err, "pid %d: the session ended without a byte of trace (the diagnostic socket "
             "closed it at once%s)", (int)r->s.pid, c->triggers ? "" : "; no trace written");
    return -1;
  }
  if (r->headn < sizeof r->head) {
    snprintf(c->err, sizeof c->err, "pid %d: the session ended after %llu bytes, not a nettrace stream%s%s",
             (int)r->s.pid, (unsigned long long)r->bytes, c->triggers ? "" : " (they are in ",
             c->triggers ? "" : c->trace_path);
    if (!c->triggers) strncat(c->err, ")", sizeof c->err - strlen(c->err) - 1);
    return -1;
  }
  finish_child(r);
  if (c->triggers) print_watch_summary(c);
  else if (print_trace_summary(c) != 0) return -1;
  if (r->exited && !r->s.stopped && !r->s.launch) printf("gcscope record: process %d exited during the session\n", (int)r->s.pid);
  if (r->s.launch && r->s.child_done) trc_capture_child_status(c, r->s.child_status);
  fflush(stdout);
  return 0;
}

static int run(struct trc_capture *c) {
  struct eprec *r = c->tx;
  int rc = record(c) ? 1 : 0;
  if (rc) {
    fprintf(stderr, "gcscope record: %s\n", c->err);
    if (r->s.launch) trc_ep_kill_child(&r->s, 0);
    trc_ep_close(&r->s);
  }
  if (r->out_fd >= 0) close(r->out_fd);
  r->out_fd = -1;
  return rc;
}

static const struct trc_transport_ops eventpipe_transport = {
  .capture_name = "capture-%d.nettrace", .exact = 1, .wake_on_child = 0, .run = run, .poll = pump,
  .write_capture = write_capture, .rearm_ns = rearm_ns,
};

int trc_eventpipe_record(const struct trc_opts *o) {
  int rc = check_options(o);
  if (rc) return rc;
  static struct eprec rec;
  static struct trc_capture cap;   /* large */
  struct eprec *r = &rec;
  memset(r, 0, sizeof *r);
  r->out_fd = -1;
  r->s.stream_fd = r->s.ep.listen_fd = r->s.ep.spare_fd = r->s.pidfd = -1;
  rc = trc_capture_record(&cap, &eventpipe_transport, r, o);
  gcs_nettrace_stream_free(r->ns);
  trc_epf_free(r->fr);
  r->ns = NULL;
  r->fr = NULL;
  return rc ? rc : r->no_requests;
}
