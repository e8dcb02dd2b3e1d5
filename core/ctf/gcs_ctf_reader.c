/* gcs_ctf_reader.c — the message decoder (babeltrace2 event → struct
 * gcs_event) and, on top of it, the finished-trace reader: a babeltrace2 graph
 * src.ctf.fs → muxer → our simple sink (see gcs_ctf_reader.h).
 *
 * Speed: member look-ups by name are done once per event class and cached
 * (a small open-addressing table keyed by the event class pointer); per event
 * we only walk the payload by index, and only the members the schema stores:
 * each class keeps a list of (member index, how to store it), the integer
 * width folded into the operation. */
#include "gcs_ctf_reader.h"
#include "ctf_map.h"
#include "ctf_native.h"
#include "ctf_next.h"

#include <babeltrace2/babeltrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An integer member of a context structure: index (-1 if absent) and sign. */
struct ctx_int { int idx; int is_signed; };

struct cls_info {
  const bt_event_class *key;
  char *name;
  struct ctf_map map;               /* where the payload's members go (ctf_map.h) */
  int has_clock;                    /* the stream class has a default clock */
  struct ctx_int ctx_vpid, ctx_vtid;     /* common-context members */
  int ctx_procname;                      /* common-context member index, -1 */
  /* Without vpid/procname contexts (gcscope record's per-process buffers),
   * the trace's environment names its one process: looked up at the first
   * event of the class (a class belongs to one trace). */
  int env_done;
  int32_t env_vpid;                      /* -1 if the environment has none */
  char *env_procname;                    /* NULL if none */
  struct ctx_int pkt_cpu;                /* packet-context cpu_id */
};

/* cpu_id of recently seen packets. A packet object may be recycled by
 * babeltrace2 once it ended, but a new packet always announces itself with a
 * packet-beginning message first: the cache is emptied on each of those. */
#define CPU_CACHE 8
struct cpu_slot { const bt_packet *packet; int32_t cpu; };

struct gcs_ctf_decoder {
  /* event-class cache */
  struct cls_info *tab;
  size_t tabcap, tabn;
  struct cpu_slot cpus[CPU_CACHE];
  unsigned ncpus;
  /* scratch */
  struct gcs_rd_event rec;
  uint8_t *data;
  size_t datacap;
  char strbuf[65536];
  struct gcs_stack stack;                /* ev.stack when the event has one */
  struct gcs_rd_bin_info bin;
  uint64_t stack_ip[GCS_STACK_MAX_DEPTH];
};

struct reader {
  const struct gcs_rd_callbacks *cb;
  void *ud;
  const atomic_int *cancel;
  struct gcs_rd_stats *st;
  int stopped;
  int failed;
  char *err;
  size_t errlen;
  struct gcs_ctf_decoder *dec;
  const bt_stream *where_stream;   /* stream last reported to cb->where */
  struct ctf_owed owed;             /* discarded events: ctf_lost_settle, per stream */
  /* streams begun (1 once their first packet began), and how many have not
   * had a packet yet: gcs_rd_stats.lost_horizon_ns */
  struct ctf_owed first_packet;
  int no_packet_yet;
};

static int member_index(const bt_field_class *st, const char *name) {
  if (!st) return -1;
  uint64_t n = bt_field_class_structure_get_member_count(st);
  for (uint64_t i = 0; i < n; i++) {
    const bt_field_class_structure_member *m = bt_field_class_structure_borrow_member_by_index_const(st, i);
    if (strcmp(bt_field_class_structure_member_get_name(m), name) == 0) return (int)i;
  }
  return -1;
}

static struct ctx_int ctx_int_member(const bt_field_class *st, const char *name) {
  struct ctx_int c = { member_index(st, name), 0 };
  if (c.idx < 0) return c;
  bt_field_class_type t = bt_field_class_get_type(bt_field_class_structure_member_borrow_field_class_const(
      bt_field_class_structure_borrow_member_by_index_const(st, (uint64_t)c.idx)));
  if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) c.is_signed = 1;
  else if (!bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) c.idx = -1;  /* not an integer */
  return c;
}

static int64_t ctx_int_value(const bt_field *st, struct ctx_int c) {
  const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(st, (uint64_t)c.idx);
  return c.is_signed ? bt_field_integer_signed_get_value(f) : (int64_t)bt_field_integer_unsigned_get_value(f);
}

