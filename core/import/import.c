/* import.c — gcs_import_paths: find the traces behind each path, and import
 * each one in its own transaction (see gcs_db.h).
 *
 * CTF traces are decoded by libbabeltrace2 in a child process that packs
 * decoded GC events into batches (import_queue.h) in slots shared with this
 * process, announced through a pipe (import_worker.h: memory limit, progress
 * watchdog; a crash or hang of
 * libbabeltrace2 cannot take the import with it); a receiving thread hands
 * them to this thread, which writes them to SQLite (import_writer.h).
 * Decoding and inserting then overlap, which is what keeps the import rate
 * close to babeltrace2's own decode rate. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gcs_ctf_find.h"
#include "gcs_ctf_reader.h"
#include "gcs_db.h"
#include "gcs_zip.h"
#include "import_firings.h"
#include "import_identity.h"
#include "import_queue.h"
#include "import_worker.h"
#include "import_writer.h"
#include "gcs_nettrace.h"
#include <zlib.h>
#include <ftw.h>

#define MAX_STR_COPY (16 * 1024)  /* longest string field carried to the writer */
#define GCS_MAX_STR_FIELDS 16     /* string fields of one event (the schema has at most a few) */

struct import_ctx {
  sqlite3 *db;
  const struct gcs_import_opts *opts;
  struct gcs_import_totals *tot;
  FILE *out;
  const char *trace_dir;         /* the trace being imported (a CTF session's root, a file): firings.tsv beside it */
  const char *zip_path;          /* the archive being imported (import_zip), else NULL */
  const char *zip_dir;           /* ... and the temporary directory it is extracted into */
  const char *zip_real;          /* ... that directory's realpath (the CTF reader's paths), may be NULL */
};

/* ---- a cut inside an archive --------------------------------------------------- */

/* Where a cut's byte offset is, named by what the user has (traces.truncated_file
 * and the import's warning line): the one text for a file read out of an
 * archive. member: the entry's path inside the zip archive, or NULL for a
 * gzip'ed file (its one stream). The offset counts that member's (that
 * stream's) uncompressed bytes: "ARCHIVE: member 'MEMBER' (uncompressed)",
 * "ARCHIVE (uncompressed)"; control characters show as '?' (one line). */
