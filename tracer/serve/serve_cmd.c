/*
 * serve_cmd.c — `gcscope serve`: a Prometheus/OpenMetrics exporter of the GC
 * figures of every .NET process on the host (gcs_serve.h).
 *
 * The main thread finds processes as `gcscope ps` does (diagnostic sockets,
 * gcs_dsipc_list_pids) once a second, starts a watcher thread for each new
 * one (srv_proc.c), joins watchers that end, and drops an exited process's
 * series --keep-exited seconds after its exit, so that the last scrape sees
 * its final figures. A process that could not be attached, or whose session
 * ended while it still runs, is tried again after RETRY_S seconds.
 * SIGINT/SIGTERM end every session (StopTracing) and the exporter.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gcs_cli.h"
#include "gcs_dsipc.h"
#include "gcs_rules.h"
#include "gcs_serve.h"
#include "srv.h"
#include "trc_lttng.h"
#include "trc_sig.h"

#define SCAN_MS 1000
#define RETRY_S 30
#define MAX_PIDS 64

enum { O_LISTEN, O_PID, O_ALL, O_LTTNG, O_RULES, O_OUT, O_CIRCULAR, O_MAX_CAPTURES, O_KEEP, O_MAX_PROCS, O_DELAY, O_KEEP_STREAM };

static const struct gcs_cli_opt serve_opts[] = {
  [O_LISTEN] = { "listen", 'l', GCS_CLI_STRING, 0, 0, "ADDR:PORT",
                 "where /metrics is served (default 127.0.0.1:9646;\n"
                 ":PORT: every interface; [::1]:PORT: IPv6;\n"
                 "port 0: any free port)" },
  [O_PID] = { "pid", 'p', GCS_CLI_INT, 1, 2147483647, "PID", "watch this .NET process (repeatable)" },
  [O_ALL] = { "all-dotnet", 'a', GCS_CLI_FLAG, 0, 0, NULL,
              "every .NET process, and those that start later\n(the default without --pid)" },
  [O_LTTNG] = { "lttng", 0, GCS_CLI_FLAG, 0, 0, NULL,
                "also every librgc (and CoreCLR LTTng) process, over\nan LTTng live session" },
  [O_RULES] = { "rules", 0, GCS_CLI_STRING, 0, 0, "FILE",
                "stop rules on every process (record's --rules form);\n"
                "firings count in gcscope_trigger_firings_total" },
  [O_OUT] = { "output", 'o', GCS_CLI_STRING, 0, 0, "DIR",
              "with --rules: captures (and firings.tsv) in\nDIR/pid-PID/capture-K.nettrace" },
  [O_CIRCULAR] = { "circular-mb", 0, GCS_CLI_DOUBLE, 1, 4096, "MB",
                   "each process's flight recorder with -o (default 16)" },
  [O_MAX_CAPTURES] = { "max-captures", 0, GCS_CLI_INT, 1, 1000, "N", "captures per process (default 10)" },
  [O_KEEP] = { "keep-exited", 0, GCS_CLI_INT, 0, 86400, "SEC",
               "keep an exited process's series (default 120)" },
  [O_MAX_PROCS] = { "max-processes", 0, GCS_CLI_INT, 1, SRV_MAX_PROCS, "N",
                    "at most N processes at once (default 64)" },
  [O_DELAY] = { "delay-after-trigger", 0, GCS_CLI_DOUBLE, 0, 60, "SEC",
                "capture this long after a rule fired (default 2)" },
  [O_KEEP_STREAM] = { "keep-stream", 0, GCS_CLI_FLAG, 0, 0, NULL,
                      "with -o: each process's whole stream in\nDIR/pid-PID/trace.nettrace (it grows with the run)" },
  { 0 },
};

static const struct gcs_cli_spec serve_spec = {
  .cmd = "serve",
  .usage = "[--listen ADDR:PORT] [--pid PID ...] [--all-dotnet]\n"
           "[--lttng] [--rules FILE] [-o DIR [--keep-stream]]",
  .about = "Exports the GC figures of .NET processes for Prometheus: attaches to\n"
           "each over EventPipe (gc profile), reconstructs every GC and serves\n"
           "/metrics in the Prometheus text format, or OpenMetrics when asked.\n"
           "With --lttng, librgc processes too, through an LTTng live session.\n"
           "Runs until SIGINT or SIGTERM.",
  .opts = serve_opts,
  .epilog = "See docs/serve.md for the metrics, a systemd unit, scrape and alerting rules.",
};

struct cfg {
  char addr[64];
  int port;
  pid_t pids[MAX_PIDS];
  unsigned long long pid_start[MAX_PIDS];
  int npids, all, keep_s, max_procs, lttng;
};

static int parse_listen(const char *s, struct cfg *c) {
  const char *colon = strrchr(s, ':');
  if (!colon) return -1;
  size_t alen = (size_t)(colon - s);
  const char *a = s;
  if (alen >= 2 && s[0] == '[' && s[alen - 1] == ']') { a = s + 1; alen -= 2; }
  if (alen >= sizeof c->addr) return -1;
  memcpy(c->addr, a, alen);
  c->addr[alen] = '\0';
  char *end;
  errno = 0;
  long port = strtol(colon + 1, &end, 10);
  if (errno || end == colon + 1 || *end || port < 0 || port > 65535) return -1;
  c->port = (int)port;
  return 0;
}

/* /proc/<pid>/stat field 22 (start time in jiffies); 0 if unreadable. */
unsigned long long srv_start_time_of(pid_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *p = strrchr(buf, ')');   /* the name may hold spaces and parentheses */
  if (!p) return 0;
  unsigned long long v = 0;
  /* after ") ": state (3) ... starttime (22): 19 fields to skip */
  if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &v) != 1)
    return 0;
  return v;
}

