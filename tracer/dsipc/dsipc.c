/*
 * dsipc.c — connections and commands of the diagnostics IPC client
 * (gcs_dsipc.h). Every read waits at most the endpoint's timeout; a reply
 * is one header plus the payload its size declares.
 */
#include "gcs_dsipc.h"
#include "dsipc_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

const char *gcs_dsipc_hresult_name(uint32_t hr) {
  switch (hr) {
  case GCS_DSIPC_E_BAD_ENCODING: return "DS_IPC_E_BAD_ENCODING: the runtime could not parse the request";
  case GCS_DSIPC_E_UNKNOWN_COMMAND: return "DS_IPC_E_UNKNOWN_COMMAND: the runtime does not know this command";
  case GCS_DSIPC_E_UNKNOWN_MAGIC: return "DS_IPC_E_UNKNOWN_MAGIC: the runtime does not speak this protocol version";
  case GCS_DSIPC_E_NOT_SUPPORTED: return "DS_IPC_E_NOT_SUPPORTED: not supported by this runtime";
  case GCS_DSIPC_E_FAIL: return "E_FAIL: the runtime failed the request";
  case 0x80070057u: return "E_INVALIDARG: an invalid argument (provider, keywords or level)";
  case 0x8007000Eu: return "E_OUTOFMEMORY: the runtime is out of memory";
  default: return NULL;
  }
}

static int fail(char *err, size_t errlen, const char *fmt, const char *a, int e) {
  char what[256];
  snprintf(what, sizeof what, fmt, a);
  if (e) snprintf(err, errlen, "%s: %s", what, strerror(e));
  else snprintf(err, errlen, "%s", what);
  return -1;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is readable or the deadline passes: 1 ready, 0 timed out, -1 error. */
static int wait_readable(int fd, int64_t deadline) {
  for (;;) {
    int64_t left = deadline - now_ms();
    if (left < 0) left = 0;
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int r = poll(&p, 1, (int)left);
    if (r < 0 && errno == EINTR) continue;
    return r;
  }
}

/* Read exactly n bytes: 0 ok, -1 error (errno; 0 for EOF, ETIMEDOUT). */
static int read_full(int fd, uint8_t *p, size_t n, int timeout_ms, size_t *got) {
  int64_t deadline = now_ms() + timeout_ms;
  *got = 0;
  while (*got < n) {
    int w = wait_readable(fd, deadline);
    if (w < 0) return -1;
    if (w == 0) { errno = ETIMEDOUT; return -1; }
    ssize_t r = read(fd, p + *got, n - *got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) { errno = 0; return -1; }
    *got += (size_t)r;
  }
  return 0;
}

static int send_all(int fd, const uint8_t *p, size_t n, char *err, size_t errlen) {
  while (n) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return fail(err, errlen, "%s", "cannot send to the runtime", errno);
    p += w, n -= (size_t)w;
  }
  return 0;
}

static void init_endpoint(struct gcs_dsipc_endpoint *ep) {
  memset(ep, 0, sizeof *ep);
  ep->listen_fd = ep->spare_fd = -1;
  ep->timeout_ms = GCS_DSIPC_DEFAULT_TIMEOUT_MS;
}

static int fill_addr(struct sockaddr_un *a, const char *path, char *err, size_t errlen) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  if (strlen(path) >= sizeof a->sun_path) return fail(err, errlen, "socket path too long: %s", path, 0);
  memcpy(a->sun_path, path, strlen(path) + 1);
  return 0;
}

int gcs_dsipc_attach_path(struct gcs_dsipc_endpoint *ep, const char *path, char *err, size_t errlen) {
  init_endpoint(ep);
  struct sockaddr_un a;
  if (fill_addr(&a, path, err, errlen)) return -1;
  snprintf(ep->path, sizeof ep->path, "%s", path);
  return 0;
}

