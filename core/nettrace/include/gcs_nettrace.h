/*
 * gcs_nettrace.h — read EventPipe .nettrace files (what `dotnet-trace collect`
 * writes) and deliver their GC events as struct gcs_event records, the same
 * records the LTTng (CTF) decoders produce.
 *
 * Supported: the "Nettrace" FastSerialization container, format V4 and V5
 * (.NET Core 3.0 up to .NET 9; V5 only adds optional metadata tags). V6
 * (.NET 10 `collect-linux`) and the older .netperf (V1–V3) are recognised
 * and rejected with a clear message.
 *
 * Delivered events: those of Microsoft-Windows-DotNETRuntime and
 * Microsoft-Windows-DotNETRuntimePrivate that schemas/gc_events.def defines
 * (decoded by provider, event ID and version with gcs_etw_decode), plus the
 * rundown provider's RuntimeInformation (ID 187), delivered as
 * RuntimeInformationStart. Microsoft-DotNETCore-EventPipe/ProcessInfo fills
 * info->command_line. Every other event is counted in events_total and
 * skipped. Events come in timestamp order (sorted inside each region between
 * sequence points, ties kept in file order), with origin GCS_ORIGIN_CLR,
 * pid = the Trace object's ProcessId, tid = the event's ThreadId, cpu = its
 * ProcessorNumber, stack = the event's call stack when it refers to one
 * (StackBlocks; leaf first). The method events that resolve stacks
 * (MethodLoadVerbose, the rundown's MethodDCEndVerbose) are delivered too
 * (gcs_kind_is_symbols).
 *
 * One reader: gcs_nettrace_stream takes the bytes as they come (a file read
 * in chunks, a live EventPipe connection, an inflated .gz); gcs_nettrace_read
 * feeds it a file.
 *
 * A stream cut short (a killed recorder, a dead process, a partial copy) is
 * read up to its last whole object: the events of every whole block are
 * delivered, and the reader says where it was cut and what was dropped
 * (truncated). A cut before the Trace object is complete is an error.
 *
 * Ownership: the gcs_event passed to the callback, and every string it
 * points to, belong to the reader and are valid only during the call; so do
 * the bytes of an object passed to the object callback.
 * Threading: reentrant; no global state; a stream is used by one thread.
 * Errors: functions return 0 on success and -1 on failure with a one-line
 * message (no newline) in err naming the file or stream; nothing is printed.
 * Events delivered before an error stay delivered (the caller decides
 * whether to keep them). Memory is bounded: one object is buffered at a time
 * (at most GCS_NETTRACE_MAX_OBJECT bytes), and only the GC events of one
 * sequence-point region (at most GCS_NETTRACE_MAX_PENDING of them carrying
 * at most GCS_NETTRACE_MAX_PENDING_BYTES of payload; more is an error, and
 * so is a failed allocation, named as such). Delivery costs O(log n) per
 * event whatever order the stream is in.
 */
#ifndef GCS_NETTRACE_H
#define GCS_NETTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of not-yet-sorted GC events held at once (48 bytes each
 * plus their payloads). */
#define GCS_NETTRACE_MAX_PENDING (1u << 20)
/* Largest sum of the payloads of those events (MiB = 2^20 bytes). */
#define GCS_NETTRACE_MAX_PENDING_BYTES (128u << 20)
/* Largest object (block) the reader buffers; the runtime writes blocks of
 * about 100 KB. */
#define GCS_NETTRACE_MAX_OBJECT (64u << 20)

