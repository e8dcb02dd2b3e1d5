/*
 * nt_reader.c — the nettrace V4/V5 container: stream header, the
 * FastSerialization object list (Trace, MetadataBlock, EventBlock,
 * StackBlock, SPBlock), event blob headers (compressed and not), sequence
 * numbers, and in-order delivery of the GC events, read incrementally: the
 * stream's bytes are accumulated until one whole object is there, which is
 * then parsed (and handed to the object callback) and dropped. See
 * gcs_nettrace.h for the contract and docs/nettrace.md for the format.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcs_nettrace.h"
#include "nt_cursor.h"
#include "nt_internal.h"
#include "nt_meta.h"
#include "nt_pending.h"
#include "nt_requests.h"
#include "nt_stacks.h"
#include "nt_time.h"
#include "nt_u64map.h"

#define NT_MAGIC "Nettrace"
#define NT_SERIALIZER "!FastSerialization.1"
/* FastSerialization tags. */
enum nt_tag { NT_TAG_NULL = 1, NT_TAG_BEGIN_PRIVATE = 5, NT_TAG_END = 6 };
#define NT_TRACE_FIELDS 48      /* SyncTimeUTC 16, SyncTimeQPC 8, QPCFrequency 8, 4 x i32 */
#define NT_STREAM_HEADER 32     /* "Nettrace", u32 20, "!FastSerialization.1" */
#define NT_MAX_TYPE_NAME 64
#define NT_BLOCK_HEADER_MIN 20  /* u16 size, u16 flags, i64 min, i64 max */
#define NT_BLOCK_FLAG_COMPRESSED 1
/* Compressed blob header flags. */
#define NT_F_METADATA_ID 0x01
#define NT_F_CAPTURE 0x02
#define NT_F_THREAD 0x04
#define NT_F_STACK 0x08
#define NT_F_ACTIVITY 0x10
#define NT_F_RELATED 0x20
#define NT_F_SORTED 0x40
#define NT_F_PAYLOAD_SIZE 0x80
/* A partial flush at an IsSorted event is only worth a sort when this many
 * events wait; below it, sequence points alone bound the buffer. */
#define NT_SORTED_FLUSH_MIN 65536
/* Real traces hold hundreds of metadata records and threads; these caps only
 * bound what a hostile file can make the reader allocate. */
#define NT_MAX_METADATA (1u << 20)
#define NT_MAX_THREADS (1u << 20)

/* A capture thread: its last sequence number and last event's timestamp. */
struct nt_thread {
  uint32_t seq;
  int has_ts;
  uint64_t last_ts;             /* QPC */
};

/* A lost record waiting for its place among the events. */
struct nt_lost {
  uint64_t count, thread;
  uint64_t begin_ts, end_ts;    /* QPC; begin_ts valid if has_begin */
  int has_begin, at_sp;
};

struct nt_reader {
  const char *name;
  uint64_t base;                /* stream offset of the cursor's byte 0 (messages) */
  gcs_nettrace_event_cb cb;
  gcs_nettrace_object_cb ocb;
  void *ud;
  struct gcs_nettrace_info info;
  char *err;
  size_t errlen;

  int trace_seen;
  uint64_t sync_qpc, qpc_freq, sync_ns;
  uint64_t max_ts;
  int have_ts;
  int cmdline_from_processinfo;

  struct nt_u64map meta_index;  /* metadata id -> index in metas */
  struct nt_meta *metas;
  size_t nmetas, capmetas;
  struct nt_u64map thread_index; /* capture thread id -> index in threads */
  struct nt_thread *threads;
  size_t nthreads, capthreads;
  size_t threads_without_ts;    /* of them: known from a sequence point only */
  uint64_t threads_min_ts;      /* <= every thread's last_ts (QPC): recomputed at
                                   each sequence point, lowered in between */
  /* The sequence points' bound on where a gap can begin (nt_gap_floor):
   * floor_ts, the timestamp of the sequence point before the last one read
   * (QPC, valid if has_floor); sp_ts, the last one's (valid if has_sp). */
  uint64_t floor_ts, sp_ts;
  int has_floor, has_sp;
  gcs_nettrace_lost_cb lost_cb;
  gcs_nettrace_horizon_cb horizon_cb;
  struct nt_lost lost[GCS_NETTRACE_MAX_LOST_WAITING]; /* lost records waiting */
  size_t nlost;
  size_t lost_first;            /* index of the earliest waiting (nlost > 0) */
  uint64_t horizon_told;        /* the horizon last given to horizon_cb */
  int horizon_told_any;
  int horizon_dirty;            /* what the horizon is made of changed */
  struct nt_pending pending;
  uint64_t order;
  int stopped;                  /* the callback asked to stop */
  size_t sorted_flush_min;      /* NT_SORTED_FLUSH_MIN (tests and fuzzers lower it) */
  uint64_t live_lag_qpc;        /* live mode: deliver events this much older than max_ts */
  uint64_t delivered_ts;        /* newest timestamp delivered (live mode: late events) */
  int delivered_any;

  char *strbuf;
  size_t strcap;
  struct nt_req req;            /* request events (nt_requests.h) */

  struct nt_stacks stacks;      /* StackBlock stacks of the current region */
  struct gcs_stack stack;
};

/* Header of one event blob, carried from blob to blob in compressed blocks. */
struct nt_blob {
  uint32_t meta_id, seq, proc, stack, payload_len;
  uint64_t capture_tid, tid, ts;
  int sorted;
  const uint8_t *payload;
  uint8_t activity[16];         /* ActivityId (request events pair by it) */
};

/* Offsets in messages are the stream's. */
__attribute__((format(printf, 3, 4)))
static int nt_fail(struct nt_reader *r, size_t offset, const char *fmt, ...) {
  if (!r->err || r->errlen == 0) return -1;
  int n = snprintf(r->err, r->errlen, "%s: ", r->name);
  if (n < 0 || (size_t)n >= r->errlen) return -1;
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
  va_end(ap);
  if (m >= 0 && (size_t)(n + m) < r->errlen)
    snprintf(r->err + n + m, r->errlen - (size_t)(n + m), " (at byte %llu)",
             (unsigned long long)(r->base + offset));
  return -1;
}

/* ---- delivery ------------------------------------------------------------ */

static void nt_tell_horizon(struct nt_reader *r);