/* What babeltrace2's field class is, for ctf_map_build. */
static void member_desc(const bt_field_class *fc, struct ctf_mdesc *md) {
  bt_field_class_type t = bt_field_class_get_type(fc);
  md->elem_uint = md->elem_int = 0;
  if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) md->k = CM_UINT;
  else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) md->k = CM_SINT;
  else if (t == BT_FIELD_CLASS_TYPE_STRING) md->k = CM_STR;
  else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY)) {
    md->k = CM_ARRAY;
    bt_field_class_type et = bt_field_class_get_type(bt_field_class_array_borrow_element_field_class_const(fc));
    md->elem_uint = bt_field_class_type_is(et, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER);
    md->elem_int = bt_field_class_type_is(et, BT_FIELD_CLASS_TYPE_INTEGER);
  } else md->k = CM_OTHER;
}

static int cls_init(struct cls_info *ci, const bt_event_class *ec) {
  memset(ci, 0, sizeof *ci);
  ci->key = ec;
  ci->ctx_procname = -1;
  ci->env_vpid = -1;
  const char *name = bt_event_class_get_name(ec);
  ci->name = strdup(name ? name : "");
  if (!ci->name) return -1;

  const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
  const bt_field_class *ctx = bt_stream_class_borrow_event_common_context_field_class_const(sc);
  ci->ctx_vpid = ctx_int_member(ctx, "vpid");
  ci->ctx_vtid = ctx_int_member(ctx, "vtid");
  ci->ctx_procname = member_index(ctx, "procname");
  if (ci->ctx_procname >= 0 &&
      bt_field_class_get_type(bt_field_class_structure_member_borrow_field_class_const(
          bt_field_class_structure_borrow_member_by_index_const(ctx, (uint64_t)ci->ctx_procname))) !=
          BT_FIELD_CLASS_TYPE_STRING)
    ci->ctx_procname = -1;
  ci->pkt_cpu = ctx_int_member(bt_stream_class_borrow_packet_context_field_class_const(sc), "cpu_id");
  ci->has_clock = bt_stream_class_borrow_default_clock_class_const(sc) != NULL;

  const bt_field_class *pl = bt_event_class_borrow_payload_field_class_const(ec);
  uint64_t n = pl ? bt_field_class_structure_get_member_count(pl) : 0;
  struct ctf_mdesc *md = calloc(n ? n : 1, sizeof *md);
  if (!md) return -1;
  for (uint64_t i = 0; i < n; i++) {
    const bt_field_class_structure_member *m = bt_field_class_structure_borrow_member_by_index_const(pl, i);
    md[i].name = bt_field_class_structure_member_get_name(m);
    member_desc(bt_field_class_structure_member_borrow_field_class_const(m), &md[i]);
  }
  int rc = ctf_map_build(&ci->map, ci->name, md, (int)n);
  free(md);
  /* A schema event without a payload structure is not decoded. */
  if (rc == 0 && !pl && ci->map.kind >= 0) ci->map.kind = -1;
  return rc;
}

static struct cls_info *cls_get(struct gcs_ctf_decoder *r, const bt_event_class *ec) {
  if (r->tabn * 2 >= r->tabcap) {
    size_t ncap = r->tabcap ? r->tabcap * 2 : 64;
    struct cls_info *nt = calloc(ncap, sizeof *nt);
    if (!nt) return NULL;
    for (size_t i = 0; i < r->tabcap; i++) {
      if (!r->tab[i].key) continue;
      size_t h = ((uintptr_t)r->tab[i].key >> 4) & (ncap - 1);
      while (nt[h].key) h = (h + 1) & (ncap - 1);
      nt[h] = r->tab[i];
    }
    free(r->tab);
    r->tab = nt;
    r->tabcap = ncap;
  }
  size_t h = ((uintptr_t)ec >> 4) & (r->tabcap - 1);
  while (r->tab[h].key) {
    if (r->tab[h].key == ec) return &r->tab[h];
    h = (h + 1) & (r->tabcap - 1);
  }
  if (cls_init(&r->tab[h], ec) != 0) {
    free(r->tab[h].name);
    ctf_map_free(&r->tab[h].map);
    memset(&r->tab[h], 0, sizeof r->tab[h]);
    return NULL;
  }
  r->tabn++;
  return &r->tab[h];
}

static uint64_t int_value(const bt_field *f) {
  bt_field_class_type t = bt_field_get_class_type(f);
  if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
    return (uint64_t)bt_field_integer_signed_get_value(f);
  if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
    return bt_field_integer_unsigned_get_value(f);
  return 0;
}

