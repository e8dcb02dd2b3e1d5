/* trc_relayd_url.c — reachability of a --relayd URL (trc_relayd_url.h). */
#include "trc_relayd_url.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int parse_port(const char **p, int *port) {
  char *end;
  errno = 0;
  long v = strtol(*p, &end, 10);
  if (end == *p || errno || v < 1 || v > 65535) return -1;
  *port = (int)v;
  *p = end;
  return 0;
}

int trc_relayd_url_parse(const char *url, char *host, size_t hostlen, int *ctrl, int *data) {
  const char *p;
  int v6 = 0;
  if (!strncmp(url, "net://", 6)) p = url + 6;
  else if (!strncmp(url, "net6://", 7)) p = url + 7, v6 = 1;
  else return 0;
  *ctrl = TRC_RELAYD_CTRL_PORT;
  *data = TRC_RELAYD_DATA_PORT;
  const char *h = p, *he;
  if (*p == '[') {                       /* [IPv6 address] */
    h = p + 1;
    if (!(he = strchr(h, ']'))) return -1;
    p = he + 1;
  } else {
    if (v6) return -1;
    he = p + strcspn(p, ":/");
    p = he;
  }
  if (he == h || (size_t)(he - h) >= hostlen) return -1;
  memcpy(host, h, (size_t)(he - h));
  host[he - h] = '\0';
  if (*p == ':') {
    p++;
    if (parse_port(&p, ctrl)) return -1;
    if (*p == ':') {
      p++;
      if (parse_port(&p, data)) return -1;
    }
  }
  return *p == '\0' || *p == '/' ? 1 : -1;
}

/* Connect to host:port within timeout_ms (every address of the name). */
static int try_connect(const char *host, int port, int timeout_ms, char *why, size_t whylen) {
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  char ps[8];
  snprintf(ps, sizeof ps, "%d", port);
  int g = getaddrinfo(host, ps, &hints, &res);
  if (g) { snprintf(why, whylen, "%s", gai_strerror(g)); return -1; }
  int ok = 0;
  snprintf(why, whylen, "no address");
  for (struct addrinfo *a = res; a && !ok; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) { snprintf(why, whylen, "%s", strerror(errno)); continue; }
    int r = connect(fd, a->ai_addr, a->ai_addrlen);
    if (r != 0 && errno == EINPROGRESS) {
      struct pollfd pf = { fd, POLLOUT, 0 };
      int e = 0;
      socklen_t el = sizeof e;
      r = poll(&pf, 1, timeout_ms);
      if (r == 0) { errno = ETIMEDOUT; r = -1; }
      else if (r > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e) { errno = e; r = -1; }
      else if (r > 0) r = 0;
    }
    if (r == 0) ok = 1;
    else snprintf(why, whylen, "%s", strerror(errno));
    close(fd);
  }
  freeaddrinfo(res);
  return ok ? 0 : -1;
}

int trc_relayd_url_check(const char *url, int timeout_ms, char *err, size_t errlen) {
  char host[256], why[128];
  int ctrl, data;
  int k = trc_relayd_url_parse(url, host, sizeof host, &ctrl, &data);
  if (k == 0) return 0;
  if (k < 0) {
    snprintf(err, errlen, "invalid relayd URL '%s' (expected net://HOST[:CTRL[:DATA]])", url);
    return -1;
  }
  const int ports[2] = { ctrl, data };
  for (int i = 0; i < 2; i++) {
    if (try_connect(host, ports[i], timeout_ms, why, sizeof why)) {
      snprintf(err, errlen, "cannot connect to lttng-relayd at %s (%s port %s:%d: %s)", url,
               i ? "data" : "control", host, ports[i], why);
      return -1;
    }
  }
  return 0;
}
