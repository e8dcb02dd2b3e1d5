/* import_writer.c — raw-table rows, process facts and GC reconstruction for
 * one trace (see import_writer.h). */
#include "import_writer.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evblock.h"
#include "gcs_recon.h"
#include "gcs_stacks.h"

/* Every statement's parameter 1 is the trace id, bound once in imw_open
 * (sqlite3_reset keeps bindings). */
enum { S_BLOCK, S_HANDLE, S_PIN, S_REQ, S_LOST, S_TYPE_INS, S_TYPE_SEL, S_PROC, S_COUNT };

/* The GC events themselves go into event_blocks (evblock.h): packed, a
 * block deflated and inserted as one row when it is full; GCAllocationTick
 * (the bulk of a trace, one per ~100 KB allocated) in blocks of their own. */
enum { B_EVENTS, B_TICKS, B_COUNT };

static const char *const stmt_sql[S_COUNT] = {
  "INSERT INTO event_blocks(trace_id, ticks, first_ns, last_ns, events, data) VALUES(?,?,?,?,?,?)",
  "INSERT INTO gc_handles(trace_id, ts_ns, pid, tid, action, handle, object, kind, generation) VALUES(?,?,?,?,?,?,?,?,?)",
  "INSERT INTO pinned_objects(trace_id, ts_ns, pid, handle, object, size, type_id) VALUES(?,?,?,?,?,?,?)",
  "INSERT INTO requests(trace_id, pid, request_id, tid, start_ns, end_ns, method, path) VALUES(?,?,?,?,?,?,?,?)",
  "INSERT INTO lost_events(trace_id, stream, ts_ns, count, begin_ns, packets_missing) VALUES(?,?,?,?,?,?)",
  "INSERT OR IGNORE INTO types(name) VALUES(?)",
  "SELECT id FROM types WHERE name = ?",
  "INSERT INTO processes(trace_id, pid, name, host, command_line, server_gc, concurrent_gc, heap_count, "
  "runtime_version, origin, first_ns, last_ns, event_count, gc_event_count, gc_hard_limit, "
  "startup_flags, gc_settings_bits, gc_loh_threshold, gc_physical_memory_config, gc_gen0_min_budget_config, "
  "gc_gen0_max_budget_config, gc_high_mem_percent_config) "
  "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
};

struct type_slot { char *name; int64_t id; uint64_t hash; };
/* A request's slot in the open-addressing table; a closed slot stays as a
 * tombstone so probe chains stay intact. */
enum req_state { REQ_EMPTY, REQ_OPEN, REQ_CLOSED };
struct req_slot { enum req_state state; int32_t pid, tid; uint64_t id, start_ns; char *method, *path; };

struct imw {
  sqlite3 *db;
  int64_t trace_id;
  sqlite3_stmt *st[S_COUNT];
  struct type_slot *types; size_t ntypes, captypes;
  size_t last_type;       /* slot of the last name looked up (ticks repeat it) */
  struct req_slot *reqs; size_t nreqs, capreqs;
  struct imw_proc *procs; size_t nprocs, capprocs;
  int last_proc;          /* index of the last process looked up */
  uint64_t gc_events, lost, gcs;
  uint64_t gcs_at_store;  /* gcs when gcs_recon_store_final last ran */
  uint64_t store_every;   /* STORE_EVERY_GCS; 0: GCs stored at the end only */
  /* imw_store_counts: the GCs written while reading (at imw_finish), and the
   * most GCs done and not written yet, seen before each early store and at
   * the end of reading. */
  uint64_t stored_early, held_max;
  struct evb_buf blocks[B_COUNT];
  /* Is every event of the events blocks at or after the one before it
   * (traces.time_ordered)? last_ts: the time of the last one written. */
  int time_ordered;
  uint64_t last_ts;
  struct gcs_recon *recon;
  struct gcs_stacks_build *stacks;  /* NULL until the first stack or method event */
};

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}
static uint64_t hash_u64(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
  return x;
}

static int sql_fail(struct imw *w, char *err, size_t errlen) {
  snprintf(err, errlen, "database: %s", sqlite3_errmsg(w->db));
  return -1;
}

/* GCs completed between two stores of the final ones (each store looks at
 * the GCs not yet stored, so not after every GC). GCSCOPE_STORE_GCS_EVERY
 * sets another count for the tests: 1 stores after every GC, 0 only at the
 * end (as before); the rows are the same. */
