/*
 * test_dsipc.c — the diagnostics IPC client against a fake runtime (a thread
 * serving a Unix socket): the exact bytes of every request, the decoding of
 * OK and error answers, the fallbacks to older commands (CollectTracing3 ->
 * 2 -> 1, ProcessInfo2 -> ProcessInfo), truncated, garbled
 * and silent answers (one clear error each, no hang), the reverse-connect
 * listener's advertise message, and the choice among several sockets of a pid.
 * Expected bytes are spelled out here, independently of the library's encoder.
 */
#include "check.h"
#include "gcs_dsipc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* A little-endian byte builder for expected requests and scripted answers. */
struct bytes { uint8_t b[4096]; size_t n; };
static void le(struct bytes *x, uint64_t v, int n) { for (int i = 0; i < n; i++) x->b[x->n++] = (uint8_t)(v >> (8 * i)); }
static void raw(struct bytes *x, const void *p, size_t n) { memcpy(x->b + x->n, p, n); x->n += n; }
static void ascii16(struct bytes *x, const char *s) {   /* count with NUL, then UTF-16LE */
  le(x, strlen(s) + 1, 4);
  for (; *s; s++) le(x, (unsigned char)*s, 2);
  le(x, 0, 2);
}
static void header(struct bytes *x, uint16_t size, uint8_t set, uint8_t id) {
  raw(x, "DOTNET_IPC_V1\0", 14);
  le(x, size, 2);
  le(x, set, 1);
  le(x, id, 1);
  le(x, 0, 2);
}
static void ok_answer(struct bytes *x, const struct bytes *payload) {
  header(x, (uint16_t)(20 + payload->n), 0xFF, 0x00);
  raw(x, payload->b, payload->n);
}
static void error_answer(struct bytes *x, uint32_t hr) {
  header(x, 24, 0xFF, 0xFF);
  le(x, hr, 4);
}

/* One connection of the fake runtime: read the request, answer, then send
 * extra bytes (a stream) and close. */
struct step {
  struct bytes answer, extra;
  int silent;                 /* read the request, answer nothing, wait for the client to hang up */
  int other_runtime;          /* reverse mode: advertise another cookie and pid */
  struct bytes got;           /* the request received */
};

struct fake {
  char path[108];
  int listen_fd;              /* attach mode: the fake runtime's socket */
  const char *connect_to;     /* listen mode: our endpoint's socket */
  struct step *steps;
  int nsteps;
  uint8_t cookie[16];
  uint64_t pid;
  pthread_t th;
};

static void read_request(int fd, struct bytes *got) {
  got->n = 0;
  struct pollfd p = { .fd = fd, .events = POLLIN };
  size_t want = 20;
  while (got->n < want && poll(&p, 1, 3000) > 0) {
    ssize_t r = read(fd, got->b + got->n, want - got->n);
    if (r <= 0) return;
    got->n += (size_t)r;
    if (got->n == 20) want = (size_t)(got->b[14] | got->b[15] << 8);
    if (want > sizeof got->b) return;
  }
}

static void serve(int fd, struct step *s) {
  read_request(fd, &s->got);
  if (s->silent) {
    char c;
    struct pollfd p = { .fd = fd, .events = POLLIN };
    if (poll(&p, 1, 5000) > 0) (void)!read(fd, &c, 1);
  } else {
    (void)!write(fd, s->answer.b, s->answer.n);
    if (s->extra.n) (void)!write(fd, s->extra.b, s->extra.n);
  }
  close(fd);
}

static void *fake_attach(void *arg) {
  struct fake *f = arg;
  for (int i = 0; i < f->nsteps; i++) {
    int fd = accept(f->listen_fd, NULL, NULL);
    if (fd < 0) break;
    serve(fd, &f->steps[i]);
  }
  return NULL;
}

static void *fake_reverse(void *arg) {
  struct fake *f = arg;
  for (int i = 0; i < f->nsteps; i++) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof a.sun_path, "%s", f->connect_to);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { close(fd); break; }
    struct bytes adv = { .n = 0 };
    uint8_t other[16] = { 0x55 };
    raw(&adv, "ADVR_V1\0", 8);
    raw(&adv, f->steps[i].other_runtime ? other : f->cookie, 16);
    le(&adv, f->steps[i].other_runtime ? 777 : f->pid, 8);
    le(&adv, 0, 2);
    (void)!write(fd, adv.b, adv.n);
    serve(fd, &f->steps[i]);
  }
  return NULL;
}