/* UTF-16LE, NUL-terminated or ending with the data, to UTF-8 in out. */
static void nt_utf16_to_utf8(const uint8_t *p, size_t len, char *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i + 1 < len; i += 2) {
    uint32_t c = (uint32_t)p[i] | ((uint32_t)p[i + 1] << 8);
    if (c == 0) break;
    if (c >= 0xD800 && c < 0xDC00 && i + 3 < len) {
      uint32_t c2 = (uint32_t)p[i + 2] | ((uint32_t)p[i + 3] << 8);
      if (c2 >= 0xDC00 && c2 < 0xE000) { c = 0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00); i += 2; }
    }
    char enc[4];
    size_t n;
    if (c < 0x80) { enc[0] = (char)c; n = 1; }
    else if (c < 0x800) { enc[0] = (char)(0xC0 | (c >> 6)); enc[1] = (char)(0x80 | (c & 0x3F)); n = 2; }
    else if (c < 0x10000) {
      enc[0] = (char)(0xE0 | (c >> 12)); enc[1] = (char)(0x80 | ((c >> 6) & 0x3F));
      enc[2] = (char)(0x80 | (c & 0x3F)); n = 3;
    } else {
      enc[0] = (char)(0xF0 | (c >> 18)); enc[1] = (char)(0x80 | ((c >> 12) & 0x3F));
      enc[2] = (char)(0x80 | ((c >> 6) & 0x3F)); enc[3] = (char)(0x80 | (c & 0x3F)); n = 4;
    }
    if (o + n + 1 > cap) break;
    memcpy(out + o, enc, n);
    o += n;
  }
  if (cap) out[o] = '\0';
}

static int nt_deliver(struct nt_reader *r, const struct nt_pending_ev *pe) {
  /* UTF-16 -> UTF-8 grows a string by at most 3/2, plus terminators. */
  size_t need = (size_t)pe->len * 2 + 16;
  if (need > r->strcap) {
    char *nb = realloc(r->strbuf, need);
    if (!nb) return nt_fail(r, 0, "out of memory");
    r->strbuf = nb;
    r->strcap = need;
  }
  struct gcs_event ev;
  memset(&ev, 0, offsetof(struct gcs_event, u));
  if (pe->kind == gcs_kind_SourceRequestStart || pe->kind == gcs_kind_SourceRequestStop) {
    ev.kind = (enum gcs_kind)pe->kind;
    ev.tid = pe->tid;
    nt_req_decode(&r->req, &ev, nt_pending_payload(&r->pending, pe), pe->len, r->strbuf, r->strcap);
  } else if (gcs_etw_decode(&ev, (enum gcs_kind)pe->kind, pe->version, nt_pending_payload(&r->pending, pe), pe->len,
                     r->info.pointer_size, r->strbuf, r->strcap) != 0)
    return 0;  /* an empty payload of an event that needs one: not decodable */
  ev.origin = GCS_ORIGIN_CLR;
  if (pe->stack) {
    uint32_t depth = 0;
    const uint64_t *ip = nt_stacks_get(&r->stacks, pe->stack, &depth);
    if (ip && depth) {  /* an empty walk (a GC thread's event) is no stack */
      r->stack.depth = depth;
      r->stack.truncated = 0;
      r->stack.ip = ip;
      ev.stack = &r->stack;
    } else if (!ip) {
      r->info.stacks_missing++;
    }
  }
  ev.ts_ns = nt_qpc_to_ns(pe->ts, r->sync_qpc, r->qpc_freq, r->sync_ns);
  ev.pid = r->info.pid;
  ev.tid = pe->tid;
  ev.cpu = pe->cpu;
  if (!gcs_kind_is_symbols(ev.kind)) r->info.events_decoded++;
  if (r->delivered_any && pe->ts < r->delivered_ts) r->info.events_late++;
  if (!r->delivered_any || pe->ts > r->delivered_ts) r->delivered_ts = pe->ts;
  r->delivered_any = 1;
  if (ev.kind == gcs_kind_RuntimeInformationStart && !r->cmdline_from_processinfo &&
      ev.u.RuntimeInformationStart.CommandLine && ev.u.RuntimeInformationStart.CommandLine[0])
    snprintf(r->info.command_line, sizeof r->info.command_line, "%s",
             ev.u.RuntimeInformationStart.CommandLine);
  nt_tell_horizon(r);
  if (r->cb && r->cb(&ev, r->ud) != 0) r->stopped = 1;
  return 0;
}

/* ---- lost records and the loss horizon ------------------------------------ */

static uint64_t nt_ns(const struct nt_reader *r, uint64_t qpc) {
  return nt_qpc_to_ns(qpc, r->sync_qpc, r->qpc_freq, r->sync_ns);
}

/* Where a waiting record goes among the events: its window's beginning (an
 * unknown one first). */
static uint64_t nt_lost_key(const struct nt_lost *l) { return l->has_begin ? l->begin_ts : 0; }

static void nt_lost_find_first(struct nt_reader *r) {
  r->lost_first = 0;
  for (size_t i = 1; i < r->nlost; i++)
    if (nt_lost_key(&r->lost[i]) < nt_lost_key(&r->lost[r->lost_first])) r->lost_first = i;
}

/* Where a gap of thread t found from now on begins (QPC, in *ts; 0 if
 * unknown: the trace's start): its last event, or the sequence point before
 * the last one read if that is later. A sequence point lists each thread's
 * sequence number as the runtime read it just before taking the point's
 * timestamp (a lower bound: the read may lag by an instant), and the runtime
 * builds the points one after the other, so the numbers above the one it
 * lists were given out after the previous point's timestamp. A thread it
 * does not list can no longer write (the runtime drops a thread from the list
 * once it has exited and its events are written); a later event with its id
 * is a new thread's (the format's recycled id). So a gap found after point m
 * (its numbers above the last known one) began after point m - 1, whether
 * the thread wrote since or stayed idle. */
static int nt_gap_floor(const struct nt_reader *r, const struct nt_thread *t, uint64_t *ts) {
  int known = t->has_ts;
  *ts = t->has_ts ? t->last_ts : 0;
  if (r->has_floor && (!known || r->floor_ts > *ts)) { *ts = r->floor_ts; known = 1; }
  return known;
}

/* No lost record still to come begins before this (info.lost_horizon_ns):
 * the earliest waiting record's beginning, and every known thread's
 * nt_gap_floor: the later of the oldest last event of a thread (0 for a
 * thread with none) and the sequence point before the last one. */
static void nt_update_horizon(struct nt_reader *r) {
  uint64_t h = UINT64_MAX;
  if (r->nthreads) {
    int known = !r->threads_without_ts;
    uint64_t q = known ? r->threads_min_ts : 0;
    if (r->has_floor && (!known || r->floor_ts > q)) { q = r->floor_ts; known = 1; }
    h = known ? nt_ns(r, q) : 0;
  }
  if (r->nlost) {
    const struct nt_lost *l = &r->lost[r->lost_first];
    uint64_t b = l->has_begin ? nt_ns(r, l->begin_ts) : 0;
    if (b < h) h = b;
  }
  r->info.lost_horizon_ns = h;
}