static const char *archive_place(char *out, size_t len, const char *archive, const char *member) {
  if (member) snprintf(out, len, "%s: member '%s' (uncompressed)", archive, member);
  else snprintf(out, len, "%s (uncompressed)", archive);
  for (char *c = out; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  return out;
}

/* The member path of file, a path under the extraction directory of the
 * archive being imported, or NULL if it is not one. */
static const char *zip_member(const struct import_ctx *c, const char *file) {
  const char *dirs[2] = { c->zip_dir, c->zip_real };
  for (int i = 0; i < 2 && c->zip_path; i++) {
    size_t n = dirs[i] ? strlen(dirs[i]) : 0;
    if (n && strncmp(file, dirs[i], n) == 0 && file[n] == '/' && file[n + 1]) return file + n + 1;
  }
  return NULL;
}

/* file as the user can name it: an archive's member (archive_place) when
 * file lies in the extraction directory of the archive being imported (gone
 * after the import), else file itself. */
static const char *user_place(const struct import_ctx *c, const char *file, char *out, size_t len) {
  const char *member = file ? zip_member(c, file) : NULL;
  return member ? archive_place(out, len, c->zip_path, member) : file;
}

/* A reader's line "FILE: what..." with FILE (a temporary or compressed
 * file) replaced by place, in out (else the line as it is). */
static const char *relabel(char *out, size_t len, const char *line, const char *file, const char *place) {
  size_t n = strlen(file);
  if (line && strncmp(line, file, n) == 0 && line[n] == ':') snprintf(out, len, "%s%s", place, line + n);
  else snprintf(out, len, "%s", line ? line : "");
  return out;
}

/* ---- decoding process (and the parent's receiving thread) -------------------- */

struct dec_proc { int32_t pid; char name[64]; uint64_t first, last, events, gc_events; };

struct decoder {
  const char *const *dirs;
  int ndirs;
  struct imwk *wk;         /* the decoding process's link to the importer (NULL in-process) */
  struct imq_batch *cur;   /* the shared slot the decoding process fills */
  /* In-process decoding (GCSCOPE_IMPORT_DECODE=thread|inline, measured in
   * docs/import.md): full batches go to q (thread), or to flush, which
   * writes them at once in the same thread (inline). */
  struct imq *q;
  int (*flush)(void *ud, struct imq_batch *b);
  void *flush_ud;
  uint64_t nev;            /* events seen (heartbeat, fault injection) */
  uint64_t fault_at;       /* GCSCOPE_DECODE_FAULT: fail on this event (testing) */
  char fault[16];
  struct gcs_rd_stats stats;
  int rc;
  char err[1024];
  struct dec_proc *procs;
  size_t nprocs, capprocs, last;
  int origin_sent;
  int horizon_sent;          /* IMQ_HORIZON: horizon is the last value sent */
  uint64_t horizon;
  /* The process whose name was last set from an environment procname, and
   * that string: the same pointer again needs no compare. */
  size_t pn_proc;
  const char *pn_src;
  double cpu_s;  /* CPU time of the decoding (in the decoding process) */
  const atomic_int *cancel;  /* in-process: polled by the reader */
  /* per kind, its string fields (looked up once) */
  struct kind_strs { int8_t ready, n; const struct gcs_field_desc *f[GCS_MAX_STR_FIELDS]; } strs[GCS_KIND_COUNT];
};

static struct dec_proc *dec_proc(struct decoder *d, int32_t pid) {
  if (d->last < d->nprocs && d->procs[d->last].pid == pid) return &d->procs[d->last];
  for (size_t i = 0; i < d->nprocs; i++)
    if (d->procs[i].pid == pid) { d->last = i; return &d->procs[i]; }
  if (d->nprocs == d->capprocs) {
    size_t cap = d->capprocs ? d->capprocs * 2 : 16;
    struct dec_proc *np = realloc(d->procs, cap * sizeof *np);
    if (!np) return NULL;
    d->procs = np;
    d->capprocs = cap;
  }
  struct dec_proc *p = &d->procs[d->nprocs];
  memset(p, 0, sizeof *p);
  p->pid = pid;
  d->last = d->nprocs++;
  return p;
}

/* Room for size bytes in the current batch, sending full batches over. */
static void *dec_reserve(struct decoder *d, size_t size) {
  void *p = imq_reserve(d->cur, size);
  if (p) return p;
  if (d->flush) {
    if (d->flush(d->flush_ud, d->cur) != 0) return NULL;  /* the writer failed */
    d->cur->used = 0;
  } else if (d->q) {
    imq_push(d->q, d->cur);
    if (!(d->cur = imq_get_empty(d->q))) return NULL;  /* the writer gave up */
  } else {
    if (imwk_send_batch(d->wk) != 0) return NULL;  /* the writer is gone */
    d->cur = imwk_batch(d->wk);
  }
  return imq_reserve(d->cur, size);
}

static size_t str_copy_len(const char *s) {
  size_t n = s ? strlen(s) : 0;
  return n > MAX_STR_COPY ? MAX_STR_COPY : n;
}

/* The time origin of the GC figures is the trace's first event, whatever its
 * provider: PerfView's CTF reader takes sessionStartTimeQPC from the first
 * event of the merged channels, and every *RelativeMSec counts from it. */
static int dec_send_origin(struct decoder *d, uint64_t ts_ns) {
  struct imq_rec *r = dec_reserve(d, sizeof(struct imq_rec) + sizeof(uint64_t));
  if (!r) return 1;
  r->type = IMQ_ORIGIN;
  r->size = (uint32_t)(sizeof(struct imq_rec) + sizeof(uint64_t));
  memcpy(r + 1, &ts_ns, sizeof ts_ns);
  d->origin_sent = 1;
  return 0;
}

/* The reader's loss horizon, to the writer when it changed (before the
 * record being delivered). */
static int dec_send_horizon(struct decoder *d) {
  uint64_t h = d->stats.lost_horizon_ns;
  if (d->horizon_sent && h == d->horizon) return 0;
  struct imq_rec *r = dec_reserve(d, sizeof(struct imq_rec) + sizeof(uint64_t));
  if (!r) return 1;
  r->type = IMQ_HORIZON;
  r->size = (uint32_t)(sizeof(struct imq_rec) + sizeof(uint64_t));
  memcpy(r + 1, &h, sizeof h);
  d->horizon = h;
  d->horizon_sent = 1;
  return 0;
}

/* Testing hook (GCSCOPE_DECODE_FAULT=hang|alloc|crash[@N]): what a damaged
 * trace does to libbabeltrace2, at the N-th event (default 1). */
static void dec_fault(const struct decoder *d) {
  if (strcmp(d->fault, "hang") == 0) for (;;) {}
  if (strcmp(d->fault, "crash") == 0) {
    signal(SIGSEGV, SIG_DFL);  /* (a sanitizer's handler would turn it into an exit) */
    raise(SIGSEGV);
  }
  if (strcmp(d->fault, "alloc") == 0)
    for (;;) {
      char *p = malloc(64 << 20);
      if (!p) abort();  /* as glib's g_malloc does */
      memset(p, 1, 64 << 20);
    }
}

static int dec_on_event(const struct gcs_rd_event *e, void *ud) {
  struct decoder *d = ud;
  if ((++d->nev & 1023) == 0 && d->wk && imwk_tick(d->wk) != 0) return 1;
  if (d->nev == d->fault_at) dec_fault(d);
  if (!d->origin_sent && e->ev.ts_ns && dec_send_origin(d, e->ev.ts_ns) != 0) return 1;
  if (dec_send_horizon(d) != 0) return 1;
  struct dec_proc *p = dec_proc(d, e->ev.pid);
  if (p) {
    if (e->ev.ts_ns && (!p->first || e->ev.ts_ns < p->first)) p->first = e->ev.ts_ns;
    if (e->ev.ts_ns > p->last) p->last = e->ev.ts_ns;
    p->events++;
    if (e->decoded) p->gc_events++;
    if (e->procname[0] && !(e->procname_env && e->procname == d->pn_src && d->pn_proc == (size_t)(p - d->procs))) {
      if (strcmp(p->name, e->procname) != 0) snprintf(p->name, sizeof p->name, "%s", e->procname);
      d->pn_src = e->procname_env ? e->procname : NULL;
      d->pn_proc = (size_t)(p - d->procs);
    }
  }
  if (e->bin_info) {  /* a statedump module: librgc's stacks resolve from it */
    size_t n = str_copy_len(e->bin_info->path);
    size_t total = sizeof(struct imq_rec) + sizeof(struct imq_module) + n + 1;
    struct imq_rec *r = dec_reserve(d, total);
    if (!r) return 1;
    r->type = IMQ_MODULE;
    r->size = (uint32_t)((total + 7) & ~(size_t)7);
    struct imq_module *m = (struct imq_module *)(r + 1);
    m->pid = e->ev.pid;
    m->is_pic = e->bin_info->is_pic;
    m->baddr = e->bin_info->baddr;
    m->memsz = e->bin_info->memsz;
    if (n) memcpy(m->path, e->bin_info->path, n);
    m->path[n] = '\0';
    return 0;
  }
  if (!e->decoded) return 0;
  if (e->ev.stack && e->ev.stack->depth) {  /* sent just before its event */
    size_t total = sizeof(struct imq_rec) + sizeof(struct imq_stack) + e->ev.stack->depth * sizeof(uint64_t);
    struct imq_rec *r = dec_reserve(d, total);
    if (!r) return 1;
    r->type = IMQ_STACK;
    r->size = (uint32_t)((total + 7) & ~(size_t)7);
    struct imq_stack *st = (struct imq_stack *)(r + 1);
    st->depth = e->ev.stack->depth;
    st->truncated = e->ev.stack->truncated;
    memcpy(st->ip, e->ev.stack->ip, st->depth * sizeof(uint64_t));
  }
  const struct gcs_event_desc *desc = &gcs_event_descs[e->ev.kind];
  struct kind_strs *ks = &d->strs[e->ev.kind];
  if (!ks->ready) {
    for (int i = 0; i < desc->nfields && ks->n < GCS_MAX_STR_FIELDS; i++)
      if (desc->fields[i].type == GCS_T_STR) ks->f[ks->n++] = &desc->fields[i];
    ks->ready = 1;
  }
  size_t evsize = (offsetof(struct gcs_event, u) + desc->struct_size + 7) & ~(size_t)7;
  size_t strsize = 0, slen[GCS_MAX_STR_FIELDS];
  for (int i = 0; i < ks->n; i++) strsize += (slen[i] = str_copy_len(gcs_field_get_str(&e->ev, ks->f[i]))) + 1;
  size_t total = sizeof(struct imq_rec) + evsize + strsize;
  struct imq_rec *r = dec_reserve(d, total);
  if (!r) return 1;  /* the writer gave up */
  r->type = IMQ_EVENT;
  r->size = (uint32_t)((total + 7) & ~(size_t)7);
  struct gcs_event *ev = (struct gcs_event *)(r + 1);
  memcpy(ev, &e->ev, offsetof(struct gcs_event, u) + desc->struct_size);
  /* (Only if the schema ever outgrows GCS_MAX_STR_FIELDS: never leave a
   * pointer into the reader's memory in the record.) */
  for (int i = 0; i < desc->nfields && ks->n == GCS_MAX_STR_FIELDS; i++)
    if (desc->fields[i].type == GCS_T_STR) gcs_field_set_str(ev, &desc->fields[i], "");
  char *s = (char *)ev + evsize;
  for (int i = 0; i < ks->n; i++) {
    size_t n = slen[i];
    if (n) memcpy(s, gcs_field_get_str(&e->ev, ks->f[i]), n);
    s[n] = '\0';
    gcs_field_set_str(ev, ks->f[i], s);
    s += n + 1;
  }
  return 0;
}

struct lost_rec { uint64_t count, ts_ns, begin_ns; uint32_t packet_gap; char stream[]; };

static int dec_on_lost(const struct gcs_rd_lost *l, void *ud) {
  struct decoder *d = ud;
  if (dec_send_horizon(d) != 0) return 1;
  size_t n = str_copy_len(l->stream);
  size_t total = sizeof(struct imq_rec) + sizeof(struct lost_rec) + n + 1;
  struct imq_rec *r = dec_reserve(d, total);
  if (!r) return 1;
  r->type = IMQ_LOST;
  r->size = (uint32_t)((total + 7) & ~(size_t)7);
  struct lost_rec *lr = (struct lost_rec *)(r + 1);
  lr->count = l->count;
  lr->ts_ns = l->ts_ns;
  lr->begin_ns = l->begin_ns;
  lr->packet_gap = l->packet_gap != 0;
  if (n) memcpy(lr->stream, l->stream, n);
  lr->stream[n] = '\0';
  return 0;
}

static double thread_cpu_s(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void dec_where(const char *what, void *ud) {
  struct decoder *d = ud;
  if (d->wk) imwk_where(d->wk, what);
}

static const struct gcs_rd_callbacks dec_callbacks = { dec_on_event, dec_on_lost, dec_where };

/* What the decoding process sends back at the end, followed by nprocs
 * struct dec_proc. */
struct dec_result {
  int rc;
  char err[1024];
  struct gcs_rd_stats stats;
  double cpu_s;
  uint64_t nprocs;
};

/* The decoding process: read the trace, send the batches and the result. */
static int decoder_main(struct imwk *wk, void *arg) {
  struct decoder *d = arg;
  d->wk = wk;
  const char *fault = getenv("GCSCOPE_DECODE_FAULT");
  if (fault && *fault) {
    snprintf(d->fault, sizeof d->fault, "%.*s", (int)strcspn(fault, "@"), fault);
    const char *at = strchr(fault, '@');
    d->fault_at = at ? strtoull(at + 1, NULL, 10) : 1;
  }
  d->cur = imwk_batch(wk);
  double cpu0 = thread_cpu_s();
  d->rc = gcs_ctf_read(d->dirs, d->ndirs, &dec_callbacks, d, NULL, &d->stats, d->err, sizeof d->err);
  if (imwk_send_batch(wk) != 0) return 1;
  size_t len = sizeof(struct dec_result) + d->nprocs * sizeof *d->procs;
  struct dec_result *res = calloc(1, len);
  if (!res) return 1;
  res->rc = d->rc;
  snprintf(res->err, sizeof res->err, "%s", d->err);
  res->stats = d->stats;
  res->cpu_s = thread_cpu_s() - cpu0;
  res->nprocs = d->nprocs;
  if (d->nprocs) memcpy(res + 1, d->procs, d->nprocs * sizeof *d->procs);
  return imwk_send_done(wk, res, len) == 0 ? 0 : 1;
}

/* The receiving thread of the parent: batches from the pipe into the queue,
 * then the decoding process's result into the decoder struct. */
struct receiver {
  struct imwk wk;
  struct imq *q;
  struct decoder *d;
  const atomic_int *cancel;
  int cancelled;
};

static void *receiver_main(void *arg) {
  struct receiver *rv = arg;
  struct decoder *d = rv->d;
  void *tail;
  size_t len;
  if (imwk_receive(&rv->wk, rv->q, rv->cancel, &tail, &len, &rv->cancelled, d->err, sizeof d->err) != 0) {
    d->rc = -1;
    return NULL;
  }
  struct dec_result *res = tail;
  if (len < sizeof *res || (len - sizeof *res) / sizeof *d->procs < res->nprocs ||
      !(d->procs = malloc(res->nprocs ? res->nprocs * sizeof *d->procs : 1))) {
    snprintf(d->err, sizeof d->err, len < sizeof *res ? "the decoding process sent malformed data" : "out of memory");
    d->rc = -1;
    free(tail);
    return NULL;
  }
  d->rc = res->rc;
  res->err[sizeof res->err - 1] = '\0';
  snprintf(d->err, sizeof d->err, "%s", res->err);
  d->stats = res->stats;
  d->stats.hostname[sizeof d->stats.hostname - 1] = '\0';
  d->cpu_s = res->cpu_s;
  d->nprocs = d->capprocs = (size_t)res->nprocs;
  if (d->nprocs) memcpy(d->procs, res + 1, d->nprocs * sizeof *d->procs);
  for (size_t i = 0; i < d->nprocs; i++) d->procs[i].name[sizeof d->procs[i].name - 1] = '\0';
  free(tail);
  return NULL;
}

/* Total size of the files of the trace directories (sets the default memory
 * limit of the decoding process). */
static uint64_t trace_bytes(const char *const *dirs, int ndirs) {
  uint64_t n = 0;
  for (int i = 0; i < ndirs; i++) {
    DIR *dp = opendir(dirs[i]);
    if (!dp) continue;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
      struct stat st;
      if (fstatat(dirfd(dp), de->d_name, &st, 0) == 0 && S_ISREG(st.st_mode)) n += (uint64_t)st.st_size;
    }
    closedir(dp);
  }
  return n;
}

/* ---- progress ----------------------------------------------------------------- */

#define PROGRESS_EVERY_S 0.2

struct prog {
  const struct gcs_import_opts *o;
  const char *label;
  struct imw *w;
  double t0, last, every_s;
  uint64_t events;
  uint64_t span_ns, first_ns;   /* CTF: the packet index's time span, the first event seen */
};

static double mono_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void prog_start(struct prog *p, const struct gcs_import_opts *o, const char *label, struct imw *w) {
  memset(p, 0, sizeof *p);
  p->o = o;
  p->label = label;
  p->w = w;
  p->t0 = p->last = mono_now();
  /* GCSCOPE_PROGRESS_MS: another interval (the tests' short traces). */
  const char *e = getenv("GCSCOPE_PROGRESS_MS");
  p->every_s = e && atoi(e) > 0 ? atoi(e) / 1000.0 : PROGRESS_EVERY_S;
}

static void prog_emit(struct prog *p, double fraction, int done) {
  struct gcs_import_progress g = { p->label, p->events, imw_gcs(p->w), mono_now() - p->t0,
                                   fraction < 0 ? -1 : fraction > 1 ? 1 : fraction, done };
  p->o->progress(&g, p->o->progress_ud);
}

/* One more event; fraction as prog_emit (-1: compute it from the CTF span). */
static void prog_event(struct prog *p, uint64_t ts_ns, double fraction) {
  p->events++;
  if (!p->o->progress) return;
  if (ts_ns && (!p->first_ns || ts_ns < p->first_ns)) p->first_ns = ts_ns;
  if (p->events & 255) return;
  double t = mono_now();
  if (t - p->last < p->every_s) return;
  p->last = t;
  if (fraction < 0 && p->span_ns) fraction = (double)(ts_ns - p->first_ns) / (double)p->span_ns;
  prog_emit(p, fraction, 0);
}

static void prog_done(struct prog *p) {
  if (p->o->progress) prog_emit(p, 1, 1);
}

static uint64_t be64(const uint8_t *b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | b[i];
  return v;
}

/* The time span of a CTF trace from its LTTng packet index files
 * (index/NAME.idx: a big-endian header, magic 0xC1F1DCC1, then one entry per
 * packet with its begin and end timestamps), in clock cycles (LTTng's clock
 * counts ns). 0 when there is no index. */
static uint64_t ctf_index_span(const char *const *dirs, int ndirs) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < ndirs; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/index", dirs[i]);
    DIR *dp = opendir(path);
    if (!dp) continue;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
      size_t n = strlen(de->d_name);
      if (n < 4 || strcmp(de->d_name + n - 4, ".idx")) continue;
      char f[4400];
      snprintf(f, sizeof f, "%s/%s", path, de->d_name);
      FILE *fp = fopen(f, "rb");
      if (!fp) continue;
      uint8_t h[16], e[256];
      if (fread(h, 1, 16, fp) == 16 && be64(h) >> 32 == 0xC1F1DCC1u) {
        uint32_t len = (uint32_t)(be64(h + 8) & 0xffffffffu);
        while (len >= 40 && len <= sizeof e && fread(e, 1, len, fp) == len) {
          uint64_t b = be64(e + 24), en = be64(e + 32);
          if (b && b < lo) lo = b;
          if (en > hi) hi = en;
        }
      }
      fclose(fp);
    }
    closedir(dp);
  }
  return hi > lo ? hi - lo : 0;
}