struct gcs_nettrace_info {
  int32_t pid;               /* Trace object ProcessId */
  int pointer_size;          /* 4 or 8 */
  char hostname[256];        /* "" (V4/V5 files carry no host name) */
  char command_line[1024];   /* ProcessInfo, else RuntimeInformation; "" if neither */
  uint64_t start_ns, end_ns; /* ns since the Unix epoch: SyncTimeUTC, and the
                                timestamp of the last event in the file
                                (converted with SyncTimeQPC and QPCFrequency) */
  uint64_t events_total;     /* event records in the file (all providers) */
  uint64_t events_decoded;   /* GC events delivered to the callback (the
                                method events excepted) */
  uint64_t events_lost;      /* sequence-number gaps (per capture thread and
                                at sequence points): the sum of the lost
                                records' counts */
  uint64_t lost_records;     /* lost records (gcs_nettrace_lost) delivered */
  /* Kept current while reading (the horizon callback says when it
   * changes): no lost record still to come has a window beginning before
   * it, in ns since the epoch: the oldest last event of a capture thread,
   * but never before the sequence point preceding the last one read (so an
   * idle thread holds it back by two sequence points at most); 0 while one
   * may begin at the trace's start (a capture thread known only from the
   * first sequence point); UINT64_MAX before any capture thread is
   * known. */
  uint64_t lost_horizon_ns;
  int format_version;        /* 4 or 5 (5 when metadata carries V5 tags or the
                                Trace object says 5) */
  int truncated;             /* the stream ended without its end-of-stream tag
                                (inside an object, or between two) */
  uint64_t truncated_at;     /* where: the offset of the first byte not read */
  uint64_t dropped_bytes;    /* bytes of the object cut short (0 between objects) */
  uint64_t events_late;      /* live mode: events delivered after a newer one */
  uint64_t stacks;           /* call stacks in StackBlocks */
  uint64_t events_with_stack;/* delivered-kind events that refer to a stack */
  uint64_t stacks_missing;   /* of them: the stack was not in the file (or over
                                the reader's memory bound): delivered without */
  uint64_t stacks_dropped;   /* stacks not kept: over the memory bound */
};

/* Called once per delivered event; a non-zero return stops the read, which
 * then returns 0 with info describing what was read so far. */
typedef int (*gcs_nettrace_event_cb)(const struct gcs_event *ev, void *ud);

/* Events one capture thread lost: a gap in its sequence numbers (the
 * runtime numbers every event a thread tries to write, also the ones it
 * drops when its buffers are full), found at the thread's next event or at
 * a sequence point (SPBlock) that lists a higher number for it. The lost
 * events lie in [begin_ns, end_ns]: from the thread's previous event, or
 * the sequence point before the last one read before the gap was found if
 * that is later (the numbers a sequence point lists were read after the
 * previous point's timestamp; 0 when neither is known: the thread is known
 * only from the first sequence point, so the window begins at the trace's
 * start), to the event after the gap, or the sequence point's timestamp.
 * Records are delivered among the events
 * in the order of their windows' beginnings (before the first event not
 * older than begin_ns that is still to be delivered; a window beginning
 * before events already delivered comes at the next delivery). More than
 * GCS_NETTRACE_MAX_LOST_WAITING records waiting are merged into one (the
 * union of their windows, the sum of their counts). */
#define GCS_NETTRACE_MAX_LOST_WAITING 256
struct gcs_nettrace_lost {
  uint64_t count;            /* missing sequence numbers (>= 1) */
  uint64_t begin_ns, end_ns; /* the window (ns since the epoch); begin_ns 0: unknown */
  uint64_t capture_thread;   /* the CaptureThreadId whose numbers skipped */
  int at_sequence_point;     /* 1: found at a sequence point */
};
/* A non-zero return stops the read, as for an event. */
typedef int (*gcs_nettrace_lost_cb)(const struct gcs_nettrace_lost *l, void *ud);
/* info.lost_horizon_ns changed: called before the next event or lost
 * record is delivered (gcs_recon_lost_horizon). */
typedef void (*gcs_nettrace_horizon_cb)(uint64_t horizon_ns, void *ud);

/* Read the file at path. cb may be NULL (only info is filled); info may be
 * NULL. Returns 0 (also for a file cut short after its Trace object: then
 * info->truncated is set and err says where it was cut and what was dropped),
 * or -1 with "<path>: <what went wrong>" in err. */
int gcs_nettrace_read(const char *path, gcs_nettrace_event_cb cb, void *ud,
                      struct gcs_nettrace_info *info, char *err, size_t errlen);
/* The same, with the sequence gaps delivered as lost records (lost, and
 * horizon, may be NULL). */