#define STORE_EVERY_GCS 64

static void on_gc_done(const struct gcs_gc *gc, void *ud) {
  (void)gc;
  ((struct imw *)ud)->gcs++;
}

struct imw *imw_open(sqlite3 *db, int64_t trace_id, char *err, size_t errlen) {
  struct imw *w = calloc(1, sizeof *w);
  if (!w) { snprintf(err, errlen, "out of memory"); return NULL; }
  w->db = db;
  w->trace_id = trace_id;
  w->last_proc = -1;
  w->time_ordered = 1;
  w->store_every = STORE_EVERY_GCS;
  const char *every = getenv("GCSCOPE_STORE_GCS_EVERY");
  if (every && *every) w->store_every = strtoull(every, NULL, 10);
  for (int i = 0; i < S_COUNT; i++) {
    if (sqlite3_prepare_v3(db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &w->st[i], NULL) != SQLITE_OK) {
      sql_fail(w, err, errlen);
      imw_close(w);
      return NULL;
    }
    if (sqlite3_bind_parameter_count(w->st[i]) > 0) sqlite3_bind_int64(w->st[i], 1, trace_id);
  }
  static const struct gcs_recon_callbacks cb = { .gc_done = on_gc_done };
  w->recon = gcs_recon_new(&cb, w);
  if (!w->recon) { snprintf(err, errlen, "out of memory"); imw_close(w); return NULL; }
  return w;
}

void imw_set_time_origin(struct imw *w, uint64_t ts_ns) { gcs_recon_set_time_origin(w->recon, ts_ns); }

void imw_close(struct imw *w) {
  if (!w) return;
  for (int i = 0; i < S_COUNT; i++) sqlite3_finalize(w->st[i]);
  for (size_t i = 0; i < w->captypes; i++) free(w->types[i].name);
  free(w->types);
  for (size_t i = 0; i < w->capreqs; i++) {
    free(w->reqs[i].method);
    free(w->reqs[i].path);
  }
  free(w->reqs);
  for (size_t i = 0; i < w->nprocs; i++) { free(w->procs[i].command_line); free(w->procs[i].runtime_version); }
  free(w->procs);
  gcs_recon_free(w->recon);
  gcs_stacks_build_free(w->stacks);
  for (int b = 0; b < B_COUNT; b++) evb_free(&w->blocks[b]);
  free(w);
}

static int step(struct imw *w, sqlite3_stmt *s, char *err, size_t errlen) {
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) return sql_fail(w, err, errlen);
  return 0;
}

/* ---- processes ----------------------------------------------------------- */

struct imw_proc *imw_proc(struct imw *w, int32_t pid) {
  if (w->last_proc >= 0 && w->procs[w->last_proc].pid == pid) return &w->procs[w->last_proc];
  for (size_t i = 0; i < w->nprocs; i++)
    if (w->procs[i].pid == pid) { w->last_proc = (int)i; return &w->procs[i]; }
  if (w->nprocs == w->capprocs) {
    size_t cap = w->capprocs ? w->capprocs * 2 : 16;
    struct imw_proc *np = realloc(w->procs, cap * sizeof *np);
    if (!np) return NULL;
    w->procs = np;
    w->capprocs = cap;
  }
  struct imw_proc *p = &w->procs[w->nprocs];
  memset(p, 0, sizeof *p);
  p->pid = pid;
  p->server_gc = p->concurrent_gc = p->heap_count = p->origin = -1;
  p->hard_limit = -1;
  w->last_proc = (int)w->nprocs++;
  return p;
}

void imw_count_event(struct imw *w, int32_t pid, uint64_t ts_ns, const char *procname, int gc) {
  struct imw_proc *p = imw_proc(w, pid);
  if (!p) return;
  if (ts_ns && (!p->first_ns || ts_ns < p->first_ns)) p->first_ns = ts_ns;
  if (ts_ns > p->last_ns) p->last_ns = ts_ns;
  p->events++;
  if (gc) p->gc_events++;
  if (procname && procname[0] && strcmp(p->name, procname) != 0)
    snprintf(p->name, sizeof p->name, "%s", procname);
}

static void set_str(char **dst, const char *s) {
  if (!s || !*s) return;
  char *c = strdup(s);
  if (!c) return;
  free(*dst);
  *dst = c;
}