/* The progress line on a terminal: rewritten in place on stderr, erased
 * before the trace's summary line. */
void gcs_import_progress_line(const struct gcs_import_progress *g, void *ud) {
  (void)ud;
  if (g->done) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    return;
  }
  const char *name = strrchr(g->label, '/');
  name = name && name[1] ? name + 1 : g->label;
  double rate = g->elapsed_s > 0 ? (double)g->events / g->elapsed_s : 0;
  fprintf(stderr, "\r%.40s: %llu events (%.0f/s), %llu GCs", name, (unsigned long long)g->events, rate,
          (unsigned long long)g->gcs);
  if (g->fraction > 0.01) {
    double eta = g->elapsed_s * (1 - g->fraction) / g->fraction;
    fprintf(stderr, ", %.0f %% (about %.0f s left)", g->fraction * 100, eta);
  }
  fprintf(stderr, "\033[K");
  fflush(stderr);
}

/* ---- transaction helpers ----------------------------------------------------- */

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen) {
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    snprintf(err, errlen, "database: %s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
  }
  return 0;
}

static void rollback(sqlite3 *db) {
  if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

static void note_trace_id(struct gcs_import_totals *t, int64_t id) {
  if (t->ntrace_ids < GCS_IMPORT_MAX_IDS) t->trace_ids[t->ntrace_ids] = id;
  t->ntrace_ids++;
}

/* The trace already stored under identity, under the legacy identity, or
 * (a CTF identity) under any identity sharing one of its trace-directory
 * hashes: SQLITE_ROW with *id, SQLITE_DONE, or an error code. */
static int find_trace(sqlite3 *db, const char *identity, const char *legacy, int64_t *id) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT id FROM traces WHERE identity IN (?1, ?2) OR (?3 IS NOT NULL AND instr(identity, ?3) > 0) "
                         "ORDER BY id LIMIT 1", -1, &s, NULL) != SQLITE_OK)
    return SQLITE_ERROR;
  size_t pl = strlen(IMPORT_IDENTITY_CTF_PREFIX);
  const char *parts = strncmp(identity, IMPORT_IDENTITY_CTF_PREFIX, pl) == 0 ? identity + pl : NULL;
  int rc = SQLITE_DONE;
  do {
    sqlite3_reset(s);
    sqlite3_bind_text(s, 1, identity, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, legacy ? legacy : identity, -1, SQLITE_STATIC);
    if (parts) sqlite3_bind_text(s, 3, parts, IMPORT_IDENTITY_LEN - 1, SQLITE_STATIC);
    else sqlite3_bind_null(s, 3);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) *id = sqlite3_column_int64(s, 0);
    if (parts) parts = strchr(parts, ',') ? strchr(parts, ',') + 1 : NULL;
  } while (rc == SQLITE_DONE && parts);
  sqlite3_finalize(s);
  return rc;
}

/* Start the trace's transaction. Returns 1 if the identity is already in the
 * database (transaction closed), 0 with *trace_id set, -1 on error. legacy,
 * if not NULL, is the identity earlier versions stored for the trace. */
