/*
 * fuzz_dsipc.c — libFuzzer target: the answers of a diagnostics IPC peer
 * (a .NET runtime's socket, or something pretending to be one). The first
 * byte picks the command gcscope sends (ProcessInfo2 with its fallback,
 * CollectTracing3..1, StopTracing); the rest is what the peer answers on
 * every connection, then it hangs up. A fake runtime thread serves a Unix
 * socket in $TMPDIR. Each call must end (the endpoint's timeout is 200 ms)
 * with 0 or -1 and a one-line message; a ProcessInfo's strings are
 * NUL-terminated within their fields; a stream connection is read to its end.
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "gcs_dsipc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int g_listen = -1;
static char g_sock[108];
static const uint8_t *g_answer;
static size_t g_answer_len;
static atomic_int g_stop;

static void setup(void) {
  const char *t = getenv("TMPDIR");
  snprintf(g_sock, sizeof g_sock, "%.80s/gcs-fuzz-ds-%d", t && *t ? t : "/tmp", (int)getpid());
  unlink(g_sock);
  g_listen = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  snprintf(a.sun_path, sizeof a.sun_path, "%s", g_sock);
  if (g_listen < 0 || bind(g_listen, (struct sockaddr *)&a, sizeof a) != 0 || listen(g_listen, 8) != 0) abort();
}

/* Serve connections until told to stop: read the request, answer, hang up. */
static void *serve(void *arg) {
  (void)arg;
  while (!atomic_load(&g_stop)) {
    struct pollfd p = { g_listen, POLLIN, 0 };
    if (poll(&p, 1, 5) <= 0) continue;
    int c = accept(g_listen, NULL, NULL);
    if (c < 0) continue;
    uint8_t req[65536 + 20];
    struct pollfd q = { c, POLLIN, 0 };
    if (poll(&q, 1, 100) > 0) (void)!read(c, req, sizeof req);
    if (g_answer_len) (void)!send(c, g_answer, g_answer_len, MSG_NOSIGNAL);
    close(c);
  }
  return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  if (g_listen < 0) setup();
  g_answer = data + 1;
  g_answer_len = size - 1;
  atomic_store(&g_stop, 0);
  pthread_t th;
  if (pthread_create(&th, NULL, serve, NULL) != 0) return 0;
  struct gcs_dsipc_endpoint ep;
  char err[1024] = "";
  int rc = gcs_dsipc_attach_path(&ep, g_sock, err, sizeof err);
  if (rc == 0) {
    ep.timeout_ms = 200;
    switch (data[0] % 3) {
    case 0: {
      static struct gcs_dsipc_process_info info;
      rc = gcs_dsipc_process_info(&ep, &info, err, sizeof err);
      if (rc == 0 && (strnlen(info.command_line, sizeof info.command_line) == sizeof info.command_line ||
                      strnlen(info.runtime_version, sizeof info.runtime_version) == sizeof info.runtime_version ||
                      strnlen(info.os, sizeof info.os) == sizeof info.os))
        __builtin_trap();
      break;
    }
    case 1: {
      const struct gcs_dsipc_provider prov = { GCS_DSIPC_PROVIDER_RUNTIME, GCS_DSIPC_KW_GC, 4 };
      struct gcs_dsipc_session_cfg cfg = { .providers = &prov, .nproviders = 1, .request_stacks = data[0] & 4 };
      uint64_t session;
      int fd = -1, version;
      rc = gcs_dsipc_collect(&ep, &cfg, &session, &fd, &version, err, sizeof err);
      if (rc == 0) {
        uint8_t buf[4096];
        while (read(fd, buf, sizeof buf) > 0) {}
        close(fd);
      }
      break;
    }
    default:
      rc = gcs_dsipc_stop(&ep, 1, err, sizeof err);
    }
    gcs_dsipc_close(&ep);
  }
  atomic_store(&g_stop, 1);
  pthread_join(th, NULL);
  if (rc != 0 && (!err[0] || strchr(err, '\n'))) __builtin_trap();
  return 0;
}