static char g_dir[64];

static void start_attach(struct fake *f, struct step *steps, int n) {
  static int k;
  memset(f, 0, sizeof *f);
  snprintf(f->path, sizeof f->path, "%.60s/fake-%d.sock", g_dir, k++);
  f->listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  snprintf(a.sun_path, sizeof a.sun_path, "%s", f->path);
  if (bind(f->listen_fd, (struct sockaddr *)&a, sizeof a) || listen(f->listen_fd, 4)) { perror("fake"); exit(1); }
  f->steps = steps;
  f->nsteps = n;
  pthread_create(&f->th, NULL, fake_attach, f);
}

static void finish(struct fake *f) {
  pthread_join(f->th, NULL);
  if (f->listen_fd > 0) close(f->listen_fd);
}

static int same(const struct bytes *got, const struct bytes *want) {
  if (got->n == want->n && !memcmp(got->b, want->b, got->n)) return 1;
  fprintf(stderr, "  request of %zu bytes, expected %zu:\n  got ", got->n, want->n);
  for (size_t i = 0; i < got->n; i++) fprintf(stderr, "%02x", got->b[i]);
  fprintf(stderr, "\n  want ");
  for (size_t i = 0; i < want->n; i++) fprintf(stderr, "%02x", want->b[i]);
  fprintf(stderr, "\n");
  return 0;
}

static void info_payload(struct bytes *p, int v2) {
  le(p, 4242, 8);
  for (int i = 0; i < 16; i++) le(p, (uint64_t)(i + 1), 1);
  ascii16(p, "/usr/bin/dotnet app.dll --x");
  ascii16(p, "Linux");
  ascii16(p, "X64");
  if (v2) {
    ascii16(p, "app");
    ascii16(p, "10.0.12+abcdef");
  }
}

static void test_process_info2(void) {
  struct step s[1] = { 0 };
  struct bytes pl = { .n = 0 };
  info_payload(&pl, 1);
  ok_answer(&s[0].answer, &pl);
  struct fake f;
  start_attach(&f, s, 1);
  struct gcs_dsipc_endpoint ep;
  struct gcs_dsipc_process_info info;
  char err[512] = "";
  CHECK_EQ_INT(gcs_dsipc_attach_path(&ep, f.path, err, sizeof err), 0);
  CHECK_EQ_INT(gcs_dsipc_process_info(&ep, &info, err, sizeof err), 0);
  finish(&f);
  struct bytes want = { .n = 0 };
  header(&want, 20, 0x04, 0x04);
  CHECK(same(&s[0].got, &want));
  CHECK_EQ_U64(info.pid, 4242);
  CHECK_EQ_INT(info.cookie[0], 1);
  CHECK_EQ_INT(info.cookie[15], 16);
  CHECK_STR(info.command_line, "/usr/bin/dotnet app.dll --x");
  CHECK_STR(info.os, "Linux");
  CHECK_STR(info.arch, "X64");
  CHECK_STR(info.entry_assembly, "app");
  CHECK_STR(info.runtime_version, "10.0.12+abcdef");
}

static void test_process_info_fallback(void) {
  struct step s[2] = { 0 };
  struct bytes pl = { .n = 0 };
  error_answer(&s[0].answer, 0x80131385u);
  info_payload(&pl, 0);
  ok_answer(&s[1].answer, &pl);
  struct fake f;
  start_attach(&f, s, 2);
  struct gcs_dsipc_endpoint ep;
  struct gcs_dsipc_process_info info;
  char err[512] = "";
  gcs_dsipc_attach_path(&ep, f.path, err, sizeof err);
  CHECK_EQ_INT(gcs_dsipc_process_info(&ep, &info, err, sizeof err), 0);
  finish(&f);
  struct bytes w1 = { .n = 0 }, w2 = { .n = 0 };
  header(&w1, 20, 0x04, 0x04);
  header(&w2, 20, 0x04, 0x00);
  CHECK(same(&s[0].got, &w1));
  CHECK(same(&s[1].got, &w2));
  CHECK_STR(info.command_line, "/usr/bin/dotnet app.dll --x");
  CHECK_STR(info.runtime_version, "");
}

