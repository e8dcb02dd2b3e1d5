/* trc_ctl.h — private to gcs_session: what trc_lttng.c's first check of the
 * session daemon shares with the request watchdog (trc_ctl.c). */
#ifndef TRC_CTL_PRIV_H
#define TRC_CTL_PRIV_H

#include <stddef.h>
#include <sys/types.h>

/* $GCSCOPE_FLUSH_TIMEOUT seconds (1 to 86400), TRC_FLUSH_TIMEOUT_DEFAULT
 * (trc_lttng.h) when unset; -1 with a line in err otherwise. */
int trc_ctl_flush_timeout(int *secs, char *err, size_t errlen);
/* The client socket liblttng-ctl connects to, for messages. */
void trc_ctl_socket_path(char *out, size_t n);
/* Does a unix socket accept a connection (a non-blocking connect)?
 * TRC_SOCK_FULL: something listens there but its listen queue is full, so a
 * blocking connect would wait until it accepts. */
enum { TRC_SOCK_NONE, TRC_SOCK_ACCEPTS, TRC_SOCK_FULL };
int trc_ctl_socket_state(const char *path);
/* The pid listening on that socket (SO_PEERCRED), 0 if unknown; never
 * blocks (a daemon whose backlog is full refuses at once). */
pid_t trc_ctl_socket_owner(const char *path);

#endif