static int begin_trace_as(struct import_ctx *c, const char *label, const char *identity, const char *legacy,
                          const char *source, int64_t *trace_id, char *err, size_t errlen) {
  if (exec(c->db, "BEGIN IMMEDIATE", err, errlen) != 0) return -1;
  sqlite3_stmt *s;
  int64_t old = 0;
  int rc = find_trace(c->db, identity, legacy, &old);
  if (rc == SQLITE_ROW) {
    rollback(c->db);
    if (!c->opts->quiet)
      fprintf(c->out, "%s: already imported (trace %lld), nothing added\n", label, (long long)old);
    c->tot->traces_skipped++;
    note_trace_id(c->tot, old);
    return 1;
  }
  if (rc != SQLITE_DONE) goto fail;
  if (sqlite3_prepare_v2(c->db,
                         "INSERT INTO traces(path, identity, source, event_count, gc_event_count, discarded, imported_ns) "
                         "VALUES(?,?,?,0,0,0,?)", -1, &s, NULL) != SQLITE_OK)
    goto fail;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  sqlite3_bind_text(s, 1, label, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, identity, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 3, source, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 4, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
  rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) goto fail;
  *trace_id = sqlite3_last_insert_rowid(c->db);
  note_trace_id(c->tot, *trace_id);
  return 0;
fail:
  snprintf(err, errlen, "database: %s", sqlite3_errmsg(c->db));
  rollback(c->db);
  return -1;
}

static int begin_trace(struct import_ctx *c, const char *label, const char *identity, const char *source,
                       int64_t *trace_id, char *err, size_t errlen) {
  return begin_trace_as(c, label, identity, NULL, source, trace_id, err, errlen);
}

const char *gcs_lost_text(int64_t discarded, int64_t packet_gaps, char *buf, size_t bufsz) {
  buf[0] = '\0';
  if (discarded <= 0) return buf;
  if (packet_gaps < 0) {
    snprintf(buf, bufsz, "%lld events discarded or gaps of missing packets (import again to tell)",
             (long long)discarded);
    return buf;
  }
  /* each gap of missing packets is counted 1 in discarded: their events,
   * how many is unknown */
  int64_t events = discarded > packet_gaps ? discarded - packet_gaps : 0;
  size_t n = 0;
  if (packet_gaps > 0)
    n = (size_t)snprintf(buf, bufsz, "%lld gap%s of missing packets (events unknown)", (long long)packet_gaps,
                         packet_gaps == 1 ? "" : "s");
  if (events > 0 && n < bufsz)
    snprintf(buf + n, bufsz - n, "%s%lld event%s discarded by the tracer", n ? ", " : "", (long long)events,
             events == 1 ? "" : "s");
  return buf;
}

struct trace_result {
  const char *hostname;
  uint64_t start_ns, end_ns, events, gc_events, discarded;
  int truncated;                 /* cut short: imported up to truncated_at */
  uint64_t truncated_at;
  const char *truncated_file;    /* the stream file truncated_at is an offset in */
  const char *truncated_why;     /* the reader's line: where, and what was dropped */
  uint64_t packet_gaps;          /* of discarded: missing packets, 1 each (gcs_rd_stats) */
};

/* import -v: how many GCs went into the database while the events were
 * read (gcs_recon_store_final), and the most that waited at once, done and
 * not written (what a loss horizon holds back); and the most GCs the
 * reconstruction held in memory at once (those written early are freed).
 * After end_trace, indented under its summary (the path on a line of its own
 * with -q). */
static void print_store_counts(const struct import_ctx *c, const char *label, const struct imw *w) {
  if (!c->opts->verbose) return;
  uint64_t early, held, in_memory;
  imw_store_counts(w, &early, &held);
  in_memory = imw_gcs_held_max(w);
  if (c->opts->quiet) fprintf(c->out, "%s:\n", label);
  fprintf(c->out, "  %llu GCs written while reading, at most %llu done and waiting\n", (unsigned long long)early,
          (unsigned long long)held);
  fprintf(c->out, "  at most %llu GCs held in memory\n", (unsigned long long)in_memory);
}

/* Finish the writer, update the traces row, commit and print the summary. */
static int end_trace(struct import_ctx *c, struct imw *w, int64_t trace_id, const char *label,
                     const struct trace_result *tr, char *err, size_t errlen) {
  /* An empty trace is a failed recording or the wrong directory: saying
   * "imported" and storing a trace of nothing would hide that. */
  if (tr->events == 0) {
    const char *kept = tr->truncated && tr->truncated_why ? strstr(tr->truncated_why, "; the events of") : NULL;
    if (kept)   /* every event was in what is missing: where it was cut, and no more */
      snprintf(err, errlen, "%.*s: no whole packet left, nothing imported", (int)(kept - tr->truncated_why),
               tr->truncated_why);
    else
      snprintf(err, errlen, "%s: no events in this trace (an empty recording?): nothing imported", label);
    return -1;
  }
  if (imw_finish(w, tr->hostname, err, errlen) != 0) return -1;
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(c->db,
                         "UPDATE traces SET hostname=?, start_ns=?, end_ns=?, event_count=?, gc_event_count=?, "
                         "discarded=?, truncated_at=?, packet_gaps=?, truncated_file=? WHERE id=?", -1, &s, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "database: %s", sqlite3_errmsg(c->db));
    return -1;
  }
  if (tr->hostname && *tr->hostname) sqlite3_bind_text(s, 1, tr->hostname, -1, SQLITE_STATIC);
  else sqlite3_bind_null(s, 1);
  if (tr->start_ns) sqlite3_bind_int64(s, 2, (int64_t)tr->start_ns); else sqlite3_bind_null(s, 2);
  if (tr->end_ns) sqlite3_bind_int64(s, 3, (int64_t)tr->end_ns); else sqlite3_bind_null(s, 3);
  sqlite3_bind_int64(s, 4, (int64_t)tr->events);
  sqlite3_bind_int64(s, 5, (int64_t)tr->gc_events);
  sqlite3_bind_int64(s, 6, (int64_t)tr->discarded);
  if (tr->truncated) sqlite3_bind_int64(s, 7, (int64_t)tr->truncated_at); else sqlite3_bind_null(s, 7);
  sqlite3_bind_int64(s, 8, (int64_t)tr->packet_gaps);
  if (tr->truncated && tr->truncated_file) sqlite3_bind_text(s, 9, tr->truncated_file, -1, SQLITE_STATIC);
  else sqlite3_bind_null(s, 9);
  sqlite3_bind_int64(s, 10, trace_id);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) { snprintf(err, errlen, "database: %s", sqlite3_errmsg(c->db)); return -1; }
  int firings = 0;
  if (import_firings(c->db, trace_id, c->trace_dir ? c->trace_dir : label, tr->start_ns, tr->end_ns, &firings) != 0) {
    snprintf(err, errlen, "database: %s", sqlite3_errmsg(c->db));
    return -1;
  }
  if (c->opts->cancel && *c->opts->cancel) { snprintf(err, errlen, "interrupted"); return -1; }
  if (exec(c->db, "COMMIT", err, errlen) != 0) return -1;
  uint64_t gcs = imw_gcs(w);
  c->tot->traces_imported++;
  c->tot->events += tr->events;
  c->tot->gcs += gcs;
  c->tot->discarded += tr->discarded;
  if (!c->opts->quiet) {
    /* two lines: the label is the user's path, of any length */
    int procs = imw_process_count(w);
    fprintf(c->out, "%s: trace %lld%s%s\n  %llu events (%llu GC events), %d process%s, %llu GCs, %llu discarded\n",
            label, (long long)trace_id, tr->hostname && *tr->hostname ? ", host " : "",
            tr->hostname ? tr->hostname : "", (unsigned long long)tr->events, (unsigned long long)tr->gc_events,
            procs, procs == 1 ? "" : "es", (unsigned long long)gcs, (unsigned long long)tr->discarded);
    if (tr->gc_events == 0)
      fprintf(c->out, "%s: warning: no GC events in this trace (0 GCs imported)\n", label);
    if (firings)
      fprintf(c->out, "%s: %d stop-rule firing%s from record's firings.tsv\n", label, firings, firings == 1 ? "" : "s");
    if (tr->truncated)
      fprintf(c->out, "warning: %s\n", tr->truncated_why ? tr->truncated_why : "the stream was cut short");
    if (tr->discarded) {
      char lost[256];
      fprintf(c->out, "%s: warning: %s: nearby GCs marked incomplete\n", label,
              gcs_lost_text((int64_t)tr->discarded, (int64_t)tr->packet_gaps, lost, sizeof lost));
    }
    uint64_t left_out = imw_array_events_left_out(w);
    if (left_out)
      fprintf(c->out, "%s: warning: %llu GCLOHCompact/GCFitBucketInfo event%s cut short or longer than any runtime "
                      "sends (a damaged or crafted trace): left out of the figures\n",
              label, (unsigned long long)left_out, left_out == 1 ? "" : "s");
  }
  return 0;
}