/* CollectTracing3/2/1 with the gc profile's provider, by hand. */
static void want_collect(struct bytes *w, int version) {
  const char *prov = "Microsoft-Windows-DotNETRuntime";   /* 31 characters */
  uint16_t size = (uint16_t)(20 + 4 + 4 + (version >= 2) + (version >= 3) + 4 + 8 + 4 + 4 + 32 * 2 + 4);
  header(w, size, 0x02, version == 3 ? 0x04 : version == 2 ? 0x03 : 0x02);
  le(w, 256, 4);        /* circularBufferMB */
  le(w, 1, 4);          /* format NetTrace */
  if (version >= 2) le(w, 0, 1);   /* requestRundown */
  if (version >= 3) le(w, 0, 1);   /* requestStackwalk: no stacks */
  le(w, 1, 4);          /* one provider */
  le(w, 0x1, 8);        /* keywords: GC */
  le(w, 4, 4);          /* level: Informational */
  ascii16(w, prov);
  le(w, 0, 4);          /* no filter data */
}

static const struct gcs_dsipc_provider gc_provider = { GCS_DSIPC_PROVIDER_RUNTIME, GCS_DSIPC_KW_GC,
                                                        GCS_DSIPC_LEVEL_INFORMATIONAL };

static void read_stream(int fd, char *out, size_t n) {
  size_t got = 0;
  ssize_t r;
  while (got < n - 1 && (r = read(fd, out + got, n - 1 - got)) > 0) got += (size_t)r;
  out[got] = '\0';
}

/* fallback: how many "unknown command" answers before the OK (0..2). */
static void test_collect(int fallback) {
  struct step s[4] = { 0 };
  struct bytes sid = { .n = 0 };
  le(&sid, 0x1122334455667788ull, 8);
  int i = 0;
  for (int k = 0; k < fallback; k++) error_answer(&s[i++].answer, 0x80131385u);
  ok_answer(&s[i].answer, &sid);
  raw(&s[i].extra, "Nettrace-stream", 15);
  i++;
  ok_answer(&s[i++].answer, &sid);   /* StopTracing echoes the id */
  struct fake f;
  start_attach(&f, s, i);
  struct gcs_dsipc_endpoint ep;
  struct gcs_dsipc_session_cfg cfg = { .providers = &gc_provider, .nproviders = 1 };
  char err[512] = "", text[64];
  uint64_t session = 0;
  int fd = -1, version = 0;
  gcs_dsipc_attach_path(&ep, f.path, err, sizeof err);
  CHECK_EQ_INT(gcs_dsipc_collect(&ep, &cfg, &session, &fd, &version, err, sizeof err), 0);
  CHECK_EQ_U64(session, 0x1122334455667788ull);
  CHECK_EQ_INT(version, 3 - fallback);
  read_stream(fd, text, sizeof text);
  close(fd);
  CHECK_STR(text, "Nettrace-stream");
  CHECK_EQ_INT(gcs_dsipc_stop(&ep, session, err, sizeof err), 0);
  finish(&f);
  struct bytes w3 = { .n = 0 }, w2 = { .n = 0 }, w1 = { .n = 0 }, stop = { .n = 0 };
  want_collect(&w3, 3);
  want_collect(&w2, 2);
  want_collect(&w1, 1);
  CHECK_EQ_INT(w3.n, 118);
  CHECK_EQ_INT(w2.n, 117);
  CHECK_EQ_INT(w1.n, 116);
  CHECK(same(&s[0].got, &w3));
  if (fallback >= 1) CHECK(same(&s[1].got, &w2));
  if (fallback >= 2) CHECK(same(&s[2].got, &w1));
  header(&stop, 28, 0x02, 0x01);
  le(&stop, 0x1122334455667788ull, 8);
  CHECK(same(&s[i - 1].got, &stop));
}

/* Stacks asked for: CollectTracing2 first (CollectTracing3 exists to turn them off). */
static void test_collect_with_stacks(void) {
  struct step s[1] = { 0 };
  struct bytes sid = { .n = 0 }, w2 = { .n = 0 };
  le(&sid, 9, 8);
  ok_answer(&s[0].answer, &sid);
  struct fake f;
  start_attach(&f, s, 1);
  struct gcs_dsipc_endpoint ep;
  struct gcs_dsipc_session_cfg cfg = { .providers = &gc_provider, .nproviders = 1, .request_stacks = 1 };
  char err[512] = "";
  uint64_t session = 0;
  int fd = -1, version = 0;
  gcs_dsipc_attach_path(&ep, f.path, err, sizeof err);
  CHECK_EQ_INT(gcs_dsipc_collect(&ep, &cfg, &session, &fd, &version, err, sizeof err), 0);
  close(fd);
  finish(&f);
  CHECK_EQ_INT(version, 2);
  CHECK_EQ_U64(session, 9);
  want_collect(&w2, 2);
  CHECK(same(&s[0].got, &w2));
}

