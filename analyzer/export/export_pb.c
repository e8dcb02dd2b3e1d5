/* export_pb.c — the timeline as a Perfetto protobuf trace: a `Trace` is a
 * sequence of `TracePacket`s (Trace.packet = 1). Field numbers from
 * Perfetto's public protos (protos/perfetto/trace/): trace_packet.proto,
 * track_event/track_event.proto, track_descriptor.proto,
 * counter_descriptor.proto, process_descriptor.proto, debug_annotation.proto.
 *
 * Every packet is on one sequence (trusted_packet_sequence_id 1). The first
 * packet clears the incremental state (SEQ_INCREMENTAL_STATE_CLEARED) and
 * says it is the first on its sequence; the track events set
 * SEQ_NEEDS_INCREMENTAL_STATE. Nothing is interned: names and categories are
 * plain strings. Tracks: one process track per process (pid, name, command
 * line), its slice and counter tracks as children (parent_uuid). */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "gcs_pb.h"

/* Trace */
enum { F_TRACE_PACKET = 1 };
/* TracePacket */
enum { F_TP_TIMESTAMP = 8, F_TP_SEQ_ID = 10, F_TP_TRACK_EVENT = 11, F_TP_SEQ_FLAGS = 13, F_TP_TRACK_DESCRIPTOR = 60,
       F_TP_FIRST_ON_SEQ = 87 };
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
/* TrackDescriptor, ProcessDescriptor, CounterDescriptor */
enum { F_TD_UUID = 1, F_TD_NAME = 2, F_TD_PROCESS = 3, F_TD_PARENT_UUID = 5, F_TD_COUNTER = 8 };
enum { F_PD_PID = 1, F_PD_CMDLINE = 2, F_PD_PROCESS_NAME = 6 };
/* TrackEvent */
enum { F_TE_DEBUG_ANNOTATIONS = 4, F_TE_TYPE = 9, F_TE_TRACK_UUID = 11, F_TE_CATEGORIES = 22, F_TE_NAME = 23,
       F_TE_DOUBLE_COUNTER_VALUE = 44 };
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
/* DebugAnnotation */
enum { F_DA_BOOL = 2, F_DA_INT = 4, F_DA_DOUBLE = 5, F_DA_STRING = 6, F_DA_NAME = 10 };

#define SEQ_ID 1

/* The encoder is gcs_pb.h's (shared with `gcscope stacks --format pprof`). */
#define pb gcs_pb
#define pb_put gcs_pb_put
#define pb_varint gcs_pb_varint
#define pb_tag gcs_pb_tag
#define pb_uint gcs_pb_uint
#define pb_int gcs_pb_int
#define pb_double gcs_pb_double
#define pb_bytes gcs_pb_bytes
#define pb_str gcs_pb_str
#define pb_msg gcs_pb_msg
#define pb_free gcs_pb_free
#define WT_VARINT GCS_PB_WT_VARINT
#define WT_I64 GCS_PB_WT_I64
#define WT_LEN GCS_PB_WT_LEN


/* ---- the writer --------------------------------------------------------------- */

struct pb_writer {
  struct exp_writer base;
  uint64_t next_uuid;
  int first_done;
  int failed;
  struct pb packet, msg, sub, leaf;
  uint64_t track_uuid;   /* the track being walked */
};

static void emit_packet(struct pb_writer *w) {
  struct pb *pk = &w->packet;
  if (pk->oom) { w->failed = 1; pk->n = 0; pk->oom = 0; return; }
  struct pb head = { 0 };
  pb_tag(&head, F_TRACE_PACKET, WT_LEN);
  pb_varint(&head, pk->n);
  if (head.oom || fwrite(head.p, 1, head.n, w->base.out) != head.n ||
      (pk->n && fwrite(pk->p, 1, pk->n, w->base.out) != pk->n))
    w->failed = 1;
  pb_free(&head);
  pk->n = 0;
}