static int cancelled(const struct gcs_import_opts *o) { return o->cancel && *o->cancel; }

/* ---- one CTF session ----------------------------------------------------------- */

/* Where the CTF decoding runs. DEC_PROCESS (the default): the decoding
 * process, which contains libbabeltrace2's crashes, hangs and overruns.
 * GCSCOPE_IMPORT_DECODE=thread: a thread of the importing process filling
 * the queue's batches; =inline: the writing thread itself, each batch
 * written as soon as it is full. Both without that containment: they exist
 * to measure what the process boundary costs (docs/import.md). */
enum dec_mode { DEC_PROCESS, DEC_THREAD, DEC_INLINE };

static enum dec_mode dec_mode(const char *const *dirs, int ndirs) {
  const char *e = getenv("GCSCOPE_IMPORT_DECODE");
  if (e && strcmp(e, "thread") == 0) return DEC_THREAD;
  if (e && strcmp(e, "inline") == 0) return DEC_INLINE;
  if (e && strcmp(e, "process") == 0) return DEC_PROCESS;
  /* Our own CTF reader is bounds-checked and bounded in memory: it needs no
   * process around it, and a thread saves the copies through shared memory. */
  return gcs_ctf_uses_native(dirs, ndirs) ? DEC_THREAD : DEC_PROCESS;
}

/* The writing thread's loop over the decoded records. */
struct wloop {
  struct import_ctx *c;
  struct imw *w;
  struct prog pg;
  char *err;
  size_t errlen;
  int failed;
  uint64_t n;
  struct gcs_stack pstack;
  uint64_t *pip;
  size_t pcap;
  int pending;
  struct imq *q;
  double flush_cpu_s;  /* inline: the writing part of the thread's CPU */
};

/* Write the records of one batch; returns L->failed. */
static int wloop_batch(struct wloop *L, const struct imq_batch *b) {
  static _Thread_local struct gcs_event ev;  /* full-size copy: records hold only the event's own struct */
  char *err = L->err;
  size_t errlen = L->errlen;
  const uint64_t fail_after = L->c->opts->fail_after_events;
  if (!L->failed && cancelled(L->c->opts)) { snprintf(err, errlen, "interrupted"); L->failed = 1; imq_abort(L->q); }
  for (size_t off = 0; !L->failed && off < b->used;) {
    const struct imq_rec *r = (const struct imq_rec *)(b->buf + off);
    off += r->size;
    if (r->type == IMQ_EVENT) {
      const struct gcs_event *src = (const struct gcs_event *)(r + 1);
      memcpy(&ev, src, offsetof(struct gcs_event, u) + gcs_event_descs[src->kind].struct_size);
      ev.stack = NULL;  /* a pointer of the decoding process: never followed here */
      if (L->pending) { ev.stack = &L->pstack; L->pending = 0; }  /* the IMQ_STACK just before */
      if (fail_after && ++L->n > fail_after) {
        snprintf(err, errlen, "simulated failure after %llu events", (unsigned long long)fail_after);
        L->failed = 1;
      } else if (imw_event(L->w, &ev, err, errlen) != 0) {
        L->failed = 1;
      }
      prog_event(&L->pg, ev.ts_ns, -1);
    } else if (r->type == IMQ_STACK) {
      const struct imq_stack *st = (const struct imq_stack *)(r + 1);
      L->pstack.depth = st->depth;
      L->pstack.truncated = (uint8_t)(st->truncated != 0);
      /* copied: its event may come in the next batch */
      if (st->depth > L->pcap) {
        uint64_t *nip = realloc(L->pip, st->depth * sizeof *nip);
        if (!nip) { snprintf(err, errlen, "out of memory"); L->failed = 1; imq_abort(L->q); break; }
        L->pip = nip;
        L->pcap = st->depth;
      }
      if (st->depth) memcpy(L->pip, st->ip, st->depth * sizeof *L->pip);
      L->pstack.ip = L->pip;
      L->pending = 1;
    } else if (r->type == IMQ_MODULE) {
      const struct imq_module *m = (const struct imq_module *)(r + 1);
      if (imw_module(L->w, m->pid, m->baddr, m->memsz, m->path, m->is_pic, err, errlen) != 0) L->failed = 1;
    } else if (r->type == IMQ_ORIGIN) {
      uint64_t origin;
      memcpy(&origin, r + 1, sizeof origin);
      imw_set_time_origin(L->w, origin);
    } else if (r->type == IMQ_LOST) {
      const struct lost_rec *lr = (const struct lost_rec *)(r + 1);
      /* a stream file of an archive: named as the archive's member, as the
       * cut is (the extraction directory is gone after the import) */
      char place[2400];
      const char *stream = user_place(L->c, lr->stream, place, sizeof place);
      if (imw_lost(L->w, stream, lr->begin_ns, lr->ts_ns, lr->count, lr->packet_gap ? IMW_LOST_PACKETS : 0, err,
                   errlen) != 0)
        L->failed = 1;
    } else if (r->type == IMQ_HORIZON) {
      uint64_t h;
      memcpy(&h, r + 1, sizeof h);
      imw_lost_horizon(L->w, h);
    }
    if (L->failed) imq_abort(L->q);
  }
  return L->failed;
}

static int wloop_flush(void *ud, struct imq_batch *b) {
  struct wloop *L = ud;
  double t0 = thread_cpu_s();
  int rc = wloop_batch(L, b);
  L->flush_cpu_s += thread_cpu_s() - t0;
  return rc;
}

/* DEC_THREAD: the decoding thread. */
static void *dec_thread_main(void *arg) {
  struct decoder *d = arg;
  double cpu0 = thread_cpu_s();
  if (!(d->cur = imq_get_empty(d->q))) {
    d->rc = -1;
    snprintf(d->err, sizeof d->err, "out of memory");
  } else {
    d->rc = gcs_ctf_read(d->dirs, d->ndirs, &dec_callbacks, d, d->cancel, &d->stats, d->err, sizeof d->err);
    if (d->cur) imq_push(d->q, d->cur);
    d->cur = NULL;
  }
  d->cpu_s = thread_cpu_s() - cpu0;
  imq_close(d->q);
  return NULL;
}

/* DEC_INLINE: decode in the writing thread, writing each full batch. */
static void dec_inline(struct decoder *d, struct wloop *L) {
  double cpu0 = thread_cpu_s();
  if (!(d->cur = malloc(sizeof *d->cur))) {
    d->rc = -1;
    snprintf(d->err, sizeof d->err, "out of memory");
    return;
  }
  d->cur->used = 0;
  d->rc = gcs_ctf_read(d->dirs, d->ndirs, &dec_callbacks, d, d->cancel, &d->stats, d->err, sizeof d->err);
  if (!L->failed) wloop_flush(L, d->cur);
  free(d->cur);
  d->cur = NULL;
  d->cpu_s = thread_cpu_s() - cpu0 - L->flush_cpu_s;
}