/* The GC settings' rundown alone (record): CollectTracing4 carries the
 * rundown keyword 0x1; a runtime that does not know it gets CollectTracing3
 * without the (costly, method) rundown. */
static void test_collect_rundown_keyword(void) {
  struct step s[2] = { 0 };
  struct bytes sid = { .n = 0 }, w4 = { .n = 0 }, w3 = { .n = 0 };
  le(&sid, 5, 8);
  error_answer(&s[0].answer, 0x80131385u);
  ok_answer(&s[1].answer, &sid);
  struct fake f;
  start_attach(&f, s, 2);
  struct gcs_dsipc_endpoint ep;
  struct gcs_dsipc_session_cfg cfg = { .providers = &gc_provider, .nproviders = 1,
                                       .rundown_keywords = GCS_DSIPC_RUNDOWN_GC };
  char err[512] = "";
  uint64_t session = 0;
  int fd = -1, version = 0;
  gcs_dsipc_attach_path(&ep, f.path, err, sizeof err);
  CHECK_EQ_INT(gcs_dsipc_collect(&ep, &cfg, &session, &fd, &version, err, sizeof err), 0);
  close(fd);
  finish(&f);
  CHECK_EQ_INT(version, 3);
  const char *prov = "Microsoft-Windows-DotNETRuntime";
  header(&w4, 20 + 4 + 4 + 8 + 1 + 4 + 8 + 4 + 4 + 32 * 2 + 4, 0x02, 0x05);
  le(&w4, 256, 4);      /* circularBufferMB */
  le(&w4, 1, 4);        /* format NetTrace */
  le(&w4, 0x1, 8);      /* rundownKeyword: 0x1 alone (GCSettingsRundown, RuntimeInformationRundown) */
  le(&w4, 0, 1);        /* requestStackwalk: no stacks */
  le(&w4, 1, 4);
  le(&w4, 0x1, 8);
  le(&w4, 4, 4);
  ascii16(&w4, prov);
  le(&w4, 0, 4);
  CHECK_EQ_INT(w4.n, 125);
  CHECK(same(&s[0].got, &w4));
  want_collect(&w3, 3);   /* requestRundown 0 */
  CHECK(same(&s[1].got, &w3));
}

static void test_errors(void) {
  struct step s[6] = { 0 };
  error_answer(&s[0].answer, 0x80004005u);                  /* E_FAIL */
  error_answer(&s[1].answer, 0x80131384u);                  /* bad encoding */
  raw(&s[2].answer, "DOTNET_IPC_V1\0\x18", 15);             /* truncated header */
  raw(&s[3].answer, "HTTP/1.1 400 Bad Request\r\n", 26);    /* garbage */
  header(&s[4].answer, 28, 0xFF, 0x00);                     /* OK declaring 8 bytes, sending 3 */
  raw(&s[4].answer, "\1\2\3", 3);
  s[5].silent = 1;
  struct fake f;
  start_attach(&f, s, 6);
  struct gcs_dsipc_endpoint ep;
  struct gcs_dsipc_session_cfg cfg = { .providers = &gc_provider, .nproviders = 1 };
  char err[512] = "";
  uint64_t session;
  int fd;
  gcs_dsipc_attach_path(&ep, f.path, err, sizeof err);
  CHECK_EQ_INT(gcs_dsipc_collect(&ep, &cfg, &session, &fd, NULL, err, sizeof err), -1);
  CHECK_STR(err, "CollectTracing3: the runtime answered error 0x80004005 E_FAIL: the runtime failed the request");
  CHECK(ep.last_hresult == 0x80004005u);
  CHECK_EQ_INT(gcs_dsipc_resume(&ep, err, sizeof err), -1);
  CHECK_STR(err, "ResumeRuntime: the runtime answered error 0x80131384 DS_IPC_E_BAD_ENCODING: the runtime could not "
                 "parse the request");
  CHECK_EQ_INT(gcs_dsipc_resume(&ep, err, sizeof err), -1);
  CHECK_STR(err, "ResumeRuntime: truncated answer from the runtime (15 of 20 header bytes)");
  CHECK_EQ_INT(gcs_dsipc_resume(&ep, err, sizeof err), -1);
  CHECK_STR(err, "ResumeRuntime: the answer is not a diagnostics IPC message (bad magic or size)");
  CHECK_EQ_INT(gcs_dsipc_stop(&ep, 7, err, sizeof err), -1);
  CHECK_STR(err, "StopTracing: truncated answer from the runtime (3 of 8 payload bytes)");
  ep.timeout_ms = 300;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  CHECK_EQ_INT(gcs_dsipc_resume(&ep, err, sizeof err), -1);
  clock_gettime(CLOCK_MONOTONIC, &b);
  CHECK_STR(err, "ResumeRuntime: no answer from the runtime (timed out)");
  double waited = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
  CHECK(waited >= 0.29 && waited < 3.0);
  finish(&f);
  /* Unknown HRESULT: the number alone. Nothing listening: one line. */
  struct step u[1] = { 0 };
  error_answer(&u[0].answer, 0x8000FFFFu);
  start_attach(&f, u, 1);
  gcs_dsipc_attach_path(&ep, f.path, err, sizeof err);
  CHECK_EQ_INT(gcs_dsipc_resume(&ep, err, sizeof err), -1);
  CHECK_STR(err, "ResumeRuntime: the runtime answered error 0x8000FFFF");
  finish(&f);
  unlink(f.path);
  CHECK_EQ_INT(gcs_dsipc_resume(&ep, err, sizeof err), -1);
  CHECK_HAS(err, "cannot connect to ");
}