static int is_sep(char c) { return c == '/' || c == '\\'; }

/* "/usr/share/dotnet/shared/Microsoft.NETCore.App/3.1.1/libcoreclr.so" -> "3.1.1"
 * (also with Windows separators): the directory holding the runtime library,
 * if it starts with a digit. */
static void version_from_dll_path(struct imw_proc *p, const char *path) {
  if (!path) return;
  const char *slash = NULL;
  for (const char *q = path; *q; q++) if (is_sep(*q)) slash = q;
  if (!slash || slash == path) return;
  const char *start = slash - 1;
  while (start > path && !is_sep(*(start - 1))) start--;
  if (*start < '0' || *start > '9') return;
  char v[64];
  size_t n = (size_t)(slash - start);
  if (n >= sizeof v) return;
  memcpy(v, start, n);
  v[n] = '\0';
  set_str(&p->runtime_version, v);
}

static void note_process_facts(struct imw *w, const struct gcs_event *ev) {
  struct imw_proc *p = imw_proc(w, ev->pid);
  if (!p) return;
  if (p->origin < 0) p->origin = ev->origin;
  switch (ev->kind) {
  case gcs_kind_RuntimeInformationStart: {
    const struct gcs_ev_RuntimeInformationStart *r = &ev->u.RuntimeInformationStart;
    set_str(&p->command_line, r->CommandLine);
    version_from_dll_path(p, r->RuntimeDllPath);
    if (!p->runtime_version && r->VMMajorVersion) {
      /* A self-contained app's path carries no version: the event's own
       * fields, the runtime library's file version (CoreCLR 3.0: 4.700.x). */
      char v[96];
      snprintf(v, sizeof v, "%u.%u.%u.%u (runtime file version)", r->VMMajorVersion, r->VMMinorVersion,
               r->VMBuildNumber, r->VMQfeNumber);
      set_str(&p->runtime_version, v);
    }
    if (gcs_startup_is_server_gc(r->StartupFlags)) p->server_gc = 1;
    if (gcs_startup_is_concurrent_gc(r->StartupFlags)) p->concurrent_gc = 1;
    p->startup_seen = 1;
    p->startup_flags |= r->StartupFlags;
    break;
  }
  case gcs_kind_GCSettingsRundown: {
    /* The GC's own settings at the recording's end: they decide concurrent
     * GC (StartupFlags only say what was asked for). */
    const struct gcs_ev_GCSettingsRundown *r = &ev->u.GCSettingsRundown;
    p->settings_seen = 1;
    p->settings = *r;
    p->concurrent_gc = gcs_settings_is_concurrent_gc(r->BitSettings) ? 1 : 0;
    p->hard_limit = r->HardLimit > INT64_MAX ? INT64_MAX : (int64_t)r->HardLimit;
    break;
  }
  case gcs_kind_RuntimeInformation: {
    const struct gcs_ev_RuntimeInformation *r = &ev->u.RuntimeInformation;
    set_str(&p->command_line, r->CommandLine);
    set_str(&p->runtime_version, r->Version);
    p->server_gc = r->ServerGC ? 1 : 0;
    p->concurrent_gc = r->Concurrent ? 1 : 0;
    p->heap_count = (int)r->HeapCount;
    break;
  }
  case gcs_kind_GCGlobalHeapHistory:
    if (ev->u.GCGlobalHeapHistory.NumHeaps > p->heap_count) p->heap_count = ev->u.GCGlobalHeapHistory.NumHeaps;
    break;
  case gcs_kind_GCStart:
    if (gcs_type_is_background(ev->u.GCStart.Type)) p->concurrent_gc = 1;  /* a background GC ran */
    break;
  default: break;
  }
}

/* ---- types (interned) ---------------------------------------------------- */

