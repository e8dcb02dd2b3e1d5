/*
 * import_test — end-to-end tests of gcs_import_paths on the real CoreCLR
 * traces. Every expected value was derived independently from babeltrace2's
 * text output of the same trace (`babeltrace2 DIR`, event counts with
 * sort | uniq -c, packed `__data__` bytes decoded by hand with the layouts of
 * coreclr-lttng-events.md §1.4), never from gcscope.
 *
 * usage: import_test TRACES_DIR TMPDIR CASE
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gcs_db.h"

static const char *traces, *tmpdir;

/* The first column of the first row as an integer: -1 for NULL, -999999 (and
 * a failed check) when the query does not compile. */
static long long q_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *s;
  long long v = -999999;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    CHECK_FAIL("bad query %s: %s", sql, sqlite3_errmsg(db));
    return v;
  }
  if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_type(s, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return v;
}

/* The first column of the first row as text ("" for none or NULL); the buffer
 * is reused by the next call. */
static const char *q_str(sqlite3 *db, const char *sql) {
  static char out[4096];
  sqlite3_stmt *s;
  out[0] = '\0';
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    CHECK_FAIL("bad query %s: %s", sql, sqlite3_errmsg(db));
    return out;
  }
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
    snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  return out;
}

static char *db_path(const char *name) {
  static char p[4096];
  snprintf(p, sizeof p, "%s/%s", tmpdir, name);
  unlink(p);
  char j[4200];
  snprintf(j, sizeof j, "%s-journal", p);
  unlink(j);
  return p;
}

static int import1(const char *db, const char *rel, const struct gcs_import_opts *o, char *err, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", traces, rel);
  const char *paths[1] = { path };
  return gcs_import_paths(db, paths, 1, o, err, n);
}

static const struct gcs_import_opts quiet = { .quiet = 1 };

#define NC31 "coreclr/netcore31-perfcollect-default"

