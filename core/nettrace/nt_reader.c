/*
 * nt_reader.c — the nettrace V4/V5 container: stream header, the
 * FastSerialization object list (Trace, MetadataBlock, EventBlock,
 * StackBlock, SPBlock), event blob headers (compressed and not), sequence
 * numbers, and in-order delivery of the GC events. See gcs_nettrace.h for the
 * contract and docs/nettrace.md for the format summary.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcs_nettrace.h"
#include "nt_cursor.h"
#include "nt_internal.h"
#include "nt_meta.h"
#include "nt_pending.h"
#include "nt_time.h"
#include "nt_u64map.h"

#define NT_MAGIC "Nettrace"
#define NT_SERIALIZER "!FastSerialization.1"
#define NT_TAG_NULL 1
#define NT_TAG_BEGIN_PRIVATE 5
#define NT_TAG_END 6
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

struct nt_reader {
  const char *name;
  const uint8_t *buf;
  size_t len;
  gcs_nettrace_event_cb cb;
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
  struct nt_u64map last_seq;    /* capture thread id -> last sequence number */
  struct nt_pending pending;
  uint64_t order;
  int stopped;                  /* the callback asked to stop */

  char *strbuf;
  size_t strcap;
};

/* Header of one event blob, carried from blob to blob in compressed blocks. */
struct nt_blob {
  uint32_t meta_id, seq, proc, stack, payload_len;
  uint64_t capture_tid, tid, ts;
  int sorted;
  const uint8_t *payload;
};

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
    snprintf(r->err + n + m, r->errlen - (size_t)(n + m), " (at byte %zu)", offset);
  return -1;
}

/* ---- delivery ------------------------------------------------------------ */

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
  if (gcs_etw_decode(&ev, (enum gcs_kind)pe->kind, pe->version, pe->payload, pe->len,
                     r->info.pointer_size, r->strbuf, r->strcap) != 0)
    return 0;  /* an empty payload of an event that needs one: not decodable */
  ev.origin = GCS_ORIGIN_CLR;
  ev.ts_ns = nt_qpc_to_ns(pe->ts, r->sync_qpc, r->qpc_freq, r->sync_ns);
  ev.pid = r->info.pid;
  ev.tid = pe->tid;
  ev.cpu = pe->cpu;
  r->info.events_decoded++;
  if (ev.kind == gcs_kind_RuntimeInformationStart && !r->cmdline_from_processinfo &&
      ev.u.RuntimeInformationStart.CommandLine && ev.u.RuntimeInformationStart.CommandLine[0])
    snprintf(r->info.command_line, sizeof r->info.command_line, "%s",
             ev.u.RuntimeInformationStart.CommandLine);
  if (r->cb && r->cb(&ev, r->ud) != 0) r->stopped = 1;
  return 0;
}

/* Deliver the buffered events with ts <= limit (all of them for UINT64_MAX). */
static int nt_flush(struct nt_reader *r, uint64_t limit) {
  nt_pending_sort(&r->pending);
  size_t k = limit == UINT64_MAX ? r->pending.n : nt_pending_prefix(&r->pending, limit);
  for (size_t i = 0; i < k && !r->stopped; i++)
    if (nt_deliver(r, &r->pending.v[i]) != 0) return -1;
  nt_pending_drop(&r->pending, k);
  return 0;
}

/* ---- sequence numbers ---------------------------------------------------- */

/* A gap of less than 2^31 counts as lost events; a larger "gap" is a
 * backwards step (a recycled thread id) and is not counted. */