static int type_id(struct imw *w, const char *name, int64_t *id, char *err, size_t errlen) {
  /* Consecutive ticks often name the same type: strcmp before hashing. */
  if (w->captypes && w->types[w->last_type].name && strcmp(w->types[w->last_type].name, name) == 0) {
    *id = w->types[w->last_type].id;
    return 0;
  }
  if (w->ntypes * 2 >= w->captypes) {
    size_t cap = w->captypes ? w->captypes * 2 : 1024;
    struct type_slot *nt = calloc(cap, sizeof *nt);
    if (!nt) { snprintf(err, errlen, "out of memory"); return -1; }
    for (size_t i = 0; i < w->captypes; i++) {
      if (!w->types[i].name) continue;
      size_t h = w->types[i].hash & (cap - 1);
      while (nt[h].name) h = (h + 1) & (cap - 1);
      nt[h] = w->types[i];
    }
    free(w->types);
    w->types = nt;
    w->captypes = cap;
  }
  uint64_t hv = hash_str(name);
  size_t h = hv & (w->captypes - 1);
  while (w->types[h].name) {
    if (w->types[h].hash == hv && strcmp(w->types[h].name, name) == 0) {
      *id = w->types[h].id;
      w->last_type = h;
      return 0;
    }
    h = (h + 1) & (w->captypes - 1);
  }
  sqlite3_stmt *s = w->st[S_TYPE_INS];
  sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
  if (step(w, s, err, errlen) != 0) return -1;
  if (sqlite3_changes(w->db) > 0) {
    *id = sqlite3_last_insert_rowid(w->db);
  } else {
    s = w->st[S_TYPE_SEL];
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(s) != SQLITE_ROW) { sqlite3_reset(s); return sql_fail(w, err, errlen); }
    *id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
  }
  char *copy = strdup(name);
  if (!copy) { snprintf(err, errlen, "out of memory"); return -1; }
  w->types[h].name = copy;
  w->types[h].hash = hv;
  w->types[h].id = *id;
  w->ntypes++;
  w->last_type = h;
  return 0;
}

/* ---- requests (paired) ---------------------------------------------------- */

static int req_insert_mp(struct imw *w, int32_t pid, uint64_t id, int32_t tid, uint64_t start, uint64_t end,
                         const char *method, const char *path, char *err, size_t errlen) {
  sqlite3_stmt *s = w->st[S_REQ];
  if (method && *method) sqlite3_bind_text(s, 7, method, -1, SQLITE_TRANSIENT); else sqlite3_bind_null(s, 7);
  if (path && *path) sqlite3_bind_text(s, 8, path, -1, SQLITE_TRANSIENT); else sqlite3_bind_null(s, 8);
  sqlite3_bind_int(s, 2, pid);
  sqlite3_bind_int64(s, 3, (int64_t)id);
  sqlite3_bind_int(s, 4, tid);
  if (start) sqlite3_bind_int64(s, 5, (int64_t)start); else sqlite3_bind_null(s, 5);
  if (end) sqlite3_bind_int64(s, 6, (int64_t)end); else sqlite3_bind_null(s, 6);
  return step(w, s, err, errlen);
}

static int req_insert(struct imw *w, int32_t pid, uint64_t id, int32_t tid, uint64_t start, uint64_t end,
                      char *err, size_t errlen) {
  return req_insert_mp(w, pid, id, tid, start, end, NULL, NULL, err, errlen);
}

static int req_insert_slot(struct imw *w, struct req_slot *r, uint64_t end, char *err, size_t errlen) {
  int rc = req_insert_mp(w, r->pid, r->id, r->tid, r->start_ns, end, r->method, r->path, err, errlen);
  free(r->method);
  free(r->path);
  r->method = r->path = NULL;
  return rc;
}

static struct req_slot *req_find(struct imw *w, int32_t pid, uint64_t id, int create) {
  if (create && w->nreqs * 2 >= w->capreqs) {
    /* Rebuilt from the open requests only: closed ones (tombstones) go, so
     * the table is sized by the requests in flight, not by all of a long
     * recording's. */
    size_t open = 0;
    for (size_t i = 0; i < w->capreqs; i++) open += w->reqs[i].state == REQ_OPEN;
    size_t cap = 256;
    while (cap < (open + 1) * 4) cap *= 2;
    struct req_slot *nt = calloc(cap, sizeof *nt);
    if (!nt) return NULL;
    w->nreqs = open;
    for (size_t i = 0; i < w->capreqs; i++) {
      if (w->reqs[i].state != REQ_OPEN) continue;
      size_t h = hash_u64(w->reqs[i].id ^ ((uint64_t)(uint32_t)w->reqs[i].pid << 32)) & (cap - 1);
      while (nt[h].state != REQ_EMPTY) h = (h + 1) & (cap - 1);
      nt[h] = w->reqs[i];
    }
    free(w->reqs);
    w->reqs = nt;
    w->capreqs = cap;
  }
  if (!w->capreqs) return NULL;
  size_t h = hash_u64(id ^ ((uint64_t)(uint32_t)pid << 32)) & (w->capreqs - 1);
  while (w->reqs[h].state != REQ_EMPTY) {
    if (w->reqs[h].state == REQ_OPEN && w->reqs[h].pid == pid && w->reqs[h].id == id) return &w->reqs[h];
    h = (h + 1) & (w->capreqs - 1);
  }
  if (!create) return NULL;
  w->reqs[h].state = REQ_OPEN;
  w->reqs[h].pid = pid;
  w->reqs[h].id = id;
  w->nreqs++;
  return &w->reqs[h];
}