/* Checks on the 3.1 perfcollect trace (imported from the directory or the zip). */
static void check_netcore31(sqlite3 *db) {
  CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM traces"), 1);
  CHECK_STR(q_str(db, "SELECT hostname FROM traces"), "bache-Virtual-Machine");
  CHECK_EQ_INT(q_int(db, "SELECT event_count FROM traces"), 32762);      /* babeltrace2 | wc -l */
  CHECK_EQ_INT(q_int(db, "SELECT gc_event_count FROM traces"), 510);     /* sum of the GC names below */
  CHECK_EQ_INT(q_int(db, "SELECT discarded FROM traces"), 0);
  CHECK_EQ_INT(q_int(db, "SELECT start_ns FROM traces"), 1584489854368881012LL);  /* --clock-seconds, first line */
  CHECK_EQ_INT(q_int(db, "SELECT end_ns FROM traces"), 1584489857492459158LL);    /* last line */
  CHECK_STR(q_str(db, "SELECT source FROM traces"), "lttng");
  /* processes: vpid/procname contexts, counted with sort | uniq -c */
  CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM processes"), 3);
  CHECK_STR(q_str(db, "SELECT group_concat(pid || ':' || name || ':' || event_count, ' ') FROM (SELECT * FROM processes ORDER BY pid)"),
              "5747:dotnet:4838 5767:dotnet:27874 5794:emptyconsole:50");
  CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM processes WHERE host = 'bache-Virtual-Machine'"), 3);
  CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM processes WHERE runtime_version = '3.1.1' AND origin = 'clr'"), 3);
  /* events per name (babeltrace2 counts of each DotNETRuntime* GC event) */
  CHECK_STR(q_str(db, "SELECT group_concat(name || '=' || n, ' ') FROM (SELECT name, count(*) AS n FROM events GROUP BY name ORDER BY name)"),
              "FinalizeObject=282 GCCreateSegment=6 GCEnd=11 GCFinalizersBegin=18 GCFinalizersEnd=18 "
              "GCGlobalHeapHistory=11 GCHeapStats=11 GCMarkWithType=43 GCPerHeapHistory=11 GCRestartEEBegin=11 "
              "GCRestartEEEnd=11 GCStart=11 GCSuspendEEBegin=11 GCSuspendEEEnd=11 GCTriggered=11 "
              "IncreaseMemoryPressure=22 PinPlugAtGCTime=8 RuntimeInformationStart=3");
  /* 11 GCStart in 2 of the 3 processes: 3 in 5747, 8 in 5767 */
  CHECK_STR(q_str(db, "SELECT group_concat(pid || '=' || n, ' ') FROM (SELECT pid, count(*) AS n FROM events WHERE name = 'GCStart' GROUP BY pid ORDER BY pid)"),
              "5747=3 5767=8");
  CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM events WHERE name = 'GCStart' AND version = 2"), 11);
  CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM alloc_ticks"), 0);
  /* Packed GCHeapStats_V1, first one (ts 1584489854.917014516): __data__ decoded by hand:
   * 24, 1529952, 1550040, 0, 24, 0, 146448, 0, 43704, 144, pinned 1, sink 34, handles 259 */
  CHECK_STR(q_str(db, "SELECT payload FROM events WHERE name = 'GCHeapStats' AND ts_ns = 1584489854917014516"),
              "GenerationSize0=24 TotalPromotedSize0=1529952 GenerationSize1=1550040 TotalPromotedSize1=0 "
              "GenerationSize2=24 TotalPromotedSize2=0 GenerationSize3=146448 TotalPromotedSize3=0 "
              "FinalizationPromotedSize=43704 FinalizationPromotedCount=144 PinnedObjectCount=1 "
              "SinkBlockCount=34 GCHandleCount=259");
  /* last one (1584489857.148997080, pid 5747): gen1 7113352, gen2 1453832, LOH 519088, handles 380 */
  CHECK_EQ_INT(q_int(db, "SELECT pid FROM events WHERE name = 'GCHeapStats' AND ts_ns = 1584489857148997080"), 5747);
  CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM events WHERE name = 'GCHeapStats' AND ts_ns = 1584489857148997080 AND "
                 "payload LIKE 'GenerationSize0=24 TotalPromotedSize0=3838112 GenerationSize1=7113352 % "
                 "GenerationSize2=1453832 % GenerationSize3=519088 % GCHandleCount=380'"), 1);
  /* Packed GCPerHeapHistory_V3, first one: 406 bytes, CompactMechanisms 0x80000002,
   * ExtraGen0Commit 2713848, Count 4, SizeBefore [4199456,24,24,146448],
   * SizeAfter [24,1550040,0,0], NewAllocation [6291456,0,0,0] */
  CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM events WHERE name = 'GCPerHeapHistory' AND ts_ns = 1584489854916990417 AND "
                 "payload LIKE '% CompactMechanisms=0x80000002 % HeapIndex=0 ExtraGen0Commit=2713848 Count=4 "
                 "SizeBefore=[4199456,24,24,146448] FreeListBefore=[0,0,0,0] FreeObjBefore=[101480,0,0,0] "
                 "SizeAfter=[24,1550040,0,0] % In=[0,1529904,0,0] PinnedSurv=[816,0,0,0] "
                 "NonePinnedSurv=[1529136,0,0,0] NewAllocation=[6291456,0,0,0]'"), 1);
  /* Packed RuntimeInformationStart (177 bytes): Sku 2, VM 4.0.30319.0, StartupMode 2,
   * empty command line, RuntimeDllPath .../3.1.1/libcoreclr.so */
  CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM events WHERE name = 'RuntimeInformationStart' AND payload LIKE "
                 "'Sku=CoreClr BclMajorVersion=4 BclMinorVersion=0 % VMMajorVersion=4 VMMinorVersion=0 "
                 "VMBuildNumber=30319 VMQfeNumber=0 StartupFlags=0x0 % CommandLine=\"\" % "
                 "RuntimeDllPath=\"/usr/share/dotnet/shared/Microsoft.NETCore.App/3.1.1/libcoreclr.so\"'"), 3);
  /* Per-field GCStart_V2 of the first GC: Count 1, Depth 0, AllocSmall, NonConcurrent, tid 5759 */
  CHECK_STR(q_str(db, "SELECT tid || ' ' || payload FROM events WHERE name = 'GCStart' ORDER BY ts_ns LIMIT 1"),
              "5759 Count=1 Depth=0 Reason=AllocSmall Type=NonConcurrentGC ClientSequenceNumber=0");
  /* GC times count from the trace start, the first event of the trace (PerfView's
   * CTF reader: sessionStartTimeQPC = first event), 1584489854.368881012 in
   * `babeltrace2 --clock-seconds`. Pause start of a blocking GC = its
   * GCSuspendEEBegin_V1: pid 5747's first at 1584489854.906959258 (538.078246 ms),
   * pid 5767's first at 1584489855.350963324 (982.082312 ms). */
  CHECK_EQ_INT(q_int(db, "SELECT CAST(round(pause_start_msec * 1000000) AS INTEGER) FROM gcs WHERE pid = 5747 AND gc_index = 1"),
             538078246);
  CHECK_EQ_INT(q_int(db, "SELECT CAST(round(pause_start_msec * 1000000) AS INTEGER) FROM gcs WHERE pid = 5767 AND gc_index = 1"),
             982082312);
  /* time order */
  CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM (SELECT ts_ns, lag(ts_ns) OVER (ORDER BY id) AS p FROM events) WHERE ts_ns < p"), 0);
}

