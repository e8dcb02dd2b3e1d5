/* test_triggers_live_offline — one scripted event sequence through both
 * paths of the stop triggers, which must fire the same pairs:
 *   live:    events -> gcs_triggers (the GC reconstruction's live hooks), as
 *            `gcscope record` feeds the watcher's notifications, each firing
 *            resolved to its GC as record does before a capture;
 *   offline: the same events written by the importer's writer (imw_event)
 *            into a database, then `gcscope triggers DB --format csv`.
 * Expected firings computed by hand from the script (ms after T0), with
 * --gc-over 10 --suspend-over 5 --bgc-final-pause-over 20:
 *   gc-over      pid 42 tid 42 GC 1   begins 102, 13 ms (GCStart 102 -> GCEnd 115)
 *   suspend-over pid 42 tid 42 GC 2   begins 200,  7 ms (SuspendEEEnd 207; Count 1, GCStart 2)
 *   suspend-over pid 42 tid 44 GC 0   begins 500,  9 ms (a debugger suspension: no GC)
 *   bgc-final    pid 42 tid 43 GC 3   begins 400, 25 ms (SuspendForGCPrep 400 -> RestartEEEnd 425)
 * and nothing else: GC 1's 2 ms and GC 4's 5 ms suspensions, GC 2's 3 ms and
 * GC 4's 10 ms (not over: strictly greater) durations, the BGC's 129 ms
 * GCStart -> GCEnd (a background GC never fires gc-over) and its 1 ms
 * initial suspension stay under.
 * argv[1]: the database file to write (overwritten). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "gcs_db.h"
#include "gcs_enums.h"
#include "gcs_insight.h"
#include "gcs_triggers.h"
#include "gcs_test_event.h"
#include "import_writer.h"

static int failures;
#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); failures++; } } while (0)

#define MS 1000000ull
#define T0 (1700000000ull * 1000000000ull)
#define PID 42
#define GC_THREAD 42
#define BGC_THREAD 43
#define DEBUGGER_THREAD 44

static struct gcs_event script[64];
static int nscript;

static struct gcs_event *add(enum gcs_kind k, int32_t tid, uint64_t ms) {
  struct gcs_event *e = &script[nscript++];
  *e = gcs_test_event(k, PID, tid, T0 + ms * MS);
  return e;
}
static void susp(int32_t tid, uint64_t ms, uint32_t reason, uint32_t count) {
  struct gcs_event *e = add(gcs_kind_GCSuspendEEBegin, tid, ms);
  e->u.GCSuspendEEBegin.Reason = reason;
  e->u.GCSuspendEEBegin.Count = count;
}
static void start(uint64_t ms, uint32_t count, uint32_t depth, uint32_t type) {
  struct gcs_event *e = add(gcs_kind_GCStart, GC_THREAD, ms);
  e->u.GCStart.Count = count;
  e->u.GCStart.Depth = depth;
  e->u.GCStart.Type = type;
}
static void end(int32_t tid, uint64_t ms, uint32_t count, uint32_t depth) {
  struct gcs_event *e = add(gcs_kind_GCEnd, tid, ms);
  e->u.GCEnd.Count = count;
  e->u.GCEnd.Depth = depth;
}

/* A blocking GC, CoreCLR style (SuspendEEBegin.Count = n - 1): suspended at
 * t0 for s ms, GCStart -> GCEnd g ms, restarted at once. */
static void blocking(uint64_t t0, uint32_t n, uint32_t depth, uint64_t s, uint64_t g) {
  susp(GC_THREAD, t0, GCS_SUSPEND_REASON_SUSPEND_FOR_GC, n - 1);
  add(gcs_kind_GCSuspendEEEnd, GC_THREAD, t0 + s);
  start(t0 + s, n, depth, GCS_GC_TYPE_NON_CONCURRENT);
  end(GC_THREAD, t0 + s + g, n, depth);
  add(gcs_kind_GCHeapStats, GC_THREAD, t0 + s + g);
  add(gcs_kind_GCRestartEEEnd, GC_THREAD, t0 + s + g);
}

