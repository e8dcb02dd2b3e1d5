/*
 * gcs_dsipc.h — a client of the .NET runtime's diagnostics IPC channel
 * (dotnet/diagnostics documentation/design-docs/ipc-protocol.md): find a
 * process's diagnostic socket, ask it for its process information, start an
 * EventPipe session (the connection then carries the nettrace stream), stop
 * it, resume a runtime that waits at start-up, and listen for runtimes that
 * connect back (DOTNET_DiagnosticPorts=<path>,suspend: launch mode).
 *
 * Every command takes one connection from an endpoint: the runtime answers
 * one command per connection and closes it, except a tracing session whose
 * connection then carries the stream. An attach endpoint connects to the
 * runtime's socket for each command; a listen endpoint accepts the runtime's
 * next connection (the runtime reconnects after each one is used) and reads
 * its advertise message first.
 *
 * Errors: functions return 0 on success and -1 with a one-line message in
 * err (no newline, no program prefix). Error responses of the runtime are
 * decoded, with the HRESULT's name where known; a short, garbled or silent
 * answer is an error after at most the endpoint's timeout, never a hang.
 * Ownership: endpoints and the structs below are plain values owned by the
 * caller; gcs_dsipc_close releases an endpoint's descriptors; a stream
 * descriptor returned by gcs_dsipc_collect is the caller's to close.
 * Threading: an endpoint is used by one thread at a time; distinct endpoints
 * are independent. Nothing here installs signal handlers; sends never raise
 * SIGPIPE.
 */
#ifndef GCS_DSIPC_H
#define GCS_DSIPC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The runtime's GC event provider and its keywords and levels. */
#define GCS_DSIPC_PROVIDER_RUNTIME "Microsoft-Windows-DotNETRuntime"
#define GCS_DSIPC_KW_GC 0x1ull
#define GCS_DSIPC_KW_GC_HANDLE 0x2ull
#define GCS_DSIPC_KW_LOADER 0x8ull
#define GCS_DSIPC_KW_JIT 0x10ull
#define GCS_DSIPC_KW_TYPE 0x80000ull
#define GCS_DSIPC_KW_GC_HEAP_SURVIVAL_AND_MOVEMENT 0x400000ull
/* The rundown provider's keywords (Microsoft-Windows-DotNETRuntimeRundown):
 * the full rundown dotnet-trace asks for (loader, JIT, NGen, end, IL maps,
 * compilation), and End alone (RuntimeInformationRundown and
 * GCSettingsRundown, no method or module enumeration). */
#define GCS_DSIPC_RUNDOWN_FULL 0x80020139ull
#define GCS_DSIPC_RUNDOWN_GC 0x1ull
#define GCS_DSIPC_LEVEL_INFORMATIONAL 4u
#define GCS_DSIPC_LEVEL_VERBOSE 5u

/* HRESULTs the diagnostics server answers with. */
#define GCS_DSIPC_E_BAD_ENCODING 0x80131384u
#define GCS_DSIPC_E_UNKNOWN_COMMAND 0x80131385u
#define GCS_DSIPC_E_UNKNOWN_MAGIC 0x80131386u
#define GCS_DSIPC_E_NOT_SUPPORTED 0x80131515u
#define GCS_DSIPC_E_FAIL 0x80004005u

#define GCS_DSIPC_DEFAULT_TIMEOUT_MS 10000

struct gcs_dsipc_endpoint {
  char path[108];        /* attach: the runtime's socket; listen: ours */
  int listen_fd;         /* listen: our listening socket; -1 for attach */
  int timeout_ms;        /* per answer / per accepted connection */
  uint64_t pid;          /* listen: the pid the runtime advertised (0 until then) */
  uint8_t cookie[16];    /* listen: its runtime cookie */
  uint32_t last_hresult; /* the HRESULT of the last error response, 0 if none */
  int spare_fd;          /* listen: a connection of the endpoint's runtime kept by
                            gcs_dsipc_serve_pending for the next command; -1 if none */
};

/* Attach endpoint for a socket path (timeout GCS_DSIPC_DEFAULT_TIMEOUT_MS). */
int gcs_dsipc_attach_path(struct gcs_dsipc_endpoint *ep, const char *path, char *err, size_t errlen);
/* Attach endpoint for a pid: its socket in $TMPDIR (or /tmp) named
 * dotnet-diagnostic-<pid>-<key>-socket; when several exist (pid reuse), the
 * one whose key is the process's start time (/proc/<pid>/stat, jiffies
 * since boot), else the newest. Fails when there is none. */