static int t_netcore31_dir(void) {
  char err[1024];
  const char *db = db_path("nc31dir.db");
  CHECK(import1(db, NC31, &quiet, err, sizeof err) == 0);
  sqlite3 *h;
  CHECK(sqlite3_open(db, &h) == SQLITE_OK && gcs_db_functions(h) == 0);
  check_netcore31(h);
  /* GCs are reconstructed and stored by gcs_recon: one row per GCStart */
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM gcs"), 11);
  sqlite3_close(h);
  return 0;
}

static int t_netcore31_zip(void) {
  char err[1024];
  const char *db = db_path("nc31zip.db");
  CHECK(import1(db, NC31 "/clr-only.trace.zip", &quiet, err, sizeof err) == 0);
  sqlite3 *h;
  CHECK(sqlite3_open(db, &h) == SQLITE_OK && gcs_db_functions(h) == 0);
  check_netcore31(h);
  CHECK_STR(q_str(h, "SELECT substr(path, -18) FROM traces"), "clr-only.trace.zip");
  sqlite3_close(h);
  return 0;
}

/* The 2017 traces: 12 GCStart_V2 + 12 GCEnd_V1; 721 GCAllocationTick_V3. */
static int t_2017(void) {
  char err[1024];
  const char *db = db_path("t2017.db");
  CHECK(import1(db, "coreclr/netcore2017-gcstart-gcend", &quiet, err, sizeof err) == 0);
  CHECK(import1(db, "coreclr/netcore2017-allocationtick", &quiet, err, sizeof err) == 0);
  sqlite3 *h;
  CHECK(sqlite3_open(db, &h) == SQLITE_OK && gcs_db_functions(h) == 0);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM traces WHERE hostname = 'osboxes'"), 2);
  CHECK_EQ_INT(q_int(h, "SELECT event_count FROM traces WHERE id = 1"), 24);
  CHECK_EQ_INT(q_int(h, "SELECT start_ns FROM traces WHERE id = 1"), 1501244079237552889LL);
  CHECK_EQ_INT(q_int(h, "SELECT end_ns FROM traces WHERE id = 1"), 1501244080554057282LL);
  CHECK_STR(q_str(h, "SELECT group_concat(name || '=' || n, ' ') FROM (SELECT name, count(*) AS n FROM events WHERE trace_id = 1 GROUP BY name ORDER BY name)"),
              "GCEnd=12 GCStart=12");
  CHECK_STR(q_str(h, "SELECT group_concat(pid || ':' || event_count, ' ') FROM (SELECT * FROM processes WHERE trace_id = 1 ORDER BY pid)"),
              "12696:4 12705:20");
  /* alloc ticks: 721 rows, vpids 12298 x132, 12309 x588, 12332 x1; 152 type names;
   * sum of AllocationAmount64 80013424; System.String 164 times */
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM alloc_ticks WHERE trace_id = 2"), 721);
  CHECK_STR(q_str(h, "SELECT group_concat(pid || '=' || n, ' ') FROM (SELECT pid, count(*) AS n FROM alloc_ticks GROUP BY pid ORDER BY pid)"),
              "12298=132 12309=588 12332=1");
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM types"), 152);
  CHECK_EQ_INT(q_int(h, "SELECT sum(amount) FROM alloc_ticks"), 80013424);
  CHECK_EQ_INT(q_int(h, "SELECT sum(ticks) FROM alloc_by_type WHERE type_name = 'System.String'"), 164);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM events WHERE trace_id = 2"), 0);  /* ticks are not in events */
  sqlite3_close(h);
  return 0;
}