static int import_ctf(struct import_ctx *c, const char *label, const struct gcs_ctf_session *s, char *err,
                      size_t errlen) {
  char legacy[IMPORT_IDENTITY_LEN], *identity;
  if (import_identity_dirs(s->root, (const char *const *)s->dirs, s->ndirs, legacy, err, errlen) != 0 ||
      import_identity_ctf((const char *const *)s->dirs, s->ndirs, &identity, err, errlen) != 0)
    return -1;
  int64_t trace_id;
  int rc = begin_trace_as(c, label, identity, legacy, "lttng", &trace_id, err, errlen);
  free(identity);
  if (rc != 0) return rc > 0 ? 0 : -1;

  struct imw *w = imw_open(c->db, trace_id, err, errlen);
  if (!w) { rollback(c->db); return -1; }
  struct imq q;
  struct decoder *d = calloc(1, sizeof *d);
  if (!d || imq_init(&q) != 0) {
    free(d);
    imw_close(w);
    rollback(c->db);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  double wall0 = wall_s(), cpu0 = thread_cpu_s();
  d->dirs = (const char *const *)s->dirs;
  d->ndirs = s->ndirs;
  d->cancel = c->opts->cancel;
  enum dec_mode mode = dec_mode(d->dirs, d->ndirs);
  struct receiver rv = { .q = &q, .d = d, .cancel = c->opts->cancel };
  struct imwk_limits lim = { c->opts->decode_timeout_s, c->opts->decode_mem_bytes, trace_bytes(d->dirs, d->ndirs) };
  pthread_t th;
  if (mode == DEC_PROCESS && imwk_start(&rv.wk, &lim, decoder_main, d, err, errlen) != 0) {
    imq_free(&q); free(d); imw_close(w); rollback(c->db);
    return -1;
  }
  if (mode == DEC_THREAD) d->q = &q;
  if (mode != DEC_INLINE && pthread_create(&th, NULL, mode == DEC_PROCESS ? receiver_main : dec_thread_main,
                                           mode == DEC_PROCESS ? (void *)&rv : (void *)d) != 0) {
    if (mode == DEC_PROCESS) imwk_abort(&rv.wk);
    imq_free(&q); free(d->procs); free(d); imw_close(w); rollback(c->db);
    snprintf(err, errlen, "cannot start the receiving thread");
    return -1;
  }
  if (mode != DEC_INLINE) pthread_setname_np(th, mode == DEC_PROCESS ? "gcs-receive" : "gcs-decode");
  /* Writer loop: this thread owns the database. */
  struct wloop L = { .c = c, .w = w, .err = err, .errlen = errlen, .q = &q };
  prog_start(&L.pg, c->opts, label, w);
  if (c->opts->progress) L.pg.span_ns = ctf_index_span(d->dirs, d->ndirs);
  if (mode == DEC_INLINE) {
    d->flush = wloop_flush;
    d->flush_ud = &L;
    dec_inline(d, &L);
  } else {
    struct imq_batch *b;
    while ((b = imq_pop(&q)) != NULL) {
      wloop_batch(&L, b);
      imq_release(&q, b);
    }
  }
  int failed = L.failed;
  struct prog pg = L.pg;
  free(L.pip);
  double loop_end = wall_s();
  if (mode != DEC_INLINE) pthread_join(th, NULL);
  if (!failed && ((mode == DEC_PROCESS && rv.cancelled) || cancelled(c->opts))) {
    snprintf(err, errlen, "interrupted");
    failed = 1;
  }
  if (!failed && d->rc < 0) {
    snprintf(err, errlen, "%s", d->err);
    failed = 1;
  }
  if (!failed && d->rc == GCS_RD_STOPPED) {
    snprintf(err, errlen, "interrupted");
    failed = 1;
  }
  if (!failed) {
    for (size_t i = 0; i < d->nprocs; i++) {
      struct imw_proc *p = imw_proc(w, d->procs[i].pid);
      if (!p) { snprintf(err, errlen, "out of memory"); failed = 1; break; }
      snprintf(p->name, sizeof p->name, "%s", d->procs[i].name);
      p->first_ns = d->procs[i].first;
      p->last_ns = d->procs[i].last;
      p->events = d->procs[i].events;
      p->gc_events = d->procs[i].gc_events;
    }
  }
  prog_done(&pg);
  if (!failed) {
    /* A stream file cut short: its whole packets are in, the rest of it a
     * loss window to the end (marked GCs); one warning line, and
     * traces.truncated_at for the reports. */
    char cut[3600];
    d->stats.cut_why[sizeof d->stats.cut_why - 1] = '\0';
    d->stats.cut_file[sizeof d->stats.cut_file - 1] = '\0';
    if (d->stats.cut_streams > 1)
      snprintf(cut, sizeof cut, "%s (and %llu other stream file%s cut)", d->stats.cut_why,
               (unsigned long long)(d->stats.cut_streams - 1), d->stats.cut_streams == 2 ? "" : "s");
    else
      snprintf(cut, sizeof cut, "%s", d->stats.cut_why);
    /* a stream file of an archive: named as the archive's member (the
     * extraction directory is gone after the import) */
    char place[2400], why[3600];
    const char *cut_file = d->stats.cut_streams ? user_place(c, d->stats.cut_file, place, sizeof place)
                                                : d->stats.cut_file;
    if (cut_file == place) {
      relabel(why, sizeof why, cut, d->stats.cut_file, place);
      snprintf(cut, sizeof cut, "%s", why);
    }
    struct trace_result tr = { d->stats.hostname, d->stats.first_ns, d->stats.last_ns, d->stats.events,
                               d->stats.decoded, d->stats.discarded, d->stats.cut_streams > 0, d->stats.cut_at,
                               cut_file, cut, d->stats.packet_gaps };
    c->trace_dir = s->root;
    if (end_trace(c, w, trace_id, label, &tr, err, errlen) != 0) failed = 1;
    c->trace_dir = NULL;
  }
  if (failed) rollback(c->db);
  else print_store_counts(c, label, w);
  imw_close(w);
  if (!failed) {
    double wcpu = thread_cpu_s() - cpu0 - (mode == DEC_INLINE ? d->cpu_s : 0);
    c->tot->decode_cpu_s += d->cpu_s;
    c->tot->write_cpu_s += wcpu;
    if (c->opts->verbose)
      fprintf(c->out, "%s: cpu decode %.3f s, write %.3f s, wall %.3f s, of which %.3f s after the last event (%llu events)\n",
              label, d->cpu_s, wcpu, wall_s() - wall0, wall_s() - loop_end, (unsigned long long)d->stats.events);
  }
  imq_free(&q);
  free(d->procs);
  free(d);
  return failed ? -1 : 0;
}

/* Import every CTF session under dir; label_base names them. */
static int import_ctf_tree(struct import_ctx *c, const char *label_base, const char *dir, char *err, size_t errlen) {
  struct gcs_ctf_session *s;
  int n;
  if (gcs_ctf_find(dir, &s, &n, err, errlen) != 0) return -1;
  if (n == 0) {
    snprintf(err, errlen, "%s: no LTTng/CTF trace found (no `metadata` file under it)", label_base);
    gcs_ctf_sessions_free(s, n);
    return -1;
  }
  int rc = 0;
  size_t dl = strlen(dir);
  for (int i = 0; i < n && rc == 0; i++) {
    char label[4096];
    const char *rel = strncmp(s[i].root, dir, dl) == 0 ? s[i].root + dl : s[i].root;
    if (n == 1) snprintf(label, sizeof label, "%s", label_base);
    else snprintf(label, sizeof label, "%s%s%s", label_base, *rel == '/' ? "" : "/", rel);
    rc = import_ctf(c, label, &s[i], err, errlen);
  }
  gcs_ctf_sessions_free(s, n);
  return rc;
}

static int starts_with_magic(const char *path, const char *magic, size_t n) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char b[16];
  int ok = fread(b, 1, n, f) == n && memcmp(b, magic, n) == 0;
  fclose(f);
  return ok;
}

static int starts_with_magic_nt(const char *path) { return starts_with_magic(path, "Nettrace", 8); }

/* ---- nettrace ---------------------------------------------------------------------- */

struct nt_ctx {
  struct imw *w;
  const char *path;     /* lost_events.stream */
  const struct gcs_import_opts *opts;
  uint64_t n;
  int failed;
  char *err;
  size_t errlen;
  struct prog pg;
  double fraction;      /* of the file read, updated by the reading loop */
};

static int nt_on_event(const struct gcs_event *ev, void *ud) {
  struct nt_ctx *x = ud;
  if (cancelled(x->opts)) { snprintf(x->err, x->errlen, "interrupted"); x->failed = 1; return 1; }
  if (x->opts->fail_after_events && ++x->n > x->opts->fail_after_events) {
    snprintf(x->err, x->errlen, "simulated failure after %llu events", (unsigned long long)x->opts->fail_after_events);
    x->failed = 1;
    return 1;
  }
  if (!gcs_kind_is_symbols(ev->kind)) imw_count_event(x->w, ev->pid, ev->ts_ns, NULL, 1);
  if (imw_event(x->w, ev, x->err, x->errlen) != 0) { x->failed = 1; return 1; }
  prog_event(&x->pg, ev->ts_ns, x->fraction);
  return 0;
}

/* A sequence gap of one capture thread, with its window, where it begins
 * among the events (gcs_nettrace_lost). */
static int nt_on_lost(const struct gcs_nettrace_lost *l, void *ud) {
  struct nt_ctx *x = ud;
  if (imw_lost(x->w, x->path, l->begin_ns, l->end_ns, l->count, 0, x->err, x->errlen) != 0) {
    x->failed = 1;
    return 1;
  }
  return 0;
}

static void nt_on_horizon(uint64_t ns, void *ud) { imw_lost_horizon(((struct nt_ctx *)ud)->w, ns); }

static int nt_stop_at_first(const struct gcs_event *ev, void *ud) { (void)ev; (void)ud; return 1; }