static char *dup_nonempty(const char *s) { return s && *s ? strdup(s) : NULL; }

/* librgc's RequestStart/Stop and .NET's SourceRequestStart/Stop (method
 * and path from the start event). */
static int on_request(struct imw *w, const struct gcs_event *ev, int start, char *err, size_t errlen) {
  int source = ev->kind == gcs_kind_SourceRequestStart || ev->kind == gcs_kind_SourceRequestStop;
  uint64_t id = source ? ev->u.SourceRequestStart.Id : ev->u.RequestStart.Id;
  struct req_slot *r = req_find(w, ev->pid, id, 0);
  if (start) {
    if (r) { /* a second start for an open id: close the first as unfinished */
      if (req_insert_slot(w, r, 0, err, errlen) != 0) return -1;
    } else if (!(r = req_find(w, ev->pid, id, 1))) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
    r->tid = ev->tid;
    r->start_ns = ev->ts_ns;
    if (source) {
      r->method = dup_nonempty(ev->u.SourceRequestStart.Method);
      r->path = dup_nonempty(ev->u.SourceRequestStart.Path);
    }
    return 0;
  }
  if (!r) return req_insert(w, ev->pid, id, ev->tid, 0, ev->ts_ns, err, errlen);
  r->state = REQ_CLOSED;
  return req_insert_slot(w, r, ev->ts_ns, err, errlen);
}

/* ---- events ---------------------------------------------------------------- */

/* Write block b as one event_blocks row and start it again. */
static int flush_block(struct imw *w, int b, char *err, size_t errlen) {
  struct evb_buf *buf = &w->blocks[b];
  if (buf->n == 0) return 0;
  const uint8_t *data;
  size_t len;
  if (evb_deflate(buf, &data, &len) != 0) { snprintf(err, errlen, "out of memory"); return -1; }
  sqlite3_stmt *s = w->st[S_BLOCK];
  sqlite3_bind_int(s, 2, b == B_TICKS);
  sqlite3_bind_int64(s, 3, (int64_t)buf->first_ts);
  sqlite3_bind_int64(s, 4, (int64_t)buf->last_ts);
  sqlite3_bind_int(s, 5, buf->n);
  sqlite3_bind_blob(s, 6, data, (int)len, SQLITE_STATIC);
  int rc = step(w, s, err, errlen);
  sqlite3_bind_null(s, 6);
  evb_reset(buf);
  return rc;
}

static struct gcs_stacks_build *stacks_of(struct imw *w, char *err, size_t errlen) {
  if (!w->stacks) w->stacks = gcs_stacks_build_new(w->db, w->trace_id, err, errlen);
  return w->stacks;
}

static int add_to_block(struct imw *w, int b, const struct gcs_event *ev, int64_t type_id, char *err,
                        size_t errlen) {
  struct evb_buf *buf = &w->blocks[b];
  int64_t stack_id = -1;
  if (ev->stack) {
    if (!stacks_of(w, err, errlen)) return -1;
    if ((stack_id = gcs_stacks_intern(w->stacks, ev->pid, ev->stack)) < 0) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
  }
  if (evb_pack(buf, ev, type_id, stack_id) != 0) { snprintf(err, errlen, "out of memory"); return -1; }
  size_t max_len = b == B_TICKS ? EVB_TICK_RAW_BYTES : EVB_RAW_BYTES;
  int max_n = b == B_TICKS ? EVB_TICK_MAX_EVENTS : EVB_MAX_EVENTS;
  if (buf->len >= max_len || buf->n >= max_n) return flush_block(w, b, err, errlen);
  return 0;
}

