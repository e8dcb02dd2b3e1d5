/* ctf_native_read.c — the packets of LTTng's stream files, decoded with the
 * metadata of ctf_native_meta.c, merged in time order into the records of
 * gcs_ctf_reader.h (the same records the libbabeltrace2 path gives).
 *
 * Each stream file is read packet by packet (pread into a buffer of the
 * packet's size, at most NT_PACKET_MAX and never more than the file holds);
 * every field read is checked against the packet's content size. The
 * streams' next events sit in a binary heap keyed by (time, stream order).
 *
 * A stream is one or more files: LTTng's per-stream file rotation
 * (--tracefile-size/--tracefile-count) writes CHANNEL_CPU_0, _1, ... and
 * reuses the names once it deletes the oldest. As libbabeltrace2 does, the
 * files whose first packet names the same stream class and
 * stream_instance_id are one stream, read in the order of their first
 * packet's timestamp_begin; its packets must then begin strictly later one
 * after the other (overlapping or duplicated files are an error, where
 * libbabeltrace2 would merge them packet by packet). */
#include "ctf_native.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct nv { uint64_t u, pos, n; };   /* int value; string/array: bit position, length/count */

struct ntrace {
  struct nt_meta m;
  const char *dir;
  int64_t base_ns;                   /* clock offset in ns */
};

struct nfile { char *path; uint64_t fsize; };

struct nstream {
  struct ntrace *tr;
  const struct nt_stream_class *sc;
  struct nfile *files;               /* in time order (one unless rotated) */
  int nfiles, fi;                    /* fi: the file being read */
  const char *path;                  /* files[fi].path */
  const char *name;                  /* the stream's name: its first file's path */
  int fd;
  uint64_t fsize, off;               /* file size, offset of the next packet */
  uint64_t cur;                      /* offset of the packet being read */
  uint8_t *buf;                      /* the current packet */
  size_t bufcap;
  uint64_t pos, content;             /* bits in buf */
  uint64_t clock;                    /* cycles */
  int32_t cpu;
  int have_disc;
  uint64_t disc, disc_deficit;      /* ctf_lost_settle */
  uint64_t prev_end;                 /* previous packet's timestamp_end (cycles) */
  int have_end;
  int64_t prev_begin_ns;             /* rotated: previous packet's timestamp_begin */
  int have_begin;
  uint64_t seq;                      /* previous packet's packet_seq_num */
  int have_seq;
  /* lost records of the packet just loaded, before its events, keyed by
   * ts_ns: its discarded events, then a gap in packet_seq_num */
  struct gcs_rd_lost lost[2];
  int lost_gap[2];                   /* lost[i] is a packet gap */
  int nlost, lost_i;
  uint64_t npackets;                 /* whole packets read from the current file */
  int cut_checked;                   /* the end of its last file checked against the index */
  const struct nt_event *ev;         /* the pending event (header read) */
  int64_t ts_ns;
  int done;
  int order;
};

struct nreader {
  struct ntrace *tr;
  int ntr;
  struct nstream *st;
  int nst;
  int *heap;
  int nheap;
  struct nv *slots;
  const struct gcs_rd_callbacks *cb;
  void *ud;
  struct gcs_rd_stats *stats;
  char *err;
  size_t errlen;
  const char *where;
  struct gcs_rd_event rec;
  struct gcs_stack stack;
  uint64_t stack_ip[GCS_STACK_MAX_DEPTH];
  struct gcs_rd_bin_info bin;
  char strbuf[65536];                /* gcs_etw_decode's strings */
  char txt[65536];                   /* text arrays as strings */
  size_t txtn;
  char procname[256];
  /* lost records not delivered yet whose window begins before their place
   * in the merge (begin_ns 0, at a later key): gcs_rd_stats.lost_horizon_ns */
  int early;
};

/* ---- bits ----------------------------------------------------------------- */
static inline uint64_t al(uint64_t pos, uint32_t a) { return (pos + a - 1) & ~(uint64_t)(a - 1); }

static uint64_t get_bits(const uint8_t *b, uint64_t pos, unsigned size, int be) {
  if (!be) {
    if (!(pos & 7)) {
      const uint8_t *p = b + (pos >> 3);
      switch (size) {
      case 8: return p[0];
      case 16: { uint16_t v; memcpy(&v, p, 2); return v; }
      case 32: { uint32_t v; memcpy(&v, p, 4); return v; }
      case 64: { uint64_t v; memcpy(&v, p, 8); return v; }
      default: break;
      }
    }
    uint64_t v = 0;
    unsigned got = 0;
    uint64_t byte = pos >> 3;
    unsigned off = (unsigned)(pos & 7);
    while (got < size) {
      unsigned take = 8 - off;
      if (take > size - got) take = size - got;
      uint64_t bits = ((uint64_t)b[byte] >> off) & ((1u << take) - 1);
      v |= bits << got;
      got += take;
      off = 0;
      byte++;
    }
    return v;
  }
  uint64_t v = 0;
  for (unsigned i = 0; i < size; i++, pos++) v = v << 1 | ((b[pos >> 3] >> (7 - (pos & 7))) & 1);
  return v;
}

static inline int rd_int(const uint8_t *b, uint64_t *pos, uint64_t end, const struct nt_type *t, uint64_t *v) {
  uint64_t p = al(*pos, t->align);
  if (p > end || end - p < t->size) return -1;
  uint64_t x = get_bits(b, p, t->size, t->be);
  if (t->sign && t->size < 64 && (x >> (t->size - 1)) & 1) x |= ~(uint64_t)0 << t->size;
  *v = x;
  *pos = p + t->size;
  return 0;
}

/* Decode one instance of t at *pos; its value (if any) in *out; children's
 * values in slots. */