/* Fill r->rec.ev.u from the payload of a schema event. */
static void decode_payload(struct gcs_ctf_decoder *r, const struct ctf_map *m, const bt_field *pl) {
  struct gcs_event *ev = &r->rec.ev;
  ctf_map_begin(ev, m);
  if (m->data_idx >= 0) {
    const bt_field *a = bt_field_structure_borrow_member_field_by_index_const(pl, (uint64_t)m->data_idx);
    uint64_t n = bt_field_array_get_length(a);
    if (n > r->datacap) {
      uint8_t *nd = realloc(r->data, n);
      if (!nd) { ev->truncated = 1; r->rec.payload_error = 1; return; }
      r->data = nd;
      r->datacap = n;
    }
    for (uint64_t i = 0; i < n; i++)
      r->data[i] = (uint8_t)int_value(bt_field_array_borrow_element_field_by_index_const(a, i));
    if (gcs_etw_decode(ev, ev->kind, m->version, r->data, (size_t)n, 8, r->strbuf, sizeof r->strbuf) != 0) {
      memset(&ev->u, 0, gcs_event_descs[m->kind].struct_size);
      ev->truncated = 1;
      r->rec.payload_error = 1;
    }
    ev->version = (uint8_t)m->version;
    return;
  }
  for (const struct pl_op *o = m->ops, *end = m->ops + m->nops; o < end; o++) {
    const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(pl, o->idx);
    switch ((enum ctf_op)o->op) {
    case OP_U8: case OP_U16: case OP_U32: case OP_U64:
      ctf_store_int(ev, o, bt_field_integer_unsigned_get_value(f));
      break;
    case OP_S8: case OP_S16: case OP_S32: case OP_S64:
      ctf_store_int(ev, o, (uint64_t)bt_field_integer_signed_get_value(f));
      break;
    case OP_INT: gcs_field_set_int(ev, o->desc, int_value(f)); break;
    case OP_STR: gcs_field_set_str(ev, o->desc, bt_field_string_get_value(f)); break;
    case OP_ARRAY: {
      uint64_t n = bt_field_array_get_length(f);
      for (uint64_t e = 0; e < n; e++)
        gcs_field_set_array_int(ev, o->desc, (unsigned)(e < o->desc->capacity ? e : o->desc->capacity),
                                int_value(bt_field_array_borrow_element_field_by_index_const(f, e)));
      break;
    }
    case OP_GUID: {
      uint64_t n = bt_field_array_get_length(f);
      uint8_t *g = (uint8_t *)&ev->u + o->offset;
      for (uint64_t e = 0; e < n && e < 16; e++)
        g[e] = (uint8_t)int_value(bt_field_array_borrow_element_field_by_index_const(f, e));
      break;
    }
    }
  }
  ctf_map_end(ev, m);
}

static int32_t packet_cpu(struct gcs_ctf_decoder *r, const struct cls_info *ci, const bt_event *e) {
  const bt_packet *p = bt_event_borrow_packet_const(e);
  if (!p) return -1;
  for (unsigned i = 0; i < r->ncpus; i++)
    if (r->cpus[i].packet == p) return r->cpus[i].cpu;
  const bt_field *pc = bt_packet_borrow_context_field_const(p);
  int32_t cpu = pc ? (int32_t)ctx_int_value(pc, ci->pkt_cpu) : -1;
  if (r->ncpus == CPU_CACHE) r->ncpus = 0;  /* more streams than slots: start over */
  r->cpus[r->ncpus].packet = p;
  r->cpus[r->ncpus].cpu = cpu;
  r->ncpus++;
  return cpu;
}

struct gcs_ctf_decoder *gcs_ctf_decoder_new(void) {
  return calloc(1, sizeof(struct gcs_ctf_decoder));
}

void gcs_ctf_decoder_free(struct gcs_ctf_decoder *d) {
  if (!d) return;
  for (size_t i = 0; i < d->tabcap; i++) {
    free(d->tab[i].name);
    ctf_map_free(&d->tab[i].map);
    free(d->tab[i].env_procname);
  }
  free(d->tab);
  free(d->data);
  free(d);
}

/* vpid and procname from the environment of the event's trace (LTTng writes
 * them there for per-process buffers). */