/* A tick's type name is interned in types (alloc_ticks.type_id). */
static int write_tick(struct imw *w, const struct gcs_event *ev, char *err, size_t errlen) {
  const struct gcs_ev_GCAllocationTick *t = &ev->u.GCAllocationTick;
  int64_t id = -1;
  if (ev->version >= 2 && t->TypeName && type_id(w, t->TypeName, &id, err, errlen) != 0) return -1;
  return add_to_block(w, B_TICKS, ev, id, err, errlen);
}

static int write_handle(struct imw *w, const struct gcs_event *ev, char *err, size_t errlen) {
  sqlite3_stmt *s = w->st[S_HANDLE];
  int set = ev->kind == gcs_kind_SetGCHandle;
  sqlite3_bind_int64(s, 2, (int64_t)ev->ts_ns);
  sqlite3_bind_int(s, 3, ev->pid);
  sqlite3_bind_int(s, 4, ev->tid);
  sqlite3_bind_text(s, 5, set ? "set" : "destroy", -1, SQLITE_STATIC);
  if (set) {
    const struct gcs_ev_SetGCHandle *h = &ev->u.SetGCHandle;
    sqlite3_bind_int64(s, 6, (int64_t)h->HandleID);
    sqlite3_bind_int64(s, 7, (int64_t)h->ObjectID);
    sqlite3_bind_int(s, 8, (int)h->Kind);
    sqlite3_bind_int(s, 9, (int)h->Generation);
  } else {
    sqlite3_bind_int64(s, 6, (int64_t)ev->u.DestroyGCHandle.HandleID);
    sqlite3_bind_null(s, 7);
    sqlite3_bind_null(s, 8);
    sqlite3_bind_null(s, 9);
  }
  return step(w, s, err, errlen);
}

static int write_pin(struct imw *w, const struct gcs_event *ev, char *err, size_t errlen) {
  const struct gcs_ev_PinObjectAtGCTime *p = &ev->u.PinObjectAtGCTime;
  sqlite3_stmt *s = w->st[S_PIN];
  sqlite3_bind_int64(s, 2, (int64_t)ev->ts_ns);
  sqlite3_bind_int(s, 3, ev->pid);
  sqlite3_bind_int64(s, 4, (int64_t)p->HandleID);
  sqlite3_bind_int64(s, 5, (int64_t)p->ObjectID);
  sqlite3_bind_int64(s, 6, (int64_t)p->ObjectSize);
  int64_t id;
  if (type_id(w, p->TypeName ? p->TypeName : "", &id, err, errlen) != 0) return -1;
  sqlite3_bind_int64(s, 7, id);
  return step(w, s, err, errlen);
}

static void note_held(struct imw *w) {
  uint64_t stored = (uint64_t)gcs_recon_stored_final(w->recon);
  if (w->gcs > stored && w->gcs - stored > w->held_max) w->held_max = w->gcs - stored;
}

void imw_store_counts(const struct imw *w, uint64_t *stored_early, uint64_t *held_max) {
  *stored_early = w->stored_early;
  *held_max = w->held_max;
}

int imw_event(struct imw *w, const struct gcs_event *ev, char *err, size_t errlen) {
  if (gcs_kind_is_symbols(ev->kind)) {  /* resolves stacks; not stored as an event */
    if (!stacks_of(w, err, errlen)) return -1;
    if (gcs_stacks_add_method(w->stacks, ev) != 0) { snprintf(err, errlen, "out of memory"); return -1; }
    return 0;
  }
  w->gc_events++;
  gcs_recon_feed(w->recon, ev);
  if (w->store_every && w->gcs - w->gcs_at_store >= w->store_every) {
    /* The GCs that can no longer change go in now, while the decoding
     * process still runs, rather than all after the last event. */
    w->gcs_at_store = w->gcs;
    note_held(w);
    int rc = gcs_recon_store_final(w->recon, w->db, w->trace_id);
    if (rc != SQLITE_OK) {
      snprintf(err, errlen, "database: storing GCs: %s", sqlite3_errstr(rc));
      return -1;
    }
  }
  switch (ev->kind) {
  case gcs_kind_GCAllocationTick:
    return write_tick(w, ev, err, errlen);  /* alloc_ticks only: too many for events */
  case gcs_kind_SetGCHandle:
  case gcs_kind_DestroyGCHandle:
    if (write_handle(w, ev, err, errlen) != 0) return -1;
    break;
  case gcs_kind_PinObjectAtGCTime:
    if (write_pin(w, ev, err, errlen) != 0) return -1;
    break;
  case gcs_kind_RequestStart:
  case gcs_kind_RequestStop:
  case gcs_kind_SourceRequestStart:
  case gcs_kind_SourceRequestStop:
    if (on_request(w, ev, ev->kind == gcs_kind_RequestStart || ev->kind == gcs_kind_SourceRequestStart, err,
                   errlen) != 0)
      return -1;
    break;
  case gcs_kind_RuntimeInformationStart:
  case gcs_kind_GCSettingsRundown:
  case gcs_kind_RuntimeInformation:
  case gcs_kind_GCGlobalHeapHistory:
  case gcs_kind_GCStart:
    note_process_facts(w, ev);
    break;
  default: break;
  }
  struct imw_proc *p = imw_proc(w, ev->pid);
  if (p && p->origin < 0) p->origin = ev->origin;
  if (ev->ts_ns < w->last_ts) w->time_ordered = 0;
  w->last_ts = ev->ts_ns;
  return add_to_block(w, B_EVENTS, ev, -1, err, errlen);
}