static int dec(const uint8_t *b, uint64_t *pos, uint64_t end, const struct nt_type *t, struct nv *out,
               struct nv *slots) {
  switch (t->k) {
  case NT_INT: return rd_int(b, pos, end, t, &out->u);
  case NT_FLOAT: {
    uint64_t p = al(*pos, t->align);
    if (p > end || end - p < t->size) return -1;
    *pos = p + t->size;
    return 0;
  }
  case NT_STRING: {
    uint64_t p = al(*pos, 8);
    if (p >= end) return -1;
    const uint8_t *s = b + (p >> 3);
    const uint8_t *z = memchr(s, 0, (size_t)((end - p) >> 3));
    if (!z) return -1;
    out->pos = p;
    out->n = (uint64_t)(z - s);
    *pos = p + (out->n + 1) * 8;
    return 0;
  }
  case NT_STRUCT: {
    uint64_t p = al(*pos, t->align);
    if (p > end) return -1;
    if (t->flat) {   /* byte positions, one loop */
      uint64_t q = p >> 3, e = end >> 3;
      for (int i = 0; i < t->nmem; i++) {
        const struct nt_flat *f = &t->flat[i];
        struct nv *v = &slots[i];
        q = (q + f->alignb - 1) & ~(uint64_t)(f->alignb - 1);
        switch ((enum nt_fop)f->op) {
        case F_U: case F_S: {
          if (q > e || e - q < f->bytes) return -1;
          const uint8_t *x = b + q;
          switch (f->bytes) {
          case 1: v->u = f->op == F_S ? (uint64_t)(int64_t)(int8_t)x[0] : x[0]; break;
          case 2: { uint16_t w; memcpy(&w, x, 2); v->u = f->op == F_S ? (uint64_t)(int64_t)(int16_t)w : w; break; }
          case 4: { uint32_t w; memcpy(&w, x, 4); v->u = f->op == F_S ? (uint64_t)(int64_t)(int32_t)w : w; break; }
          default: memcpy(&v->u, x, 8); break;
          }
          q += f->bytes;
          break;
        }
        case F_FLOAT:
          if (q > e || e - q < f->bytes) return -1;
          q += f->bytes;
          break;
        case F_STR: {
          if (q >= e) return -1;
          const uint8_t *z = memchr(b + q, 0, (size_t)(e - q));
          if (!z) return -1;
          v->pos = q << 3;
          v->n = (uint64_t)(z - (b + q));
          q += v->n + 1;
          break;
        }
        case F_ARR: case F_SEQ: {
          uint64_t n = f->op == F_ARR ? f->len : slots[f->ref].u;
          if (q > e || (e - q) / f->bytes < n) return -1;
          v->pos = q << 3;
          v->n = n;
          q += n * f->bytes;
          break;
        }
        }
      }
      *pos = q << 3;
      return 0;
    }
    for (int i = 0; i < t->nmem; i++) {
      const struct nt_member *m = &t->mem[i];
      if (m->ref >= 0) {
        if (m->t->k == NT_SEQ) {
          slots[i].n = slots[m->ref].u;
          uint64_t q = al(p, m->t->align);
          if (q > end) return -1;
          slots[i].pos = q;
          if (slots[i].n && (end - q) / m->t->elem->minbits < slots[i].n) return -1;
          const struct nt_type *e = m->t->elem;
          if ((e->k == NT_INT || e->k == NT_FLOAT) && e->align <= e->size && e->size % e->align == 0) {
            p = q + slots[i].n * e->size;
          } else {
            p = q;
            for (uint64_t k = 0; k < slots[i].n; k++)
              if (dec(b, &p, end, e, &slots[t->nmem], slots + t->nmem + 1)) return -1;
          }
          continue;
        }
        /* variant tagged by an enumeration */
        int64_t tag = (int64_t)slots[m->ref].u;
        const struct nt_type *et = t->mem[m->ref].t;
        const char *label = NULL;
        for (int r = 0; r < et->nranges && !label; r++) {
          const struct nt_range *rg = &et->ranges[r];
          if (et->sign ? (tag >= rg->lo && tag <= rg->hi)
                       : ((uint64_t)tag >= (uint64_t)rg->lo && (uint64_t)tag <= (uint64_t)rg->hi))
            label = rg->label;
        }
        const struct nt_type *opt = NULL;
        for (int o = 0; label && o < m->t->nmem && !opt; o++)
          if (strcmp(m->t->mem[o].name, label) == 0 || strcmp(m->t->mem[o].bname, label) == 0) opt = m->t->mem[o].t;
        if (!opt) return -1;
        if (dec(b, &p, end, opt, &slots[i], slots + t->nmem)) return -1;
        continue;
      }
      if (dec(b, &p, end, m->t, &slots[i], slots + t->nmem)) return -1;
    }
    *pos = p;
    return 0;
  }
  case NT_ARRAY: {
    uint64_t q = al(*pos, t->align);
    if (q > end) return -1;
    out->pos = q;
    out->n = t->len;
    const struct nt_type *e = t->elem;
    if (t->len && (end - q) / e->minbits < t->len) return -1;
    if ((e->k == NT_INT || e->k == NT_FLOAT) && e->align <= e->size && e->size % e->align == 0) {
      *pos = q + t->len * e->size;
      return 0;
    }
    for (uint64_t k = 0; k < t->len; k++)
      if (dec(b, &q, end, e, &slots[0], slots + 1)) return -1;
    *pos = q;
    return 0;
  }
  case NT_SEQ: case NT_VARIANT: return -1;   /* only as struct members (resolved above) */
  }
  return -1;
}

/* ---- records ---------------------------------------------------------------- */
static const char *as_text(struct nreader *R, const uint8_t *b, const struct nt_type *t, const struct nv *v) {
  if (t->k == NT_STRING) return (const char *)b + (v->pos >> 3);
  /* a text array or sequence: up to its first NUL */
  size_t n = (size_t)v->n;
  const char *s = (const char *)b + (v->pos >> 3);
  const char *z = memchr(s, 0, n);
  if (z) return s;                          /* NUL-terminated in place */
  if (R->txtn + n + 1 > sizeof R->txt) return "";
  char *d = R->txt + R->txtn;
  memcpy(d, s, n);
  d[n] = 0;
  R->txtn += n + 1;
  return d;
}

static int is_text(const struct nt_type *t) {
  return t->k == NT_STRING || ((t->k == NT_ARRAY || t->k == NT_SEQ) && t->elem->k == NT_INT && t->elem->text &&
                               t->elem->size == 8 && t->elem->align % 8 == 0);
}

static void mdesc_of(const struct nt_type *st, struct ctf_mdesc *md) {
  for (int i = 0; i < st->nmem; i++) {
    const struct nt_type *t = st->mem[i].t;
    md[i].name = st->mem[i].bname;
    md[i].elem_uint = md[i].elem_int = 0;
    if (t->k == NT_INT) md[i].k = t->sign ? CM_SINT : CM_UINT;
    else if (is_text(t)) md[i].k = CM_STR;
    else if (t->k == NT_ARRAY || t->k == NT_SEQ) {
      md[i].k = CM_ARRAY;
      md[i].elem_int = t->elem->k == NT_INT;
      md[i].elem_uint = md[i].elem_int && !t->elem->sign;
    } else md[i].k = CM_OTHER;
  }
}