/* A gzip'ed .nettrace, inflated straight into the stream reader (no
 * temporary file; the reader's memory is bounded whatever the ratio). As
 * gcs_nettrace_read: 0 (info.truncated when the stream is cut short, also
 * when the gzip data ends early), -1 with a message. */
static int read_nettrace_gz(const char *path, gcs_nettrace_event_cb cb, void *ud, struct gcs_nettrace_info *info,
                            double *fraction, char *err, size_t errlen) {
  struct stat st;
  double size = stat(path, &st) == 0 && st.st_size > 0 ? (double)st.st_size : 0;
  gzFile gz = gzopen(path, "rb");
  if (!gz) { snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : ENOMEM)); return -1; }
  gzbuffer(gz, 1 << 17);
  struct gcs_nettrace_stream *s = gcs_nettrace_stream_new(path, cb, NULL, ud);
  if (s && cb == nt_on_event) gcs_nettrace_stream_set_lost(s, nt_on_lost, nt_on_horizon);
  uint8_t *buf = malloc(1 << 20);
  int rc = s && buf ? 0 : -1;
  if (rc) snprintf(err, errlen, "%s: out of memory", path);
  if (rc == 0) rc = gcs_nettrace_stream_load_requests(s, path, err, errlen);
  const char *gzwhy = NULL;
  while (rc == 0) {
    int n = gzread(gz, buf, 1 << 20);
    if (n < 0) {
      int code;
      gzwhy = gzerror(gz, &code);
      break;
    }
    if (n == 0) break;
    if (fraction && size > 0) *fraction = (double)gzoffset(gz) / size;
    rc = gcs_nettrace_stream_feed(s, buf, (size_t)n, err, errlen);
    if (rc == 0 && gcs_nettrace_stream_info(s)->events_decoded && cb == nt_stop_at_first) break;
  }
  if (rc == 0) {
    int f = gcs_nettrace_stream_finish(s, err, errlen);
    if (f < 0 && gzwhy) snprintf(err, errlen, "%s: corrupt gzip data: %s", path, gzwhy);
    rc = f < 0 ? -1 : 0;
  }
  if (info && s) *info = *gcs_nettrace_stream_info(s);
  gcs_nettrace_stream_free(s);
  free(buf);
  gzclose(gz);
  return rc;
}

/* A progress line needs the offset read: the file goes through the gzip
 * reader then (zlib reads a file that is not gzip'ed as it is). */
static int read_nettrace(const char *path, int gz, gcs_nettrace_event_cb cb, void *ud,
                         struct gcs_nettrace_info *info, double *fraction, char *err, size_t errlen) {
  if (gz || fraction) return read_nettrace_gz(path, cb, ud, info, fraction, err, errlen);
  if (cb == nt_on_event) return gcs_nettrace_read_lost(path, cb, nt_on_lost, nt_on_horizon, ud, info, err, errlen);
  return gcs_nettrace_read(path, cb, ud, info, err, errlen);
}

/* A .nettrace names no process: its name is what the kernel calls it
 * (/proc/PID/comm, LTTng's procname), the file name of the command line's
 * program (quoted or up to the first blank) cut to 15 bytes. "" when the
 * command line has no program. */
static void name_from_command_line(const char *cmd, char *out, size_t len) {
  size_t n;
  if (cmd[0] == '"') {  /* a quoted program: "C:\Program Files\dotnet\dotnet.exe" app.dll */
    cmd++;
    n = strcspn(cmd, "\"");
  } else {
    n = strcspn(cmd, " \t");
  }
  const char *b = cmd;
  for (size_t i = 0; i < n; i++)
    if (cmd[i] == '/' || cmd[i] == '\\') b = cmd + i + 1;
  size_t k = (size_t)(cmd + n - b);
  if (k > 15) k = 15;
  if (k >= len) k = len - 1;
  memcpy(out, b, k);
  out[k] = '\0';
}

/* What `record` noted for pid in process.tsv beside its .nettrace files
 * (tracer/eventpipe): name and command line (a capture holds no
 * ProcessInfo), the runtime's version (ProcessInfo2; an attach-mode stream
 * has no RuntimeInformation). Fills only what is still unknown. 0 if found. */
static int noted_process(const char *path, int32_t pid, char *name, size_t namelen, char **cmdline, char **version) {
  char dir[4096], line[8192];
  snprintf(dir, sizeof dir, "%s", path);
  char *sl = strrchr(dir, '/');
  if (sl) *sl = '\0'; else snprintf(dir, sizeof dir, ".");
  char file[4200];
  snprintf(file, sizeof file, "%s/process.tsv", dir);
  FILE *f = fopen(file, "r");
  if (!f) return -1;
  int found = -1;
  while (found && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL, *t3 = t2 ? strchr(t2 + 1, '\t') : NULL;
    if (!t2) continue;
    *t1 = *t2 = '\0';
    if (t3) *t3 = '\0';
    char *end;
    long p = strtol(line, &end, 10);
    if (*end || p != pid) continue;
    if (!name[0]) snprintf(name, namelen, "%.15s", t1 + 1);
    if (!*cmdline && t2[1]) *cmdline = strdup(t2 + 1);
    if (!*version && t3 && t3[1]) *version = strdup(t3 + 1);
    found = 0;
  }
  fclose(f);
  return found;
}

/* label: what the user named (traces.path; a .zip for an extracted entry);
 * path: the file read; gz: it is gzip'ed; member: the entry of the archive
 * label it was extracted from, else NULL. */
static int import_nettrace(struct import_ctx *c, const char *label, const char *path, int gz, const char *member,
                           char *err, size_t errlen) {
  char identity[IMPORT_IDENTITY_LEN];
  if (import_identity_file(path, identity, err, errlen) != 0) return -1;
  int64_t trace_id;
  int rc = begin_trace(c, label, identity, "nettrace", &trace_id, err, errlen);
  if (rc != 0) return rc > 0 ? 0 : -1;
  struct imw *w = imw_open(c->db, trace_id, err, errlen);
  if (!w) { rollback(c->db); return -1; }
  struct nt_ctx x = { w, path, c->opts, 0, 0, err, errlen, { 0 }, -1 };
  prog_start(&x.pg, c->opts, label, w);
  struct gcs_nettrace_info info;
  memset(&info, 0, sizeof info);
  char nerr[1024];
  int failed = 0;
  /* Time origin: the Trace object's SyncTime (TraceEvent's EventPipe reader
   * sets sessionStartTimeQPC = SyncTimeQPC). It is in the file header, but the
   * reader reports it only with its info, hence a pass stopped at the first
   * event (the file is mapped: this reads the header and one block). */
  if (read_nettrace(path, gz, nt_stop_at_first, NULL, &info, NULL, nerr, sizeof nerr) == 0 && info.start_ns)
    imw_set_time_origin(w, info.start_ns);
  memset(&info, 0, sizeof info);
  if (read_nettrace(path, gz, nt_on_event, &x, &info, c->opts->progress ? &x.fraction : NULL, nerr,
                    sizeof nerr) != 0) {
    if (!x.failed) snprintf(err, errlen, "%s", nerr);
    failed = 1;
  } else if (x.failed) {
    failed = 1;
  }
  if (!failed) {
    struct imw_proc *p = imw_proc(w, info.pid);
    if (p && info.command_line[0] && !p->command_line) p->command_line = strdup(info.command_line);
    if (p && (!p->command_line || !p->name[0] || !p->runtime_version))
      noted_process(path, info.pid, p->name, sizeof p->name, &p->command_line, &p->runtime_version);
    if (p && !p->name[0] && p->command_line) name_from_command_line(p->command_line, p->name, sizeof p->name);
    if (p && !p->first_ns) p->first_ns = info.start_ns;
    /* EventPipe's sequence gaps came as lost records, each with its
     * window (nt_on_lost), among the events. */
  }
  prog_done(&x.pg);
  if (!failed) {
    /* truncated_at counts the stream's bytes: of the file, or uncompressed */
    char place[2400], why[3600];
    const char *cut_file = label;
    const char *cut_why = nerr;
    if (info.truncated && (gz || member)) {
      cut_file = archive_place(place, sizeof place, label, member);
      cut_why = relabel(why, sizeof why, nerr, path, place);
    }
    struct trace_result tr = { info.hostname, info.start_ns, info.end_ns, info.events_total, info.events_decoded,
                               info.events_lost, info.truncated, info.truncated_at, cut_file, cut_why, 0 };
    if (end_trace(c, w, trace_id, label, &tr, err, errlen) != 0) failed = 1;
  }
  if (failed) rollback(c->db);
  else print_store_counts(c, label, w);
  imw_close(w);
  return failed ? -1 : 0;
}