static int alive(pid_t pid) { return !trc_pid_exited(pid); }

/* ---- the process table (main thread) ------------------------------------ */

static struct srv_proc *find(struct srv *s, pid_t pid) {
  for (int i = 0; i < s->nprocs; i++)
    if (s->procs[i]->pid == pid) return s->procs[i];
  return NULL;
}

static void drop(struct srv *s, struct srv_proc *p) {
  srv_proc_request_stop(p);
  srv_proc_join(p);
  pthread_mutex_lock(&s->lock);
  for (int i = 0; i < s->nprocs; i++)
    if (s->procs[i] == p) {
      s->procs[i] = s->procs[--s->nprocs];
      break;
    }
  pthread_mutex_unlock(&s->lock);
  srv_pm_free(p->pm);
  free(p);
}

int srv_count_active_locked(struct srv *s) {
  int n = 0;
  for (int i = 0; i < s->nprocs; i++) n += s->procs[i]->state != SRV_ENDED;
  return n;
}

static int count_active(struct srv *s) {
  pthread_mutex_lock(&s->lock);
  int n = srv_count_active_locked(s);
  pthread_mutex_unlock(&s->lock);
  return n;
}

static void add(struct srv *s, const struct cfg *c, pid_t pid, unsigned long long st, int retry) {
  if (s->nprocs >= SRV_MAX_PROCS || count_active(s) >= c->max_procs) {
    static int said;
    if (!said++) fprintf(stderr, "gcscope serve: watching %d processes already (--max-processes); pid %d and later "
                                 "ones are not watched\n", c->max_procs, (int)pid);
    return;
  }
  struct srv_proc *p = calloc(1, sizeof *p);
  if (!p) return;
  p->srv = s;
  p->pid = pid;
  p->start_time = st;
  p->retry = retry;
  pthread_mutex_lock(&s->lock);
  s->procs[s->nprocs++] = p;
  pthread_mutex_unlock(&s->lock);
  char err[256];
  if (srv_proc_start(p, err, sizeof err)) {
    fprintf(stderr, "gcscope serve: pid %d: %s\n", (int)pid, err);
    pthread_mutex_lock(&s->lock);
    p->state = SRV_ENDED;
    p->ended_ms = srv_mono_ms();
    pthread_mutex_unlock(&s->lock);
  }
}

/* One process seen with a diagnostic socket (or named by --pid). */
static void consider(struct srv *s, const struct cfg *c, pid_t pid, unsigned long long want_start) {
  if (!alive(pid)) return;
  unsigned long long st = srv_start_time_of(pid);
  if (want_start && st != want_start) return;   /* --pid: that process, not a later one with its pid */
  struct srv_proc *p = find(s, pid);
  int retry = 0;
  if (p && p->lttng && p->start_time == st) return;   /* followed over LTTng already */
  if (p) {
    pthread_mutex_lock(&s->lock);
    enum srv_state state = p->state;
    int64_t ended = p->ended_ms;
    int attached = p->attached;
    pthread_mutex_unlock(&s->lock);
    if (p->start_time == st) {
      if (state != SRV_ENDED || srv_mono_ms() - ended < RETRY_S * 1000) return;
      /* a session that ended while the process runs is said again; a failed attach once */
      if (attached) fprintf(stderr, "gcscope serve: pid %d: attaching again\n", (int)pid);
      retry = !attached;
    }
    drop(s, p);   /* pid reuse: a new process; or a retry */
  }
  add(s, c, pid, st, retry);
}