/* The integer elements of an array or sequence, in order (0 for elements
 * that are not integers), each read where the previous one ended (never
 * from the start again: no quadratic walk). Their bounds were checked when
 * the event was decoded. */
struct elems { const uint8_t *b; const struct nt_type *e; uint64_t pos; };
static void elems_init(struct elems *it, const uint8_t *b, const struct nt_type *arr, uint64_t pos) {
  it->b = b;
  it->e = arr->elem;
  it->pos = pos;
}
static uint64_t elems_next(struct elems *it) {
  uint64_t v = 0;
  if (it->e->k != NT_INT) return 0;
  if (rd_int(it->b, &it->pos, UINT64_MAX, it->e, &v)) return 0;
  return v;
}

static int build_map(struct nreader *R, struct nt_event *ne) {
  int n = ne->payload ? ne->payload->nmem : 0;
  struct ctf_mdesc *md = calloc(n ? (size_t)n : 1, sizeof *md);
  if (!md) return -1;
  if (ne->payload) mdesc_of(ne->payload, md);
  int rc = ctf_map_build(&ne->map, ne->name, md, n);
  free(md);
  if (rc == 0 && !ne->payload && ne->map.kind >= 0) ne->map.kind = -1;
  ne->built = 1;
  (void)R;
  return rc;
}

static int64_t ns_of(const struct nt_meta *m, int64_t base_ns, uint64_t cycles) {
  uint64_t v;
  if (m->freq == 1000000000u) v = cycles;
  else {
    double d = 1e9 * (double)cycles / (double)m->freq;
    v = d >= 9.2e18 ? (uint64_t)INT64_MAX : (uint64_t)d;
  }
  if (v >= (uint64_t)INT64_MAX) return 0;
  int64_t r;
  if (__builtin_add_overflow(base_ns, (int64_t)v, &r)) return 0;
  return r;
}

/* ---- packets ------------------------------------------------------------------ */
static int sfail(struct nreader *R, const struct nstream *s, const char *what) {
  snprintf(R->err, R->errlen, "%s: packet at offset %llu: %s", s->path, (unsigned long long)s->cur, what);
  return -1;
}