static void nt_tell_horizon(struct nt_reader *r) {
  if (!r->horizon_dirty) return;
  r->horizon_dirty = 0;
  nt_update_horizon(r);
  if (!r->horizon_cb || (r->horizon_told_any && r->horizon_told == r->info.lost_horizon_ns)) return;
  r->horizon_told = r->info.lost_horizon_ns;
  r->horizon_told_any = 1;
  r->horizon_cb(r->horizon_told, r->ud);
}

/* Deliver the earliest waiting lost record. */
static void nt_deliver_lost(struct nt_reader *r) {
  struct nt_lost l = r->lost[r->lost_first];
  r->lost[r->lost_first] = r->lost[--r->nlost];
  if (r->nlost) nt_lost_find_first(r);
  r->horizon_dirty = 1;
  nt_tell_horizon(r);
  struct gcs_nettrace_lost out = { l.count, l.has_begin ? nt_ns(r, l.begin_ts) : 0, nt_ns(r, l.end_ts), l.thread,
                                   l.at_sp };
  /* A thread whose clock went back (a crafted file): the window ends where
   * it begins (not before the horizon already given). */
  if (out.begin_ns > out.end_ns) out.end_ns = out.begin_ns;
  r->info.lost_records++;
  if (r->lost_cb(&out, r->ud) != 0) r->stopped = 1;
}

/* A gap of n on thread (its state before the gap in *t), found at ts. */
static void nt_add_lost(struct nt_reader *r, uint64_t thread, const struct nt_thread *t, uint64_t n, uint64_t ts,
                        int at_sp) {
  r->info.events_lost += n;
  if (!r->lost_cb) return;
  uint64_t begin;
  int has_begin = nt_gap_floor(r, t, &begin);
  struct nt_lost l = { n, thread, begin, ts, has_begin, at_sp };
  if (r->nlost == GCS_NETTRACE_MAX_LOST_WAITING) {
    /* Merge into the latest: the union of the windows (a crafted stream;
     * the runtime's gaps are few). */
    struct nt_lost *m = &r->lost[r->nlost - 1];
    m->count += n;
    if (!l.has_begin || (m->has_begin && l.begin_ts < m->begin_ts)) {
      m->has_begin = l.has_begin;
      m->begin_ts = l.begin_ts;
    }
    if (l.end_ts > m->end_ts) m->end_ts = l.end_ts;
  } else {
    r->lost[r->nlost++] = l;
  }
  nt_lost_find_first(r);
  r->horizon_dirty = 1;
}

/* Deliver the buffered events and lost records with ts <= limit (all of
 * them for UINT64_MAX), earliest first, a lost record before an event of
 * its time. O(log n) per delivered event, O(1) when none is due. */
static int nt_flush(struct nt_reader *r, uint64_t limit) {
  const struct nt_pending_ev *top;
  int rc = 0;
  while (!r->stopped) {
    top = nt_pending_top(&r->pending);
    if (r->nlost) {
      uint64_t k = nt_lost_key(&r->lost[r->lost_first]);
      if (k <= limit && (!top || k <= top->ts)) { nt_deliver_lost(r); continue; }
    }
    if (!top || top->ts > limit) break;
    struct nt_pending_ev e;
    nt_pending_pop(&r->pending, &e);
    if (nt_deliver(r, &e) != 0) { rc = -1; break; }
  }
  nt_pending_settle(&r->pending);
  return rc;
}

/* ---- sequence numbers ---------------------------------------------------- */

/* A thread's next gap begins at its last event. */
static void nt_thread_saw(struct nt_reader *r, struct nt_thread *t, uint64_t ts) {
  if (!t->has_ts) {
    t->has_ts = 1;
    r->threads_without_ts--;
    t->last_ts = ts;
    r->horizon_dirty = 1;
  } else if (ts > t->last_ts) {
    t->last_ts = ts;
  }
  if (ts < r->threads_min_ts) {
    r->threads_min_ts = ts;
    r->horizon_dirty = 1;
  }
}

/* Sequence number seq of thread, at an event of timestamp ts or at a
 * sequence point of timestamp ts. A gap of less than 2^31 counts as lost
 * events (a lost record); a larger "gap" is a backwards step (a recycled
 * thread id) and is not counted. */
static int nt_seq_observe(struct nt_reader *r, uint64_t thread, uint32_t seq, uint64_t ts, int at_sequence_point) {
  uint32_t *idx = nt_u64map_get(&r->thread_index, thread);
  if (idx) {
    struct nt_thread *t = &r->threads[*idx];
    uint32_t expected = at_sequence_point ? t->seq : t->seq + 1;
    uint32_t gap = seq - expected;
    if (gap != 0 && gap < 0x80000000u && !(seq == 1 && !at_sequence_point))
      nt_add_lost(r, thread, t, gap, ts, at_sequence_point);
    if (gap < 0x80000000u || (seq == 1 && !at_sequence_point)) t->seq = seq;
    if (!at_sequence_point) nt_thread_saw(r, t, ts);
    return 0;
  }
  /* Past NT_MAX_THREADS distinct threads (only a hostile file has that
   * many) new threads are not tracked, so memory stays bounded. */
  if (r->nthreads >= NT_MAX_THREADS) return 0;
  if (r->nthreads == r->capthreads) {
    size_t ncap = r->capthreads ? r->capthreads * 2 : 64;
    struct nt_thread *nt = realloc(r->threads, ncap * sizeof *nt);
    if (!nt) return nt_fail(r, 0, "out of memory");
    r->threads = nt;
    r->capthreads = ncap;
  }
  if (nt_u64map_put(&r->thread_index, thread, (uint32_t)r->nthreads) != 0) return nt_fail(r, 0, "out of memory");
  struct nt_thread *t = &r->threads[r->nthreads++];
  t->seq = seq;
  t->has_ts = 0;
  t->last_ts = 0;
  r->threads_without_ts++;
  r->horizon_dirty = 1;
  if (!at_sequence_point) nt_thread_saw(r, t, ts);
  return 0;
}

/* ---- blocks -------------------------------------------------------------- */

static int nt_read_compressed_blob(struct nt_cursor *c, struct nt_blob *b) {
  uint8_t f = nt_u8(c);
  if (f & NT_F_METADATA_ID) b->meta_id = (uint32_t)nt_varint(c, 5);
  if (f & NT_F_CAPTURE) {
    b->seq += (uint32_t)nt_varint(c, 5);
    b->capture_tid = nt_varint(c, 10);
    b->proc = (uint32_t)nt_varint(c, 5);
  }
  if (b->meta_id != 0) b->seq++;
  if (f & NT_F_THREAD) b->tid = nt_varint(c, 10);
  if (f & NT_F_STACK) b->stack = (uint32_t)nt_varint(c, 5);
  b->ts += nt_varint(c, 10);
  if (f & NT_F_ACTIVITY) {
    const uint8_t *a = nt_bytes(c, 16);
    if (a) memcpy(b->activity, a, 16);
  }
  if (f & NT_F_RELATED) nt_skip(c, 16);
  b->sorted = (f & NT_F_SORTED) != 0;
  if (f & NT_F_PAYLOAD_SIZE) b->payload_len = (uint32_t)nt_varint(c, 5);
  b->payload = nt_bytes(c, b->payload_len);
  return c->ok ? 0 : -1;
}