/* Processes srv_lttng.c found join the table (the main thread alone changes it). */
static void merge_pending(struct srv *s) {
  pthread_mutex_lock(&s->lock);
  for (int i = 0; i < s->npending; i++) {
    if (s->nprocs < SRV_MAX_PROCS) s->procs[s->nprocs++] = s->pending[i];
    else { srv_pm_free(s->pending[i]->pm); free(s->pending[i]); }   /* not reached: the reader counts them */
  }
  s->npending = 0;
  pthread_mutex_unlock(&s->lock);
}

static void scan(struct srv *s, const struct cfg *c) {
  merge_pending(s);
  for (int i = 0; i < c->npids; i++) consider(s, c, c->pids[i], c->pid_start[i]);
  if (c->all) {
    static pid_t pids[4096];
    int n = gcs_dsipc_list_pids(pids, 4096);
    if (n > 4096) n = 4096;
    for (int i = 0; i < n; i++) consider(s, c, pids[i], 0);
  }
  /* join the watchers that ended; drop exited processes after --keep-exited */
  int64_t now = srv_mono_ms();
  for (int i = 0; i < s->nprocs;) {
    struct srv_proc *p = s->procs[i];
    pthread_mutex_lock(&s->lock);
    int ended = p->state == SRV_ENDED, attached = p->attached, superseded = p->superseded;
    int64_t at = p->ended_ms;
    pthread_mutex_unlock(&s->lock);
    if (ended) srv_proc_join(p);
    int gone = ended && (!alive(p->pid) || srv_start_time_of(p->pid) != p->start_time);
    if ((ended && superseded) || (gone && (!attached || now - at >= (int64_t)c->keep_s * 1000))) {
      drop(s, p);
      continue;
    }
    i++;
  }
}

/* ---- the command ----------------------------------------------------------- */

static int check_pid(struct cfg *c, pid_t pid) {
  if (!alive(pid)) {
    gcs_cli_fail("no process with pid %d", (int)pid);
    return 1;
  }
  if (!gcs_dsipc_has_socket(pid)) {
    gcs_cli_fail("pid %d is not a .NET process gcscope can attach to (no diagnostic socket in %s; "
                 "or it runs with DOTNET_EnableDiagnostics=0)", (int)pid, gcs_dsipc_socket_dir());
    return 1;
  }
  if (c->npids >= MAX_PIDS) {
    return gcs_cli_fail("at most %d --pid", MAX_PIDS);
  }
  c->pid_start[c->npids] = srv_start_time_of(pid);
  c->pids[c->npids++] = pid;
  return 0;
}

static int load_rules(struct srv *s, const char *path, struct gcs_rule **rules) {
  char err[600];
  int n = 0;
  if (gcs_rules_load(path, rules, &n, err, sizeof err)) return gcs_cli_fail("%s", err);
  if (n > SRV_MAX_RULES) return gcs_cli_fail("%s: at most %d rules", path, SRV_MAX_RULES);
  for (int i = 0; i < n; i++) {
    if (gcs_rule_events_ok(&(*rules)[i], err, sizeof err))
      return gcs_cli_fail("%s: rule %s: %s", path, (*rules)[i].name, err);
    s->rule_names[i] = (*rules)[i].name;
  }
  s->rules = *rules;
  s->nrules = n;
  return 0;
}

