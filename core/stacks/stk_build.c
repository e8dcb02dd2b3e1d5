/* stk_build.c — interning stacks during an import, resolving their frames
 * from method events, writing the stacks tables (gcs_stacks.h). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_stacks.h"
#include "stk_native.h"

#define STK_MAX_STACKS (16u << 20)
#define STK_MAX_IPS (128u << 20)   /* 1 GB of instruction pointers */

struct stk_ent { int32_t pid; uint32_t depth; uint8_t truncated; size_t off; uint64_t hash; };
struct stk_method { int32_t pid; int rundown; uint64_t start, size; char *name; };
/* (a, b) -> val, open addressing. */
struct stk_slot { uint64_t a, b; uint32_t val; uint8_t used; };
struct stk_map { struct stk_slot *s; size_t cap, n; };

struct gcs_stacks_build {
  sqlite3 *db;
  int64_t trace_id, base;          /* stacks.id = base + index + 1 */
  struct stk_ent *ents; size_t nents, capents;
  uint64_t *ips; size_t nips, capips;
  size_t *table; size_t tcap;      /* stack hash table: index + 1, 0 empty */
  struct stk_method *methods; size_t nmethods, capmethods;
  struct stk_native native;        /* librgc: the statedump's modules */
};

static uint64_t mix(uint64_t h) {
  h ^= h >> 33; h *= 0xff51afd7ed558ccdULL; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53ULL; h ^= h >> 33;
  return h;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap : 64;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * elem);
  if (!q) return -1;
  *p = q;
  *cap = n;
  return 0;
}

static uint32_t *map_get(struct stk_map *m, uint64_t a, uint64_t b) {
  if (!m->cap) return NULL;
  for (size_t h = mix(a * 31 + mix(b)) & (m->cap - 1);; h = (h + 1) & (m->cap - 1)) {
    if (!m->s[h].used) return NULL;
    if (m->s[h].a == a && m->s[h].b == b) return &m->s[h].val;
  }
}

static int map_put(struct stk_map *m, uint64_t a, uint64_t b, uint32_t val) {
  if ((m->n + 1) * 2 > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 1024;
    struct stk_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i < m->cap; i++) {
      if (!m->s[i].used) continue;
      size_t h = mix(m->s[i].a * 31 + mix(m->s[i].b)) & (ncap - 1);
      while (ns[h].used) h = (h + 1) & (ncap - 1);
      ns[h] = m->s[i];
    }
    free(m->s);
    m->s = ns;
    m->cap = ncap;
  }
  size_t h = mix(a * 31 + mix(b)) & (m->cap - 1);
  while (m->s[h].used) h = (h + 1) & (m->cap - 1);
  m->s[h].a = a; m->s[h].b = b; m->s[h].val = val; m->s[h].used = 1;
  m->n++;
  return 0;
}

struct gcs_stacks_build *gcs_stacks_build_new(sqlite3 *db, int64_t trace_id, char *err, size_t errlen) {
  struct gcs_stacks_build *b = calloc(1, sizeof *b);
  if (!b) { snprintf(err, errlen, "out of memory"); return NULL; }
  b->db = db;
  b->trace_id = trace_id;
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT coalesce(max(id), 0) FROM stacks", -1, &s, NULL) != SQLITE_OK) {
    snprintf(err, errlen, "database: %s", sqlite3_errmsg(db));
    free(b);
    return NULL;
  }
  if (sqlite3_step(s) == SQLITE_ROW) b->base = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return b;
}

void gcs_stacks_build_free(struct gcs_stacks_build *b) {
  if (!b) return;
  for (size_t i = 0; i < b->nmethods; i++) free(b->methods[i].name);
  free(b->methods);
  stk_native_free(&b->native);
  free(b->ents);
  free(b->ips);
  free(b->table);
  free(b);
}

static uint64_t stack_hash(int32_t pid, const struct gcs_stack *st) {
  uint64_t h = mix((uint64_t)(uint32_t)pid + ((uint64_t)st->depth << 32) + ((uint64_t)st->truncated << 63));
  for (uint32_t i = 0; i < st->depth; i++) h = mix(h ^ st->ip[i]) + i;
  return h;
}