static int nt_read_plain_blob(struct nt_cursor *c, struct nt_blob *b) {
  nt_skip(c, 4);  /* EventSize: the payload size below is what bounds the blob */
  uint32_t id = nt_u32(c);
  b->meta_id = id & 0x7FFFFFFFu;
  b->sorted = (id >> 31) != 0;
  b->seq = nt_u32(c);
  b->tid = nt_u64(c);
  b->capture_tid = nt_u64(c);
  b->proc = nt_u32(c);
  b->stack = nt_u32(c);
  b->ts = nt_u64(c);
  const uint8_t *a = nt_bytes(c, 16);  /* ActivityId */
  if (a) memcpy(b->activity, a, 16);
  nt_skip(c, 16);  /* RelatedActivityId */
  b->payload_len = nt_u32(c);
  b->payload = nt_bytes(c, b->payload_len);
  nt_align4(c);
  return c->ok ? 0 : -1;
}

static int nt_add_meta(struct nt_reader *r, const struct nt_blob *b, size_t at) {
  uint32_t id;
  struct nt_meta m;
  if (nt_meta_parse(b->payload, b->payload_len, &id, &m) != 0)
    return nt_fail(r, at, "malformed metadata record");
  if (m.v5_tags && r->info.format_version < 5) r->info.format_version = 5;
  if (m.kind == NT_META_SKIP && nt_req_match(&r->req, b->payload, b->payload_len, &m) != 0)
    return nt_fail(r, at, "out of memory");
  uint32_t *idx = nt_u64map_get(&r->meta_index, id);
  if (idx) { r->metas[*idx] = m; return 0; }  /* redefinition: the latest wins */
  if (r->nmetas >= NT_MAX_METADATA) return nt_fail(r, at, "more than %u metadata records", NT_MAX_METADATA);
  if (r->nmetas == r->capmetas) {
    size_t ncap = r->capmetas ? r->capmetas * 2 : 64;
    struct nt_meta *nm = realloc(r->metas, ncap * sizeof *nm);
    if (!nm) return nt_fail(r, at, "out of memory");
    r->metas = nm;
    r->capmetas = ncap;
  }
  r->metas[r->nmetas] = m;
  if (nt_u64map_put(&r->meta_index, id, (uint32_t)r->nmetas) != 0) return nt_fail(r, at, "out of memory");
  r->nmetas++;
  return 0;
}

static int nt_add_event(struct nt_reader *r, const struct nt_blob *b, size_t at) {
  r->info.events_total++;
  if (!r->have_ts || b->ts > r->max_ts) { r->max_ts = b->ts; r->have_ts = 1; }
  if (b->meta_id == 0) return 0;
  if (nt_seq_observe(r, b->capture_tid, b->seq, b->ts, 0) != 0) return -1;
  uint32_t *idx = nt_u64map_get(&r->meta_index, b->meta_id);
  if (!idx) return 0;  /* no metadata for it: cannot be one of ours */
  const struct nt_meta *m = &r->metas[*idx];
  if (m->kind == NT_META_PROCESSINFO) {
    nt_utf16_to_utf8(b->payload, b->payload_len, r->info.command_line, sizeof r->info.command_line);
    r->cmdline_from_processinfo = 1;
  } else if (m->kind >= 0) {
    const uint8_t *payload = b->payload;
    uint32_t len = b->payload_len;
    if (m->req && !(payload = nt_req_pack(&r->req, m, b->activity, b->payload, b->payload_len, &len)))
      return nt_fail(r, at, "out of memory");
    struct nt_pending_ev pe = { b->ts, r->order++, 0, len,
                                (int32_t)b->tid, (int32_t)b->proc, m->kind, m->version,
                                gcs_kind_is_symbols((enum gcs_kind)m->kind) ? 0 : b->stack };
    if (pe.stack) r->info.events_with_stack++;
    switch (nt_pending_push(&r->pending, &pe, payload)) {
    case NT_PUSH_OK: break;
    case NT_PUSH_MAX_EVENTS:
      return nt_fail(r, at, "more than %u GC events between two sequence points",
                     (unsigned)r->pending.max);
    case NT_PUSH_MAX_BYTES:
      return nt_fail(r, at, "more than %u MiB of GC event payloads between two sequence points "
                     "(an event of %u bytes on top of %zu waiting)",
                     (unsigned)(r->pending.max_bytes >> 20), len, r->pending.live_bytes);
    case NT_PUSH_NO_MEMORY:
      return nt_fail(r, at, "out of memory holding %zu GC events (%zu payload bytes) for sorting",
                     r->pending.n + 1, r->pending.live_bytes + len);
    }
  }
  if (b->sorted && r->pending.n >= r->sorted_flush_min) return nt_flush(r, b->ts);
  return 0;
}

/* EventBlock / MetadataBlock body in [c->pos, c->end). */
static int nt_read_event_block(struct nt_reader *r, struct nt_cursor *c, int is_metadata) {
  const char *what = is_metadata ? "MetadataBlock" : "EventBlock";
  size_t start = c->pos;
  uint16_t header_size = nt_u16(c);
  uint16_t flags = nt_u16(c);
  if (!c->ok || header_size < NT_BLOCK_HEADER_MIN || header_size > c->end - start)
    return nt_fail(r, start, "bad %s header size %u", what, header_size);
  c->pos = start + header_size;
  struct nt_blob b;
  memset(&b, 0, sizeof b);
  while (c->pos < c->end && !r->stopped) {
    size_t at = c->pos;
    int rc = (flags & NT_BLOCK_FLAG_COMPRESSED) ? nt_read_compressed_blob(c, &b)
                                                : nt_read_plain_blob(c, &b);
    if (rc != 0) return nt_fail(r, at, "event record runs past the end of its %s", what);
    rc = is_metadata ? nt_add_meta(r, &b, at) : nt_add_event(r, &b, at);
    if (rc != 0) return -1;
  }
  return 0;
}