static int serve(struct srv *s, struct cfg *c) {
  /* Signals go to the main thread only: the watchers and the HTTP thread
   * inherit the mask. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  signal(SIGPIPE, SIG_IGN);
  char err[300];
  int port = 0;
  struct MHD_Daemon *d = srv_http_start(s, c->addr, c->port, &port, err, sizeof err);
  if (!d) {
    gcs_cli_fail("%s", err);
    return 1;
  }
  int v6 = strchr(c->addr, ':') != NULL;
  if (c->lttng && srv_lttng_start(s, s->keep_stream ? s->outdir : NULL, err, sizeof err)) {
    gcs_cli_fail("--lttng: %s", err);
    srv_lttng_stop(s);
    merge_pending(s);
    srv_http_stop(d);
    return 1;
  }
  fprintf(stderr, "gcscope serve: listening on http://%s%s%s:%d/metrics (%s)\n", v6 ? "[" : "",
          c->addr[0] ? c->addr : "0.0.0.0", v6 ? "]" : "", port,
          c->all ? "every .NET process" : "the processes given");
  for (;;) {
    scan(s, c);
    struct timespec ts = { SCAN_MS / 1000, (SCAN_MS % 1000) * 1000000L };
    int sig = sigtimedwait(&set, NULL, &ts);
    if (sig == SIGINT || sig == SIGTERM) break;
  }
  fprintf(stderr, "gcscope serve: stopping\n");
  srv_lttng_stop(s);
  merge_pending(s);
  for (int i = 0; i < s->nprocs; i++) srv_proc_request_stop(s->procs[i]);
  for (int i = 0; i < s->nprocs; i++) srv_proc_join(s->procs[i]);
  srv_http_stop(d);
  while (s->nprocs) drop(s, s->procs[s->nprocs - 1]);
  /* the session daemon did not answer the session's stop or destruction */
  if (c->lttng && trc_ctl_hung()) {
    gcs_cli_fail("--lttng: %s", trc_ctl_hung());
    return 1;
  }
  return 0;
}

int gcs_cmd_serve(int argc, char **argv) {
  static struct cfg c;
  memset(&c, 0, sizeof c);
  snprintf(c.addr, sizeof c.addr, "127.0.0.1");
  c.port = SRV_DEFAULT_PORT;
  c.keep_s = 120;
  c.max_procs = 64;
  static struct srv s;
  memset(&s, 0, sizeof s);
  s.circular_bytes = 16000000;
  s.max_captures = 10;
  s.capture_delay_s = 2;
  const char *rules_path = NULL;
  struct gcs_cli p;
  gcs_cli_init(&p, &serve_spec, argc, argv);
  pid_t pids[MAX_PIDS];
  int npids = 0;
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&serve_spec, stdout); return 0; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
    switch (k) {
    case O_LISTEN:
      if (parse_listen(p.value, &c))
        return gcs_cli_fail("--listen: expected ADDR:PORT (:9646, [::1]:9646), not '%s'",
                             p.value);
      break;
    case O_PID:
      if (npids >= MAX_PIDS) return gcs_cli_fail("at most %d --pid", MAX_PIDS);
      pids[npids++] = (pid_t)p.ival;
      break;
    case O_ALL: c.all = 1; break;
    case O_LTTNG: c.lttng = 1; break;
    case O_RULES: rules_path = p.value; break;
    case O_OUT: s.outdir = p.value; break;
    case O_CIRCULAR: s.circular_bytes = (uint64_t)(p.dval * 1e6); break;
    case O_MAX_CAPTURES: s.max_captures = (int)p.ival; break;
    case O_KEEP: c.keep_s = (int)p.ival; break;
    case O_MAX_PROCS: c.max_procs = (int)p.ival; break;
    case O_DELAY: s.capture_delay_s = p.dval; break;
    case O_KEEP_STREAM: s.keep_stream = 1; break;
    }
  }
  if (p.optind < argc) return gcs_cli_fail("unexpected argument '%s'", argv[p.optind]);
  if (s.outdir && !rules_path && !s.keep_stream)
    return gcs_cli_fail("-o is for the captures of --rules or --keep-stream; give one");
  if (s.keep_stream && !s.outdir) return gcs_cli_fail("--keep-stream needs -o DIR");
  if (!npids) c.all = 1;
  static struct gcs_rule *rules;
  if (rules_path) {
    int rc = load_rules(&s, rules_path, &rules);
    if (rc) { free(rules); rules = NULL; return rc; }
  }
  int rc = 0;
  for (int i = 0; i < npids && !rc; i++) rc = check_pid(&c, pids[i]);
  if (!rc && s.outdir && mkdir(s.outdir, 0775) != 0 && errno != EEXIST) {
    gcs_cli_fail("cannot create %s: %s", s.outdir, strerror(errno));
    rc = 1;
  }
  if (!rc) {
    s.max_procs = c.max_procs;
    pthread_mutex_init(&s.lock, NULL);
    rc = serve(&s, &c);
    pthread_mutex_destroy(&s.lock);
  }
  free(rules);
  rules = NULL;
  return rc;
}