static void cls_env(struct cls_info *ci, const bt_event *e) {
  ci->env_done = 1;
  const bt_stream *s = bt_event_borrow_stream_const(e);
  const bt_trace *t = s ? bt_stream_borrow_trace_const(s) : NULL;
  if (!t) return;
  const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(t, "vpid");
  if (v && bt_value_is_signed_integer(v)) ci->env_vpid = (int32_t)bt_value_integer_signed_get(v);
  else if (v && bt_value_is_unsigned_integer(v)) ci->env_vpid = (int32_t)bt_value_integer_unsigned_get(v);
  v = bt_trace_borrow_environment_entry_value_by_name_const(t, "procname");
  if (v && bt_value_is_string(v)) ci->env_procname = strdup(bt_value_string_get(v));
}

/* The GCS_STACK_FIELD sequence: leaf first; longer than GCS_STACK_MAX_DEPTH
 * (a crafted trace) is cut and marked truncated; empty is no stack. */
static void decode_stack(struct gcs_ctf_decoder *d, const bt_field *pl, int idx) {
  const bt_field *a = bt_field_structure_borrow_member_field_by_index_const(pl, (uint64_t)idx);
  uint64_t n = bt_field_array_get_length(a);
  if (!n) return;
  uint64_t k = n > GCS_STACK_MAX_DEPTH ? GCS_STACK_MAX_DEPTH : n;
  for (uint64_t i = 0; i < k; i++)
    d->stack_ip[i] = bt_field_integer_unsigned_get_value(bt_field_array_borrow_element_field_by_index_const(a, i));
  d->stack.depth = (uint32_t)k;
  d->stack.truncated = n > k || n == GCS_STACK_MAX_DEPTH;
  d->stack.ip = d->stack_ip;
  d->rec.ev.stack = &d->stack;
}

static void decode_bin_info(struct gcs_ctf_decoder *d, const struct ctf_map *ci, const bt_event *e) {
  const bt_field *pl = bt_event_borrow_payload_field_const(e);
  if (!pl) return;
  const bt_field *fb = bt_field_structure_borrow_member_field_by_index_const(pl, (uint64_t)ci->bin_baddr);
  const bt_field *fm = bt_field_structure_borrow_member_field_by_index_const(pl, (uint64_t)ci->bin_memsz);
  const bt_field *fp = bt_field_structure_borrow_member_field_by_index_const(pl, (uint64_t)ci->bin_path);
  if (!bt_field_class_type_is(bt_field_get_class_type(fb), BT_FIELD_CLASS_TYPE_INTEGER) ||
      !bt_field_class_type_is(bt_field_get_class_type(fm), BT_FIELD_CLASS_TYPE_INTEGER) ||
      bt_field_get_class_type(fp) != BT_FIELD_CLASS_TYPE_STRING)
    return;
  d->bin.baddr = (uint64_t)int_value(fb);
  d->bin.memsz = (uint64_t)int_value(fm);
  d->bin.path = bt_field_string_get_value(fp);
  d->bin.is_pic = 1;
  if (ci->bin_pic >= 0) {
    const bt_field *fi = bt_field_structure_borrow_member_field_by_index_const(pl, (uint64_t)ci->bin_pic);
    if (bt_field_class_type_is(bt_field_get_class_type(fi), BT_FIELD_CLASS_TYPE_INTEGER)) d->bin.is_pic = int_value(fi) != 0;
  }
  d->rec.bin_info = &d->bin;
}

static int decode_event(struct gcs_ctf_decoder *d, const bt_message *msg) {
  const bt_event *e = bt_message_event_borrow_event_const(msg);
  struct cls_info *ci = cls_get(d, bt_event_borrow_class_const(e));
  if (!ci) return -1;
  struct gcs_rd_event *rec = &d->rec;
  struct gcs_event *ev = &rec->ev;
  ev->ts_ns = 0;
  if (ci->has_clock) {
    int64_t ns;
    if (bt_clock_snapshot_get_ns_from_origin(bt_message_event_borrow_default_clock_snapshot_const(msg), &ns) ==
            BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK && ns > 0)
      ev->ts_ns = (uint64_t)ns;
  }
  ev->pid = ev->tid = ev->cpu = -1;
  rec->procname = "";
  rec->procname_env = 0;
  const bt_field *ctx = bt_event_borrow_common_context_field_const(e);
  if (ctx) {
    if (ci->ctx_vpid.idx >= 0) ev->pid = (int32_t)ctx_int_value(ctx, ci->ctx_vpid);
    if (ci->ctx_vtid.idx >= 0) ev->tid = (int32_t)ctx_int_value(ctx, ci->ctx_vtid);
    if (ci->ctx_procname >= 0)
      rec->procname = bt_field_string_get_value(
          bt_field_structure_borrow_member_field_by_index_const(ctx, (uint64_t)ci->ctx_procname));
  }
  if (ci->ctx_vpid.idx < 0 || ci->ctx_procname < 0) {
    if (!ci->env_done) cls_env(ci, e);
    if (ci->ctx_vpid.idx < 0) ev->pid = ci->env_vpid;
    if (ci->ctx_procname < 0 && ci->env_procname) { rec->procname = ci->env_procname; rec->procname_env = 1; }
  }
  if (ci->pkt_cpu.idx >= 0) ev->cpu = packet_cpu(d, ci, e);
  rec->name = ci->name;
  rec->decoded = 0;
  rec->payload_error = 0;
  ev->stack = NULL;
  rec->bin_info = NULL;
  const struct ctf_map *m = &ci->map;
  if (m->bin_baddr >= 0 && m->bin_memsz >= 0 && m->bin_path >= 0) decode_bin_info(d, m, e);
  if (m->kind >= 0) {
    const bt_field *pl = bt_event_borrow_payload_field_const(e);
    if (pl) {
      decode_payload(d, m, pl);
      rec->decoded = 1;
      if (m->stack_idx >= 0) decode_stack(d, pl, m->stack_idx);
    }
  }
  return 0;
}