static void test_reverse(void) {
  char path[100];
  snprintf(path, sizeof path, "%.60s/ours.sock", g_dir);
  struct gcs_dsipc_endpoint ep;
  char err[512] = "";
  CHECK_EQ_INT(gcs_dsipc_listen(&ep, path, err, sizeof err), 0);
  /* The runtime, then another runtime (a child that inherited the port:
   * resumed and let go), then the runtime again. */
  struct step s[3] = { 0 };
  struct bytes sid = { .n = 0 }, zero = { .n = 0 };
  le(&sid, 5, 8);
  le(&zero, 0, 4);
  ok_answer(&s[0].answer, &sid);
  raw(&s[0].extra, "stream", 6);
  s[1].other_runtime = 1;
  ok_answer(&s[1].answer, &zero);
  ok_answer(&s[2].answer, &zero);
  struct fake f;
  memset(&f, 0, sizeof f);
  f.connect_to = path;
  f.steps = s;
  f.nsteps = 3;
  f.pid = 31337;
  for (int i = 0; i < 16; i++) f.cookie[i] = (uint8_t)(0xA0 + i);
  pthread_create(&f.th, NULL, fake_reverse, &f);
  struct gcs_dsipc_session_cfg cfg = { .providers = &gc_provider, .nproviders = 1 };
  uint64_t session;
  int fd = -1;
  CHECK_EQ_INT(gcs_dsipc_collect(&ep, &cfg, &session, &fd, NULL, err, sizeof err), 0);
  CHECK_EQ_U64(ep.pid, 31337);
  CHECK_EQ_INT(ep.cookie[0], 0xA0);
  CHECK_EQ_INT(gcs_dsipc_resume(&ep, err, sizeof err), 0);
  char text[16];
  read_stream(fd, text, sizeof text);
  close(fd);
  CHECK_STR(text, "stream");
  pthread_join(f.th, NULL);
  struct bytes resume = { .n = 0 }, w3 = { .n = 0 };
  header(&resume, 20, 0x04, 0x01);
  want_collect(&w3, 3);
  CHECK(same(&s[0].got, &w3));
  CHECK(same(&s[1].got, &resume));   /* the other runtime is resumed */
  CHECK(same(&s[2].got, &resume));
  CHECK_EQ_U64(ep.pid, 31337);
  /* A peer that is not a runtime (no advertise message). */
  int c = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  CHECK_EQ_INT(connect(c, (struct sockaddr *)&a, sizeof a), 0);
  (void)!write(c, "hello, I am not a runtime.........", 34);
  CHECK_EQ_INT(gcs_dsipc_resume(&ep, err, sizeof err), -1);
  CHECK_STR(err, "the connecting peer sent no \"ADVR_V1\" advertise message (not a .NET runtime)");
  close(c);
  ep.timeout_ms = 200;
  CHECK_EQ_INT(gcs_dsipc_resume(&ep, err, sizeof err), -1);
  CHECK_HAS(err, "no runtime connected to ");
  gcs_dsipc_close(&ep);
  struct stat st;
  CHECK(stat(path, &st) != 0);
}

