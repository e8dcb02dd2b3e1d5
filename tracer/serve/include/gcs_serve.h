/*
 * gcs_serve.h — `gcscope serve`: a Prometheus/OpenMetrics exporter of the GC
 * figures of every .NET process on a host (docs/serve.md).
 *
 * The command attaches to .NET processes over EventPipe (the tracer's
 * session code, gc profile), reconstructs their GCs with core/recon and
 * serves /metrics with libmicrohttpd. Its internals (srv.h, srv_metrics.h)
 * are private.
 *
 * Errors: one line "gcscope serve: ..." on stderr; exit status 0 after
 * SIGINT/SIGTERM, 1 on a runtime error (a dead or non-.NET --pid, a port in
 * use), 2 on a usage error.
 * Threading: call from the main thread; it blocks SIGINT and SIGTERM in the
 * threads it starts and waits for them itself.
 */
#ifndef GCS_SERVE_H
#define GCS_SERVE_H

int gcs_cmd_serve(int argc, char **argv);

#endif