int gcs_ctf_decode(struct gcs_ctf_decoder *d, const bt_message *msg, const struct gcs_rd_event **out) {
  *out = NULL;
  switch (bt_message_get_type(msg)) {
  case BT_MESSAGE_TYPE_EVENT:
    if (decode_event(d, msg) < 0) return -1;
    *out = &d->rec;
    return 1;
  case BT_MESSAGE_TYPE_PACKET_BEGINNING:
    d->ncpus = 0;
    return 0;
  default:
    return 0;
  }
}

static int on_event(struct reader *r, const bt_message *msg) {
  const struct gcs_rd_event *rec;
  if (gcs_ctf_decode(r->dec, msg, &rec) < 0) {
    snprintf(r->err, r->errlen, "out of memory");
    r->failed = 1;
    return -1;
  }
  if (rec->decoded) r->st->decoded++;
  r->st->events++;
  if (rec->ev.ts_ns) {
    if (!r->st->first_ns) r->st->first_ns = rec->ev.ts_ns;
    r->st->last_ns = rec->ev.ts_ns;
  }
  if (r->cb->event && r->cb->event(rec, r->ud) != 0) { r->stopped = 1; return 1; }
  return 0;
}

/* A lost record's stream (its name, else "stream ID" written into sname)
 * and window (begin, end: the loss's, NULL when the stream class has none;
 * begin_ns stays 0, unknown, without one). */
static void lost_where(struct gcs_rd_lost *l, const bt_stream *s, char *sname, size_t n,
                       const bt_clock_snapshot *begin, const bt_clock_snapshot *end) {
  l->stream = bt_stream_get_name(s);
  if (!l->stream) {
    snprintf(sname, n, "stream %llu", (unsigned long long)bt_stream_get_id(s));
    l->stream = sname;
  }
  int64_t ns;
  if (end && bt_clock_snapshot_get_ns_from_origin(end, &ns) == BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK && ns > 0)
    l->ts_ns = (uint64_t)ns;
  if (begin && bt_clock_snapshot_get_ns_from_origin(begin, &ns) == BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK && ns > 0)
    l->begin_ns = (uint64_t)ns;
}

static int on_discarded(struct reader *r, const bt_message *msg) {
  uint64_t count = 0;
  int first = bt_message_discarded_events_get_count(msg, &count) != BT_PROPERTY_AVAILABILITY_AVAILABLE;
  if (first) count = CTF_LOST_UNKNOWN; /* the stream's first packet: ctf_map.h */
  const bt_stream *s = bt_message_discarded_events_borrow_stream_const(msg);
  uint64_t *owed = ctf_owed_of(&r->owed, s);
  if (!owed) {
    snprintf(r->err, r->errlen, "out of memory");
    r->failed = 1;
    return -1;
  }
  if (!(count = ctf_lost_settle(owed, count))) return 0;
  struct gcs_rd_lost l = { count, 0, NULL, 0, 0 };
  char sname[64];
  /* the window: the previous packet's end to this one's (the first packet:
   * from the trace's start, as the native reader) */
  int clk = bt_stream_class_discarded_events_have_default_clock_snapshots(bt_stream_borrow_class_const(s));
  lost_where(&l, s, sname, sizeof sname,
             clk && !first ? bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg) : NULL,
             clk ? bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg) : NULL);
  r->st->discarded += count;
  if (r->cb->lost && r->cb->lost(&l, r->ud) != 0) { r->stopped = 1; return 1; }
  return 0;
}