static void make_socket(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  if (bind(fd, (struct sockaddr *)&a, sizeof a)) perror(path);
  close(fd);   /* the file stays: enough to be found */
}

/* This process's start time, from /proc/self/stat field 22, read here independently. */
static unsigned long long my_start(void) {
  FILE *f = fopen("/proc/self/stat", "r");
  char buf[1024];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *p = strrchr(buf, ')') + 2;   /* field 3 */
  unsigned long long v = 0;
  for (int field = 3; field <= 22; field++) {
    if (field == 22) sscanf(p, "%llu", &v);
    p = strchr(p, ' ') + 1;
  }
  return v;
}

static void test_find(void) {
  char dir[300], p[512];
  snprintf(dir, sizeof dir, "%s/tmpdir", g_dir);
  mkdir(dir, 0700);
  setenv("TMPDIR", dir, 1);
  CHECK_STR(gcs_dsipc_socket_dir(), dir);
  int me = (int)getpid();
  struct gcs_dsipc_endpoint ep;
  char err[512] = "";
  CHECK_EQ_INT(gcs_dsipc_has_socket(me), 0);
  CHECK_EQ_INT(gcs_dsipc_attach_pid(&ep, me, err, sizeof err), -1);
  CHECK_HAS(err, "has no diagnostic socket in ");
  /* A stale socket of an earlier process with this pid (a .NET program
   * killed before it removed it) alone: this process has no socket, and is
   * not listed. Then the live one (older file) beside a newer stale one: the
   * live one's key wins. */
  char stale[512];
  snprintf(stale, sizeof stale, "%s/dotnet-diagnostic-%d-%llu-socket", dir, me, my_start() + 12345);
  make_socket(stale);
  CHECK_EQ_INT(gcs_dsipc_has_socket(me), 0);
  CHECK_EQ_INT(gcs_dsipc_attach_pid(&ep, me, err, sizeof err), -1);
  CHECK_HAS(err, "has no diagnostic socket in ");
  pid_t none[4];
  CHECK_EQ_INT(gcs_dsipc_list_pids(none, 4), 0);
  snprintf(p, sizeof p, "%s/dotnet-diagnostic-%d-%llu-socket", dir, me, my_start());
  make_socket(p);
  struct timespec later[2] = { { time(NULL) + 100, 0 }, { time(NULL) + 100, 0 } };
  utimensat(AT_FDCWD, stale, later, 0);
  snprintf(stale, sizeof stale, "%s/dotnet-diagnostic-99999999-1-socket", dir);
  make_socket(stale);
  snprintf(stale, sizeof stale, "%s/dotnet-diagnostic-7-1-socket.txt", dir);   /* not a socket name */
  make_socket(stale);
  CHECK_EQ_INT(gcs_dsipc_attach_pid(&ep, me, err, sizeof err), 0);
  CHECK_STR(ep.path, p);
  CHECK_EQ_INT(gcs_dsipc_has_socket(me), 1);
  pid_t pids[4];
  CHECK_EQ_INT(gcs_dsipc_list_pids(pids, 4), 2);
  CHECK_EQ_INT(pids[0], me);
  CHECK_EQ_INT(pids[1], 99999999);
  unsetenv("TMPDIR");
  CHECK_STR(gcs_dsipc_socket_dir(), "/tmp");
}

static void test_utf16(void) {
  struct step s[1] = { 0 };
  struct bytes pl = { .n = 0 };
  le(&pl, 1, 8);
  for (int i = 0; i < 16; i++) le(&pl, 0, 1);
  le(&pl, 6, 4);                   /* "é€😀" + NUL: 1 + 1 + 2 + 1 + ... */
  le(&pl, 0x00E9, 2);
  le(&pl, 0x20AC, 2);
  le(&pl, 0xD83D, 2);
  le(&pl, 0xDE00, 2);
  le(&pl, 0xDC00, 2);              /* a lone low surrogate: U+FFFD */
  le(&pl, 0, 2);
  le(&pl, 0, 4);                   /* no OS string */
  le(&pl, 0, 4);                   /* no arch string */
  le(&pl, 0, 4);
  le(&pl, 0, 4);
  ok_answer(&s[0].answer, &pl);
  struct fake f;
  start_attach(&f, s, 1);
  struct gcs_dsipc_endpoint ep;
  struct gcs_dsipc_process_info info;
  char err[512] = "";
  gcs_dsipc_attach_path(&ep, f.path, err, sizeof err);
  CHECK_EQ_INT(gcs_dsipc_process_info(&ep, &info, err, sizeof err), 0);
  finish(&f);
  CHECK_STR(info.command_line, "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBD");
  CHECK_STR(info.os, "");
}