static int pread_all(int fd, uint8_t *b, size_t n, uint64_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, b + got, n - got, (off_t)(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

static int ensure(struct nstream *s, size_t n) {
  if (n <= s->bufcap) return 0;
  uint8_t *nb = realloc(s->buf, n);
  if (!nb) return -1;
  s->buf = nb;
  s->bufcap = n;
  return 0;
}

static int open_file(struct nreader *R, struct nstream *s, int i);

static uint64_t be64_at(const uint8_t *b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | b[i];
  return v;
}

/* The stream's file ends after a whole packet: does its LTTng index
 * (DIR/index/NAME.idx: a big-endian header, magic 0xC1F1DCC1, then one
 * entry per packet: offset, packet size in bits, ...) list packets from
 * that offset on? Their count and bytes in *more, *bytes; 0 when there is
 * no index or it lists none (an index is not required, nor trusted beyond
 * this: its entries only tell that the file was longer). */
static int index_lists_more(const char *path, uint64_t fsize, uint64_t *more, uint64_t *bytes) {
  const char *sl = strrchr(path, '/');
  char ip[4200];
  if (sl) snprintf(ip, sizeof ip, "%.*s/index/%s.idx", (int)(sl - path), path, sl + 1);
  else snprintf(ip, sizeof ip, "index/%s.idx", path);
  FILE *f = fopen(ip, "rb");
  if (!f) return 0;
  uint8_t h[16], e[256];
  int at_end = 0;
  *more = *bytes = 0;
  if (fread(h, 1, 16, f) == 16 && be64_at(h) >> 32 == 0xC1F1DCC1u) {
    uint32_t len = (uint32_t)(be64_at(h + 8) & 0xffffffffu);
    for (uint64_t n = 0; len >= 16 && len <= sizeof e && n < NT_FILES_MAX && fread(e, 1, len, f) == len; n++) {
      uint64_t off = be64_at(e), psize = be64_at(e + 8) / 8;
      if (off == fsize) at_end = 1;
      if (off >= fsize && psize <= NT_PACKET_MAX) { (*more)++; *bytes += psize; }
    }
  }
  fclose(f);
  return at_end && *more > 0;
}

/* The stream's last file is cut short at the packet at s->cur (how: what
 * of it is there): its whole packets are kept, the rest of the stream is a
 * lost record (gcs_rd_lost: count 0, packet_gap 1) from the end of the
 * stream's last whole packet to the end of the trace, and the read goes on
 * with the other streams. 1: the record is pending (as a packet's). */
static int cut_stream(struct nreader *R, struct nstream *s, const char *how) {
  const struct nt_meta *m = &s->tr->m;
  struct gcs_rd_stats *st = R->stats;
  if (!st->cut_streams++) {
    st->cut_at = s->fsize;
    snprintf(st->cut_why, sizeof st->cut_why, "%s: cut at byte %llu %s; the events of the %llu whole packet%s before "
             "it are kept, the stream's later events are missing", s->path, (unsigned long long)s->fsize, how,
             (unsigned long long)s->npackets, s->npackets == 1 ? "" : "s");
    snprintf(st->cut_file, sizeof st->cut_file, "%s", s->path);
    for (char *c = st->cut_why; *c; c++)   /* a name from the files: one printable line */
      if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    for (char *c = st->cut_file; *c; c++)
      if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  }
  s->nlost = s->lost_i = 0;
  struct gcs_rd_lost *l = &s->lost[s->nlost];
  l->count = 0;
  l->packet_gap = 1;
  s->lost_gap[s->nlost++] = 0;   /* not a packet_seq_num gap: not in the stats' packet_gaps */
  l->stream = s->name;
  l->ts_ns = UINT64_MAX;
  s->ts_ns = s->have_end ? ns_of(m, s->tr->base_ns, s->prev_end) : 0;
  l->begin_ns = s->ts_ns > 0 ? (uint64_t)s->ts_ns : 0;
  /* nothing more of this stream: the next load ends it */
  s->off = s->fsize;
  s->fi = s->nfiles - 1;
  s->pos = s->content = 0;
  s->cut_checked = 1;
  return 1;
}

/* Read the next packet's header and context. 1: a packet is loaded; 0: end
 * of the file; -1: error. */
static int load_packet(struct nreader *R, struct nstream *s) {
  const struct nt_meta *m = &s->tr->m;
  for (;;) {
    if (s->off >= s->fsize) {
      if (s->fi + 1 >= s->nfiles) {
        uint64_t more, bytes;
        if (!s->cut_checked && (s->cut_checked = 1) && index_lists_more(s->path, s->fsize, &more, &bytes)) {
          char how[160];
          s->cur = s->fsize;
          snprintf(how, sizeof how, "after a whole packet (its index lists %llu packet%s more, %llu bytes, missing)",
                   (unsigned long long)more, more == 1 ? "" : "s", (unsigned long long)bytes);
          return cut_stream(R, s, how);
        }
        return 0;
      }
      if (open_file(R, s, s->fi + 1)) return -1;
      continue;
    }
    s->cur = s->off;
    uint64_t left = s->fsize - s->off;
    size_t first = left < 65536 ? (size_t)left : 65536;
    if (ensure(s, first) || pread_all(s->fd, s->buf, first, s->off)) return sfail(R, s, "cannot read");
    uint64_t pos = 0, end = (uint64_t)first * 8;
    /* The stream's last file ends within this packet's header or context
     * (all of the file's rest is read, and it does not hold them): cut. */
    int at_tail = first == left && s->fi + 1 >= s->nfiles;
    char how[200];
    snprintf(how, sizeof how, "inside the header of a packet that starts at byte %llu (%llu bytes of it, dropped)",
             (unsigned long long)s->cur, (unsigned long long)left);
    const struct nt_stream_class *sc = &m->sc[0];
    if (m->phdr) {
      if (dec(s->buf, &pos, end, m->phdr, &R->slots[0], R->slots + 1)) {
        if (at_tail) return cut_stream(R, s, how);
        return sfail(R, s, "truncated packet header");
      }
      struct nv *h = R->slots + 1;
      if (m->ph_magic >= 0 && h[m->ph_magic].u != 0xC1FC1FC1u) return sfail(R, s, "bad packet magic");
      if (m->ph_uuid >= 0 && m->has_uuid) {
        uint64_t up = h[m->ph_uuid].pos;
        if ((up & 7) || memcmp(s->buf + (up >> 3), m->uuid, 16) != 0) return sfail(R, s, "trace UUID mismatch");
      }
      if (m->ph_stream_id >= 0) {
        uint64_t id = h[m->ph_stream_id].u;
        sc = NULL;
        for (int i = 0; i < m->nsc; i++) if (m->sc[i].id == id) sc = &m->sc[i];
        if (!sc) return sfail(R, s, "unknown stream class");
      }
    }
    if (s->sc && s->sc != sc) return sfail(R, s, "stream class changes within the stream");
    s->sc = sc;
    uint64_t psize = left * 8, csize = 0;
    int have_c = 0;
    struct nv *c = R->slots + 1;
    if (sc->pctx) {
      if (dec(s->buf, &pos, end, sc->pctx, &R->slots[0], c)) {
        if (at_tail) return cut_stream(R, s, how);
        return sfail(R, s, "truncated packet context");
      }
      if (sc->pc_packet >= 0) psize = c[sc->pc_packet].u;
      if (sc->pc_content >= 0) { csize = c[sc->pc_content].u; have_c = 1; }
    }
    if (!have_c) csize = psize;
    if (psize == 0 || psize % 8) return sfail(R, s, "bad packet size");
    /* The stream's last file ends inside the packet: cut (a packet size
     * no packet has, over NT_PACKET_MAX, is damage, said as such). */
    if (psize / 8 > left && psize / 8 <= NT_PACKET_MAX && s->fi + 1 >= s->nfiles && csize <= psize) {
      snprintf(how, sizeof how, "inside a packet that starts at byte %llu (%llu bytes of its %llu, dropped)",
               (unsigned long long)s->cur, (unsigned long long)left, (unsigned long long)(psize / 8));
      return cut_stream(R, s, how);
    }
    if (psize / 8 > left) {
      char w[160];
      snprintf(w, sizeof w, "packet size %llu bytes past the end of the file (%llu bytes left)",
               (unsigned long long)(psize / 8), (unsigned long long)left);
      return sfail(R, s, w);
    }
    if (psize / 8 > NT_PACKET_MAX) return sfail(R, s, "packet too large");
    if (csize > psize) return sfail(R, s, "content size larger than the packet size");
    if (csize < pos) return sfail(R, s, "content size smaller than the packet's header and context");
    /* values of interest before the buffer is reloaded */
    if (sc->pctx) {
      if (sc->pc_begin >= 0) s->clock = c[sc->pc_begin].u;
      if (s->nfiles > 1 && sc->pc_begin >= 0) {
        /* a rotated stream: its packets in time order, none twice */
        int64_t b = ns_of(m, s->tr->base_ns, s->clock);
        if (s->have_begin && b <= s->prev_begin_ns)
          return sfail(R, s, "begins no later than the stream's previous packet: rotated files overlap "
                             "or repeat");
        s->prev_begin_ns = b;
        s->have_begin = 1;
      }
      s->cpu = sc->pc_cpu >= 0 ? (int32_t)c[sc->pc_cpu].u : -1;
      s->nlost = s->lost_i = 0;
      if (sc->pc_discarded >= 0) {
        uint64_t d = c[sc->pc_discarded].u;
        /* As babeltrace2: a count that changed from the stream's previous
         * packet is a discarded-events record of the difference, from the
         * previous packet's end to this one's (a counter that went down:
         * ctf_lost_settle). */
        /* The stream's first packet with a non-zero counter: events were
         * lost before its end, how many is unknown (CTF_LOST_UNKNOWN); the
         * gap is this packet's span. */
        int first = !s->have_disc && d != 0;
        uint64_t lost = s->have_disc ? ctf_lost_settle(&s->disc_deficit, d - s->disc)
                        : first    ? ctf_lost_settle(&s->disc_deficit, CTF_LOST_UNKNOWN)
                                   : 0;
        if (lost) {
          struct gcs_rd_lost *l = &s->lost[s->nlost];
          l->packet_gap = 0;
          s->lost_gap[s->nlost++] = 0;
          l->count = lost;
          l->stream = s->name;
          l->ts_ns = 0;
          if (sc->pc_end >= 0) {
            int64_t ns = ns_of(m, s->tr->base_ns, c[sc->pc_end].u);
            l->ts_ns = ns > 0 ? (uint64_t)ns : 0;
          }
          if (first) s->ts_ns = sc->pc_begin >= 0 ? ns_of(m, s->tr->base_ns, c[sc->pc_begin].u) : 0;
          else s->ts_ns = s->have_end ? ns_of(m, s->tr->base_ns, s->prev_end) : 0;
          /* the window: from the previous packet's end (the first packet:
           * unknown, the trace's start) to this packet's end */
          l->begin_ns = !first && s->ts_ns > 0 ? (uint64_t)s->ts_ns : 0;
          if (!l->begin_ns && s->ts_ns > 0) R->early++;
        }
        s->disc = d;
        s->have_disc = 1;
      }
      if (sc->pc_seq >= 0) {
        uint64_t q = c[sc->pc_seq].u;
        /* As babeltrace2 2.0 (its discarded-packets message): a packet
         * whose packet_seq_num is not the previous packet's + 1 (modulo
         * 2^64; the same number again is no gap) follows missing packets:
         * a lost record of an unknown count of events (CTF_LOST_UNKNOWN),
         * from the previous packet's end to this one's beginning. A number
         * that went back is such a gap too, as babeltrace2 reports it (a
         * rotated stream's packets that go back in time are an error
         * above). The stream's first packet is none, whatever its number:
         * a stream may be read from its middle (a snapshot, deleted
         * rotated files). */
        if (s->have_seq && q - s->seq > 1) {
          struct gcs_rd_lost *l = &s->lost[s->nlost];
          l->packet_gap = 1;
          s->lost_gap[s->nlost++] = 1;
          l->count = CTF_LOST_UNKNOWN;
          l->stream = s->name;
          l->ts_ns = 0;
          if (sc->pc_begin >= 0 && sc->pc_end >= 0) {
            int64_t ns = ns_of(m, s->tr->base_ns, c[sc->pc_begin].u);
            l->ts_ns = ns > 0 ? (uint64_t)ns : 0;
          }
          s->ts_ns = s->have_end ? ns_of(m, s->tr->base_ns, s->prev_end) : 0;
          /* the window: the previous packet's end to this one's beginning */
          l->begin_ns = s->ts_ns > 0 ? (uint64_t)s->ts_ns : 0;
        }
        s->seq = q;
        s->have_seq = q != UINT64_MAX;   /* babeltrace2's "no value" */
      }
      s->have_end = sc->pc_end >= 0;
      if (s->have_end) s->prev_end = c[sc->pc_end].u;
    } else s->cpu = -1;
    if (psize / 8 > first) {
      if (ensure(s, (size_t)(psize / 8)) || pread_all(s->fd, s->buf, (size_t)(psize / 8), s->off))
        return sfail(R, s, "cannot read");
    }
    s->pos = pos;
    s->content = csize;
    if (R->cb->where && R->where != s->path) { R->where = s->path; R->cb->where(s->path, R->ud); }
    s->off += psize / 8;
    s->npackets++;
    return 1;
  }
}

/* The next event's header: 1 pending, 0 end of stream, -1 error. */
static int next_event(struct nreader *R, struct nstream *s) {
  if (s->lost_i < s->nlost) { s->ev = NULL; return 1; }   /* the packet's next lost record */
  for (;;) {
    uint64_t p = al(s->pos, s->sc ? s->sc->hdr_align : 8);
    if (!s->sc || p >= s->content) {
      int rc = load_packet(R, s);
      if (rc <= 0) { if (rc == 0) s->done = 1; return rc; }
      if (s->nlost) { s->ev = NULL; return 1; }   /* the lost records first */
      continue;
    }
    const uint8_t *b = s->buf;
    uint64_t end = s->content, id, ts;
    unsigned tsbits;
    if (s->sc->hdr_form == 1) {
      if (end - p < 32) return sfail(R, s, "truncated event header");
      uint32_t w;
      memcpy(&w, b + (p >> 3), 4);
      id = w & 31;
      if (id < 31) { ts = w >> 5; tsbits = 27; p += 32; }
      else {
        p = al(p + 5, 8);
        if (end - p < 96) return sfail(R, s, "truncated event header");
        uint32_t x; memcpy(&x, b + (p >> 3), 4); id = x;
        memcpy(&ts, b + (p >> 3) + 4, 8); tsbits = 64; p += 96;
      }
    } else {
      if (end - p < 16) return sfail(R, s, "truncated event header");
      uint16_t x; memcpy(&x, b + (p >> 3), 2);
      id = x;
      p += 16;
      if (id < 65535) {
        if (end - p < 32) return sfail(R, s, "truncated event header");
        uint32_t t32; memcpy(&t32, b + (p >> 3), 4); ts = t32; tsbits = 32; p += 32;
      } else {
        if (end - p < 96) return sfail(R, s, "truncated event header");
        uint32_t i32; memcpy(&i32, b + (p >> 3), 4); id = i32;
        memcpy(&ts, b + (p >> 3) + 4, 8); tsbits = 64; p += 96;
      }
    }
    if (tsbits == 64) s->clock = ts;
    else {
      uint64_t mask = ((uint64_t)1 << tsbits) - 1, low = s->clock & mask;
      s->clock = (s->clock & ~mask) | ts;
      if (ts < low) s->clock += (uint64_t)1 << tsbits;
    }
    if (id >= s->sc->nev || !s->sc->ev[id]) {
      char w[80];
      snprintf(w, sizeof w, "unknown event id %llu", (unsigned long long)id);
      return sfail(R, s, w);
    }
    s->ev = s->sc->ev[id];
    s->pos = p;
    s->ts_ns = ns_of(&s->tr->m, s->tr->base_ns, s->clock);
    return 1;
  }
}

/* Decode the pending event into R->rec. */
static int decode(struct nreader *R, struct nstream *s) {
  struct nt_event *ne = (struct nt_event *)s->ev;
  if (!ne->built && build_map(R, ne)) { snprintf(R->err, R->errlen, "out of memory"); return -1; }
  const struct nt_stream_class *sc = s->sc;
  const struct nt_meta *m = &s->tr->m;
  const uint8_t *b = s->buf;
  uint64_t pos = s->pos, end = s->content;
  struct gcs_rd_event *rec = &R->rec;
  struct gcs_event *ev = &rec->ev;
  R->txtn = 0;
  ev->ts_ns = s->ts_ns > 0 ? (uint64_t)s->ts_ns : 0;
  ev->pid = ev->tid = -1;
  ev->cpu = s->cpu;
  rec->procname = "";
  rec->procname_env = 0;
  struct nv *cs = R->slots + 1;
  if (sc->ectx) {
    if (dec(b, &pos, end, sc->ectx, &R->slots[0], cs)) return sfail(R, s, "truncated event context");
    if (sc->ec_vpid >= 0) ev->pid = (int32_t)cs[sc->ec_vpid].u;
    if (sc->ec_vtid >= 0) ev->tid = (int32_t)cs[sc->ec_vtid].u;
    if (sc->ec_procname >= 0) {
      const char *pn = as_text(R, b, sc->ectx->mem[sc->ec_procname].t, &cs[sc->ec_procname]);
      rec->procname = pn;
    }
  }
  if (sc->ec_vpid < 0 && m->has_vpid) ev->pid = (int32_t)m->vpid;
  if (sc->ec_procname < 0 && m->procname) { rec->procname = m->procname; rec->procname_env = 1; }
  if (ne->ctx && dec(b, &pos, end, ne->ctx, &R->slots[0], R->slots + 1)) return sfail(R, s, "truncated event context");
  rec->name = ne->name;
  rec->decoded = 0;
  rec->payload_error = 0;
  ev->stack = NULL;
  rec->bin_info = NULL;
  const struct nt_type *pt = ne->payload;
  struct nv *v = R->slots + 1;
  if (pt) {
    if (dec(b, &pos, end, pt, &R->slots[0], v)) return sfail(R, s, "truncated event payload");
  }
  s->pos = pos;
  const struct ctf_map *mp = &ne->map;
  if (mp->bin_baddr >= 0 && mp->bin_memsz >= 0 && mp->bin_path >= 0) {
    const struct nt_type *tb = pt->mem[mp->bin_baddr].t, *tm = pt->mem[mp->bin_memsz].t, *tp = pt->mem[mp->bin_path].t;
    if (tb->k == NT_INT && tm->k == NT_INT && is_text(tp)) {
      R->bin.baddr = v[mp->bin_baddr].u;
      R->bin.memsz = v[mp->bin_memsz].u;
      R->bin.path = as_text(R, b, tp, &v[mp->bin_path]);
      R->bin.is_pic = 1;
      if (mp->bin_pic >= 0 && pt->mem[mp->bin_pic].t->k == NT_INT) R->bin.is_pic = v[mp->bin_pic].u != 0;
      rec->bin_info = &R->bin;
    }
  }
  if (mp->kind < 0 || !pt) return 0;
  ctf_map_begin(ev, mp);
  rec->decoded = 1;
  if (mp->data_idx >= 0) {
    const struct nt_type *at = pt->mem[mp->data_idx].t;
    const struct nv *a = &v[mp->data_idx];
    const uint8_t *data = NULL;
    uint8_t *copy = NULL;
    if (at->elem->k == NT_INT && at->elem->size == 8 && !(a->pos & 7)) data = b + (a->pos >> 3);
    else {
      copy = malloc(a->n ? (size_t)a->n : 1);
      struct elems it;
      elems_init(&it, b, at, a->pos);
      if (copy) for (uint64_t k = 0; k < a->n; k++) copy[k] = (uint8_t)elems_next(&it);
      data = copy;
    }
    if (!data || gcs_etw_decode(ev, ev->kind, mp->version, data, (size_t)a->n, 8, R->strbuf, sizeof R->strbuf) != 0) {
      memset(&ev->u, 0, gcs_event_descs[mp->kind].struct_size);
      ev->truncated = 1;
      rec->payload_error = 1;
    }
    free(copy);
    ev->version = (uint8_t)mp->version;
    return 0;
  }
  for (const struct pl_op *o = mp->ops, *oe = mp->ops + mp->nops; o < oe; o++) {
    const struct nv *x = &v[o->idx];
    const struct nt_type *t = pt->mem[o->idx].t;
    switch ((enum ctf_op)o->op) {
    case OP_STR: gcs_field_set_str(ev, o->desc, as_text(R, b, t, x)); break;
    case OP_ARRAY: {
      struct elems it;
      elems_init(&it, b, t, x->pos);
      for (uint64_t e = 0; e < x->n; e++)
        gcs_field_set_array_int(ev, o->desc, (unsigned)(e < o->desc->capacity ? e : o->desc->capacity), elems_next(&it));
      break;
    }
    case OP_GUID: {
      uint8_t *g = (uint8_t *)&ev->u + o->offset;
      struct elems it;
      elems_init(&it, b, t, x->pos);
      for (uint64_t e = 0; e < x->n && e < 16; e++) g[e] = (uint8_t)elems_next(&it);
      break;
    }
    default: ctf_store_int(ev, o, x->u); break;
    }
  }
  ctf_map_end(ev, mp);
  if (mp->stack_idx >= 0) {
    const struct nv *a = &v[mp->stack_idx];
    if (a->n) {
      uint64_t k = a->n > GCS_STACK_MAX_DEPTH ? GCS_STACK_MAX_DEPTH : a->n;
      struct elems it;
      elems_init(&it, b, pt->mem[mp->stack_idx].t, a->pos);
      for (uint64_t i = 0; i < k; i++) R->stack_ip[i] = elems_next(&it);
      R->stack.depth = (uint32_t)k;
      R->stack.truncated = a->n > k || a->n == GCS_STACK_MAX_DEPTH;
      R->stack.ip = R->stack_ip;
      ev->stack = &R->stack;
    }
  }
  return 0;
}

/* ---- merge ---------------------------------------------------------------------- */
static inline int before(const struct nreader *R, int a, int b) {
  const struct nstream *x = &R->st[a], *y = &R->st[b];
  if (x->ts_ns != y->ts_ns) return x->ts_ns < y->ts_ns;
  return x->order < y->order;
}
static void sift_down(struct nreader *R, int i) {
  int n = R->nheap;
  for (;;) {
    int l = 2 * i + 1, r = l + 1, s = i;
    if (l < n && before(R, R->heap[l], R->heap[s])) s = l;
    if (r < n && before(R, R->heap[r], R->heap[s])) s = r;
    if (s == i) return;
    int t = R->heap[i]; R->heap[i] = R->heap[s]; R->heap[s] = t;
    i = s;
  }
}

/* A stream file's identity, from its first packet, as libbabeltrace2 groups
 * files into streams: keyed when the packet header has a stream_instance_id
 * and the packet context a timestamp_begin. A file whose first packet
 * cannot be read here stays alone: reading it then says what is wrong. */
struct finfo { char *path; uint64_t fsize; int keyed; uint64_t scid, inst; int64_t begin_ns; };

static void peek(struct nreader *R, const struct ntrace *tr, int fd, struct finfo *f, uint8_t *buf, size_t cap) {
  const struct nt_meta *m = &tr->m;
  f->keyed = 0;
  if (!m->phdr || m->ph_instance < 0) return;
  size_t want = f->fsize < 4096 ? (size_t)f->fsize : 4096;
  for (;;) {
    if (pread_all(fd, buf, want, 0)) return;
    uint64_t pos = 0, end = (uint64_t)want * 8;
    struct nv *h = R->slots + 1;
    if (dec(buf, &pos, end, m->phdr, &R->slots[0], h) == 0) {
      if (m->ph_magic >= 0 && h[m->ph_magic].u != 0xC1FC1FC1u) return;
      uint64_t inst = h[m->ph_instance].u;
      const struct nt_stream_class *sc = &m->sc[0];
      if (m->ph_stream_id >= 0) {
        sc = NULL;
        for (int i = 0; i < m->nsc; i++) if (m->sc[i].id == h[m->ph_stream_id].u) sc = &m->sc[i];
      }
      if (!sc || !sc->pctx || sc->pc_begin < 0) return;
      if (dec(buf, &pos, end, sc->pctx, &R->slots[0], h) == 0) {
        f->scid = sc->id;
        f->inst = inst;
        f->begin_ns = ns_of(m, tr->base_ns, h[sc->pc_begin].u);
        f->keyed = 1;
        return;
      }
    }
    if (want >= f->fsize || want >= cap) return;   /* the header is cut short */
    want = f->fsize < cap ? (size_t)f->fsize : cap;
  }
}

/* Streams first, in stream class and instance order (babeltrace2's order
 * for events of the same time), each one's files by time; files without
 * an identity after them, by name. */
static int cmp_finfo(const void *a, const void *b) {
  const struct finfo *x = a, *y = b;
  if (x->keyed != y->keyed) return x->keyed ? -1 : 1;
  if (x->keyed) {
    if (x->scid != y->scid) return x->scid < y->scid ? -1 : 1;
    if (x->inst != y->inst) return x->inst < y->inst ? -1 : 1;
    if (x->begin_ns != y->begin_ns) return x->begin_ns < y->begin_ns ? -1 : 1;
  }
  return strcmp(x->path, y->path);
}

/* Make files[i] the file s reads: opened, from its start. */
static int open_file(struct nreader *R, struct nstream *s, int i) {
  if (s->fd >= 0) close(s->fd);
  s->fi = i;
  s->path = s->files[i].path;
  s->off = s->cur = 0;
  s->npackets = 0;
  s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (s->fd < 0 || fstat(s->fd, &st) != 0) {
    snprintf(R->err, R->errlen, "%s: %s", s->path, strerror(errno));
    return -1;
  }
  s->fsize = (uint64_t)st.st_size;
  return 0;
}

/* The streams of a trace directory: its stream files (babeltrace2's choice:
 * regular, non-empty files but `metadata` and hidden ones), those of one
 * stream together. */
static int list_streams(struct nreader *R, struct ntrace *tr) {
  /* stream names as babeltrace2 gives them: the file's absolute path */
  char *abs = realpath(tr->dir, NULL);
  const char *base = abs ? abs : tr->dir;
  DIR *d = opendir(tr->dir);
  if (!d) { snprintf(R->err, R->errlen, "%s: %s", tr->dir, strerror(errno)); free(abs); return -1; }
  struct finfo *fi = NULL;
  int n = 0, cap = 0, rc = 0;
  size_t pcap = 65536;
  uint8_t *pbuf = malloc(pcap);
  if (!pbuf) rc = -1;
  struct dirent *de;
  while (rc == 0 && (de = readdir(d))) {
    if (de->d_name[0] == '.' || strcmp(de->d_name, "metadata") == 0) continue;
    size_t pl = strlen(base) + strlen(de->d_name) + 2;
    char *path = malloc(pl);
    if (!path) { rc = -1; break; }
    snprintf(path, pl, "%s/%s", base, de->d_name);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) { free(path); continue; }
    if (n >= NT_FILES_MAX) { free(path); snprintf(R->err, R->errlen, "%s: too many stream files", tr->dir); rc = -2; break; }
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      struct finfo *nn = realloc(fi, (size_t)cap * sizeof *nn);
      if (!nn) { free(path); rc = -1; break; }
      fi = nn;
    }
    struct finfo *f = &fi[n++];
    memset(f, 0, sizeof *f);
    f->path = path;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
      snprintf(R->err, R->errlen, "%s: %s", path, strerror(errno));
      if (fd >= 0) close(fd);
      rc = -2;
      break;
    }
    f->fsize = (uint64_t)st.st_size;
    if (f->fsize) peek(R, tr, fd, f, pbuf, pcap);
    close(fd);
  }
  closedir(d);
  free(abs);
  free(pbuf);
  if (rc == 0 && n) qsort(fi, (size_t)n, sizeof *fi, cmp_finfo);
  /* one stream per key (or per file without one) */
  for (int i = 0, j; rc == 0 && i < n; i = j) {
    j = i + 1;
    if (fi[i].keyed)
      while (j < n && fi[j].keyed && fi[j].scid == fi[i].scid && fi[j].inst == fi[i].inst) j++;
    for (int k = i + 1; k < j && rc == 0; k++)
      if (fi[k].begin_ns == fi[k - 1].begin_ns) {
        snprintf(R->err, R->errlen, "%s: begins with a packet of the same time as %s, a file of the same stream "
                 "(instance %llu): a copy?", fi[k].path, fi[k - 1].path, (unsigned long long)fi[i].inst);
        rc = -2;
      }
    if (rc) break;
    if (R->nst >= NT_STREAMS_MAX) { snprintf(R->err, R->errlen, "%s: too many streams", tr->dir); rc = -2; break; }
    struct nstream *ns = realloc(R->st, (size_t)(R->nst + 1) * sizeof *ns);
    if (!ns) { rc = -1; break; }
    R->st = ns;
    struct nstream *s = &R->st[R->nst];
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->tr = tr;
    s->order = R->nst;
    s->files = calloc((size_t)(j - i), sizeof *s->files);
    if (!s->files) { rc = -1; break; }
    R->nst++;
    for (int k = i; k < j; k++) {
      s->files[k - i].path = fi[k].path;
      s->files[k - i].fsize = fi[k].fsize;
      fi[k].path = NULL;
    }
    s->nfiles = j - i;
    s->name = s->files[0].path;
    if (open_file(R, s, 0)) { rc = -2; break; }
  }
  for (int i = 0; i < n; i++) free(fi[i].path);
  free(fi);
  if (rc == -1) snprintf(R->err, R->errlen, "out of memory");
  return rc ? -1 : 0;
}