static int rehash(struct gcs_stacks_build *b) {
  size_t ncap = b->tcap ? b->tcap * 2 : 1024;
  size_t *nt = calloc(ncap, sizeof *nt);
  if (!nt) return -1;
  for (size_t i = 0; i < b->nents; i++) {
    size_t h = b->ents[i].hash & (ncap - 1);
    while (nt[h]) h = (h + 1) & (ncap - 1);
    nt[h] = i + 1;
  }
  free(b->table);
  b->table = nt;
  b->tcap = ncap;
  return 0;
}

int64_t gcs_stacks_intern(struct gcs_stacks_build *b, int32_t pid, const struct gcs_stack *st) {
  if ((b->nents + 1) * 2 > b->tcap && rehash(b) != 0) return -1;
  uint64_t hv = stack_hash(pid, st);
  size_t h = hv & (b->tcap - 1);
  for (; b->table[h]; h = (h + 1) & (b->tcap - 1)) {
    const struct stk_ent *e = &b->ents[b->table[h] - 1];
    if (e->hash == hv && e->pid == pid && e->depth == st->depth && e->truncated == st->truncated &&
        (st->depth == 0 || memcmp(b->ips + e->off, st->ip, st->depth * sizeof *st->ip) == 0))
      return b->base + (int64_t)b->table[h];
  }
  /* A bound on what one trace may make the import hold (a real one has thousands of distinct
   * stacks): past it, an event's new stack is not kept and the event is stored without one. */
  if (b->nents >= STK_MAX_STACKS || b->nips + st->depth > STK_MAX_IPS) return 0;
  if (grow((void **)&b->ents, &b->capents, b->nents + 1, sizeof *b->ents) != 0 ||
      grow((void **)&b->ips, &b->capips, b->nips + st->depth, sizeof *b->ips) != 0)
    return -1;
  if (st->depth) memcpy(b->ips + b->nips, st->ip, st->depth * sizeof *st->ip);
  struct stk_ent *e = &b->ents[b->nents];
  e->pid = pid;
  e->depth = st->depth;
  e->truncated = st->truncated;
  e->off = b->nips;
  e->hash = hv;
  b->nips += st->depth;
  b->table[h] = ++b->nents;
  return b->base + (int64_t)b->nents;
}

int gcs_stacks_add_method(struct gcs_stacks_build *b, const struct gcs_event *ev) {
  const struct gcs_ev_MethodLoadVerbose *m = ev->kind == gcs_kind_MethodLoadVerbose ? &ev->u.MethodLoadVerbose
                                             : (const struct gcs_ev_MethodLoadVerbose *)&ev->u.MethodDCEndVerbose;
  if (!m->MethodStartAddress || !m->MethodSize) return 0;
  if (grow((void **)&b->methods, &b->capmethods, b->nmethods + 1, sizeof *b->methods) != 0) return -1;
  const char *ns = m->MethodNamespace ? m->MethodNamespace : "";
  const char *name = m->MethodName ? m->MethodName : "";
  size_t n = strlen(ns) + strlen(name) + 2;
  char *full = malloc(n);
  if (!full) return -1;
  snprintf(full, n, "%s%s%s", ns, *ns ? "." : "", name);
  struct stk_method *x = &b->methods[b->nmethods++];
  x->pid = ev->pid;
  x->rundown = ev->kind == gcs_kind_MethodDCEndVerbose;
  x->start = m->MethodStartAddress;
  x->size = m->MethodSize;
  x->name = full;
  return 0;
}

int gcs_stacks_add_module(struct gcs_stacks_build *b, int32_t pid, uint64_t base, uint64_t memsz, const char *path,
                          int is_pic) {
  return stk_native_add(&b->native, pid, base, memsz, path, is_pic);
}

static int cmp_method(const void *pa, const void *pb) {
  const struct stk_method *a = pa, *b = pb;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  if (a->start != b->start) return a->start < b->start ? -1 : 1;
  return b->rundown - a->rundown;
}

/* The method of pid whose code holds ip; NULL if none. Among overlapping
 * ranges (code freed and reused) the one starting last before ip wins. */