static int has_suffix(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && strcmp(s + n - m, suf) == 0;
}

/* The .nettrace files of an extracted archive, imported under the archive's
 * name. Returns the number found (their import errors in err), or -1. */
struct zip_nt { struct import_ctx *c; const char *label; int found, failed; char *err; size_t errlen; };
static struct zip_nt *g_zip_nt;   /* nftw has no user pointer; imports run one at a time */

static int zip_nt_visit(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb; (void)ftw;
  struct zip_nt *z = g_zip_nt;
  if (flag != FTW_F || !has_suffix(p, ".nettrace") || !starts_with_magic_nt(p)) return 0;
  z->found++;
  const char *member = zip_member(z->c, p);
  if (import_nettrace(z->c, z->label, p, 0, member ? member : p, z->err, z->errlen) != 0) { z->failed = 1; return 1; }
  return 0;
}

static int import_zip(struct import_ctx *c, const char *path, char *err, size_t errlen) {
  char *tmp;
  struct gcs_zip_limits lim = { .cancel = c->opts->cancel };
  if (gcs_zip_extract(path, &lim, &tmp, err, errlen) != 0) return -1;
  char *real = realpath(tmp, NULL);
  c->zip_path = path;
  c->zip_dir = tmp;
  c->zip_real = real;
  struct zip_nt z = { c, path, 0, 0, err, errlen };
  g_zip_nt = &z;
  nftw(tmp, zip_nt_visit, 16, FTW_PHYS);
  g_zip_nt = NULL;
  int rc = z.failed ? -1 : z.found ? 0 : import_ctf_tree(c, path, tmp, err, errlen);
  c->zip_path = c->zip_dir = c->zip_real = NULL;
  free(real);
  gcs_zip_cleanup(tmp);
  return rc;
}

/* ---- paths ------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The .nettrace files directly in dir (what `record --dotnet` writes:
 * trace.nettrace, or capture-K.nettrace beside firings.tsv), in name order,
 * each imported as its own trace with its firings. Returns how many there
 * were (0: none), or -1 after an error in err. */
static int import_nettrace_dir(struct import_ctx *c, const char *dir, char *err, size_t errlen) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (!has_suffix(e->d_name, ".nettrace") && !has_suffix(e->d_name, ".nettrace.gz")) continue;
    if (n == cap) {
      size_t nc = cap ? cap * 2 : 8;
      char **nn = realloc(names, nc * sizeof *nn);
      if (!nn) { rc = -1; break; }
      names = nn;
      cap = nc;
    }
    size_t l = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[n] = malloc(l))) { rc = -1; break; }
    snprintf(names[n], l, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
    n++;
  }
  closedir(d);
  if (rc) snprintf(err, errlen, "out of memory");
  if (n) qsort(names, n, sizeof *names, cmp_str);
  int found = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    struct stat st;
    if (stat(names[i], &st) != 0 || !S_ISREG(st.st_mode)) continue;
    int gz = has_suffix(names[i], ".gz");
    if (!gz && !starts_with_magic_nt(names[i])) continue;
    if (gz && !starts_with_magic(names[i], "\x1f\x8b", 2)) continue;
    found++;
    if (import_nettrace(c, names[i], names[i], gz, NULL, err, errlen) != 0) rc = -1;
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return rc ? -1 : found;
}

/* A directory: the LTTng/CTF sessions under it, or else the .nettrace files
 * in it (a `record --dotnet` output directory). */
static int import_dir(struct import_ctx *c, const char *path, char *err, size_t errlen) {
  struct gcs_ctf_session *s;
  int n;
  if (gcs_ctf_find(path, &s, &n, err, errlen) != 0) return -1;
  gcs_ctf_sessions_free(s, n);
  if (n > 0) return import_ctf_tree(c, path, path, err, errlen);
  int found = import_nettrace_dir(c, path, err, errlen);
  if (found < 0) return -1;
  if (found > 0) return 0;
  snprintf(err, errlen, "%s: no trace found (no LTTng/CTF `metadata` file under it, no .nettrace file in it)", path);
  return -1;
}


static int import_path(struct import_ctx *c, const char *path, char *err, size_t errlen) {
  struct stat st;
  if (stat(path, &st) != 0) {
    if (errno == ELOOP) snprintf(err, errlen, "%s: symlink loop", path);
    else if (errno == EACCES) snprintf(err, errlen, "%s: permission denied", path);
    else snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  if (S_ISDIR(st.st_mode)) return import_dir(c, path, err, errlen);
  if (!S_ISREG(st.st_mode)) { snprintf(err, errlen, "%s: not a file or directory", path); return -1; }
  if (access(path, R_OK) != 0) {  /* not "not a trace": the magic could not be read */
    snprintf(err, errlen, "%s: %s", path, errno == EACCES ? "permission denied" : strerror(errno));
    return -1;
  }
  if (starts_with_magic(path, "Nettrace", 8)) return import_nettrace(c, path, path, 0, NULL, err, errlen);
  if (starts_with_magic(path, "\x1f\x8b", 2)) return import_nettrace(c, path, path, 1, NULL, err, errlen);
  if (gcs_zip_is_zip(path)) return import_zip(c, path, err, errlen);
  if (strcmp(strrchr(path, '/') ? strrchr(path, '/') + 1 : path, "metadata") == 0) {
    /* The user pointed at a trace's metadata file: read its directory. */
    char *dir = strdup(path);
    if (!dir) { snprintf(err, errlen, "out of memory"); return -1; }
    char *sl = strrchr(dir, '/');
    if (sl) *sl = '\0'; else strcpy(dir, ".");
    int rc = import_ctf_tree(c, path, dir, err, errlen);
    free(dir);
    return rc;
  }
  snprintf(err, errlen, "%s: not an LTTng trace, .trace.zip or .nettrace[.gz|.zip]", path);
  return -1;
}

int gcs_import_paths_db(sqlite3 *db, const char *const *paths, int npaths, const struct gcs_import_opts *opts,
                        struct gcs_import_totals *totals, char *err, size_t errlen) {
  static const struct gcs_import_opts defaults;
  struct gcs_import_totals tot_local;
  if (!opts) opts = &defaults;
  if (!totals) totals = &tot_local;
  memset(totals, 0, sizeof *totals);
  struct import_ctx c = { db, opts, totals, opts->out ? opts->out : stdout, NULL, NULL, NULL, NULL };
  if (npaths > 0 && gcs_db_gc_layout_old(db)) {
    /* Its GCs are rows of a gcs table, new ones would go to gcs_base: no mixing. */
    const char *f = sqlite3_db_filename(db, "main");
    snprintf(err, errlen, "%s: made by an older gcscope (its gcs table predates the compact GC tables): "
             "reports read it; import into a new database (-d NEW.db)", f && *f ? f : "the database");
    return -1;
  }
  for (int i = 0; i < npaths; i++) {
    if (cancelled(opts)) { snprintf(err, errlen, "interrupted"); return -1; }
    if (import_path(&c, paths[i], err, errlen) != 0) {
      /* Name the file in every message. */
      if (strncmp(err, paths[i], strlen(paths[i])) != 0) {
        char tmp[1024];
        snprintf(tmp, sizeof tmp, "%s", err);
        snprintf(err, errlen, "%s: %s", paths[i], tmp);
      }
      return -1;
    }
  }
  return 0;
}

int gcs_import_paths(const char *db_path, const char *const *paths, int npaths, const struct gcs_import_opts *opts,
                     char *err, size_t errlen) {
  /* A database file this call creates (or fills from empty) is removed (or
   * emptied) again when it commits nothing: a failed import leaves no trace. */
  struct stat st;
  int absent = stat(db_path, &st) != 0 && errno == ENOENT;
  int empty = !absent && S_ISREG(st.st_mode) && st.st_size == 0;
  sqlite3 *db = gcs_db_open(db_path, err, errlen);
  if (!db) {
    if (absent) unlink(db_path);
    return -1;
  }
  struct gcs_import_totals *tot = malloc(sizeof *tot);
  if (!tot) { sqlite3_close(db); snprintf(err, errlen, "out of memory"); return -1; }
  int rc = gcs_import_paths_db(db, paths, npaths, opts, tot, err, errlen);
  int nothing = tot->traces_imported == 0 && tot->traces_skipped == 0;
  free(tot);
  sqlite3_close(db);
  if (rc != 0 && nothing) {
    if (absent) unlink(db_path);
    else if (empty && truncate(db_path, 0) != 0) { /* keep the import's error */ }
  }
  return rc;
}