int imw_module(struct imw *w, int32_t pid, uint64_t baddr, uint64_t memsz, const char *path, int is_pic,
               char *err, size_t errlen) {
  if (!stacks_of(w, err, errlen)) return -1;
  if (gcs_stacks_add_module(w->stacks, pid, baddr, memsz, path, is_pic) != 0) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  return 0;
}

int imw_lost(struct imw *w, const char *stream, uint64_t begin_ns, uint64_t end_ns, uint64_t count,
             unsigned flags, char *err, size_t errlen) {
  w->lost += count;
  gcs_recon_lost(w->recon, -1, begin_ns, end_ns, count);
  sqlite3_stmt *s = w->st[S_LOST];
  if (stream) sqlite3_bind_text(s, 2, stream, -1, SQLITE_TRANSIENT); else sqlite3_bind_null(s, 2);
  /* (UINT64_MAX: to the end of the trace, a stream cut short: NULL, as unknown) */
  if (end_ns && end_ns != UINT64_MAX) sqlite3_bind_int64(s, 3, (int64_t)end_ns); else sqlite3_bind_null(s, 3);
  sqlite3_bind_int64(s, 4, (int64_t)count);
  if (begin_ns) sqlite3_bind_int64(s, 5, (int64_t)begin_ns); else sqlite3_bind_null(s, 5);
  sqlite3_bind_int(s, 6, (flags & IMW_LOST_PACKETS) != 0);
  return step(w, s, err, errlen);
}

void imw_lost_horizon(struct imw *w, uint64_t ts_ns) { gcs_recon_lost_horizon(w->recon, ts_ns); }

static void bind_opt_int(sqlite3_stmt *s, int i, int v) {
  if (v < 0) sqlite3_bind_null(s, i); else sqlite3_bind_int(s, i, v);
}