static const struct stk_method *find_method(const struct gcs_stacks_build *b, int32_t pid, uint64_t ip) {
  size_t lo = 0, hi = b->nmethods;  /* first method > (pid, ip) */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const struct stk_method *m = &b->methods[mid];
    if (m->pid < pid || (m->pid == pid && m->start <= ip)) lo = mid + 1; else hi = mid;
  }
  for (size_t k = lo; k > 0 && lo - k < 64; k--) {
    const struct stk_method *m = &b->methods[k - 1];
    if (m->pid != pid) break;
    if (ip - m->start < m->size) return m;
  }
  return NULL;
}

struct pid_stats { int32_t pid; uint64_t jit, rundown, addresses, unresolved; const char *why; };

static struct pid_stats *pid_stats(struct pid_stats **v, size_t *n, size_t *cap, int32_t pid) {
  for (size_t i = *n; i > 0; i--)
    if ((*v)[i - 1].pid == pid) return &(*v)[i - 1];
  if (grow((void **)v, cap, *n + 1, sizeof **v) != 0) return NULL;
  struct pid_stats *p = &(*v)[(*n)++];
  memset(p, 0, sizeof *p);
  p->pid = pid;
  return p;
}

struct jbuf { char *p; size_t len, cap; };
static int jappend(struct jbuf *j, const char *s) {
  size_t n = strlen(s);
  if (grow((void **)&j->p, &j->cap, j->len + n + 1, 1) != 0) return -1;
  memcpy(j->p + j->len, s, n + 1);
  j->len += n;
  return 0;
}

static int db_fail(struct gcs_stacks_build *b, char *err, size_t errlen) {
  snprintf(err, errlen, "database: storing stacks: %s", sqlite3_errmsg(b->db));
  return -1;
}