int gcs_dsipc_attach_pid(struct gcs_dsipc_endpoint *ep, pid_t pid, char *err, size_t errlen);
/* The directory the runtime puts its sockets in: $TMPDIR, else /tmp. */
const char *gcs_dsipc_socket_dir(void);
/* Does pid have a diagnostic socket? (no connection is made) */
int gcs_dsipc_has_socket(pid_t pid);
/* Pids with a diagnostic socket in the socket directory, ascending, each
 * once; up to max are stored, the count found is returned. */
int gcs_dsipc_list_pids(pid_t *pids, int max);

/* Listen endpoint: a new socket at path (an existing socket file there is
 * replaced) for runtimes started with DOTNET_DiagnosticPorts=<path>,suspend. */
int gcs_dsipc_listen(struct gcs_dsipc_endpoint *ep, const char *path, char *err, size_t errlen);
/* Close the endpoint's descriptors; a listen endpoint also unlinks its socket. */
void gcs_dsipc_close(struct gcs_dsipc_endpoint *ep);

/* One open connection for a command: attach connects; listen accepts the
 * runtime's next connection (waiting up to timeout_ms) and reads its
 * advertise message ("ADVR_V1", cookie, pid). The first runtime that
 * connects sets ep->pid and cookie and is the endpoint's from then on; a
 * connection from another runtime (another process that inherited
 * DOTNET_DiagnosticPorts) is answered with ResumeRuntime, so that it does not
 * wait, and closed. */
int gcs_dsipc_connect(struct gcs_dsipc_endpoint *ep, char *err, size_t errlen);

struct gcs_dsipc_process_info {
  uint64_t pid;
  uint8_t cookie[16];
  char command_line[4096];
  char os[64];
  char arch[64];
  char entry_assembly[256];    /* ProcessInfo2; "" from older runtimes */
  char runtime_version[128];   /* ProcessInfo2 (CLR product version); "" from older runtimes */
};

/* ProcessInfo2, or ProcessInfo when the runtime does not know ProcessInfo2.
 * Strings longer than their field are cut. */
int gcs_dsipc_process_info(struct gcs_dsipc_endpoint *ep, struct gcs_dsipc_process_info *info, char *err,
                           size_t errlen);

struct gcs_dsipc_provider {
  const char *name;
  uint64_t keywords;
  uint32_t level;
};

struct gcs_dsipc_session_cfg {
  uint32_t circular_mb;         /* the runtime's buffer; 0 = 256 */
  int request_rundown;          /* the full rundown (CollectTracing2's requestRundown) */
  uint64_t rundown_keywords;    /* more rundown keywords (CollectTracing4, .NET 9+;
                                   older runtimes: none unless request_rundown) */
  int request_stacks;           /* a stack with every event (the runtime's default;
                                   costly: ~0.1 ms per GC for the gc profile) */
  const struct gcs_dsipc_provider *providers;
  int nproviders;
};

/* Start a session: with a rundown CollectTracing4 (its keywords), then
 * without stacks CollectTracing3 (requestStackwalk 0), with them
 * CollectTracing2; on an "unknown command" answer, the next older
 * command on a new connection, down to CollectTracing (a runtime that does
 * not know CollectTracing3 records stacks whatever is asked). On success
 * *session is the runtime's session id and *stream_fd the connection that
 * now carries the nettrace stream (blocking; the caller reads and closes
 * it); *version_used is 4, 3, 2 or 1. */
int gcs_dsipc_collect(struct gcs_dsipc_endpoint *ep, const struct gcs_dsipc_session_cfg *cfg, uint64_t *session,
                      int *stream_fd, int *version_used, char *err, size_t errlen);
/* StopTracing on a new connection: the runtime flushes, ends the stream
 * and closes the session's connection. */
int gcs_dsipc_stop(struct gcs_dsipc_endpoint *ep, uint64_t session, char *err, size_t errlen);
/* ResumeRuntime: a runtime waiting at start-up (suspend mode) goes on. */
int gcs_dsipc_resume(struct gcs_dsipc_endpoint *ep, char *err, size_t errlen);

/* Listen endpoint: take every connection waiting on the socket, without
 * blocking. Another runtime's is answered with ResumeRuntime (it goes on,
 * untraced) and closed; one of the endpoint's runtime is kept for the next
 * command (the first runtime seen becomes the endpoint's). Call it while a
 * session runs and after it, so that no process started with the port waits
 * for gcscope. Returns how many other runtimes were resumed. */
int gcs_dsipc_serve_pending(struct gcs_dsipc_endpoint *ep);

/* "E_UNKNOWN_COMMAND" ... for the HRESULTs above, NULL otherwise. */
const char *gcs_dsipc_hresult_name(uint32_t hr);

#endif