static int nt_seq_observe(struct nt_reader *r, uint64_t thread, uint32_t seq, int at_sequence_point) {
  uint32_t *last = nt_u64map_get(&r->last_seq, thread);
  if (last) {
    uint32_t expected = at_sequence_point ? *last : *last + 1;
    uint32_t gap = seq - expected;
    if (gap != 0 && gap < 0x80000000u && !(seq == 1 && !at_sequence_point))
      r->info.events_lost += gap;
    if (gap < 0x80000000u || (seq == 1 && !at_sequence_point)) *last = seq;
    return 0;
  }
  /* Past NT_MAX_THREADS distinct threads (only a hostile file has that
   * many) new threads are not tracked, so memory stays bounded. */
  if (r->last_seq.count >= NT_MAX_THREADS) return 0;
  if (nt_u64map_put(&r->last_seq, thread, seq) != 0) return nt_fail(r, 0, "out of memory");
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
  if (f & NT_F_ACTIVITY) nt_skip(c, 16);
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
  nt_skip(c, 32);  /* ActivityId, RelatedActivityId */
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
  if (nt_seq_observe(r, b->capture_tid, b->seq, 0) != 0) return -1;
  uint32_t *idx = nt_u64map_get(&r->meta_index, b->meta_id);
  if (!idx) return 0;  /* no metadata for it: cannot be one of ours */
  const struct nt_meta *m = &r->metas[*idx];
  if (m->kind == NT_META_PROCESSINFO) {
    nt_utf16_to_utf8(b->payload, b->payload_len, r->info.command_line, sizeof r->info.command_line);
    r->cmdline_from_processinfo = 1;
  } else if (m->kind >= 0) {
    struct nt_pending_ev pe = { b->ts, r->order++, b->payload, b->payload_len,
                                (int32_t)b->tid, (int32_t)b->proc, m->kind, m->version };
    if (nt_pending_push(&r->pending, &pe) != 0)
      return nt_fail(r, at, "more than %u GC events between two sequence points",
                     (unsigned)r->pending.max);
  }
  if (b->sorted && r->pending.n >= NT_SORTED_FLUSH_MIN) return nt_flush(r, b->ts);
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
  nt_skip(c, 8);  /* timestamp: every earlier event is older */
  uint32_t n = nt_u32(c);
  if (!c->ok || n > nt_left(c) / 12) return nt_fail(r, start, "bad SPBlock thread count %u", n);
  if (nt_flush(r, UINT64_MAX) != 0) return -1;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t thread = nt_u64(c);
    uint32_t seq = nt_u32(c);
    if (nt_seq_observe(r, thread, seq, 1) != 0) return -1;
  }
  return 0;
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

  int is_trace = strcmp(name, "Trace") == 0;
  if (is_trace && r->trace_seen) return nt_fail(r, at, "second Trace object");
  if (!is_trace && !r->trace_seen) return nt_fail(r, at, "object '%s' before the Trace object", name);
  if (is_trace) {
    if (nt_read_trace(r, c, version, min_version) != 0) return -1;
  } else {
    int kind = strcmp(name, "EventBlock") == 0 ? 0 : strcmp(name, "MetadataBlock") == 0 ? 1
             : strcmp(name, "StackBlock") == 0 ? 2 : strcmp(name, "SPBlock") == 0 ? 3 : -1;
    if (kind < 0) return nt_fail(r, at, "unknown object type '%s'", name);
    size_t size_at = c->pos;
    uint32_t size = nt_u32(c);
    nt_align4(c);
    if (!c->ok || size > nt_left(c))
      return nt_fail(r, size_at, "truncated %s (%u bytes declared, %zu left)", name, size, nt_left(c));
    struct nt_cursor body = nt_cursor_make(c->base, c->pos, c->pos + size);
    int rc = 0;
    if (kind == 0 || kind == 1) rc = nt_read_event_block(r, &body, kind == 1);
    else if (kind == 3) rc = nt_read_sequence_point(r, &body);
    /* StackBlock: stacks are not used; its size is all we need. */
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

static int nt_read_header(struct nt_reader *r, struct nt_cursor *c) {
  size_t slen = strlen(NT_SERIALIZER);
  if (r->len >= 4 + slen && r->buf[0] == slen && r->buf[1] == 0 && r->buf[2] == 0 && r->buf[3] == 0 &&
      memcmp(r->buf + 4, NT_SERIALIZER, slen) == 0)
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

int nt_read_buffer(const char *name, const uint8_t *buf, size_t len,
                   gcs_nettrace_event_cb cb, void *ud,
                   struct gcs_nettrace_info *info, char *err, size_t errlen) {
  struct nt_reader r;
  memset(&r, 0, sizeof r);
  r.name = name;
  r.buf = buf;
  r.len = len;
  r.cb = cb;
  r.ud = ud;
  r.err = err;
  r.errlen = errlen;
  r.info.pid = -1;
  r.pending.max = GCS_NETTRACE_MAX_PENDING;
  if (err && errlen) err[0] = '\0';

  struct nt_cursor c = nt_cursor_make(buf, 0, len);
  int rc = nt_read_header(&r, &c);
  while (rc == 0) rc = nt_read_object(&r, &c);
  if (rc == 1 && !r.stopped) rc = nt_flush(&r, UINT64_MAX) == 0 ? 1 : -1;
  if (rc == 1 && !r.trace_seen) rc = nt_fail(&r, c.pos, "no Trace object");

  r.info.end_ns = r.have_ts ? nt_qpc_to_ns(r.max_ts, r.sync_qpc, r.qpc_freq, r.sync_ns) : r.sync_ns;
  if (r.info.end_ns < r.info.start_ns) r.info.end_ns = r.info.start_ns;
  if (info) *info = r.info;
  nt_pending_free(&r.pending);
  nt_u64map_free(&r.meta_index);
  nt_u64map_free(&r.last_seq);
  free(r.metas);
  free(r.strbuf);
  return rc == 1 ? 0 : -1;
}

int gcs_nettrace_read(const char *path, gcs_nettrace_event_cb cb, void *ud,
                      struct gcs_nettrace_info *info, char *err, size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(errno));
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
  size_t len = (size_t)st.st_size;
  void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    if (err && errlen) snprintf(err, errlen, "%s: cannot map: %s", path, strerror(errno));
    return -1;
  }
  (void)madvise(map, len, MADV_SEQUENTIAL);
  int rc = nt_read_buffer(path, map, len, cb, ud, info, err, errlen);
  munmap(map, len);
  return rc;
}

int gcs_nettrace_is_nettrace(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char magic[8];
  ssize_t n = read(fd, magic, sizeof magic);
  close(fd);
  return n == (ssize_t)sizeof magic && memcmp(magic, NT_MAGIC, sizeof magic) == 0;
}