static void build_script(void) {
  blocking(100, 1, GCS_GEN0, 2, 13);
  blocking(200, 2, GCS_GEN1, 7, 3);
  /* BGC 3: 1 ms initial pause, final pause 400 -> 425 on the BGC thread. */
  susp(GC_THREAD, 300, GCS_SUSPEND_REASON_SUSPEND_FOR_GC, 2);
  add(gcs_kind_GCSuspendEEEnd, GC_THREAD, 301);
  start(301, 3, GCS_GEN2, GCS_GC_TYPE_BACKGROUND);
  add(gcs_kind_GCRestartEEEnd, GC_THREAD, 302);
  susp(BGC_THREAD, 400, GCS_SUSPEND_REASON_SUSPEND_FOR_GC_PREP, 3);
  add(gcs_kind_GCSuspendEEEnd, BGC_THREAD, 401);
  add(gcs_kind_GCRestartEEEnd, BGC_THREAD, 425);
  end(BGC_THREAD, 430, 3, GCS_GEN2);
  add(gcs_kind_GCHeapStats, BGC_THREAD, 430);
  /* A debugger suspension: 9 ms, no GC. */
  susp(DEBUGGER_THREAD, 500, GCS_SUSPEND_REASON_SUSPEND_FOR_DEBUGGER, 3);
  add(gcs_kind_GCSuspendEEEnd, DEBUGGER_THREAD, 509);
  add(gcs_kind_GCRestartEEEnd, DEBUGGER_THREAD, 510);
  blocking(600, 4, GCS_GEN0, 5, 10);
}

static const double thresholds[GCS_TRIGGER_NKINDS] = { 10, 5, 20 };

/* One firing as both paths report it. */
struct firing {
  char trigger[32];
  int pid, tid;
  unsigned gc_index;
  double begin_ms, ms;
};

static int live(struct firing *out, int max) {
  struct gcs_triggers *t = gcs_triggers_new(256, NULL, NULL);
  if (!t) return -1;
  for (int k = 0; k < GCS_TRIGGER_NKINDS; k++) gcs_triggers_set_threshold(t, (enum gcs_trigger_kind)k, thresholds[k]);
  struct gcs_trigger_pair fired[16];
  int n = 0;
  for (int i = 0; i < nscript; i++)
    if (gcs_triggers_feed(t, &script[i], &fired[n]) && n < 16) n++;
  for (int i = 0; i < n && i < max; i++) {
    CHECK(gcs_triggers_resolve(t, &fired[i]) == 1);
    snprintf(out[i].trigger, sizeof out[i].trigger, "%s", gcs_trigger_name(fired[i].kind));
    out[i].pid = fired[i].pid;
    out[i].tid = fired[i].tid;
    out[i].gc_index = fired[i].gc_index;
    out[i].begin_ms = (double)(fired[i].begin_ns - T0) / 1e6;
    out[i].ms = fired[i].ms;
  }
  gcs_triggers_free(t);
  return n;
}

static int import_script(const char *path) {
  char err[512];
  unlink(path);
  sqlite3 *db = gcs_db_open(path, err, sizeof err);
  if (!db) { fprintf(stderr, "%s\n", err); return -1; }
  int rc = sqlite3_exec(db, "BEGIN; INSERT INTO traces (id, path, start_ns, end_ns, identity, event_count, "
                            "gc_event_count, discarded, source, imported_ns) VALUES (1, 'scripted', 1700000000000000000, "
                            "1700000001000000000, 'scripted', 0, 0, 0, 'lttng', 0)", NULL, NULL, NULL);
  struct imw *w = rc == SQLITE_OK ? imw_open(db, 1, err, sizeof err) : NULL;
  if (!w) rc = -1;
  if (w) imw_set_time_origin(w, T0);
  for (int i = 0; rc == 0 && i < nscript; i++) rc = imw_event(w, &script[i], err, sizeof err);
  if (rc == 0) rc = imw_finish(w, NULL, err, sizeof err);
  imw_close(w);
  if (rc == 0) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  if (rc != 0) fprintf(stderr, "import: %s / %s\n", err, sqlite3_errmsg(db));
  sqlite3_close(db);
  return rc == 0 ? 0 : -1;
}