int gcs_dsipc_listen(struct gcs_dsipc_endpoint *ep, const char *path, char *err, size_t errlen) {
  init_endpoint(ep);
  struct sockaddr_un a;
  struct stat st;
  if (fill_addr(&a, path, err, errlen)) return -1;
  if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) unlink(path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(err, errlen, "%s", "socket", errno);
  if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 8) != 0) {
    int e = errno;
    close(fd);
    return fail(err, errlen, "cannot listen on %s", path, e);
  }
  ep->listen_fd = fd;
  snprintf(ep->path, sizeof ep->path, "%s", path);
  return 0;
}

void gcs_dsipc_close(struct gcs_dsipc_endpoint *ep) {
  if (ep->spare_fd >= 0) close(ep->spare_fd);
  ep->spare_fd = -1;
  if (ep->listen_fd >= 0) {
    close(ep->listen_fd);
    unlink(ep->path);
  }
  ep->listen_fd = -1;
}

/* The runtime's advertise message on a connection it made to us. */
static int read_advertise(struct gcs_dsipc_endpoint *ep, int fd, char *err, size_t errlen) {
  uint8_t m[DSIPC_ADVERTISE_LEN], magic[8] = { 0 };
  size_t got;
  if (read_full(fd, m, sizeof m, ep->timeout_ms, &got) != 0) {
    if (errno == ETIMEDOUT) return fail(err, errlen, "%s", "the runtime connected but sent no advertise message", 0);
    return fail(err, errlen, "%s", "truncated advertise message from the runtime", errno);
  }
  memcpy(magic, DSIPC_ADVERTISE_MAGIC, sizeof DSIPC_ADVERTISE_MAGIC - 1);
  if (memcmp(m, magic, sizeof magic))
    return fail(err, errlen, "%s", "the connecting peer sent no \"ADVR_V1\" advertise message (not a .NET runtime)", 0);
  struct dsipc_buf b = { .p = m, .len = sizeof m, .pos = 8 };
  dsipc_get_bytes(&b, ep->cookie, sizeof ep->cookie);
  ep->pid = dsipc_get_u64(&b);
  return 0;
}

/* A runtime other than the endpoint's (a process the traced command started,
 * which inherited DOTNET_DiagnosticPorts) would wait at start-up for ever:
 * it is resumed, untraced, and its connection closed. */
static void release_other_runtime(int fd) {
  uint8_t rq[DSIPC_HEADER_LEN], h[DSIPC_HEADER_LEN];
  struct dsipc_buf req = { .p = rq, .cap = sizeof rq };
  size_t got;
  dsipc_begin(&req, DSIPC_SET_PROCESS, DSIPC_PROC_RESUME);
  if (dsipc_finish(&req) == 0 && send(fd, rq, req.len, MSG_NOSIGNAL) == (ssize_t)req.len)
    read_full(fd, h, sizeof h, 1000, &got);
  close(fd);
}

/* Accept one waiting connection and read its advertise message: the fd of
 * a connection of the endpoint's runtime (the first runtime seen becomes the
 * endpoint's), -2 after releasing another runtime's, -1 on error. */
static int accept_one(struct gcs_dsipc_endpoint *ep, char *err, size_t errlen) {
  int fd = accept4(ep->listen_fd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0) return fail(err, errlen, "accept on %s", ep->path, errno);
  uint64_t pid = ep->pid;
  uint8_t cookie[16];
  memcpy(cookie, ep->cookie, sizeof cookie);
  if (read_advertise(ep, fd, err, errlen)) { close(fd); return -1; }
  if (!pid || !memcmp(cookie, ep->cookie, sizeof cookie)) return fd;
  release_other_runtime(fd);
  ep->pid = pid;
  memcpy(ep->cookie, cookie, sizeof cookie);
  return -2;
}

static int accept_runtime(struct gcs_dsipc_endpoint *ep, char *err, size_t errlen) {
  if (ep->spare_fd >= 0) {
    int fd = ep->spare_fd;
    ep->spare_fd = -1;
    return fd;
  }
  int64_t deadline = now_ms() + ep->timeout_ms;
  for (;;) {
    int w = wait_readable(ep->listen_fd, deadline);
    if (w <= 0)
      return fail(err, errlen, "no runtime connected to %s (is DOTNET_DiagnosticPorts set for it?)", ep->path,
                  w < 0 ? errno : 0);
    int fd = accept_one(ep, err, errlen);
    if (fd != -2) return fd;
  }
}