/* The packet header: sequence id and flags; the first packet clears the state. */
static void packet_head(struct pb_writer *w, int track_event) {
  pb_uint(&w->packet, F_TP_SEQ_ID, SEQ_ID);
  if (!w->first_done) {
    pb_uint(&w->packet, F_TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
    pb_uint(&w->packet, F_TP_FIRST_ON_SEQ, 1);
    w->first_done = 1;
  } else if (track_event) {
    pb_uint(&w->packet, F_TP_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
  }
}

static uint64_t ts_of(int64_t ns) { return ns < 0 ? 0 : (uint64_t)ns; }

static void track_descriptor(struct pb_writer *w, uint64_t uuid, uint64_t parent, const char *name, int counter,
                             const struct exp_proc *proc) {
  packet_head(w, 0);
  pb_uint(&w->msg, F_TD_UUID, uuid);
  if (parent) pb_uint(&w->msg, F_TD_PARENT_UUID, parent);
  pb_str(&w->msg, F_TD_NAME, name);
  if (proc) {
    pb_int(&w->sub, F_PD_PID, proc->pid);
    if (proc->cmdline) pb_str(&w->sub, F_PD_CMDLINE, proc->cmdline);
    pb_str(&w->sub, F_PD_PROCESS_NAME, proc->name);
    pb_msg(&w->msg, F_TD_PROCESS, &w->sub);
  }
  if (counter) pb_msg(&w->msg, F_TD_COUNTER, &w->sub); /* an empty CounterDescriptor marks a counter track */
  pb_msg(&w->packet, F_TP_TRACK_DESCRIPTOR, &w->msg);
  emit_packet(w);
}

static void annotation(const struct exp_arg *a, void *ctx) {
  struct pb_writer *w = ctx;
  struct pb *d = &w->leaf;
  pb_str(d, F_DA_NAME, a->key);
  switch (a->kind) {
  case EXP_ARG_DOUBLE: pb_double(d, F_DA_DOUBLE, a->d); break;
  case EXP_ARG_INT: pb_int(d, F_DA_INT, a->i); break;
  case EXP_ARG_BOOL: pb_uint(d, F_DA_BOOL, (uint64_t)a->i); break;
  case EXP_ARG_STR: pb_str(d, F_DA_STRING, a->s); break;
  }
  pb_msg(&w->msg, F_TE_DEBUG_ANNOTATIONS, d);
}

static void track_event(struct pb_writer *w, int64_t ts, int type) {
  packet_head(w, 1);
  pb_uint(&w->packet, F_TP_TIMESTAMP, ts_of(ts));
  pb_uint(&w->msg, F_TE_TYPE, (uint64_t)type);
  pb_uint(&w->msg, F_TE_TRACK_UUID, w->track_uuid);
}

static void slice_begin(const struct exp_slice *s, void *ctx) {
  struct pb_writer *w = ctx;
  track_event(w, s->start, s->instant ? TYPE_INSTANT : TYPE_SLICE_BEGIN);
  pb_str(&w->msg, F_TE_CATEGORIES, "gc");
  pb_str(&w->msg, F_TE_NAME, s->name);
  exp_slice_args(s, annotation, w);
  pb_msg(&w->packet, F_TP_TRACK_EVENT, &w->msg);
  emit_packet(w);
}

static void slice_end(const struct exp_slice *s, void *ctx) {
  struct pb_writer *w = ctx;
  if (s->instant) return;
  track_event(w, s->end, TYPE_SLICE_END);
  pb_msg(&w->packet, F_TP_TRACK_EVENT, &w->msg);
  emit_packet(w);
}

static int pb_proc(struct exp_writer *base, const struct exp_proc *p) {
  struct pb_writer *w = (struct pb_writer *)base;
  uint64_t proc_uuid = w->next_uuid++;
  track_descriptor(w, proc_uuid, 0, p->name, 0, p);
  for (size_t i = 0; i < p->ntracks; i++) {
    const struct exp_track *t = &p->tracks[i];
    if (t->kind == EXP_TRACK_SLICES ? t->nslices == 0 : t->npoints == 0) continue;
    w->track_uuid = w->next_uuid++;
    track_descriptor(w, w->track_uuid, proc_uuid, t->name, t->kind == EXP_TRACK_COUNTER, NULL);
    if (t->kind == EXP_TRACK_SLICES) {
      exp_walk(t, slice_begin, slice_end, w);
      continue;
    }
    for (size_t k = 0; k < t->npoints; k++) {
      track_event(w, t->points[k].ts, TYPE_COUNTER);
      pb_double(&w->msg, F_TE_DOUBLE_COUNTER_VALUE, t->points[k].value);
      pb_msg(&w->packet, F_TP_TRACK_EVENT, &w->msg);
      emit_packet(w);
    }
  }
  return w->failed || ferror(base->out) ? -1 : 0;
}

static int pb_close(struct exp_writer *base) {
  struct pb_writer *w = (struct pb_writer *)base;
  int rc = w->failed || ferror(base->out) ? -1 : 0;
  pb_free(&w->packet);
  pb_free(&w->msg);
  pb_free(&w->sub);
  pb_free(&w->leaf);
  free(w);
  return rc;
}

static const struct exp_writer_ops pb_ops = { pb_proc, pb_close };

struct exp_writer *exp_pb_open(FILE *out) {
  struct pb_writer *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->base.ops = &pb_ops;
  w->base.out = out;
  w->next_uuid = 1;
  return &w->base;
}

int exp_write_proc(struct exp_writer *w, const struct exp_proc *p) { return w->ops->proc(w, p); }
int exp_writer_close(struct exp_writer *w) { return w->ops->close(w); }
