/* test_trc_untrusted — a firing the transport does not trust (LTTng: trigger
 * notifications were discarded meanwhile, so the pair may join the begin and
 * the end of two pauses) is not captured, and record says so: one line for
 * the pause (at most one a second) and a count in the closing lines, instead
 * of nothing (before, a long pause seen while notifications were lost left
 * no word in the output, and the closing line said "no trigger fired").
 *
 * The capture controller (trc_capture_record) runs a fake transport whose
 * run() feeds three gen1 GCs by hand: GC 1 lasts 300 ms, GC 2 lasts 200 ms
 * (1 ms later: within the second, no second line), GC 3 lasts 10 ms (under
 * the 50 ms threshold: no firing). Its trusted() says no; write_capture must
 * never be called. stdout goes to a file, read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gcs_enums.h"
#include "gcs_test_event.h"
#include "trc_capture.h"
#include "trc_opts.h"

#define MS 1000000ull
#define T0 (1700000000ull * 1000000000ull)
#define PID 4242

static int writes, asked;

static void gc(struct trc_capture *c, uint32_t count, uint64_t start_ms, uint64_t end_ms) {
  struct gcs_event e = gcs_test_event(gcs_kind_GCStart, PID, PID, T0 + start_ms * MS);
  e.u.GCStart.Count = count;
  e.u.GCStart.Depth = 1;
  e.u.GCStart.Type = GCS_GC_TYPE_NON_CONCURRENT;
  trc_capture_event(c, &e);
  e = gcs_test_event(gcs_kind_GCEnd, PID, PID, T0 + end_ms * MS);
  e.u.GCEnd.Count = count;
  e.u.GCEnd.Depth = 1;
  trc_capture_event(c, &e);
}

static int run(struct trc_capture *c) {
  gc(c, 1, 0, 300);
  gc(c, 2, 301, 501);
  gc(c, 3, 502, 512);
  trc_capture_due(c);
  trc_capture_last(c);
  trc_capture_report(c);
  fflush(stdout);
  return 0;
}
static int poll_none(struct trc_capture *c, int ms) { (void)c; (void)ms; return 1; }
static int write_capture(struct trc_capture *c, const char *name, const char *path, char *err, size_t n) {
  (void)c; (void)name; (void)path;
  writes++;
  snprintf(err, n, "no capture expected");
  return -1;
}
static uint64_t rearm_ns(struct trc_capture *c) { (void)c; return 0; }
static int untrusted(struct trc_capture *c) { (void)c; asked++; return 0; }

static const struct trc_transport_ops fake = {
  .capture_name = "capture-%d", .exact = 1, .run = run, .poll = poll_none,
  .write_capture = write_capture, .rearm_ns = rearm_ns, .trusted = untrusted,
};

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  static char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

int main(void) {
  char tmp[] = "/tmp/gcs-untrusted-XXXXXX";
  CHECK(mkdtemp(tmp) != NULL);
  char out[sizeof tmp + 16], dir[sizeof tmp + 16];
  snprintf(out, sizeof out, "%s/out.txt", tmp);
  snprintf(dir, sizeof dir, "%s/t", tmp);
  char *argv[] = { "record", "-o", dir, "--stop-on-gc-over", "50", "--delay-after-trigger", "0", "--", "true", NULL };
  struct trc_opts o;
  CHECK(trc_opts_parse(9, argv, &o) == 0);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  CHECK(saved >= 0 && freopen(out, "w", stdout) != NULL);
  static struct trc_capture cap;
  int rc = trc_capture_record(&cap, &fake, NULL, &o);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  const char *text = slurp(out);
  CHECK(text != NULL);
  if (!text) return 1;
  fprintf(stderr, "%s", text);
  CHECK(rc == 0);
  CHECK(writes == 0);
  CHECK(asked == 2);   /* GC 1 and GC 2 fired; GC 3 is under the threshold */
  CHECK(count(text, "gcscope record: trigger gc-over 50 ms: pid 4242 GC #1 gen1 NonConcurrentGC: 300.000 ms "
                    "not taken: notifications were lost meanwhile (the pair may join two pauses)\n") == 1);
  CHECK(count(text, "not taken: notifications were lost meanwhile") == 1);   /* GC 2: within the second */
  CHECK(count(text, "gcscope record: 2 firings not taken: notifications were lost around them\n") == 1);
  CHECK(strstr(text, "no trigger fired") == NULL);
  unlink(out);
  rmdir(dir);
  rmdir(tmp);
  trc_opts_free(&o);
  return check_done();
}