static int nt_read_sequence_point(struct nt_reader *r, struct nt_cursor *c) {
  size_t start = c->pos;
  uint64_t ts = nt_u64(c);  /* every earlier event is older */
  uint32_t n = nt_u32(c);
  if (!c->ok || n > nt_left(c) / 12) return nt_fail(r, start, "bad SPBlock thread count %u", n);
  if (nt_flush(r, UINT64_MAX) != 0) return -1;
  nt_stacks_clear(&r->stacks);  /* no stack is referred to across a sequence point */
  for (uint32_t i = 0; i < n; i++) {
    uint64_t thread = nt_u64(c);
    uint32_t seq = nt_u32(c);
    if (nt_seq_observe(r, thread, seq, ts, 1) != 0) return -1;
  }
  /* Every thread's last event, exactly (between sequence points the bound
   * only goes down). */
  r->threads_min_ts = UINT64_MAX;
  for (size_t i = 0; i < r->nthreads; i++)
    if (r->threads[i].has_ts && r->threads[i].last_ts < r->threads_min_ts) r->threads_min_ts = r->threads[i].last_ts;
  /* The gaps found from now on began after the previous sequence point
   * (nt_gap_floor); the ones it revealed, before this update, after the one
   * before that. */
  if (r->has_sp && (!r->has_floor || r->sp_ts > r->floor_ts)) {
    r->floor_ts = r->sp_ts;
    r->has_floor = 1;
  }
  if (!r->has_sp || ts > r->sp_ts) r->sp_ts = ts;
  r->has_sp = 1;
  r->horizon_dirty = 1;
  /* The gaps it revealed, now: they begin before every later event. */
  return nt_flush(r, UINT64_MAX);
}

/* ---- objects ------------------------------------------------------------- */

static int nt_read_trace(struct nt_reader *r, struct nt_cursor *c, int32_t version, int32_t min_version) {
  size_t at = c->pos;
  if (version < 4 || min_version > 5)
    return nt_fail(r, at, "unsupported nettrace Trace object version %d (minimum reader version %d); "
                   "V4 and V5 are supported", version, min_version);
  int16_t st[8];
  for (int i = 0; i < 8; i++) st[i] = (int16_t)nt_u16(c);
  r->sync_qpc = nt_u64(c);
  r->qpc_freq = nt_u64(c);
  int32_t ptr_size = (int32_t)nt_u32(c);
  r->info.pid = (int32_t)nt_u32(c);
  nt_skip(c, 8);  /* NumberOfProcessors, ExpectedCPUSamplingRate */
  if (!c->ok) return nt_fail(r, at, "truncated Trace object");
  if (ptr_size != 4 && ptr_size != 8) return nt_fail(r, at, "bad pointer size %d", ptr_size);
  if ((int64_t)r->qpc_freq <= 0) return nt_fail(r, at, "bad QPC frequency %lld", (long long)r->qpc_freq);
  if (nt_systemtime_to_ns(st, &r->sync_ns) != 0) return nt_fail(r, at, "bad SyncTimeUTC");
  r->info.pointer_size = ptr_size;
  r->info.format_version = version > 5 ? 5 : version;
  r->info.start_ns = r->sync_ns;
  r->trace_seen = 1;
  return 0;
}

/* The object types a stream holds. */
struct nt_object_type { const char *name; enum gcs_nettrace_object_kind kind; };
static const struct nt_object_type nt_types[] = {
  { "Trace", GCS_NETTRACE_OBJ_TRACE },       { "MetadataBlock", GCS_NETTRACE_OBJ_METADATA },
  { "EventBlock", GCS_NETTRACE_OBJ_EVENTS }, { "StackBlock", GCS_NETTRACE_OBJ_STACKS },
  { "SPBlock", GCS_NETTRACE_OBJ_SEQPOINT },
};

static const struct nt_object_type *nt_type_named(const char *name) {
  for (size_t i = 0; i < sizeof nt_types / sizeof nt_types[0]; i++)
    if (strcmp(nt_types[i].name, name) == 0) return &nt_types[i];
  return NULL;
}

static const char *nt_kind_name(enum gcs_nettrace_object_kind k) {
  for (size_t i = 0; i < sizeof nt_types / sizeof nt_types[0]; i++)
    if (nt_types[i].kind == k) return nt_types[i].name;
  return "?";
}

static int nt_hand_over(struct nt_reader *r, size_t at, enum gcs_nettrace_object_kind kind, int32_t version,
                        int32_t min_version, const uint8_t *body, size_t len) {
  if (!r->ocb) return 0;
  struct gcs_nettrace_object o = { kind, version, min_version, body, len };
  if (r->ocb(&o, r->ud) != 0) return nt_fail(r, at, "the object callback failed on a %s", nt_kind_name(kind));
  return 0;
}

/* One object: BeginPrivateObject, its type, its payload, EndObject.
 * Returns 1 at the end-of-stream tag, 0 after an object, -1 on error. */
static int nt_read_object(struct nt_reader *r, struct nt_cursor *c) {
  size_t at = c->pos;
  uint8_t tag = nt_u8(c);
  if (!c->ok) return nt_fail(r, at, "truncated: the end-of-stream tag is missing");
  if (tag == NT_TAG_NULL) return 1;
  if (tag != NT_TAG_BEGIN_PRIVATE) return nt_fail(r, at, "unexpected tag %u where an object starts", tag);

  uint8_t t1 = nt_u8(c), t2 = nt_u8(c);
  int32_t version = (int32_t)nt_u32(c), min_version = (int32_t)nt_u32(c);
  uint32_t name_len = nt_u32(c);
  if (!c->ok) return nt_fail(r, at, "truncated object type");
  if (t1 != NT_TAG_BEGIN_PRIVATE || t2 != NT_TAG_NULL || name_len == 0 || name_len > NT_MAX_TYPE_NAME)
    return nt_fail(r, at, "malformed object type");
  char name[NT_MAX_TYPE_NAME + 1];
  const uint8_t *np = nt_bytes(c, name_len);
  uint8_t t3 = nt_u8(c);
  if (!c->ok) return nt_fail(r, at, "truncated object type");
  memcpy(name, np, name_len);
  name[name_len] = '\0';
  for (uint32_t i = 0; i < name_len; i++)
    if (name[i] < 0x20 || name[i] > 0x7E) name[i] = '?';
  if (t3 != NT_TAG_END) return nt_fail(r, at, "malformed object type '%s'", name);

  const struct nt_object_type *type = nt_type_named(name);
  if (!type) return nt_fail(r, at, "unknown object type '%s'", name);
  int is_trace = type->kind == GCS_NETTRACE_OBJ_TRACE;
  if (is_trace && r->trace_seen) return nt_fail(r, at, "second Trace object");
  if (!is_trace && !r->trace_seen) return nt_fail(r, at, "object '%s' before the Trace object", name);
  if (is_trace) {
    size_t fields = c->pos;
    if (nt_read_trace(r, c, version, min_version) != 0) return -1;
    if (c->pos - fields != NT_TRACE_FIELDS) return nt_fail(r, fields, "Trace object of unexpected size");
    if (nt_hand_over(r, at, type->kind, version, min_version, c->base + fields, NT_TRACE_FIELDS) != 0) return -1;
  } else {
    size_t size_at = c->pos;
    uint32_t size = nt_u32(c);
    nt_align4(c);
    if (!c->ok || size > nt_left(c))
      return nt_fail(r, size_at, "truncated %s (%u bytes declared, %zu left)", name, size, nt_left(c));
    if (nt_hand_over(r, at, type->kind, version, min_version, c->base + c->pos, size) != 0) return -1;
    struct nt_cursor body = nt_cursor_make(c->base, c->pos, c->pos + size);
    int rc = 0;
    if (type->kind == GCS_NETTRACE_OBJ_EVENTS || type->kind == GCS_NETTRACE_OBJ_METADATA)
      rc = nt_read_event_block(r, &body, type->kind == GCS_NETTRACE_OBJ_METADATA);
    else if (type->kind == GCS_NETTRACE_OBJ_SEQPOINT)
      rc = nt_read_sequence_point(r, &body);
    else if (type->kind == GCS_NETTRACE_OBJ_STACKS) {
      const char *why = NULL;
      if (nt_stacks_add_block(&r->stacks, c->base + c->pos, size, r->info.pointer_size, &why) != 0)
        rc = nt_fail(r, c->pos, "%s", why);
      r->info.stacks = r->stacks.read;
      r->info.stacks_dropped = r->stacks.dropped;
    }
    if (rc != 0) return -1;
    if (r->stopped) return 1;
    c->pos += size;
  }
  size_t end_at = c->pos;
  uint8_t end = nt_u8(c);
  if (!c->ok) return nt_fail(r, end_at, "truncated %s object", name);
  if (end != NT_TAG_END) return nt_fail(r, end_at, "%s object not closed by an end tag", name);
  return 0;
}

