/*
 * srv_http.c — /metrics over HTTP with libmicrohttpd (srv.h). One internal
 * polling thread (epoll); a scraper that stalls or vanishes costs one
 * connection slot until the timeout; connections are limited in number, per
 * address and in memory. GET or HEAD /metrics renders the exposition under
 * srv.lock; / says where the metrics are; anything else is 404 or 405.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "srv.h"

#define MAX_CONNECTIONS 64
#define MAX_PER_IP 16
#define CONNECTION_TIMEOUT_S 10
#define CONNECTION_MEMORY 32768

static const char index_page[] =
  "<html><head><title>gcscope serve</title></head><body><h1>gcscope serve</h1>"
  "<p><a href=\"/metrics\">/metrics</a>: GC figures of every .NET process gcscope is attached to.</p>"
  "</body></html>\n";

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, char *body, size_t len,
                             int must_free) {
  struct MHD_Response *r =
    MHD_create_response_from_buffer(len, body, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
  if (!r) {
    if (must_free) free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  if (status == MHD_HTTP_METHOD_NOT_ALLOWED) MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
  enum MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ret;
}

static char *render(struct srv *s, int om, size_t *len) {
  struct srv_pm *pms[SRV_MAX_PROCS];
  pthread_mutex_lock(&s->lock);
  int n = 0, attached = 0;
  /* processes attached now first, then those that ended (kept a while) */
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < s->nprocs; i++) {
      struct srv_proc *p = s->procs[i];
      if (!p->pm || p->superseded || (p->state == SRV_RUNNING) != (pass == 0)) continue;
      pms[n++] = p->pm;
      if (pass == 0) attached++;
    }
  char *text = srv_render(pms, n, attached, s->rule_names, s->nrules, om, srv_real_ns(), len);
  pthread_mutex_unlock(&s->lock);
  return text;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **state) {
  (void)version, (void)upload;
  struct srv *s = cls;
  static int marker;
  if (*state == NULL) {   /* first call: headers only */
    *state = &marker;
    return MHD_YES;
  }
  if (*upload_size) {     /* a body nobody asked for: drop it */
    *upload_size = 0;
    return MHD_YES;
  }
  int get = !strcmp(method, MHD_HTTP_METHOD_GET), head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
  if (!get && !head) return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "method not allowed\n", 19, 0);
  if (!strcmp(url, "/")) return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", (char *)index_page,
                                      sizeof index_page - 1, 0);
  if (strcmp(url, "/metrics")) return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", "not found\n", 10, 0);
  int om = srv_wants_openmetrics(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
  size_t len = 0;
  char *text = render(s, om, &len);
  if (!text) return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", "out of memory\n", 14, 0);
  return reply(c, MHD_HTTP_OK, om ? SRV_CONTENT_TYPE_OPENMETRICS : SRV_CONTENT_TYPE_TEXT, text, len, 1);
}

struct MHD_Daemon *srv_http_start(struct srv *s, const char *addr, int port, int *bound_port, char *err,
                                  size_t errlen) {
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
  struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
  if (!addr[0] || !strcmp(addr, "0.0.0.0") || !strcmp(addr, "*")) {
    a4->sin_family = AF_INET;
    a4->sin_addr.s_addr = htonl(INADDR_ANY);
    a4->sin_port = htons((uint16_t)port);
  } else if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons((uint16_t)port);
  } else if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((uint16_t)port);
    flags |= MHD_USE_IPv6;
  } else {
    snprintf(err, errlen, "'%s' is not an IPv4 or IPv6 address", addr);
    return NULL;
  }
  /* The socket is bound here, not by libmicrohttpd, so that a bind that
   * fails says why (EADDRINUSE, EACCES, EADDRNOTAVAIL, ...). As
   * libmicrohttpd binds: SO_REUSEADDR, IPv6 only for an IPv6 address. */
  int v6 = ss.ss_family == AF_INET6;
  char where[INET6_ADDRSTRLEN + 16];
  snprintf(where, sizeof where, "%s%s%s:%d", v6 ? "[" : "", addr[0] && strcmp(addr, "*") ? addr : "0.0.0.0",
           v6 ? "]" : "", port);
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    snprintf(err, errlen, "cannot listen on %s: %s", where, strerror(errno));
    return NULL;
  }
  int on = 1;
  (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (v6) (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
  socklen_t len = v6 ? sizeof *a6 : sizeof *a4;
  if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, SOMAXCONN) != 0) {
    snprintf(err, errlen, "cannot listen on %s: %s", where, strerror(errno));
    close(fd);
    return NULL;
  }
  struct sockaddr_storage bound;
  socklen_t blen = sizeof bound;
  *bound_port = port;
  if (getsockname(fd, (struct sockaddr *)&bound, &blen) == 0)
    *bound_port = ntohs(v6 ? ((struct sockaddr_in6 *)&bound)->sin6_port : ((struct sockaddr_in *)&bound)->sin_port);
  /* The socket is libmicrohttpd's now: it closes it when the daemon stops,
   * and on most of its own failures (one it did not close is left to the
   * exit rather than closed twice). */
  struct MHD_Daemon *d = MHD_start_daemon(flags, 0, NULL, NULL, handle, s,
                                          MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
                                          MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
                                          MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)MAX_PER_IP,
                                          MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
                                          MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY,
                                          MHD_OPTION_END);
  if (!d) snprintf(err, errlen, "cannot serve HTTP on %s: libmicrohttpd did not start", where);
  return d;
}

void srv_http_stop(struct MHD_Daemon *d) {
  if (d) MHD_stop_daemon(d);
}
