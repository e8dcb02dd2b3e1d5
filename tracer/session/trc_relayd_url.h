/*
 * trc_relayd_url.h — is the lttng-relayd of a `--relayd` URL reachable?
 *
 * A streaming session only connects to its relayd when its first channel is
 * made, and a snapshot (flight-recorder) session not before its first
 * snapshot: an unreachable relayd would be found only when a trigger fires.
 * So `gcscope record` checks the URL's control and data ports itself first.
 *
 * Errors: 0 when both ports accept a TCP connection (or the URL is not a
 * net:// / net6:// URL, which is left to liblttng-ctl); -1 with a one-line
 * reason in err. Threading: any thread; blocks up to timeout_ms per address.
 */
#ifndef TRC_RELAYD_URL_H
#define TRC_RELAYD_URL_H

#include <stddef.h>

/* LTTng's default relayd control and data ports. */
#define TRC_RELAYD_CTRL_PORT 5342
#define TRC_RELAYD_DATA_PORT 5343

/* Split net://HOST[:CTRL[:DATA]][/SUBDIR] or net6://[HOST][:CTRL[:DATA]]...
 * into host and ports (defaults above). Returns 1 when url is such a URL,
 * 0 for another scheme, -1 when it is malformed. */
int trc_relayd_url_parse(const char *url, char *host, size_t hostlen, int *ctrl, int *data);

int trc_relayd_url_check(const char *url, int timeout_ms, char *err, size_t errlen);

#endif