int gcs_stacks_store(struct gcs_stacks_build *b, char *err, size_t errlen) {
  if (b->nents == 0 && b->nmethods == 0 && b->native.n == 0) return 0;
  if (b->nmethods) qsort(b->methods, b->nmethods, sizeof *b->methods, cmp_method);
  struct pid_stats *ps = NULL;
  size_t nps = 0, capps = 0;
  int rc = -1;
  struct stk_map addr = { 0 };    /* (pid, ip) -> frames.id (as a 32-bit offset from the first) */
  struct stk_map names = { 0 };   /* (hash of name, 0) chains: checked by reading the name back */
  char **fname = NULL;            /* frame index -> name */
  size_t nframes = 0, capframes = 0;
  int64_t *frow = NULL;           /* frame index -> frames.id */
  struct jbuf j = { 0 };
  sqlite3_stmt *sf = NULL, *ss = NULL, *sy = NULL;
  if (sqlite3_prepare_v2(b->db, "INSERT INTO frames(trace_id, name, resolved) VALUES(?,?,?)", -1, &sf, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(b->db, "INSERT INTO stacks(id, trace_id, pid, depth, truncated, frames) VALUES(?,?,?,?,?,?)", -1,
                         &ss, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(b->db, "INSERT INTO stack_symbols(trace_id, pid, jit_methods, rundown_methods, addresses, "
                         "unresolved, native_modules, native_note) VALUES(?,?,?,?,?,?,?,?)", -1, &sy, NULL) != SQLITE_OK) {
    db_fail(b, err, errlen);
    goto out;
  }
  for (size_t i = 0; i < b->nmethods; i++) {
    struct pid_stats *p = pid_stats(&ps, &nps, &capps, b->methods[i].pid);
    if (!p) goto oom;
    if (b->methods[i].rundown) p->rundown++; else p->jit++;
  }
  for (size_t i = 0; i < b->nents; i++) {
    const struct stk_ent *e = &b->ents[i];
    struct pid_stats *p = pid_stats(&ps, &nps, &capps, e->pid);
    if (!p) goto oom;
    j.len = 0;
    if (jappend(&j, "[") != 0) goto oom;
    for (uint32_t k = 0; k < e->depth; k++) {
      uint64_t ip = b->ips[e->off + k];
      uint32_t *fi = map_get(&addr, (uint64_t)(uint32_t)e->pid, ip);
      uint32_t idx;
      if (fi) {
        idx = *fi;
      } else {
        /* A caller's frame holds a return address: the call is the byte before. */
        const struct stk_method *m = find_method(b, e->pid, ip);
        if (!m && k > 0) m = find_method(b, e->pid, ip - 1);
        char hex[512];
        const char *name = m ? m->name : hex;
        int named = m != NULL;
        if (!m) {
          const char *why = NULL;
          int r = b->native.n ? stk_native_resolve(&b->native, e->pid, ip, k > 0, hex, sizeof hex, &why) : -1;
          if (r < 0) snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)ip);
          named = r > 0;
          if (why && !p->why) p->why = why;
        }
        p->addresses++;
        if (!named) p->unresolved++;
        uint64_t nh = 0xcbf29ce484222325ULL;
        for (const char *c = name; *c; c++) nh = (nh ^ (uint8_t)*c) * 0x100000001b3ULL;
        idx = UINT32_MAX;
        for (uint64_t probe = 0;; probe++) {
          uint32_t *hit = map_get(&names, nh, probe);
          if (!hit) break;
          if (strcmp(fname[*hit], name) == 0) { idx = *hit; break; }
        }
        if (idx == UINT32_MAX) {
          uint64_t probe = 0;
          while (map_get(&names, nh, probe)) probe++;
          if (grow((void **)&fname, &capframes, nframes + 1, sizeof *fname) != 0) goto oom;
          int64_t *nr = realloc(frow, capframes * sizeof *frow);
          if (!nr) goto oom;
          frow = nr;
          if (!(fname[nframes] = strdup(name))) goto oom;
          sqlite3_bind_int64(sf, 1, b->trace_id);
          sqlite3_bind_text(sf, 2, name, -1, SQLITE_STATIC);
          sqlite3_bind_int(sf, 3, named);
          if (sqlite3_step(sf) != SQLITE_DONE) { db_fail(b, err, errlen); goto out; }
          sqlite3_reset(sf);
          frow[nframes] = sqlite3_last_insert_rowid(b->db);
          idx = (uint32_t)nframes++;
          if (map_put(&names, nh, probe, idx) != 0) goto oom;
        }
        if (map_put(&addr, (uint64_t)(uint32_t)e->pid, ip, idx) != 0) goto oom;
      }
      char num[32];
      snprintf(num, sizeof num, "%s%lld", k ? "," : "", (long long)frow[idx]);
      if (jappend(&j, num) != 0) goto oom;
    }
    if (jappend(&j, "]") != 0) goto oom;
    sqlite3_bind_int64(ss, 1, b->base + (int64_t)i + 1);
    sqlite3_bind_int64(ss, 2, b->trace_id);
    sqlite3_bind_int(ss, 3, e->pid);
    sqlite3_bind_int(ss, 4, (int)e->depth);
    sqlite3_bind_int(ss, 5, e->truncated);
    sqlite3_bind_text(ss, 6, j.p, (int)j.len, SQLITE_STATIC);
    if (sqlite3_step(ss) != SQLITE_DONE) { db_fail(b, err, errlen); goto out; }
    sqlite3_reset(ss);
  }
  for (size_t i = 0; i < nps; i++) {
    sqlite3_bind_int64(sy, 1, b->trace_id);
    sqlite3_bind_int(sy, 2, ps[i].pid);
    sqlite3_bind_int64(sy, 3, (int64_t)ps[i].jit);
    sqlite3_bind_int64(sy, 4, (int64_t)ps[i].rundown);
    sqlite3_bind_int64(sy, 5, (int64_t)ps[i].addresses);
    sqlite3_bind_int64(sy, 6, (int64_t)ps[i].unresolved);
    sqlite3_bind_int64(sy, 7, (int64_t)stk_native_modules(&b->native, ps[i].pid));
    if (ps[i].why) sqlite3_bind_text(sy, 8, ps[i].why, -1, SQLITE_STATIC); else sqlite3_bind_null(sy, 8);
    if (sqlite3_step(sy) != SQLITE_DONE) { db_fail(b, err, errlen); goto out; }
    sqlite3_reset(sy);
  }
  rc = 0;
  goto out;
oom:
  snprintf(err, errlen, "out of memory storing stacks");
out:
  sqlite3_finalize(sf);
  sqlite3_finalize(ss);
  sqlite3_finalize(sy);
  for (size_t i = 0; i < nframes; i++) free(fname[i]);
  free(fname);
  free(frow);
  free(addr.s);
  free(names.s);
  free(j.p);
  free(ps);
  return rc;
}