/* How many bytes the object at p[0..avail) spans: > 0 when it is all there,
 * 0 when more bytes are needed, -1 when its header is malformed (then
 * nt_read_object says how). pos4 is p's stream offset modulo 4. When more
 * bytes are needed and the type is known, *type_name names it. */
static long nt_object_extent(const uint8_t *p, size_t avail, size_t pos4, const char **type_name) {
  *type_name = NULL;
  if (avail < 1) return 0;
  if (p[0] == NT_TAG_NULL) return 1;
  if (p[0] != NT_TAG_BEGIN_PRIVATE) return -1;
  /* tag, tag, NULL tag, version, minimum version, name length, name, end tag */
  if (avail < 15) return 0;
  uint32_t name_len = (uint32_t)p[11] | ((uint32_t)p[12] << 8) | ((uint32_t)p[13] << 16) | ((uint32_t)p[14] << 24);
  if (name_len == 0 || name_len > NT_MAX_TYPE_NAME) return -1;
  size_t n = 15 + name_len + 1;   /* through the type's end tag */
  if (avail < n) return 0;
  char name[NT_MAX_TYPE_NAME + 1];
  memcpy(name, p + 15, name_len);
  name[name_len] = '\0';
  const struct nt_object_type *t = nt_type_named(name);
  if (!t) return -1;
  *type_name = t->name;
  if (t->kind == GCS_NETTRACE_OBJ_TRACE) {
    n += NT_TRACE_FIELDS + 1;
    return avail >= n ? (long)n : 0;
  }
  if (avail < n + 4) return 0;
  uint32_t size = (uint32_t)p[n] | ((uint32_t)p[n + 1] << 8) | ((uint32_t)p[n + 2] << 16) | ((uint32_t)p[n + 3] << 24);
  if (size > GCS_NETTRACE_MAX_OBJECT) return -1;
  n += 4;
  n += (4 - ((pos4 + n) & 3)) & 3;
  n += (size_t)size + 1;
  return avail >= n ? (long)n : 0;
}

static int nt_check_header(struct nt_reader *r, struct nt_cursor *c) {
  size_t slen = strlen(NT_SERIALIZER);
  size_t avail = nt_left(c);
  const uint8_t *b = avail ? c->base + c->pos : NULL;   /* (an empty stream has no buffer at all) */
  if (avail >= 4 + slen && b[0] == slen && b[1] == 0 && b[2] == 0 && b[3] == 0 &&
      memcmp(b + 4, NT_SERIALIZER, slen) == 0)
    return nt_fail(r, 0, "a .netperf file (EventPipe format V1-V3) is not supported");
  const uint8_t *magic = nt_bytes(c, 8);
  if (!magic || memcmp(magic, NT_MAGIC, 8) != 0)
    return nt_fail(r, 0, "not a nettrace file (no \"Nettrace\" magic)");
  uint32_t n = nt_u32(c);
  if (!c->ok) return nt_fail(r, 8, "truncated stream header");
  if (n == 0) {  /* V6 and later: u32 0, u32 major, u32 minor */
    uint32_t major = nt_u32(c);
    return nt_fail(r, 12, "nettrace format V%u is not supported (V4 and V5 are)", c->ok ? major : 0);
  }
  const uint8_t *s = nt_bytes(c, slen);
  if (!s) return nt_fail(r, 12, "truncated stream header");
  if (n != slen || memcmp(s, NT_SERIALIZER, slen) != 0)
    return nt_fail(r, 8, "bad stream header (expected \"%s\")", NT_SERIALIZER);
  return 0;
}

/* ---- the stream ---------------------------------------------------------- */

enum nt_state { NT_S_HEADER, NT_S_OBJECTS, NT_S_END, NT_S_FAILED };

struct gcs_nettrace_stream {
  struct nt_reader r;
  char name[512];
  char err[1024];
  enum nt_state state;
  uint8_t *acc;                 /* bytes not yet consumed: acc[pos..len) */
  size_t pos, len, cap;
  uint64_t base;                /* stream offset of acc[0]; a multiple of 4 */
  uint64_t live_lag_ns;
  uint64_t blocks;              /* whole blocks read */
};

struct gcs_nettrace_stream *gcs_nettrace_stream_new(const char *name, gcs_nettrace_event_cb cb,
                                                    gcs_nettrace_object_cb ocb, void *ud) {
  struct gcs_nettrace_stream *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  snprintf(s->name, sizeof s->name, "%s", name ? name : "nettrace stream");
  s->r.name = s->name;
  s->r.cb = cb;
  s->r.ocb = ocb;
  s->r.ud = ud;
  s->r.err = s->err;
  s->r.errlen = sizeof s->err;
  s->r.info.pid = -1;
  s->r.info.lost_horizon_ns = UINT64_MAX;
  s->r.threads_min_ts = UINT64_MAX;
  s->r.pending.max = GCS_NETTRACE_MAX_PENDING;
  nt_req_init(&s->r.req);
  s->r.pending.max_bytes = GCS_NETTRACE_MAX_PENDING_BYTES;
  s->r.sorted_flush_min = NT_SORTED_FLUSH_MIN;
  return s;
}