/* `gcscope triggers DB --format csv` with the same thresholds; its rows. */
static int offline(const char *db, struct firing *out, int max) {
  char csv[4096];
  snprintf(csv, sizeof csv, "%s.csv", db);
  char *argv[] = { "triggers", (char *)db, "--gc-over", "10", "--suspend-over", "5",
                   "--bgc-final-pause-over", "20", "--format", "csv", NULL };
  fflush(stdout);
  int saved = dup(1), fd = open(csv, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (saved < 0 || fd < 0) return -1;
  dup2(fd, 1);
  close(fd);
  int rc = gcs_cmd_triggers(10, argv);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  CHECK(rc == 0);
  FILE *f = fopen(csv, "r");
  if (!f) return -1;
  char line[512];
  int n = 0;
  CHECK(fgets(line, sizeof line, f) && !strcmp(line, "trace_id,trigger,threshold_ms,pid,tid,gc_index,start_ms,duration_ms\n"));
  while (n < max && fgets(line, sizeof line, f)) {
    long trace;
    double thr;
    struct firing *x = &out[n];
    if (sscanf(line, "%ld,%31[^,],%lf,%d,%d,%u,%lf,%lf", &trace, x->trigger, &thr, &x->pid, &x->tid, &x->gc_index,
               &x->begin_ms, &x->ms) != 8) {
      fprintf(stderr, "bad csv line: %s", line);
      failures++;
      continue;
    }
    n++;
  }
  fclose(f);
  return n;
}

static const struct firing *find(const struct firing *v, int n, const char *trigger, unsigned gc, int tid) {
  for (int i = 0; i < n; i++)
    if (!strcmp(v[i].trigger, trigger) && v[i].gc_index == gc && v[i].tid == tid) return &v[i];
  return NULL;
}

static void expect(const struct firing *v, int n, const char *path, const char *trigger, int tid, unsigned gc,
                   double begin_ms, double ms) {
  const struct firing *f = find(v, n, trigger, gc, tid);
  if (!f) {
    fprintf(stderr, "%s: no %s firing for GC %u on thread %d\n", path, trigger, gc, tid);
    failures++;
    return;
  }
  CHECK(f->pid == PID);
  CHECK(f->begin_ms > begin_ms - 1e-6 && f->begin_ms < begin_ms + 1e-6);
  CHECK(f->ms > ms - 1e-6 && f->ms < ms + 1e-6);
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: test_triggers_live_offline DB\n"); return 2; }
  build_script();
  struct firing lv[16], off[16];
  int nl = live(lv, 16);
  if (import_script(argv[1]) != 0) return 1;
  int no = offline(argv[1], off, 16);
  const struct { const char *path; const struct firing *v; int n; } paths[] = { { "live", lv, nl }, { "offline", off, no } };
  for (int p = 0; p < 2; p++) {
    CHECK(paths[p].n == 4);
    expect(paths[p].v, paths[p].n, paths[p].path, "gc-over", GC_THREAD, 1, 102, 13);
    expect(paths[p].v, paths[p].n, paths[p].path, "suspend-over", GC_THREAD, 2, 200, 7);
    expect(paths[p].v, paths[p].n, paths[p].path, "suspend-over", DEBUGGER_THREAD, 0, 500, 9);
    expect(paths[p].v, paths[p].n, paths[p].path, "bgc-final-pause-over", BGC_THREAD, 3, 400, 25);
  }
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