/* Importing the same trace twice, or its zip, adds nothing. */
static int t_idempotent(void) {
  char err[1024];
  const char *db = db_path("idem.db");
  CHECK(import1(db, NC31, &quiet, err, sizeof err) == 0);
  CHECK(import1(db, NC31, &quiet, err, sizeof err) == 0);
  CHECK(import1(db, NC31 "/clr-only.trace.zip", &quiet, err, sizeof err) == 0);
  sqlite3 *h;
  CHECK(sqlite3_open(db, &h) == SQLITE_OK && gcs_db_functions(h) == 0);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM traces"), 1);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM events"), 510);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM processes"), 3);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM gcs"), 11);
  sqlite3_close(h);
  return 0;
}

/* A failure (simulated after 100 events) or a cancel rolls the trace back;
 * what was imported before stays. */
static int t_atomic(void) {
  char err[1024];
  const char *db = db_path("atomic.db");
  CHECK(import1(db, "coreclr/netcore2017-gcstart-gcend", &quiet, err, sizeof err) == 0);
  struct gcs_import_opts fail = { .quiet = 1, .fail_after_events = 100 };
  CHECK(import1(db, NC31, &fail, err, sizeof err) != 0);
  CHECK(strstr(err, "simulated failure") != NULL);
  static atomic_int cancel = 1;
  struct gcs_import_opts cancelled = { .quiet = 1, .cancel = &cancel };
  CHECK(import1(db, NC31 "/clr-only.trace.zip", &cancelled, err, sizeof err) != 0);
  CHECK(strstr(err, "interrupted") != NULL);
  sqlite3 *h;
  CHECK(sqlite3_open(db, &h) == SQLITE_OK && gcs_db_functions(h) == 0);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM traces"), 1);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM events"), 24);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM processes"), 2);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM gcs"), 12);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM types"), 0);
  sqlite3_close(h);
  /* and the failed trace imports fine afterwards */
  CHECK(import1(db, NC31, &quiet, err, sizeof err) == 0);
  CHECK(sqlite3_open(db, &h) == SQLITE_OK && gcs_db_functions(h) == 0);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM traces"), 2);
  CHECK_EQ_INT(q_int(h, "SELECT count(*) FROM events"), 24 + 510);
  sqlite3_close(h);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: import_test TRACES_DIR TMPDIR CASE\n"); return 2; }
  traces = argv[1];
  tmpdir = argv[2];
  const char *c = argv[3];
  if (strcmp(c, "netcore31_dir") == 0) t_netcore31_dir();
  else if (strcmp(c, "netcore31_zip") == 0) t_netcore31_zip();
  else if (strcmp(c, "2017") == 0) t_2017();
  else if (strcmp(c, "idempotent") == 0) t_idempotent();
  else if (strcmp(c, "atomic") == 0) t_atomic();
  else { fprintf(stderr, "unknown case %s\n", c); return 2; }
  return check_done();
}
