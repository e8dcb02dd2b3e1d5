/*
 * gcs_ctf_live.h — read an LTTng live session as it is written: a
 * babeltrace2 graph src.ctf.lttng-live (through lttng-relayd's live port) →
 * a sink of ours, each message decoded by the one CTF decoder
 * (gcs_ctf_decode, gcs_ctf_reader.h) into the record import reads.
 * `gcscope top` and `gcscope serve --lttng` share it.
 *
 * The reader never blocks for long: gcs_ctf_live_poll runs the graph until
 * it has no data yet (the relayd said "again") or the time budget is used,
 * then returns, so a screen or a scraper thread stays responsive.
 *
 * The LTTng live protocol allows one reader per session and relayd: if
 * another reader holds the session, the poll fails and says so.
 *
 * Ownership: the caller owns the reader (gcs_ctf_live_close). Records handed
 * to the event callback are valid only during the call. Threading: a reader
 * is used by one thread; callbacks run in the thread that polls. Errors:
 * gcs_ctf_live_open returns NULL and gcs_ctf_live_poll -1, each with one
 * line in err (a relayd that is not there, a session that does not exist or
 * is read by another viewer, memory).
 */
#ifndef GCS_CTF_LIVE_H
#define GCS_CTF_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_ctf_reader.h"

struct gcs_ctf_live;

struct gcs_ctf_live_callbacks {
  /* Every event record (decoded or not: check rec->decoded). */
  void (*event)(const struct gcs_rd_event *rec, void *ud);
  /* A stream reported n discarded events, or missing packets (a gap in its
   * packet_seq_num: n = 1, the count unknown) (may be NULL), somewhere in
   * [begin_ns, end_ns] (ns since the epoch, as gcs_rd_lost: the stream's
   * previous packet's end to this packet's end, or its beginning for a gap;
   * begin_ns 0: unknown, the stream's first packet; end_ns 0: unknown). */
  void (*lost)(uint64_t n, uint64_t begin_ns, uint64_t end_ns, void *ud);
};

/* The live URL of SESSION on a relayd: relayd "net://HOST[:PORT]" (trailing
 * slashes ignored) + "/host/HOSTNAME/SESSION"; session may be
 * "HOSTNAME/SESSION" to name another host's session. *name gets the session
 * part (namelen bytes). */
void gcs_ctf_live_url(const char *relayd, const char *hostname, const char *session, char *url, size_t urllen,
                      char *name, size_t namelen);

/* A reader of the live session at url (gcs_ctf_live_url); session is its
 * name for messages. fail_if_missing: a session that does not exist (yet)
 * is an error at the first poll; else the reader waits for it. */
struct gcs_ctf_live *gcs_ctf_live_open(const char *url, const char *session, int fail_if_missing,
                                       const struct gcs_ctf_live_callbacks *cb, void *ud, char *err,
                                       size_t errlen);

#define GCS_CTF_LIVE_MORE 0   /* read what was there: poll again later */
#define GCS_CTF_LIVE_END 1    /* the session was destroyed and everything read */

/* Read for at most budget_ms. GCS_CTF_LIVE_MORE, GCS_CTF_LIVE_END, or -1
 * with one line in err (the reader is then done: close it). */
int gcs_ctf_live_poll(struct gcs_ctf_live *l, int budget_ms, char *err, size_t errlen);

/* Frees the graph (and the relayd's viewer slot). NULL is fine. */
void gcs_ctf_live_close(struct gcs_ctf_live *l);

#endif /* GCS_CTF_LIVE_H */
