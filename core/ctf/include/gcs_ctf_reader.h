/*
 * gcs_ctf_reader.h — read LTTng CTF traces and decode the GC events of
 * gc_events.def into struct gcs_event.
 *
 * One call reads a set of CTF trace directories (those holding `metadata`,
 * see gcs_ctf_find.h). When every trace's metadata is within the subset of
 * CTF 1.8 LTTng writes, our own reader decodes the packets (ctf_native_*.c:
 * bounds-checked, bounded memory); otherwise a babeltrace2 graph does:
 * src.ctf.fs → flt.utils.muxer → a sink of ours. GCSCOPE_CTF_READER=native
 * or =babeltrace2 forces one (native on a trace outside the subset is an
 * error). Every event, in time order, is handed to a callback:
 *   - rgc:* events and CoreCLR's per-field DotNETRuntime:* /
 *     DotNETRuntimePrivate:* events are decoded field by field by name
 *     (schema-driven: gcs_field_find + gcs_field_set_*); arrays are CTF
 *     sequences;
 *   - packed CoreCLR events (`length` + `__data__`) go through
 *     gcs_etw_decode with the event's version (pointer size 8);
 *   - any other event is still reported (decoded = 0) with its name, time
 *     and process, so a caller can count events and processes.
 * Discarded-event counts (babeltrace2 discarded-events messages) and gaps in
 * a stream's packets (discarded-packets messages) go to a second callback. The trace environment's `hostname` is reported in the
 * stats.
 *
 * The decoding itself is exported (gcs_ctf_decoder) for readers that run
 * their own babeltrace2 graph, e.g. `gcscope top` on src.ctf.lttng-live:
 * they hand it each message and get the same record gcs_ctf_read reports.
 *
 * Ownership: everything a callback receives (the record, its strings, the
 * STR fields of ev) is owned by the reader and valid only during the call.
 * Threading: a call runs entirely in the calling thread; callbacks run in
 * that thread. Independent calls may run in parallel threads.
 * Errors: returns 0 at the end of the traces, GCS_RD_STOPPED when a callback
 * returned non-zero, -1 on a read error with a one-line message in err
 * (babeltrace2's root cause, e.g. a truncated stream file).
 */
#ifndef GCS_CTF_READER_H
#define GCS_CTF_READER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "gcs_events.h"

#define GCS_RD_STOPPED 1

/* One event as read. ev.ts_ns/pid/tid/cpu are always set (pid/tid -1 when
 * the trace has no vpid/vtid context, cpu -1 without cpu_id); ev.kind,
 * version, origin, truncated and u only when decoded is 1. */
struct gcs_rd_event {
  struct gcs_event ev;
  int decoded;
  int payload_error;     /* decoded, but the packed payload was malformed (or
                            memory ran out): u is zero, ev.truncated is 1 */
  const char *name;      /* full CTF event name, "DotNETRuntime:GCStart_V2" */
  const char *procname;  /* procname context, "" if absent */
  int procname_env;      /* 1: procname is the trace environment's: the same
                            string, at the same address, for every event of
                            the class (a caller may compare the pointer) */
  /* lttng_ust_statedump:bin_info (a module of the process, for librgc's
   * stacks): its fields; NULL for every other event. */
  const struct gcs_rd_bin_info { uint64_t baddr, memsz; const char *path; int is_pic; } *bin_info;
};

/* Discarded events reported by a stream: count, the stream's name (its
 * file's path; a rotated stream's first file) and the end of the gap (ns
 * since the epoch, 0 if the trace does not say). count is never 0 nor a
 * counter's wrap: a stream whose cumulative counter went down reports
 * nothing until it passes its former highest value, and the stats'
 * discarded total is the sum of each stream's counter change, first packet
 * to last. A stream whose first packet already counts discarded events
 * (a rotated stream whose oldest files were deleted) reports 1 there: the
 * trace does not say how many. A gap in a stream's packet_seq_num (missing
 * packets; libbabeltrace2's discarded-packets message) is a record of 1 too
 * (their events, how many unknown), ts_ns the beginning of the packet after
 * the gap, counted in the stats' discarded and packet_gaps. Each record is
 * delivered, among the events, where its window begins (a first packet's:
 * at that packet's beginning). A stream whose last file is cut short (it
 * ends inside a packet or its header, or after a whole packet where its
 * LTTng index lists more) is a record of count 0 (not counted as
 * discarded: gcs_rd_stats.cut_streams says it), packet_gap 1, from the end
 * of the stream's last whole packet (begin_ns, 0 if none) to the end of the
 * trace (ts_ns UINT64_MAX): the stream's later events are missing. Only the
 * native reader tells a cut (libbabeltrace2 fails on one). */