int gcs_nettrace_read_lost(const char *path, gcs_nettrace_event_cb cb, gcs_nettrace_lost_cb lost,
                           gcs_nettrace_horizon_cb horizon, void *ud, struct gcs_nettrace_info *info, char *err,
                           size_t errlen);

/* ---- streams ------------------------------------------------------------ */

/* The top-level objects of a stream, in the order received. */
enum gcs_nettrace_object_kind {
  GCS_NETTRACE_OBJ_TRACE,        /* the Trace object (the stream's header fields) */
  GCS_NETTRACE_OBJ_METADATA,     /* MetadataBlock */
  GCS_NETTRACE_OBJ_EVENTS,       /* EventBlock */
  GCS_NETTRACE_OBJ_STACKS,       /* StackBlock */
  GCS_NETTRACE_OBJ_SEQPOINT      /* SPBlock */
};

struct gcs_nettrace_object {
  enum gcs_nettrace_object_kind kind;
  int32_t version, min_version;  /* the object type's versions, as in the stream */
  const uint8_t *body;           /* Trace: its fields; a block: its bytes (after its
                                    size and padding) */
  size_t len;
};

/* Called once per whole object, before its events are delivered; a non-zero
 * return is an error ("the object callback failed"). */
typedef int (*gcs_nettrace_object_cb)(const struct gcs_nettrace_object *o, void *ud);

struct gcs_nettrace_stream;

/* name is used in messages ("<name>: ..."). cb and ocb may be NULL. NULL when
 * out of memory. */
struct gcs_nettrace_stream *gcs_nettrace_stream_new(const char *name, gcs_nettrace_event_cb cb,
                                                    gcs_nettrace_object_cb ocb, void *ud);
/* Live mode: events are sorted per region between sequence points, which
 * the runtime writes rarely; with lag_ns > 0, each feed also delivers, in
 * timestamp order, the pending events older than the newest timestamp seen
 * minus lag_ns. An event arriving older than one already delivered is still
 * delivered (counted in events_late). */
void gcs_nettrace_stream_set_live(struct gcs_nettrace_stream *s, uint64_t lag_ns);
/* Deliver the sequence gaps as lost records (gcs_nettrace_lost) to lost,
 * and the loss horizon's changes to horizon (either may be NULL), with the
 * stream's ud. Before the first feed. */
void gcs_nettrace_stream_set_lost(struct gcs_nettrace_stream *s, gcs_nettrace_lost_cb lost,
                                  gcs_nettrace_horizon_cb horizon);
/* Live mode, no bytes for a while (the caller's judgement: lag_ns is the
 * natural bound): delivers every pending event of the whole blocks read, in
 * timestamp order. An idle runtime sends no newer event to push the last
 * ones past the lag, so without this they wait for the next burst (seen: the
 * last 39 GCs of a burst 6-7 s late). 0, or -1 with a one-line message. */
int gcs_nettrace_stream_idle(struct gcs_nettrace_stream *s, char *err, size_t errlen);
/* The next bytes, split anywhere. 0, or -1 with a one-line message (the
 * stream is then unusable; the events delivered stay delivered). After the
 * end-of-stream tag, further bytes are ignored. */
int gcs_nettrace_stream_feed(struct gcs_nettrace_stream *s, const void *buf, size_t len, char *err,
                             size_t errlen);
/* End of input: delivers every pending event of the whole blocks. 0 when the
 * stream ended with its end-of-stream tag; 1 when it was cut short after its
 * Trace object (info.truncated; err says at which byte and what was
 * dropped); -1 on an error (also a cut before the Trace object was whole). */
int gcs_nettrace_stream_finish(struct gcs_nettrace_stream *s, char *err, size_t errlen);
/* What was read so far (valid until the stream is freed). */
const struct gcs_nettrace_info *gcs_nettrace_stream_info(const struct gcs_nettrace_stream *s);
/* Bytes of the stream consumed by whole objects so far. */
uint64_t gcs_nettrace_stream_offset(const struct gcs_nettrace_stream *s);
void gcs_nettrace_stream_free(struct gcs_nettrace_stream *s);