int gcs_nettrace_stream_add_requests(struct gcs_nettrace_stream *s, const struct gcs_nettrace_reqspec *spec) {
  return nt_req_add(&s->r.req, spec);
}

void gcs_nettrace_stream_set_live(struct gcs_nettrace_stream *s, uint64_t lag_ns) { s->live_lag_ns = lag_ns; }

void gcs_nettrace_stream_set_lost(struct gcs_nettrace_stream *s, gcs_nettrace_lost_cb lost,
                                  gcs_nettrace_horizon_cb horizon) {
  s->r.lost_cb = lost;
  s->r.horizon_cb = horizon;
}

const struct gcs_nettrace_info *gcs_nettrace_stream_info(const struct gcs_nettrace_stream *s) { return &s->r.info; }

uint64_t gcs_nettrace_stream_offset(const struct gcs_nettrace_stream *s) { return s->base + s->pos; }

void gcs_nettrace_stream_free(struct gcs_nettrace_stream *s) {
  if (!s) return;
  nt_pending_free(&s->r.pending);
  nt_u64map_free(&s->r.meta_index);
  nt_u64map_free(&s->r.thread_index);
  free(s->r.threads);
  free(s->r.metas);
  nt_req_free(&s->r.req);
  free(s->r.strbuf);
  nt_stacks_free(&s->r.stacks);
  free(s->acc);
  free(s);
}

static void nt_update_end(struct nt_reader *r) {
  r->info.end_ns = r->have_ts ? nt_qpc_to_ns(r->max_ts, r->sync_qpc, r->qpc_freq, r->sync_ns) : r->sync_ns;
  if (r->info.end_ns < r->info.start_ns) r->info.end_ns = r->info.start_ns;
}

static int nt_stream_fail(struct gcs_nettrace_stream *s, char *err, size_t errlen) {
  s->state = NT_S_FAILED;
  if (err && errlen) snprintf(err, errlen, "%s", s->err);
  return -1;
}

/* Drop consumed bytes, keeping acc[0] at a stream offset that is a multiple of 4. */
static void nt_compact(struct gcs_nettrace_stream *s) {
  size_t drop = s->pos & ~(size_t)3;
  if (drop == 0) return;
  memmove(s->acc, s->acc + drop, s->len - drop);
  s->len -= drop;
  s->pos -= drop;
  s->base += drop;
}

/* Parse every whole object in acc. */
static int nt_parse_available(struct gcs_nettrace_stream *s) {
  struct nt_reader *r = &s->r;
  r->base = s->base;
  if (s->state == NT_S_HEADER) {
    if (s->len - s->pos < NT_STREAM_HEADER) {
      /* Check what is there already: a wrong magic need not wait. */
      struct nt_cursor c = nt_cursor_make(s->acc, s->pos, s->len);
      if (s->len >= 8 && nt_check_header(r, &c) != 0 && strstr(s->err, "truncated") == NULL) return -1;
      return 0;
    }
    struct nt_cursor c = nt_cursor_make(s->acc, s->pos, s->len);
    if (nt_check_header(r, &c) != 0) return -1;
    s->pos = c.pos;
    s->state = NT_S_OBJECTS;
  }
  while (s->state == NT_S_OBJECTS && !r->stopped) {
    const char *type;
    long n = nt_object_extent(s->acc + s->pos, s->len - s->pos, (size_t)((s->base + s->pos) & 3), &type);
    if (n == 0) break;
    size_t end = n > 0 ? s->pos + (size_t)n : s->len;
    struct nt_cursor c = nt_cursor_make(s->acc, s->pos, end);
    int rc = nt_read_object(r, &c);
    if (rc < 0) return -1;
    if (n < 0) return nt_fail(r, s->pos, "malformed object");   /* not reached: the parse fails first */
    s->pos = c.pos;
    if (rc == 0 && r->trace_seen) s->blocks++;
    if (rc == 1) {
      if (!r->trace_seen) return nt_fail(r, s->pos, "no Trace object");
      s->state = NT_S_END;
    }
  }
  if (s->live_lag_ns && r->trace_seen && r->have_ts && s->state == NT_S_OBJECTS && !r->stopped) {
    if (!r->live_lag_qpc) r->live_lag_qpc = (uint64_t)((double)s->live_lag_ns * (double)r->qpc_freq / 1e9);
    if (r->max_ts > r->live_lag_qpc && nt_flush(r, r->max_ts - r->live_lag_qpc) != 0) return -1;
  }
  nt_update_end(r);
  return 0;
}

int gcs_nettrace_stream_feed(struct gcs_nettrace_stream *s, const void *buf, size_t len, char *err, size_t errlen) {
  if (s->state == NT_S_FAILED) {
    if (err && errlen) snprintf(err, errlen, "%s", s->err[0] ? s->err : "stream already failed");
    return -1;
  }
  if (s->state == NT_S_END || s->r.stopped || len == 0) return 0;
  nt_compact(s);
  if (s->len - s->pos > (size_t)GCS_NETTRACE_MAX_OBJECT + (1u << 20)) {   /* not reached: the extent bounds it */
    nt_fail(&s->r, s->pos, "an object larger than %u MB", GCS_NETTRACE_MAX_OBJECT >> 20);
    return nt_stream_fail(s, err, errlen);
  }
  if (s->len + len > s->cap) {
    size_t ncap = s->cap ? s->cap : 1 << 16;
    while (ncap < s->len + len) ncap *= 2;
    uint8_t *na = realloc(s->acc, ncap);
    if (!na) { nt_fail(&s->r, s->pos, "out of memory"); return nt_stream_fail(s, err, errlen); }
    s->acc = na;
    s->cap = ncap;
  }
  memcpy(s->acc + s->len, buf, len);
  s->len += len;
  if (nt_parse_available(s) != 0) return nt_stream_fail(s, err, errlen);
  return 0;
}

/* The stream stopped inside an object or between two: what was dropped. */
static void nt_describe_cut(struct gcs_nettrace_stream *s) {
  struct nt_reader *r = &s->r;
  size_t left = s->len - s->pos;
  uint64_t at = s->base + s->pos;
  r->info.truncated = 1;
  r->info.truncated_at = at;
  r->info.dropped_bytes = left;
  const char *type = NULL;
  if (left) (void)nt_object_extent(s->acc + s->pos, left, (size_t)(at & 3), &type);
  if (left)
    snprintf(s->err, sizeof s->err, "%s: truncated at byte %llu inside %s%s that starts at byte %llu (%zu bytes "
             "of it received, dropped); the events of the %llu whole blocks before it are kept", s->name,
             (unsigned long long)(at + left), type ? (type[0] == 'E' ? "an " : "a ") : "an object",
             type ? type : "", (unsigned long long)at, left, (unsigned long long)(s->blocks > 0 ? s->blocks - 1 : 0));
  else
    snprintf(s->err, sizeof s->err, "%s: truncated at byte %llu after a whole object: the end-of-stream tag is "
             "missing; every event before it is kept", s->name, (unsigned long long)at);
}

