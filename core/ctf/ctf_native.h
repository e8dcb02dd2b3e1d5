/*
 * ctf_native.h — private to core/ctf: our own reader of CTF 1.8 traces as
 * LTTng writes them (lttng-ust 2.x, lttng-modules), without libbabeltrace2.
 *
 * ctf_native_meta.c parses the subset of TSDL LTTng writes (typealias,
 * trace/env/clock/stream/event blocks, integer/enum/floating_point/string,
 * struct, static arrays, sequences and variants tagged by a sibling enum);
 * metadata outside that subset is "unsupported" and the caller falls back to
 * libbabeltrace2. ctf_native_read.c reads the packets of the stream files,
 * decodes the events and merges the streams in time order.
 *
 * Safety: every read is bounds-checked against the packet's content; sizes,
 * lengths and alignments from the files are never trusted; metadata size,
 * nesting and counts are capped; every loop advances. A damaged trace gives
 * one line in err and -1.
 */
#ifndef CTF_NATIVE_H
#define CTF_NATIVE_H

#include <stdint.h>
#include <stddef.h>

#include "ctf_map.h"
#include "gcs_ctf_reader.h"

/* Limits (metadata and streams). */
#define NT_META_MAX (16u << 20)     /* metadata text, bytes */
#define NT_DEPTH_MAX 32             /* type nesting */
#define NT_MEMBERS_MAX 4096         /* members of one structure / options of a variant */
#define NT_VALS_MAX 65536           /* value slots one decode may use */
#define NT_EVENTS_MAX 65536         /* event classes of a trace (and largest id + 1) */
#define NT_STREAMS_MAX 1024         /* streams of one read (open at once) */
#define NT_FILES_MAX (1 << 20)      /* stream files of one read (rotated: several a stream) */
#define NT_PACKET_MAX (1ull << 30)  /* bytes of one packet */

enum nt_kind { NT_INT, NT_FLOAT, NT_STRING, NT_STRUCT, NT_VARIANT, NT_ARRAY, NT_SEQ };

struct nt_type;
/* A member of a "flat" structure (byte-aligned little-endian integers of 8
 * to 64 bits, floats, strings, arrays and sequences of such integers): decoded
 * by one loop without recursion. */
enum nt_fop { F_U, F_S, F_FLOAT, F_STR, F_ARR, F_SEQ };
struct nt_flat {
  uint8_t op;          /* enum nt_fop */
  uint8_t bytes;       /* F_U/F_S/F_FLOAT: size; F_ARR/F_SEQ: element size */
  uint8_t alignb;      /* alignment in bytes */
  int16_t ref;         /* F_SEQ: length member */
  uint64_t len;        /* F_ARR */
};
struct nt_member {
  const char *name;       /* as written in the TSDL ("_vpid") */
  const char *bname;      /* as babeltrace2 shows it: one leading underscore less */
  struct nt_type *t;
  int ref;                /* NT_SEQ: member holding the length; NT_VARIANT: the tag; else -1 */
};
struct nt_range { int64_t lo, hi; const char *label; };

struct nt_type {
  enum nt_kind k;
  uint32_t align;          /* bits, a power of two */
  uint32_t size;           /* NT_INT/NT_FLOAT: bits */
  uint8_t sign, be, text;  /* NT_INT: signed, big-endian, encoded as text (UTF8/ASCII) */
  uint8_t clock;           /* NT_INT: mapped to the clock */
  int nranges;             /* NT_INT: enumeration mappings */
  struct nt_range *ranges;
  int nmem;                /* NT_STRUCT: members; NT_VARIANT: options */
  struct nt_member *mem;
  const char *tag;         /* NT_VARIANT: tag name; NT_SEQ: length name */
  uint64_t len;            /* NT_ARRAY */
  struct nt_type *elem;    /* NT_ARRAY/NT_SEQ */
  uint64_t minbits;        /* fewest bits an instance takes (after its alignment) */
  uint32_t nvals;          /* value slots a decode of this type needs */
  struct nt_flat *flat;    /* NT_STRUCT: its members as a flat list, NULL if not flat */
};

struct nt_event {
  const char *name;
  uint64_t id;
  struct nt_type *ctx, *payload;   /* NULL if none */
  struct ctf_map map;
  int built;                       /* map built (at the first event of the class) */
  /* payload member indices of interest (bin_info: types checked) */
};

struct nt_stream_class {
  uint64_t id;
  struct nt_type *hdr, *pctx, *ectx;
  int hdr_form;                    /* 1: compact (5/27), 2: large (16/32) */
  uint32_t hdr_align;
  int pc_begin, pc_end, pc_content, pc_packet, pc_discarded, pc_cpu;   /* packet context member, -1 */
  int pc_seq;                        /* packet_seq_num (an unsigned integer), -1 */
  int ec_vpid, ec_vtid, ec_procname;                                    /* event context member, -1 */
  struct nt_event **ev;            /* by id, NULL where none */
  uint32_t nev;                    /* ids 0 .. nev-1 */
};

struct nt_meta {
  /* arena */
  void *arena;
  size_t arena_used;
  int be;                          /* trace byte order */
  uint8_t uuid[16];
  int has_uuid;
  struct nt_type *phdr;            /* packet header, NULL if none */
  int ph_magic, ph_uuid, ph_stream_id, ph_instance;   /* ph_instance: stream_instance_id */
  /* the clock (LTTng has one) */
  int has_clock;
  uint64_t freq, offset;
  int64_t offset_s;
  /* environment entries of interest */
  const char *hostname, *procname;
  int has_vpid;
  int64_t vpid;
  struct nt_stream_class *sc;
  int nsc;
  struct nt_event *events;
  int nevents;
};

/* Parse DIR/metadata. Returns 0; 1 when the metadata is outside the subset
 * or cannot be read (why in err: libbabeltrace2 may then say more); -1 when
 * a packetized metadata file is damaged (cut short, a packet past its end,
 * a bad magic after the first packet) or memory ran out (err). */
int nt_meta_load(struct nt_meta *m, const char *dir, char *err, size_t errlen);
void nt_meta_free(struct nt_meta *m);

/* The native reader behind gcs_ctf_read: 1 if every trace's metadata is in
 * the subset (why not in err otherwise), and the read itself: gcs_ctf_read's
 * answers, or 2 (nothing reported yet) when a metadata is outside the subset. */
int nt_supported(const char *const *dirs, int ndirs, char *err, size_t errlen);
int nt_read(const char *const *dirs, int ndirs, const struct gcs_rd_callbacks *cb, void *ud,
            const atomic_int *cancel, struct gcs_rd_stats *stats, char *err, size_t errlen);

#endif /* CTF_NATIVE_H */