int imw_finish(struct imw *w, const char *host, char *err, size_t errlen) {
  note_held(w);
  w->stored_early = (uint64_t)gcs_recon_stored_final(w->recon);
  if (flush_block(w, B_TICKS, err, errlen) != 0 || flush_block(w, B_EVENTS, err, errlen) != 0) return -1;
  /* Requests still open at the end of the trace. */
  for (size_t i = 0; i < w->capreqs; i++)
    if (w->reqs[i].state == REQ_OPEN) {
      struct req_slot *r = &w->reqs[i];
      if (req_insert_slot(w, r, 0, err, errlen) != 0) return -1;
      r->state = REQ_CLOSED;
    }
  sqlite3_stmt *s = w->st[S_PROC];
  for (size_t i = 0; i < w->nprocs; i++) {
    struct imw_proc *p = &w->procs[i];
    /* More than one heap is server GC; one heap is not workstation GC (a
     * server GC's DATAS runs on one heap as well): unknown stays unknown. */
    if (p->server_gc < 0 && p->heap_count > 1) p->server_gc = 1;
    /* A current runtime's rundown (GCSettingsRundown beside its
     * RuntimeInformation) whose StartupFlags lack SERVER_GC: workstation GC. */
    if (p->server_gc < 0 && p->settings_seen && p->startup_seen && !gcs_startup_is_server_gc(p->startup_flags))
      p->server_gc = 0;
    sqlite3_bind_int(s, 2, p->pid);
    if (p->name[0]) sqlite3_bind_text(s, 3, p->name, -1, SQLITE_STATIC); else sqlite3_bind_null(s, 3);
    if (host && *host) sqlite3_bind_text(s, 4, host, -1, SQLITE_STATIC); else sqlite3_bind_null(s, 4);
    if (p->command_line) sqlite3_bind_text(s, 5, p->command_line, -1, SQLITE_STATIC); else sqlite3_bind_null(s, 5);
    bind_opt_int(s, 6, p->server_gc);
    bind_opt_int(s, 7, p->concurrent_gc);
    bind_opt_int(s, 8, p->heap_count);
    if (p->runtime_version) sqlite3_bind_text(s, 9, p->runtime_version, -1, SQLITE_STATIC); else sqlite3_bind_null(s, 9);
    if (p->origin < 0) sqlite3_bind_null(s, 10);
    else sqlite3_bind_text(s, 10, p->origin == GCS_ORIGIN_RGC ? "rgc" : "clr", -1, SQLITE_STATIC);
    if (p->first_ns) sqlite3_bind_int64(s, 11, (int64_t)p->first_ns); else sqlite3_bind_null(s, 11);
    if (p->last_ns) sqlite3_bind_int64(s, 12, (int64_t)p->last_ns); else sqlite3_bind_null(s, 12);
    sqlite3_bind_int64(s, 13, (int64_t)p->events);
    sqlite3_bind_int64(s, 14, (int64_t)p->gc_events);
    if (p->hard_limit >= 0) sqlite3_bind_int64(s, 15, p->hard_limit); else sqlite3_bind_null(s, 15);
    /* issue 26: the start-up flags (RuntimeInformationStart) and the GC's
     * settings (GCSettingsRundown), NULL where the trace has none */
    if (p->startup_seen) sqlite3_bind_int64(s, 16, p->startup_flags); else sqlite3_bind_null(s, 16);
    const struct gcs_ev_GCSettingsRundown *gs = &p->settings;
    const uint64_t gsv[] = { gs->BitSettings, gs->LOHThreshold, gs->PhysicalMemoryConfig, gs->Gen0MinBudgetConfig,
                             gs->Gen0MaxBudgetConfig, gs->HighMemPercentConfig };
    for (int k = 0; k < 6; k++)
      if (p->settings_seen) sqlite3_bind_int64(s, 17 + k, gsv[k] > INT64_MAX ? INT64_MAX : (int64_t)gsv[k]);
      else sqlite3_bind_null(s, 17 + k);
    if (step(w, s, err, errlen) != 0) return -1;
  }
  /* Whether reports may read the events as stored (traces.time_ordered). */
  sqlite3_stmt *o;
  if (sqlite3_prepare_v2(w->db, "UPDATE traces SET time_ordered = ?1 WHERE id = ?2", -1, &o, NULL) != SQLITE_OK)
    return sql_fail(w, err, errlen);
  sqlite3_bind_int(o, 1, w->time_ordered);
  sqlite3_bind_int64(o, 2, w->trace_id);
  int orc = sqlite3_step(o);
  sqlite3_finalize(o);
  if (orc != SQLITE_DONE) return sql_fail(w, err, errlen);
  if (w->stacks && gcs_stacks_store(w->stacks, err, errlen) != 0) return -1;
  gcs_recon_finish(w->recon);
  int rc = gcs_recon_store(w->recon, w->db, w->trace_id);
  if (rc != 0) {
    snprintf(err, errlen, "database: storing GCs: %s", sqlite3_errstr(rc));
    return -1;
  }
  return 0;
}

uint64_t imw_gc_events(const struct imw *w) { return w->gc_events; }
uint64_t imw_gcs(const struct imw *w) { return w->gcs; }
uint64_t imw_gcs_held_max(const struct imw *w) { return (uint64_t)gcs_recon_held_max(w->recon); }
uint64_t imw_lost_total(const struct imw *w) { return w->lost; }
int imw_process_count(const struct imw *w) { return (int)w->nprocs; }

uint64_t imw_array_events_left_out(const struct imw *w) {
  uint64_t n = 0;
  for (int i = 0; i < gcs_recon_process_count(w->recon); i++) n += gcs_recon_process(w->recon, i)->array_events_left_out;
  return n;
}