/* Hostile answers: 400 mutations (fixed seed) of a valid ProcessInfo2 answer
 * and of a valid CollectTracing answer: bytes changed, sizes inflated,
 * strings without their end, answers cut. Each call returns 0 or -1 with one
 * non-empty line, within the timeout, never a crash (the ASan run checks
 * memory) or a hang. */
static uint32_t rng_state = 12345;
static uint32_t rnd(void) { rng_state = rng_state * 1103515245u + 12345u; return rng_state >> 8; }

static void mutate(struct bytes *x) {
  int n = 1 + (int)(rnd() % 4);
  for (int i = 0; i < n; i++) {
    uint32_t r = rnd() % 10;
    if (r == 0 && x->n > 1) { x->n = 1 + rnd() % (x->n - 1); continue; }          /* cut */
    size_t at = rnd() % x->n;
    if (r < 4 && at + 4 <= x->n) {                                              /* a huge u32 */
      static const uint32_t big[] = { 0xFFFFFFFFu, 0x7FFFFFFFu, 0x10000u, 0xFFFFu };
      uint32_t v = big[rnd() % 4];
      for (int k = 0; k < 4; k++) x->b[at + (size_t)k] = (uint8_t)(v >> (8 * k));
      continue;
    }
    x->b[at] = (uint8_t)rnd();
  }
}

static void test_hostile_answers(void) {
  struct bytes pl = { .n = 0 }, info_ok = { .n = 0 }, collect_ok = { .n = 0 }, sess = { .n = 0 };
  info_payload(&pl, 1);
  ok_answer(&info_ok, &pl);
  le(&sess, 77, 8);
  ok_answer(&collect_ok, &sess);
  int ok = 0, failed = 0, bad_msg = 0;
  for (int i = 0; i < 400; i++) {
    struct step st[3];
    memset(st, 0, sizeof st);
    int collect = i & 1;
    for (int k = 0; k < 3; k++) {
      st[k].answer = collect ? collect_ok : info_ok;
      mutate(&st[k].answer);
    }
    struct fake f;
    start_attach(&f, st, 3);
    struct gcs_dsipc_endpoint ep;
    char err[512] = "";
    gcs_dsipc_attach_path(&ep, f.path, err, sizeof err);
    ep.timeout_ms = 300;
    int rc;
    if (collect) {
      struct gcs_dsipc_session_cfg cfg = { .providers = &gc_provider, .nproviders = 1 };
      uint64_t session;
      int fd = -1;
      rc = gcs_dsipc_collect(&ep, &cfg, &session, &fd, NULL, err, sizeof err);
      if (rc == 0 && fd >= 0) close(fd);
    } else {
      struct gcs_dsipc_process_info info;
      rc = gcs_dsipc_process_info(&ep, &info, err, sizeof err);
    }
    shutdown(f.listen_fd, SHUT_RDWR);   /* the fake's accept ends: fewer connections may have been used */
    finish(&f);
    unlink(f.path);
    if (rc == 0) ok++;
    else failed++;
    if (rc != 0 && (!err[0] || strchr(err, '\n'))) {
      bad_msg++;
      fprintf(stderr, "  hostile answer %d: message '%s'\n", i, err);
    }
    CHECK(rc == 0 || rc == -1);
  }
  printf("hostile answers: %d accepted, %d refused with one line, %d bad messages\n", ok, failed, bad_msg);
  CHECK_EQ_INT(bad_msg, 0);
  CHECK(failed > 250);   /* most mutations break the answer: the premise of the test */
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/gcs-dsipc-test-%d", (int)getpid());
  mkdir(g_dir, 0700);
  test_process_info2();
  test_process_info_fallback();
  test_collect(0);
  test_collect(1);
  test_collect(2);
  test_collect_with_stacks();
  test_collect_rundown_keyword();
  test_errors();
  test_reverse();
  test_find();
  test_utf16();
  test_hostile_answers();
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd)) fprintf(stderr, "cleanup failed\n");
  return check_done();
}