struct gcs_rd_lost {
  uint64_t count;
  uint64_t ts_ns;      /* the window's end (above), 0 if the trace does not say */
  const char *stream;
  /* The window's beginning: the end of the stream's previous packet; 0 when
   * unknown (the stream's first packet: from the trace's start). The lost
   * events lie somewhere in [begin_ns, ts_ns]. */
  uint64_t begin_ns;
  int packet_gap;      /* 1: missing packets (a packet_seq_num gap), 0: discarded events */
};

struct gcs_rd_callbacks {
  int (*event)(const struct gcs_rd_event *e, void *ud);      /* non-zero: stop */
  int (*lost)(const struct gcs_rd_lost *l, void *ud);        /* may be NULL */
  /* may be NULL: what the reader is about to read, for error reports of a
   * caller that may not survive the read (a decoding process that crashes):
   * "DIR/metadata" before each trace's metadata is parsed and its streams
   * indexed, then the stream file's path whenever the packet being read
   * comes from another file than the previous one. */
  void (*where)(const char *what, void *ud);
};

struct gcs_rd_stats {
  uint64_t events;        /* every event read */
  uint64_t decoded;       /* events decoded into struct gcs_event */
  uint64_t discarded;     /* sum of discarded-event counts */
  uint64_t packet_gaps;   /* lost records of packet_seq_num gaps (in discarded, 1 each) */
  /* Kept current while reading (a callback may read it): no lost record
   * still to come has a window beginning before it -- 0 while a stream's
   * first packet may still report events lost from the trace's start,
   * else UINT64_MAX: the records come in the order of their windows'
   * beginnings, between the events (gcs_recon_lost_horizon). */
  uint64_t lost_horizon_ns;
  uint64_t first_ns, last_ns;  /* first/last event time, 0 if no event */
  /* Stream files cut short (see gcs_rd_lost): how many; the first one's
   * path, its size (where it was cut) and its one line ("FILE: cut at byte
   * N ...", how many bytes were dropped and what was kept). */
  uint64_t cut_streams;
  uint64_t cut_at;
  char cut_file[1024];
  char cut_why[1024];
  char hostname[256];     /* trace environment `hostname`, "" if absent */
};

/* Read the CTF traces in dirs (each holds a `metadata` file) merged in time
 * order. stats may be NULL. cancel, if not NULL, is polled between message
 * batches; when it becomes non-zero the read stops with GCS_RD_STOPPED. */
int gcs_ctf_read(const char *const *dirs, int ndirs, const struct gcs_rd_callbacks *cb,
                 void *ud, const atomic_int *cancel, struct gcs_rd_stats *stats,
                 char *err, size_t errlen);

/* 1 if gcs_ctf_read reads these traces with the native reader (every
 * metadata within the subset it knows, or GCSCOPE_CTF_READER=native), 0 if
 * with libbabeltrace2. Reads the metadata files; no stream file. */
int gcs_ctf_uses_native(const char *const *dirs, int ndirs);

/* ---- the decoder alone ----------------------------------------------------
 * Decodes babeltrace2 messages of CTF traces (LTTng layout) into records,
 * caching per event class where each member goes.
 *
 * Ownership: the caller owns the decoder (gcs_ctf_decoder_free); the record a
 * call returns belongs to the decoder and is valid until the next call on it
 * and while the message lives. The cache is keyed by babeltrace2 object
 * addresses: use one decoder per graph, freed with (or before) the graph.
 * Threading: a decoder is used by one thread at a time.
 * Errors: gcs_ctf_decoder_new returns NULL and gcs_ctf_decode -1 when memory
 * runs out. */
struct bt_message;
struct gcs_ctf_decoder;

struct gcs_ctf_decoder *gcs_ctf_decoder_new(void);
void gcs_ctf_decoder_free(struct gcs_ctf_decoder *d);   /* NULL is fine */

/* Hand every message of the graph to the decoder, in order. An event message
 * sets *out to its record and returns 1; any other message returns 0 with
 * *out NULL (packet beginnings are noted: they key the cpu_id cache). */
int gcs_ctf_decode(struct gcs_ctf_decoder *d, const struct bt_message *msg,
                   const struct gcs_rd_event **out);

#endif /* GCS_CTF_READER_H */