int gcs_dsipc_serve_pending(struct gcs_dsipc_endpoint *ep) {
  int released = 0;
  char err[256];
  while (ep->listen_fd >= 0 && wait_readable(ep->listen_fd, now_ms()) > 0) {
    int fd = accept_one(ep, err, sizeof err);
    if (fd == -2) released++;
    else if (fd >= 0 && ep->spare_fd < 0) ep->spare_fd = fd;
    else if (fd >= 0) close(fd);
  }
  return released;
}

int gcs_dsipc_connect(struct gcs_dsipc_endpoint *ep, char *err, size_t errlen) {
  if (ep->listen_fd >= 0) return accept_runtime(ep, err, errlen);
  struct sockaddr_un a;
  if (fill_addr(&a, ep->path, err, errlen)) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(err, errlen, "%s", "socket", errno);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    int e = errno;
    close(fd);
    if (e == ECONNREFUSED) return fail(err, errlen, "cannot connect to %s: nothing listens (the process has exited?)", ep->path, 0);
    return fail(err, errlen, "cannot connect to %s", ep->path, e);
  }
  return fd;
}

static const char *command_name(uint8_t set, uint8_t id) {
  if (set == DSIPC_SET_EVENTPIPE && id == DSIPC_EP_STOP) return "StopTracing";
  if (set == DSIPC_SET_EVENTPIPE && id == DSIPC_EP_COLLECT) return "CollectTracing";
  if (set == DSIPC_SET_EVENTPIPE && id == DSIPC_EP_COLLECT2) return "CollectTracing2";
  if (set == DSIPC_SET_EVENTPIPE && id == DSIPC_EP_COLLECT3) return "CollectTracing3";
  if (set == DSIPC_SET_EVENTPIPE && id == DSIPC_EP_COLLECT4) return "CollectTracing4";
  if (set == DSIPC_SET_PROCESS && id == DSIPC_PROC_INFO) return "ProcessInfo";
  if (set == DSIPC_SET_PROCESS && id == DSIPC_PROC_INFO2) return "ProcessInfo2";
  if (set == DSIPC_SET_PROCESS && id == DSIPC_PROC_RESUME) return "ResumeRuntime";
  return "command";
}

/* Send the request in req on fd and read one reply into payload (up to
 * DSIPC_MAX_MESSAGE bytes): 0 for OK, -1 for an error reply (decoded into
 * err, its HRESULT in ep->last_hresult) or a broken exchange. */
static int exchange(struct gcs_dsipc_endpoint *ep, int fd, struct dsipc_buf *req, struct dsipc_buf *payload,
                    char *err, size_t errlen) {
  const char *cmd = command_name(req->p[16], req->p[17]);
  char what[64];
  snprintf(what, sizeof what, "%s", cmd);
  ep->last_hresult = 0;
  if (dsipc_finish(req)) return fail(err, errlen, "%s: request too large", what, 0);
  if (send_all(fd, req->p, req->len, err, errlen)) return -1;
  uint8_t h[DSIPC_HEADER_LEN];
  size_t got;
  if (read_full(fd, h, sizeof h, ep->timeout_ms, &got) != 0) {
    if (errno == ETIMEDOUT) return fail(err, errlen, "%s: no answer from the runtime (timed out)", what, 0);
    if (got == 0 && errno == 0) return fail(err, errlen, "%s: the runtime closed the connection without answering", what, 0);
    if (errno == 0) {
      snprintf(err, errlen, "%s: truncated answer from the runtime (%zu of %d header bytes)", what, got, DSIPC_HEADER_LEN);
      return -1;
    }
    return fail(err, errlen, "%s: reading the answer", what, errno);
  }
  struct dsipc_header hd;
  if (dsipc_decode_header(h, &hd))
    return fail(err, errlen, "%s: the answer is not a diagnostics IPC message (bad magic or size)", what, 0);
  size_t n = (size_t)hd.size - DSIPC_HEADER_LEN;
  payload->len = payload->pos = 0;
  payload->bad = 0;
  if (n > payload->cap) return fail(err, errlen, "%s: answer too large", what, 0);
  if (n && read_full(fd, payload->p, n, ep->timeout_ms, &got) != 0) {
    snprintf(err, errlen, "%s: truncated answer from the runtime (%zu of %zu payload bytes)", what, got, n);
    return -1;
  }
  payload->len = n;
  if (hd.set == DSIPC_SET_SERVER && hd.id == DSIPC_SERVER_ERROR) {
    uint32_t hr = dsipc_get_u32(payload);
    if (payload->bad) return fail(err, errlen, "%s: the runtime answered an error without its code", what, 0);
    ep->last_hresult = hr;
    const char *name = gcs_dsipc_hresult_name(hr);
    snprintf(err, errlen, "%s: the runtime answered error 0x%08X%s%s", what, hr, name ? " " : "", name ? name : "");
    return -1;
  }
  if (hd.set != DSIPC_SET_SERVER || hd.id != DSIPC_SERVER_OK) {
    snprintf(err, errlen, "%s: unexpected answer (command set 0x%02X, id 0x%02X)", what, hd.set, hd.id);
    return -1;
  }
  return 0;
}