static void reader_free(struct nreader *R) {
  for (int i = 0; i < R->nst; i++) {
    if (R->st[i].fd >= 0) close(R->st[i].fd);
    for (int k = 0; k < R->st[i].nfiles; k++) free(R->st[i].files[k].path);
    free(R->st[i].files);
    free(R->st[i].buf);
  }
  free(R->st);
  for (int i = 0; i < R->ntr; i++) nt_meta_free(&R->tr[i].m);
  free(R->tr);
  free(R->heap);
  free(R->slots);
  free(R);
}

static int64_t base_ns(const struct nt_meta *m) {
  int64_t b = 0;
  if (__builtin_mul_overflow(m->offset_s, (int64_t)1000000000, &b)) return 0;
  uint64_t c = m->freq == 1000000000u ? m->offset : (uint64_t)(1e9 * (double)m->offset / (double)m->freq);
  return b + (int64_t)c;
}

int nt_supported(const char *const *dirs, int ndirs, char *err, size_t errlen) {
  for (int i = 0; i < ndirs; i++) {
    struct nt_meta m;
    int rc = nt_meta_load(&m, dirs[i], err, errlen);
    nt_meta_free(&m);
    if (rc > 0) return 0;   /* damaged (-1): the native reader says so */
  }
  return 1;
}