/* Missing packets (a gap in the stream's packet_seq_num, libbabeltrace2's
 * discarded-packets message; its count is of packets): a lost record of
 * CTF_LOST_UNKNOWN events at the end of the gap, this packet's beginning.
 * Not settled against the stream's discarded-events counter: a separate
 * loss. */
static int on_discarded_packets(struct reader *r, const bt_message *msg) {
  const bt_stream *s = bt_message_discarded_packets_borrow_stream_const(msg);
  struct gcs_rd_lost l = { CTF_LOST_UNKNOWN, 0, NULL, 0, 1 };
  char sname[64];
  int clk = bt_stream_class_discarded_packets_have_default_clock_snapshots(bt_stream_borrow_class_const(s));
  lost_where(&l, s, sname, sizeof sname,
             clk ? bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg) : NULL,
             clk ? bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg) : NULL);
  r->st->discarded += l.count;
  r->st->packet_gaps++;
  if (r->cb->lost && r->cb->lost(&l, r->ud) != 0) { r->stopped = 1; return 1; }
  return 0;
}

static void on_stream_hostname(struct reader *r, const bt_message *msg);

/* Until every stream begun has had its first packet, that packet may still
 * report events lost from the trace's start (its discarded events, read at
 * its beginning): the horizon is the start; then records come in the
 * order of their windows' beginnings (the muxer's order). */
static void set_horizon(struct reader *r) { r->st->lost_horizon_ns = r->no_packet_yet ? 0 : UINT64_MAX; }

static int first_packet(struct reader *r, const bt_message *msg) {
  const bt_stream *s = bt_packet_borrow_stream_const(bt_message_packet_beginning_borrow_packet_const(msg));
  uint64_t *had = ctf_owed_of(&r->first_packet, s);
  if (!had) { snprintf(r->err, r->errlen, "out of memory"); r->failed = 1; return -1; }
  if (!*had) {
    *had = 1;
    if (r->no_packet_yet > 0) r->no_packet_yet--;
    set_horizon(r);
  }
  return 0;
}

static int on_stream_begin(struct reader *r, const bt_message *msg) {
  uint64_t *had = ctf_owed_of(&r->first_packet, bt_message_stream_beginning_borrow_stream_const(msg));
  if (!had) { snprintf(r->err, r->errlen, "out of memory"); r->failed = 1; return -1; }
  if (!*had) r->no_packet_yet++;
  set_horizon(r);
  on_stream_hostname(r, msg);
  return 0;
}

static void on_stream_hostname(struct reader *r, const bt_message *msg) {
  if (r->st->hostname[0]) return;
  const bt_trace *t = bt_stream_borrow_trace_const(bt_message_stream_beginning_borrow_stream_const(msg));
  const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(t, "hostname");
  if (v && bt_value_get_type(v) == BT_VALUE_TYPE_STRING)
    snprintf(r->st->hostname, sizeof r->st->hostname, "%s", bt_value_string_get(v));
}

/* Tell cb->where which stream the packets now come from (once per change). */
static void report_stream(struct reader *r, const bt_message *msg) {
  const bt_stream *s = bt_packet_borrow_stream_const(bt_message_packet_beginning_borrow_packet_const(msg));
  if (s == r->where_stream) return;
  r->where_stream = s;
  const char *name = bt_stream_get_name(s);
  char id[64];
  if (!name) { snprintf(id, sizeof id, "stream %llu", (unsigned long long)bt_stream_get_id(s)); name = id; }
  r->cb->where(name, r->ud);
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it, void *ud) {
  struct reader *r = ud;
  if (r->cancel && *r->cancel) { r->stopped = 1; return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END; }
  bt_message_array_const msgs;
  uint64_t count;
  bt_graph_simple_sink_component_consume_func_status status;
  if (!ctf_next(it, &msgs, &count, &status)) return status;
  int stop = 0;
  for (uint64_t i = 0; i < count; i++) {
    const bt_message *m = msgs[i];
    if (!stop) {
      switch (bt_message_get_type(m)) {
      case BT_MESSAGE_TYPE_EVENT: stop = on_event(r, m); break;
      case BT_MESSAGE_TYPE_DISCARDED_EVENTS: stop = on_discarded(r, m); break;
      case BT_MESSAGE_TYPE_DISCARDED_PACKETS: stop = on_discarded_packets(r, m); break;
      case BT_MESSAGE_TYPE_STREAM_BEGINNING: stop = on_stream_begin(r, m); break;
      case BT_MESSAGE_TYPE_PACKET_BEGINNING: {
        const struct gcs_rd_event *none;
        stop = first_packet(r, m);
        gcs_ctf_decode(r->dec, m, &none);   /* the decoder's packet → cpu cache */
        if (r->cb->where) report_stream(r, m);
        break;
      }
      default: break;
      }
    }
    bt_message_put_ref(m);
  }
  return stop ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END
              : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* Turn the thread's babeltrace2 error into one line (its root cause, the
 * most specific message) and clear it. */