/* ---- requests ------------------------------------------------------------ */

/* An EventSource's start/stop pair delivered as SourceRequestStart/Stop
 * (gcs_events.h): `record --requests`. Every reader knows the two built-in
 * pairs, ASP.NET Core's server requests (Microsoft.AspNetCore.Hosting
 * RequestStart/RequestStop: method and path) and HttpClient's
 * (System.Net.Http RequestStart/RequestStop: pathAndQuery); a stream can be
 * given more. A pair's events match by their activity id (EventSource sets
 * it on Start/Stop events when System.Threading.Tasks.TplEventSource's
 * TasksFlowActivityIds keyword is on), or by a named payload field (key).
 * An event without either (activity id zero) is keyed by its thread. */
enum gcs_nettrace_req_source { GCS_NT_REQ_ASPNET = 1, GCS_NT_REQ_HTTP = 2, GCS_NT_REQ_CUSTOM = 3 };
#define GCS_NETTRACE_MAX_REQSPECS 8
#define GCS_NETTRACE_ASPNET_PROVIDER "Microsoft.AspNetCore.Hosting"
#define GCS_NETTRACE_HTTP_PROVIDER "System.Net.Http"
#define GCS_NETTRACE_TPL_PROVIDER "System.Threading.Tasks.TplEventSource"
#define GCS_NETTRACE_TPL_FLOW_ACTIVITY_IDS 0x80ull
struct gcs_nettrace_reqspec {
  char provider[128];            /* EventSource name (case-insensitive) */
  char start[64], stop[64];      /* event names, or decimal event ids */
  char key[32];                  /* payload field pairing them; "" = the activity id */
  int source;                    /* enum gcs_nettrace_req_source */
};
/* "aspnet", "http", or PROVIDER:START:STOP[:KEY]. 0, or -1 with a message. */
int gcs_nettrace_reqspec_parse(const char *text, struct gcs_nettrace_reqspec *out, char *err, size_t errlen);
/* One more pair for this stream (before its first feed). 0, or -1 when
 * GCS_NETTRACE_MAX_REQSPECS are there. */
int gcs_nettrace_stream_add_requests(struct gcs_nettrace_stream *s, const struct gcs_nettrace_reqspec *spec);
/* The pairs a file was recorded with: "<trace_path>.requests" (for
 * "x.nettrace.gz" also "x.nettrace.requests"), one PROVIDER:START:STOP[:KEY]
 * a line ('#' comments), which `record --requests` writes beside its trace
 * and captures; gcs_nettrace_read loads it. 0 (also when there is none), or
 * -1 with "<file>:<line>: ..." in err. */
int gcs_nettrace_stream_load_requests(struct gcs_nettrace_stream *s, const char *trace_path, char *err, size_t errlen);
/* Writes that file for the PROVIDER:START:STOP pairs among spec[0..n) (none: no file). 0, or -1 with err. */
int gcs_nettrace_write_requests(const char *trace_path, const struct gcs_nettrace_reqspec *spec, int n, char *err,
                                size_t errlen);

/* ---- writing ------------------------------------------------------------ */

/* A nettrace file from objects a stream delivered (a flight recorder's
 * capture: the Trace object, every metadata block, then the kept blocks):
 * the stream header, each object re-serialized with its alignment, and the
 * end-of-stream tag at close. */
struct gcs_nettrace_writer;
struct gcs_nettrace_writer *gcs_nettrace_writer_open(const char *path, char *err, size_t errlen);
int gcs_nettrace_writer_object(struct gcs_nettrace_writer *w, const struct gcs_nettrace_object *o, char *err,
                               size_t errlen);
/* Writes the end tag, flushes and closes (also after an error: then the file
 * is removed). 0 or -1. */
int gcs_nettrace_writer_close(struct gcs_nettrace_writer *w, char *err, size_t errlen);

/* 1 if the file starts with the "Nettrace" magic, 0 otherwise (also when it
 * cannot be opened). */
int gcs_nettrace_is_nettrace(const char *path);

#ifdef __cplusplus
}
#endif
#endif /* GCS_NETTRACE_H */