int nt_read(const char *const *dirs, int ndirs, const struct gcs_rd_callbacks *cb, void *ud,
            const atomic_int *cancel, struct gcs_rd_stats *st, char *err, size_t errlen) {
  struct nreader *R = calloc(1, sizeof *R);
  if (!R) { snprintf(err, errlen, "out of memory"); return -1; }
  R->cb = cb; R->ud = ud; R->err = err; R->errlen = errlen; R->stats = st;
  R->tr = calloc(ndirs ? (size_t)ndirs : 1, sizeof *R->tr);
  R->slots = calloc(NT_VALS_MAX + 2, sizeof *R->slots);
  int rc = -1;
  if (!R->tr || !R->slots) { snprintf(err, errlen, "out of memory"); goto out; }
  for (int i = 0; i < ndirs; i++) {
    struct ntrace *tr = &R->tr[i];
    tr->dir = dirs[i];
    if (cb->where) {
      char what[4200];
      snprintf(what, sizeof what, "%s/metadata", dirs[i]);
      cb->where(what, ud);
    }
    int mr = nt_meta_load(&tr->m, dirs[i], err, errlen);
    R->ntr = i + 1;
    if (mr != 0) {
      if (mr > 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "%s: not readable by the native CTF reader: %s", dirs[i], why);
        rc = 2;
      }
      goto out;
    }
    tr->base_ns = base_ns(&tr->m);
    if (!st->hostname[0] && tr->m.hostname) snprintf(st->hostname, sizeof st->hostname, "%s", tr->m.hostname);
    if (list_streams(R, tr)) goto out;
  }
  if (cb->where) {
    char what[1024] = "the streams of ";
    for (int i = 0; i < ndirs; i++)
      snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s", i ? ", " : "", dirs[i]);
    cb->where(what, ud);
  }
  R->heap = calloc(R->nst ? (size_t)R->nst : 1, sizeof *R->heap);
  if (!R->heap) { snprintf(err, errlen, "out of memory"); goto out; }
  for (int i = 0; i < R->nst; i++) {
    int r = next_event(R, &R->st[i]);
    if (r < 0) goto out;
    if (r == 1) R->heap[R->nheap++] = i;
  }
  for (int i = R->nheap / 2 - 1; i >= 0; i--) sift_down(R, i);
  /* The records come in the order of their windows' beginnings, but for a
   * stream's first packet's (from the trace's start, read at that packet's
   * beginning), and a stream without packet end times (its windows' ends
   * unknown) may report any later: until then the horizon is the start. */
  int no_end = 0;
  for (int i = 0; i < R->nst; i++) no_end |= R->st[i].sc && R->st[i].sc->pc_end < 0;
  st->lost_horizon_ns = R->early || no_end ? 0 : UINT64_MAX;
  if (no_end) R->early = -1;
  uint64_t n = 0;
  while (R->nheap) {
    if (cancel && !(++n & 4095) && *cancel) { rc = GCS_RD_STOPPED; goto out; }
    struct nstream *s = &R->st[R->heap[0]];
    if (s->lost_i < s->nlost) {
      const struct gcs_rd_lost *l = &s->lost[s->lost_i];
      if (!l->begin_ns && s->ts_ns > 0 && R->early > 0 && !--R->early) st->lost_horizon_ns = UINT64_MAX;
      st->discarded += l->count;
      st->packet_gaps += (uint64_t)s->lost_gap[s->lost_i];
      s->lost_i++;
      if (cb->lost && cb->lost(l, ud) != 0) { rc = GCS_RD_STOPPED; goto out; }
    } else {
      if (decode(R, s) < 0) goto out;
      if (R->rec.decoded) st->decoded++;
      st->events++;
      if (R->rec.ev.ts_ns) {
        if (!st->first_ns) st->first_ns = R->rec.ev.ts_ns;
        st->last_ns = R->rec.ev.ts_ns;
      }
      if (cb->event && cb->event(&R->rec, ud) != 0) { rc = GCS_RD_STOPPED; goto out; }
    }
    int r = next_event(R, s);
    if (r < 0) goto out;
    if (r == 0) { R->heap[0] = R->heap[--R->nheap]; }
    sift_down(R, 0);
  }
  /* The total is each stream's counter change, first packet to last
   * (ctf_lost_settle: what a stream still owes was reported before its
   * counter went down). */
  for (int i = 0; i < R->nst; i++) st->discarded -= R->st[i].disc_deficit;
  rc = 0;
out:
  if (rc != 0 && rc != GCS_RD_STOPPED)   /* names from the files: one printable line */
    for (char *c = err; *c; c++)
      if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  reader_free(R);
  return rc;
}