static void take_error(char *err, size_t errlen, const char *what) {
  const bt_error *e = bt_current_thread_take_error();
  const char *msg = NULL;
  if (e) {
    uint64_t n = bt_error_get_cause_count(e);
    /* Cause 0 is the root cause (the component that failed first). */
    if (n > 0) msg = bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0));
  }
  char one[512];
  snprintf(one, sizeof one, "%s", msg ? msg : "unknown error");
  for (char *p = one; *p; p++) if (*p == '\n') *p = ' ';
  snprintf(err, errlen, "%s: %s", what, one);
  if (e) bt_error_release(e);
}

/* GCSCOPE_CTF_READER: 0 auto, 1 native, 2 babeltrace2. */
static int reader_choice(void) {
  const char *e = getenv("GCSCOPE_CTF_READER");
  if (e && strcmp(e, "native") == 0) return 1;
  if (e && strcmp(e, "babeltrace2") == 0) return 2;
  return 0;
}

int gcs_ctf_uses_native(const char *const *dirs, int ndirs) {
  int c = reader_choice();
  if (c) return c == 1;
  char why[512];
  return nt_supported(dirs, ndirs, why, sizeof why);
}

static int bt_read(const char *const *dirs, int ndirs, const struct gcs_rd_callbacks *cb,
                   void *ud, const atomic_int *cancel, struct gcs_rd_stats *stats,
                   const char *native_why, char *err, size_t errlen);

int gcs_ctf_read(const char *const *dirs, int ndirs, const struct gcs_rd_callbacks *cb,
                 void *ud, const atomic_int *cancel, struct gcs_rd_stats *stats,
                 char *err, size_t errlen) {
  struct gcs_rd_stats st_local;
  if (!stats) stats = &st_local;
  memset(stats, 0, sizeof *stats);
  int c = reader_choice();
  if (c != 2) {
    int rc = nt_read(dirs, ndirs, cb, ud, cancel, stats, err, errlen);
    if (rc != 2) return rc;
    if (c == 1) return -1;     /* forced: the reason is in err */
    memset(stats, 0, sizeof *stats);
    /* Why the native reader would not read it ("DIR: not readable by the
     * native CTF reader: WHY"): said instead of libbabeltrace2's "Cannot
     * create trace" when libbabeltrace2 cannot read the metadata either. */
    char *why = strdup(err);
    rc = bt_read(dirs, ndirs, cb, ud, cancel, stats, why, err, errlen);
    free(why);
    return rc;
  }
  return bt_read(dirs, ndirs, cb, ud, cancel, stats, NULL, err, errlen);
}

/* libbabeltrace2 could not open dir's trace (its metadata): one line naming
 * the metadata file with the native reader's reason when it had one for
 * that directory (native_why, as gcs_ctf_read keeps it), else
 * libbabeltrace2's own. */
static void open_error(const char *dir, const char *native_why, char *err, size_t errlen) {
  static const char mid[] = ": not readable by the native CTF reader: ";
  size_t dl = strlen(dir);
  if (!native_why || strncmp(native_why, dir, dl) != 0 || strncmp(native_why + dl, mid, sizeof mid - 1) != 0) {
    take_error(err, errlen, dir);
    return;
  }
  bt_current_thread_clear_error();
  const char *why = native_why + dl + sizeof mid - 1;
  /* its reasons begin "DIR/metadata: " or "metadata: " */
  if (strncmp(why, dir, dl) == 0 && strncmp(why + dl, "/metadata: ", 11) == 0) why += dl + 11;
  else if (strncmp(why, "metadata: ", 10) == 0) why += 10;
  snprintf(err, errlen, "%s/metadata: unreadable metadata: %s (libbabeltrace2 cannot read it either)", dir, why);
}