int gcs_nettrace_stream_idle(struct gcs_nettrace_stream *s, char *err, size_t errlen) {
  struct nt_reader *r = &s->r;
  if (s->state == NT_S_FAILED) return nt_stream_fail(s, err, errlen);
  if (!s->live_lag_ns || s->state != NT_S_OBJECTS || r->stopped || !r->trace_seen) return 0;
  if (nt_flush(r, UINT64_MAX) != 0) return nt_stream_fail(s, err, errlen);
  nt_update_end(r);
  return 0;
}

int gcs_nettrace_stream_finish(struct gcs_nettrace_stream *s, char *err, size_t errlen) {
  struct nt_reader *r = &s->r;
  if (s->state == NT_S_FAILED) return nt_stream_fail(s, err, errlen);
  int rc = 0;
  if (s->state == NT_S_HEADER) {
    /* Too short for the stream header: the header check names what is wrong. */
    struct nt_cursor c = nt_cursor_make(s->acc, s->pos, s->len);
    r->base = s->base;
    if (nt_check_header(r, &c) == 0) nt_fail(r, c.pos, "truncated: no Trace object");
    return nt_stream_fail(s, err, errlen);
  }
  if (s->state == NT_S_OBJECTS && !r->stopped) {
    if (!r->trace_seen) {
      /* Cut inside the Trace object (or before it): the parser's own message. */
      struct nt_cursor c = nt_cursor_make(s->acc, s->pos, s->len);
      r->base = s->base;
      if (nt_read_object(r, &c) >= 0) nt_fail(r, s->pos, "truncated: no Trace object");
      return nt_stream_fail(s, err, errlen);
    }
    nt_describe_cut(s);
    rc = 1;
  }
  if (!r->stopped && nt_flush(r, UINT64_MAX) != 0) return nt_stream_fail(s, err, errlen);
  nt_update_end(r);
  if (rc == 1 && err && errlen) snprintf(err, errlen, "%s", s->err);
  if (s->state != NT_S_FAILED && rc == 0) s->state = NT_S_END;
  return rc;
}

/* ---- files --------------------------------------------------------------- */

void nt_stream_set_limits(struct gcs_nettrace_stream *s, size_t max_events, size_t max_bytes) {
  if (max_events) s->r.pending.max = max_events;
  if (max_bytes) s->r.pending.max_bytes = max_bytes;
}

void nt_stream_set_sorted_flush_min(struct gcs_nettrace_stream *s, size_t n) { s->r.sorted_flush_min = n ? n : 1; }

int nt_read_buffer(const char *name, const uint8_t *buf, size_t len,
                   gcs_nettrace_event_cb cb, void *ud,
                   struct gcs_nettrace_info *info, char *err, size_t errlen) {
  return nt_read_buffer_limited(name, buf, len, 0, 0, cb, ud, info, err, errlen);
}

int nt_read_buffer_limited(const char *name, const uint8_t *buf, size_t len, size_t max_events,
                           size_t max_bytes, gcs_nettrace_event_cb cb, void *ud,
                           struct gcs_nettrace_info *info, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  struct gcs_nettrace_stream *s = gcs_nettrace_stream_new(name, cb, NULL, ud);
  if (!s) {
    if (err && errlen) snprintf(err, errlen, "%s: out of memory", name);
    return -1;
  }
  nt_stream_set_limits(s, max_events, max_bytes);
  int rc = gcs_nettrace_stream_feed(s, buf, len, err, errlen);
  if (rc == 0) rc = gcs_nettrace_stream_finish(s, err, errlen);
  if (info) *info = s->r.info;
  gcs_nettrace_stream_free(s);
  return rc < 0 ? -1 : 0;
}

int gcs_nettrace_read(const char *path, gcs_nettrace_event_cb cb, void *ud,
                      struct gcs_nettrace_info *info, char *err, size_t errlen) {
  return gcs_nettrace_read_lost(path, cb, NULL, NULL, ud, info, err, errlen);
}

int gcs_nettrace_read_lost(const char *path, gcs_nettrace_event_cb cb, gcs_nettrace_lost_cb lost,
                           gcs_nettrace_horizon_cb horizon, void *ud, struct gcs_nettrace_info *info, char *err,
                           size_t errlen) {
  if (err && errlen) err[0] = '\0';
  if (info) memset(info, 0, sizeof *info);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (err && errlen) snprintf(err, errlen, "%s: %s", path, errno == EACCES ? "permission denied" : strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (err && errlen) snprintf(err, errlen, "%s: not a regular file", path);
    close(fd);
    return -1;
  }
  if (st.st_size == 0) {
    if (err && errlen) snprintf(err, errlen, "%s: empty file", path);
    close(fd);
    return -1;
  }
  (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  struct gcs_nettrace_stream *s = gcs_nettrace_stream_new(path, cb, NULL, ud);
  if (s) gcs_nettrace_stream_set_lost(s, lost, horizon);
  if (!s || gcs_nettrace_stream_load_requests(s, path, err, errlen) != 0) {
    if (!s && err && errlen) snprintf(err, errlen, "%s: out of memory", path);
    gcs_nettrace_stream_free(s);
    close(fd);
    return -1;
  }
  static const size_t chunk = 1 << 20;
  uint8_t *buf = malloc(chunk);
  int rc = buf ? 0 : -1;
  if (!buf && err && errlen) snprintf(err, errlen, "%s: out of memory", path);
  while (rc == 0 && !s->r.stopped && s->state != NT_S_END) {
    ssize_t n = read(fd, buf, chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(errno));
      rc = -1;
      break;
    }
    if (n == 0) break;
    rc = gcs_nettrace_stream_feed(s, buf, (size_t)n, err, errlen);
  }
  if (rc == 0) rc = gcs_nettrace_stream_finish(s, err, errlen);
  if (info) *info = s->r.info;
  free(buf);
  close(fd);
  gcs_nettrace_stream_free(s);
  return rc < 0 ? -1 : 0;
}

int gcs_nettrace_is_nettrace(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char magic[8];
  ssize_t n = read(fd, magic, sizeof magic);
  close(fd);
  return n == (ssize_t)sizeof magic && memcmp(magic, NT_MAGIC, sizeof magic) == 0;
}