/* One command on a new connection; the connection is closed unless keep. */
static int command(struct gcs_dsipc_endpoint *ep, struct dsipc_buf *req, struct dsipc_buf *payload, int *keep_fd,
                   char *err, size_t errlen) {
  int fd = gcs_dsipc_connect(ep, err, errlen);
  if (fd < 0) return -1;
  int r = exchange(ep, fd, req, payload, err, errlen);
  if (r == 0 && keep_fd) *keep_fd = fd;
  else close(fd);
  return r;
}

static void parse_info(struct dsipc_buf *b, int v2, struct gcs_dsipc_process_info *info) {
  info->pid = dsipc_get_u64(b);
  dsipc_get_bytes(b, info->cookie, sizeof info->cookie);
  dsipc_get_string(b, info->command_line, sizeof info->command_line);
  dsipc_get_string(b, info->os, sizeof info->os);
  dsipc_get_string(b, info->arch, sizeof info->arch);
  if (!v2) return;
  dsipc_get_string(b, info->entry_assembly, sizeof info->entry_assembly);
  dsipc_get_string(b, info->runtime_version, sizeof info->runtime_version);
}

int gcs_dsipc_process_info(struct gcs_dsipc_endpoint *ep, struct gcs_dsipc_process_info *info, char *err,
                           size_t errlen) {
  uint8_t rq[64], pl[DSIPC_MAX_MESSAGE];
  struct dsipc_buf req = { .p = rq, .cap = sizeof rq }, payload = { .p = pl, .cap = sizeof pl };
  memset(info, 0, sizeof *info);
  int v2 = 1;
  dsipc_begin(&req, DSIPC_SET_PROCESS, DSIPC_PROC_INFO2);
  if (command(ep, &req, &payload, NULL, err, errlen)) {
    if (ep->last_hresult != GCS_DSIPC_E_UNKNOWN_COMMAND) return -1;
    v2 = 0;
    dsipc_begin(&req, DSIPC_SET_PROCESS, DSIPC_PROC_INFO);
    if (command(ep, &req, &payload, NULL, err, errlen)) return -1;
  }
  parse_info(&payload, v2, info);
  if (payload.bad) {
    snprintf(err, errlen, "%s: truncated process information (%zu bytes)", v2 ? "ProcessInfo2" : "ProcessInfo",
             payload.len);
    return -1;
  }
  return 0;
}

static const uint8_t collect_id[5] = { 0, DSIPC_EP_COLLECT, DSIPC_EP_COLLECT2, DSIPC_EP_COLLECT3, DSIPC_EP_COLLECT4 };
static const char *const collect_name[5] = { "", "CollectTracing", "CollectTracing2", "CollectTracing3",
                                             "CollectTracing4" };

/* The rundown keywords a session asks for: the full rundown's (methods,
 * modules) with request_rundown, plus rundown_keywords. */
static uint64_t rundown_keywords(const struct gcs_dsipc_session_cfg *cfg) {
  return (cfg->request_rundown ? GCS_DSIPC_RUNDOWN_FULL : 0) | cfg->rundown_keywords;
}