static int bt_read(const char *const *dirs, int ndirs, const struct gcs_rd_callbacks *cb,
                   void *ud, const atomic_int *cancel, struct gcs_rd_stats *stats,
                   const char *native_why, char *err, size_t errlen) {
  struct reader *r = calloc(1, sizeof *r);
  if (r) r->dec = gcs_ctf_decoder_new();
  if (!r || !r->dec) { free(r); snprintf(err, errlen, "out of memory"); return -1; }
  r->cb = cb; r->ud = ud; r->cancel = cancel; r->st = stats; r->err = err; r->errlen = errlen;

  int rc = -1;
  const bt_plugin *ctf = NULL, *utils = NULL;
  bt_graph *g = NULL;
  bt_value *params = NULL;
  if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf) != BT_PLUGIN_FIND_STATUS_OK ||
      bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &utils) != BT_PLUGIN_FIND_STATUS_OK) {
    bt_current_thread_clear_error();
    snprintf(err, errlen, "babeltrace2 plugins ctf/utils not found");
    goto out;
  }
  g = bt_graph_create(0);
  const bt_component_filter *mux;
  const bt_component_sink *sink;
  if (!g) { bt_current_thread_clear_error(); snprintf(err, errlen, "out of memory"); goto out; }
  /* Babeltrace's own logging stays quiet: its errors come back through the
   * error API and we print one line. */
  if (bt_graph_add_filter_component(g, bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"), "mux",
                                    NULL, BT_LOGGING_LEVEL_NONE, &mux) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
      bt_graph_add_simple_sink_component(g, "gcscope", NULL, consume, NULL, r, &sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
    take_error(err, errlen, "babeltrace2 graph");
    goto out;
  }
  /* One src.ctf.fs per trace directory: babeltrace2 2.0 merges several
   * inputs in one component only when their UUIDs match (a session's kernel
   * and user-space traces differ). */
  uint64_t nmux = 0;
  for (int i = 0; i < ndirs; i++) {
    bt_value *arr = NULL;
    params = bt_value_map_create();
    if (!params || bt_value_map_insert_empty_array_entry(params, "inputs", &arr) != BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
        bt_value_array_append_string_element(arr, dirs[i]) != BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK) {
      bt_current_thread_clear_error();
      snprintf(err, errlen, "out of memory");
      goto out;
    }
    char cname[32];
    snprintf(cname, sizeof cname, "src%d", i);
    if (cb->where) {
      char what[4200];
      snprintf(what, sizeof what, "%s/metadata", dirs[i]);
      cb->where(what, ud);
    }
    const bt_component_source *src;
    if (bt_graph_add_source_component(g, bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs"), cname,
                                      params, BT_LOGGING_LEVEL_NONE, &src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
      open_error(dirs[i], native_why, err, errlen);
      goto out;
    }
    bt_value_put_ref(params);
    params = NULL;
    uint64_t nout = bt_component_source_get_output_port_count(src);
    for (uint64_t p = 0; p < nout; p++, nmux++) {
      if (bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, p),
                                 bt_component_filter_borrow_input_port_by_index_const(mux, nmux), NULL) !=
          BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
        take_error(err, errlen, "babeltrace2 graph");
        goto out;
      }
    }
  }
  if (bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
                             bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL) !=
      BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
    take_error(err, errlen, "babeltrace2 graph");
    goto out;
  }
  if (cb->where) {  /* until the first packet */
    char what[1024] = "the streams of ";
    for (int i = 0; i < ndirs; i++)
      snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s", i ? ", " : "", dirs[i]);
    cb->where(what, ud);
  }
  bt_graph_run_status s;
  do { s = bt_graph_run(g); } while (s == BT_GRAPH_RUN_STATUS_AGAIN);
  if (r->failed) { bt_current_thread_clear_error(); goto out; }
  if (s != BT_GRAPH_RUN_STATUS_OK) {
    take_error(err, errlen, ndirs == 1 ? dirs[0] : "trace");
    goto out;
  }
  rc = r->stopped ? GCS_RD_STOPPED : 0;
  /* The total is the streams' last counters (ctf_lost_settle). */
  r->st->discarded -= ctf_owed_total(&r->owed);
out:
  bt_value_put_ref(params);
  bt_graph_put_ref(g);
  bt_plugin_put_ref(ctf);
  bt_plugin_put_ref(utils);
  gcs_ctf_decoder_free(r->dec);
  free(r->owed.v);
  free(r->first_packet.v);
  free(r);
  return rc;
}