/* CollectTracing (1), 2 (+ requestRundown), 3 (+ requestStackwalk) or 4
 * (the rundown's keywords instead of requestRundown). */
static void encode_collect(struct dsipc_buf *b, int version, const struct gcs_dsipc_session_cfg *cfg) {
  dsipc_begin(b, DSIPC_SET_EVENTPIPE, collect_id[version]);
  dsipc_put_u32(b, cfg->circular_mb ? cfg->circular_mb : 256);
  dsipc_put_u32(b, 1);   /* format: NetTrace */
  if (version == 2 || version == 3) dsipc_put_u8(b, cfg->request_rundown ? 1 : 0);
  if (version >= 4) dsipc_put_u64(b, rundown_keywords(cfg));
  if (version >= 3) dsipc_put_u8(b, cfg->request_stacks ? 1 : 0);
  dsipc_put_u32(b, (uint32_t)cfg->nproviders);
  for (int i = 0; i < cfg->nproviders; i++) {
    dsipc_put_u64(b, cfg->providers[i].keywords);
    dsipc_put_u32(b, cfg->providers[i].level);
    dsipc_put_string(b, cfg->providers[i].name);
    dsipc_put_string(b, NULL);   /* no filter data */
  }
}

static int session_reply(struct dsipc_buf *payload, const char *cmd, uint64_t *session, char *err, size_t errlen) {
  *session = dsipc_get_u64(payload);
  if (payload->bad) return fail(err, errlen, "%s: the answer has no session id", cmd, 0);
  return 0;
}

int gcs_dsipc_collect(struct gcs_dsipc_endpoint *ep, const struct gcs_dsipc_session_cfg *cfg, uint64_t *session,
                      int *stream_fd, int *version_used, char *err, size_t errlen) {
  uint8_t rq[8192], pl[256];
  struct dsipc_buf req = { .p = rq, .cap = sizeof rq }, payload = { .p = pl, .cap = sizeof pl };
  int fd = -1;
  /* CollectTracing4 when the session wants a rundown (it names its
   * keywords: a cheap one for the GC settings alone); then CollectTracing3,
   * which only says "no stacks" (a runtime records them by default: with
   * stacks it is skipped), 2 and 1. */
  int order[4], n = 0;
  if (rundown_keywords(cfg)) order[n++] = 4;
  if (!cfg->request_stacks) order[n++] = 3;
  order[n++] = 2;
  order[n++] = 1;
  for (int i = 0; i < n; i++) {
    int version = order[i];
    encode_collect(&req, version, cfg);
    if (command(ep, &req, &payload, &fd, err, errlen) == 0) {
      if (session_reply(&payload, collect_name[version], session, err, errlen)) {
        close(fd);
        return -1;
      }
      *stream_fd = fd;
      if (version_used) *version_used = version;
      return 0;
    }
    if (ep->last_hresult != GCS_DSIPC_E_UNKNOWN_COMMAND) return -1;
  }
  return -1;
}

int gcs_dsipc_stop(struct gcs_dsipc_endpoint *ep, uint64_t session, char *err, size_t errlen) {
  uint8_t rq[64], pl[256];
  struct dsipc_buf req = { .p = rq, .cap = sizeof rq }, payload = { .p = pl, .cap = sizeof pl };
  dsipc_begin(&req, DSIPC_SET_EVENTPIPE, DSIPC_EP_STOP);
  dsipc_put_u64(&req, session);
  if (command(ep, &req, &payload, NULL, err, errlen)) return -1;
  uint64_t echoed;
  return session_reply(&payload, "StopTracing", &echoed, err, errlen);
}

int gcs_dsipc_resume(struct gcs_dsipc_endpoint *ep, char *err, size_t errlen) {
  uint8_t rq[64], pl[256];
  struct dsipc_buf req = { .p = rq, .cap = sizeof rq }, payload = { .p = pl, .cap = sizeof pl };
  dsipc_begin(&req, DSIPC_SET_PROCESS, DSIPC_PROC_RESUME);
  return command(ep, &req, &payload, NULL, err, errlen);
}
