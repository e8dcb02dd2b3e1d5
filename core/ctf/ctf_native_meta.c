/* ctf_native_meta.c — the subset of TSDL (CTF 1.8 metadata) LTTng writes,
 * parsed into nt_meta (see ctf_native.h). Anything outside the subset, and
 * any malformed text, makes nt_meta_load return 1 with the reason: the
 * caller then reads the trace with libbabeltrace2, which reports its own
 * error for a damaged file. */
#include "ctf_native.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- arena: everything of one trace's metadata, freed at once ---------- */
#define ARENA_CHUNK (256u << 10)
#define ARENA_MAX (256u << 20)
struct chunk { struct chunk *next; size_t used, cap; max_align_t data[]; };

static void *arena_alloc(struct nt_meta *m, size_t n) {
  n = (n + 15) & ~(size_t)15;
  struct chunk *c = m->arena;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
    if (m->arena_used + cap > ARENA_MAX) return NULL;
    c = malloc(sizeof *c + cap);
    if (!c) return NULL;
    c->next = m->arena;
    c->used = 0;
    c->cap = cap;
    m->arena = c;
    m->arena_used += cap;
  }
  void *p = (char *)c->data + c->used;
  c->used += n;
  memset(p, 0, n);
  return p;
}

void nt_meta_free(struct nt_meta *m) {
  for (int i = 0; i < m->nevents; i++) ctf_map_free(&m->events[i].map);
  free(m->events);
  for (int i = 0; i < m->nsc; i++) free(m->sc[i].ev);
  free(m->sc);
  struct chunk *c = m->arena;
  while (c) { struct chunk *n = c->next; free(c); c = n; }
  memset(m, 0, sizeof *m);
}

/* ---- tokens ------------------------------------------------------------- */
enum tk { T_END, T_ID, T_NUM, T_STR, T_PUN };
struct lex {
  const char *s, *e;
  enum tk t;
  const char *tok;          /* T_ID/T_PUN: start; T_STR: decoded in buf */
  size_t len;
  uint64_t num; int neg;     /* T_NUM */
  char buf[4096];
  struct nt_meta *m;
  int trace_be;
  char *why;                 /* unsupported: the reason */
  size_t whylen;
  int failed;
};

static int fail(struct lex *L, const char *fmt, ...) {
  if (!L->failed && L->t == T_END) {
    /* the text ended inside a declaration: a file cut short, not a
     * construct outside the subset */
    snprintf(L->why, L->whylen, "cut short (the text ends inside a declaration)");
  } else if (!L->failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->why, L->whylen, fmt, ap);
    va_end(ap);
    for (char *c = L->why; *c; c++)   /* excerpts of the text: one printable line */
      if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  }
  L->failed = 1;
  return -1;
}

static void next(struct lex *L) {
  const char *p = L->s;
  for (;;) {
    while (p < L->e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v')) p++;
    if (p + 1 < L->e && p[0] == '/' && p[1] == '*') {
      const char *q = p + 2;
      while (q + 1 < L->e && !(q[0] == '*' && q[1] == '/')) q++;
      if (q + 1 >= L->e) { L->t = T_END; L->s = L->e; fail(L, "metadata: unterminated comment"); return; }
      p = q + 2;
      continue;
    }
    if (p + 1 < L->e && p[0] == '/' && p[1] == '/') {
      while (p < L->e && *p != '\n') p++;
      continue;
    }
    break;
  }
  L->tok = p;
  if (p >= L->e) { L->t = T_END; L->s = p; L->len = 0; return; }
  char c = *p;
  if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
    const char *q = p;
    while (q < L->e && (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9'))) q++;
    L->t = T_ID; L->len = (size_t)(q - p); L->s = q;
    return;
  }
  if ((c >= '0' && c <= '9') || (c == '-' && p + 1 < L->e && p[1] >= '0' && p[1] <= '9')) {
    const char *q = p;
    L->neg = 0;
    if (*q == '-') { L->neg = 1; q++; }
    uint64_t v = 0;
    int base = 10;
    if (q + 1 < L->e && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) { base = 16; q += 2; }
    else if (q + 1 < L->e && q[0] == '0' && q[1] >= '0' && q[1] <= '7') { base = 8; q++; }
    int nd = 0;
    for (; q < L->e; q++) {
      int d;
      if (*q >= '0' && *q <= '9') d = *q - '0';
      else if (base == 16 && *q >= 'a' && *q <= 'f') d = *q - 'a' + 10;
      else if (base == 16 && *q >= 'A' && *q <= 'F') d = *q - 'A' + 10;
      else break;
      if (d >= base) break;
      if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) { fail(L, "metadata: number out of range"); L->t = T_END; return; }
      v = v * (uint64_t)base + (uint64_t)d;
      nd++;
    }
    while (q < L->e && (*q == 'u' || *q == 'U' || *q == 'l' || *q == 'L')) q++;
    if (!nd && base == 16) { fail(L, "metadata: bad number"); L->t = T_END; return; }
    L->t = T_NUM; L->num = v; L->s = q; L->len = (size_t)(q - p);
    return;
  }
  if (c == '"') {
    const char *q = p + 1;
    size_t n = 0;
    while (q < L->e && *q != '"') {
      char ch = *q++;
      if (ch == '\\' && q < L->e) {
        ch = *q++;
        if (ch == 'n') ch = '\n';
        else if (ch == 't') ch = '\t';
      }
      if (n + 1 < sizeof L->buf) L->buf[n++] = ch;
    }
    if (q >= L->e) { fail(L, "metadata: unterminated string"); L->t = T_END; return; }
    L->buf[n] = 0;
    L->t = T_STR; L->len = n; L->s = q + 1;
    return;
  }
  L->t = T_PUN;
  if (p + 1 < L->e && p[0] == ':' && p[1] == '=') L->len = 2;
  else if (p + 2 < L->e && p[0] == '.' && p[1] == '.' && p[2] == '.') L->len = 3;
  else L->len = 1;
  L->s = p + L->len;
}

static int is(const struct lex *L, const char *w) {
  size_t n = strlen(w);
  return (L->t == T_ID || L->t == T_PUN) && L->len == n && memcmp(L->tok, w, n) == 0;
}
static int expect(struct lex *L, const char *w) {
  if (!is(L, w)) return fail(L, "metadata: expected '%s' before '%.*s'", w, (int)(L->len > 40 ? 40 : L->len), L->tok);
  next(L);
  return 0;
}
static char *dup_tok(struct lex *L) {
  const char *src = L->t == T_STR ? L->buf : L->tok;
  char *d = arena_alloc(L->m, L->len + 1);
  if (!d) { fail(L, "metadata: too large"); return NULL; }
  memcpy(d, src, L->len);
  d[L->len] = 0;
  return d;
}

/* ---- type names ---------------------------------------------------------- */
struct alias { const char *name; struct nt_type *t; struct alias *next; };
struct pstate {
  struct lex L;
  struct alias *aliases;
  int depth;
  const char *clock_name;
};

static struct nt_type *alias_find(struct pstate *P, const char *name) {
  for (struct alias *a = P->aliases; a; a = a->next)
    if (strcmp(a->name, name) == 0) return a->t;
  return NULL;
}
static int alias_add(struct pstate *P, const char *name, struct nt_type *t) {
  struct alias *a = arena_alloc(P->L.m, sizeof *a);
  if (!a) return fail(&P->L, "metadata: too large");
  a->name = name; a->t = t; a->next = P->aliases; P->aliases = a;
  return 0;
}

static struct nt_type *new_type(struct pstate *P, enum nt_kind k) {
  struct nt_type *t = arena_alloc(P->L.m, sizeof *t);
  if (!t) { fail(&P->L, "metadata: too large"); return NULL; }
  t->k = k;
  t->align = 8;
  return t;
}

static int pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* `key = value;` inside integer/floating_point/string braces. */
static int int_attrs(struct pstate *P, struct nt_type *t, int is_float) {
  struct lex *L = &P->L;
  if (expect(L, "{")) return -1;
  uint64_t exp = 0, mant = 0;
  int have_size = 0, have_align = 0;
  t->be = 2;   /* native */
  while (!is(L, "}")) {
    if (L->t != T_ID) return fail(L, "metadata: bad attribute");
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)(L->len < 31 ? L->len : 31), L->tok);
    next(L);
    if (expect(L, "=")) return -1;
    if (strcmp(key, "map") == 0) {
      /* clock.NAME.value */
      if (!is(L, "clock")) return fail(L, "metadata: unsupported map");
      next(L);
      if (expect(L, ".")) return -1;
      if (L->t != T_ID) return fail(L, "metadata: bad map");
      if (P->clock_name && (strlen(P->clock_name) != L->len || memcmp(P->clock_name, L->tok, L->len)))
        return fail(L, "metadata: integer mapped to an unknown clock");
      next(L);
      if (expect(L, ".") || !is(L, "value")) return fail(L, "metadata: bad map");
      next(L);
      t->clock = 1;
    } else if (L->t == T_NUM || L->t == T_ID || L->t == T_STR) {
      uint64_t v = L->num;
      int isnum = L->t == T_NUM && !L->neg;
      int truth = isnum ? v != 0 : (is(L, "true") || is(L, "TRUE"));
      if (strcmp(key, "size") == 0) { if (!isnum) return fail(L, "metadata: bad size"); t->size = (uint32_t)(v > 1000 ? 1000 : v); have_size = 1; }
      else if (strcmp(key, "align") == 0) {
        if (!isnum || !pow2(v) || v > 65536) return fail(L, "metadata: unsupported alignment");
        t->align = (uint32_t)v; have_align = 1;
      } else if (strcmp(key, "signed") == 0) t->sign = (uint8_t)truth;
      else if (strcmp(key, "byte_order") == 0) {
        if (is(L, "be") || is(L, "network")) t->be = 1;
        else if (is(L, "le")) t->be = 0;
        else if (is(L, "native")) t->be = 2;
        else return fail(L, "metadata: bad byte_order");
      } else if (strcmp(key, "encoding") == 0) t->text = (uint8_t)(is(L, "UTF8") || is(L, "utf8") || is(L, "ASCII") || is(L, "ascii"));
      else if (strcmp(key, "exp_dig") == 0 && isnum) exp = v;
      else if (strcmp(key, "mant_dig") == 0 && isnum) mant = v;
      else if (strcmp(key, "base") != 0) return fail(L, "metadata: unsupported attribute %s", key);
      next(L);
    } else return fail(L, "metadata: bad attribute value");
    if (expect(L, ";")) return -1;
  }
  next(L);
  if (t->be == 2) t->be = (uint8_t)P->L.trace_be;
  if (is_float) {
    if (exp + mant != 32 && exp + mant != 64) return fail(L, "metadata: unsupported floating_point");
    t->size = (uint32_t)(exp + mant);
    if (!have_align) t->align = 8;
  } else if (t->k == NT_INT) {
    if (!have_size || t->size < 1 || t->size > 64) return fail(L, "metadata: unsupported integer size");
    if (!have_align) t->align = t->size % 8 ? 1 : 8;
  }
  return 0;
}

static struct nt_type *parse_type(struct pstate *P);
static int parse_struct_body(struct pstate *P, struct nt_type *t, int variant);

/* A structure's flat form, if it has one (see struct nt_flat). */
static int flat_int(const struct nt_type *t) {
  return t->k == NT_INT && !t->be && (t->size == 8 || t->size == 16 || t->size == 32 || t->size == 64) &&
         t->align >= 8 && t->align <= t->size;
}
static void make_flat(struct pstate *P, struct nt_type *t) {
  if (t->nmem > 32767 || t->align < 8) return;
  for (int i = 0; i < t->nmem; i++) {
    const struct nt_type *c = t->mem[i].t;
    if (flat_int(c) || c->k == NT_STRING) continue;
    if (c->k == NT_FLOAT && c->align >= 8 && c->align <= c->size) continue;
    if ((c->k == NT_ARRAY || c->k == NT_SEQ) && flat_int(c->elem)) continue;
    return;
  }
  struct nt_flat *f = arena_alloc(P->L.m, (size_t)(t->nmem ? t->nmem : 1) * sizeof *f);
  if (!f) return;
  for (int i = 0; i < t->nmem; i++) {
    const struct nt_type *c = t->mem[i].t;
    struct nt_flat *o = &f[i];
    o->ref = (int16_t)t->mem[i].ref;
    o->alignb = (uint8_t)(c->k == NT_STRING ? 1 : (c->k == NT_ARRAY || c->k == NT_SEQ ? c->elem->align : c->align) / 8);
    if (c->k == NT_INT) { o->op = c->sign ? F_S : F_U; o->bytes = (uint8_t)(c->size / 8); }
    else if (c->k == NT_FLOAT) { o->op = F_FLOAT; o->bytes = (uint8_t)(c->size / 8); }
    else if (c->k == NT_STRING) o->op = F_STR;
    else { o->op = c->k == NT_ARRAY ? F_ARR : F_SEQ; o->bytes = (uint8_t)(c->elem->size / 8); o->len = c->len; }
  }
  t->flat = f;
}

/* Sizes and value slots, once a compound type is complete. */
static int finish(struct pstate *P, struct nt_type *t) {
  switch (t->k) {
  case NT_INT: case NT_FLOAT: t->minbits = t->size; t->nvals = 0; break;
  case NT_STRING: t->minbits = 8; t->nvals = 0; break;
  case NT_STRUCT: {
    uint64_t mb = 0;
    uint32_t nv = 0, al = t->align;
    for (int i = 0; i < t->nmem; i++) {
      const struct nt_type *c = t->mem[i].t;
      mb += c->minbits;
      if (mb > (1ull << 40)) mb = 1ull << 40;
      if (c->nvals > nv) nv = c->nvals;
      if (c->align > al) al = c->align;
    }
    t->minbits = mb;
    t->align = al;
    t->nvals = (uint32_t)t->nmem + nv;
    break;  /* flat form: once the references are resolved (parse_struct_body's caller) */
  }
  case NT_VARIANT: {
    uint64_t mb = UINT64_MAX;
    uint32_t nv = 0;
    for (int i = 0; i < t->nmem; i++) {
      if (t->mem[i].t->minbits < mb) mb = t->mem[i].t->minbits;
      if (t->mem[i].t->nvals > nv) nv = t->mem[i].t->nvals;
    }
    t->minbits = t->nmem ? mb : 0;
    t->nvals = nv + 1;
    t->align = 1;
    break;
  }
  case NT_ARRAY: case NT_SEQ: {
    if (t->elem->minbits == 0) return fail(&P->L, "metadata: unsupported array of empty elements");
    t->align = t->elem->align;
    t->minbits = t->k == NT_ARRAY ? (t->len > (1ull << 40) / t->elem->minbits ? 1ull << 40 : t->len * t->elem->minbits) : 0;
    t->nvals = t->elem->nvals + 1;
    break;
  }
  }
  if (t->nvals > NT_VALS_MAX) return fail(&P->L, "metadata: structures too large");
  return 0;
}

/* A declarator's array suffixes: NAME[17], NAME[len_field] (innermost last). */
static struct nt_type *declarator_suffix(struct pstate *P, struct nt_type *base) {
  struct lex *L = &P->L;
  if (!is(L, "[")) return base;
  next(L);
  struct nt_type *a;
  if (L->t == T_NUM && !L->neg) {
    a = new_type(P, NT_ARRAY);
    if (!a) return NULL;
    a->len = L->num;
    next(L);
  } else if (L->t == T_ID) {
    a = new_type(P, NT_SEQ);
    if (!a) return NULL;
    a->tag = dup_tok(L);
    next(L);
    if (is(L, ".")) { fail(L, "metadata: unsupported sequence length path"); return NULL; }
  } else { fail(L, "metadata: bad array length"); return NULL; }
  if (expect(L, "]")) return NULL;
  a->elem = declarator_suffix(P, base);
  if (!a->elem || finish(P, a)) return NULL;
  return a;
}

static const char *bt_name(const char *n) { return n[0] == '_' ? n + 1 : n; }

/* members of a struct, or options of a variant, up to and including '}' */
static int parse_struct_body(struct pstate *P, struct nt_type *t, int variant) {
  struct lex *L = &P->L;
  if (expect(L, "{")) return -1;
  int cap = 8;
  t->mem = arena_alloc(L->m, (size_t)cap * sizeof *t->mem);
  if (!t->mem) return fail(L, "metadata: too large");
  while (!is(L, "}")) {
    if (L->t == T_END) return fail(L, "metadata: unexpected end");
    struct nt_type *mt = parse_type(P);
    if (!mt) return -1;
    for (;;) {
      if (L->t != T_ID) return fail(L, "metadata: expected a member name");
      const char *name = dup_tok(L);
      if (!name) return -1;
      next(L);
      struct nt_type *dt = declarator_suffix(P, mt);
      if (!dt) return -1;
      if (t->nmem == NT_MEMBERS_MAX) return fail(L, "metadata: too many members");
      if (t->nmem == cap) {
        struct nt_member *nm = arena_alloc(L->m, (size_t)cap * 2 * sizeof *nm);
        if (!nm) return fail(L, "metadata: too large");
        memcpy(nm, t->mem, (size_t)cap * sizeof *nm);
        t->mem = nm;
        cap *= 2;
      }
      struct nt_member *mm = &t->mem[t->nmem++];
      mm->name = name;
      mm->bname = bt_name(name);
      mm->t = dt;
      mm->ref = -1;
      if (!variant && (dt->k == NT_SEQ || dt->k == NT_VARIANT)) {
        if (!dt->tag) return fail(L, "metadata: unsupported untagged variant");
        for (int i = 0; i < t->nmem - 1; i++)
          if (strcmp(t->mem[i].name, dt->tag) == 0) mm->ref = i;
        if (mm->ref < 0) return fail(L, "metadata: unsupported length/tag reference %s", dt->tag);
        const struct nt_type *rt = t->mem[mm->ref].t;
        if (rt->k != NT_INT || (dt->k == NT_SEQ && rt->sign) || (dt->k == NT_VARIANT && !rt->nranges))
          return fail(L, "metadata: unsupported length/tag %s", dt->tag);
      }
      if (variant && (dt->k == NT_SEQ || dt->k == NT_VARIANT))
        return fail(L, "metadata: unsupported variant option");
      if (is(L, ",")) { next(L); continue; }
      break;
    }
    if (expect(L, ";")) return -1;
  }
  next(L);
  return 0;
}

static struct nt_type *parse_type(struct pstate *P) {
  struct lex *L = &P->L;
  if (++P->depth > NT_DEPTH_MAX) { fail(L, "metadata: types nested too deep"); return NULL; }
  struct nt_type *t = NULL;
  if (is(L, "integer") || is(L, "floating_point")) {
    int fl = is(L, "floating_point");
    next(L);
    t = new_type(P, fl ? NT_FLOAT : NT_INT);
    if (!t || int_attrs(P, t, fl) || finish(P, t)) t = NULL;
  } else if (is(L, "string")) {
    next(L);
    t = new_type(P, NT_STRING);
    if (t && is(L, "{")) {
      struct nt_type tmp = { .k = NT_STRING };
      if (int_attrs(P, &tmp, 0)) t = NULL;
    }
    if (t && finish(P, t)) t = NULL;
  } else if (is(L, "enum")) {
    next(L);
    const char *name = NULL;
    if (L->t == T_ID) { name = dup_tok(L); next(L); }
    if (!is(L, ":")) {
      char key[300];
      snprintf(key, sizeof key, "enum %s", name ? name : "");
      t = name ? alias_find(P, key) : NULL;
      if (!t) fail(L, "metadata: unknown enum");
      goto out;
    }
    next(L);
    struct nt_type *base = parse_type(P);
    if (!base || base->k != NT_INT) { fail(L, "metadata: enum of a non-integer"); goto out; }
    t = new_type(P, NT_INT);
    if (!t) goto out;
    *t = *base;
    if (expect(L, "{")) { t = NULL; goto out; }
    int cap = 8;
    t->ranges = arena_alloc(L->m, (size_t)cap * sizeof *t->ranges);
    t->nranges = 0;
    int64_t nextv = 0;
    while (t->ranges && !is(L, "}")) {
      if (L->t != T_ID && L->t != T_STR) { fail(L, "metadata: bad enum entry"); t = NULL; goto out; }
      const char *label = dup_tok(L);
      next(L);
      int64_t lo = nextv, hi = nextv;
      if (is(L, "=")) {
        next(L);
        if (L->t != T_NUM) { fail(L, "metadata: bad enum value"); t = NULL; goto out; }
        lo = hi = L->neg ? -(int64_t)L->num : (int64_t)L->num;
        next(L);
        if (is(L, "...")) {
          next(L);
          if (L->t != T_NUM) { fail(L, "metadata: bad enum range"); t = NULL; goto out; }
          hi = L->neg ? -(int64_t)L->num : (int64_t)L->num;
          next(L);
        }
      }
      nextv = hi + 1;
      if (t->nranges == NT_MEMBERS_MAX) { fail(L, "metadata: enum too large"); t = NULL; goto out; }
      if (t->nranges == cap) {
        struct nt_range *nr = arena_alloc(L->m, (size_t)cap * 2 * sizeof *nr);
        if (!nr) { fail(L, "metadata: too large"); t = NULL; goto out; }
        memcpy(nr, t->ranges, (size_t)cap * sizeof *nr);
        t->ranges = nr;
        cap *= 2;
      }
      t->ranges[t->nranges++] = (struct nt_range){ lo, hi, label };
      if (is(L, ",")) next(L);
      else if (!is(L, "}")) { fail(L, "metadata: bad enum"); t = NULL; goto out; }
    }
    if (!t->ranges) { fail(L, "metadata: too large"); t = NULL; goto out; }
    next(L);
    if (name) {
      char key[300];
      snprintf(key, sizeof key, "enum %s", name);
      const char *k = arena_alloc(L->m, strlen(key) + 1);
      if (!k || alias_add(P, strcpy((char *)k, key), t)) t = NULL;
    }
  } else if (is(L, "struct") || is(L, "variant")) {
    int var = is(L, "variant");
    next(L);
    const char *name = NULL, *tag = NULL;
    if (L->t == T_ID) { name = dup_tok(L); next(L); }
    if (var && is(L, "<")) {
      next(L);
      if (L->t != T_ID) { fail(L, "metadata: bad variant tag"); goto out; }
      tag = dup_tok(L);
      next(L);
      if (is(L, ".")) { fail(L, "metadata: unsupported variant tag path"); goto out; }
      if (expect(L, ">")) goto out;
    }
    char key[300];
    snprintf(key, sizeof key, "%s %s", var ? "variant" : "struct", name ? name : "");
    if (!is(L, "{")) {
      struct nt_type *ref = name ? alias_find(P, key) : NULL;
      if (!ref) { fail(L, "metadata: unknown %s", key); goto out; }
      if (var) {
        if (!tag) { fail(L, "metadata: unsupported untagged variant"); goto out; }
        t = new_type(P, NT_VARIANT);
        if (t) { *t = *ref; t->tag = tag; }
      } else t = ref;
      goto out;
    }
    t = new_type(P, var ? NT_VARIANT : NT_STRUCT);
    if (!t) goto out;
    t->align = 1;
    t->tag = tag;
    if (parse_struct_body(P, t, var)) { t = NULL; goto out; }
    if (!var && is(L, "align")) {
      next(L);
      if (expect(L, "(")) { t = NULL; goto out; }
      if (L->t != T_NUM || L->neg || !pow2(L->num) || L->num > 65536) { fail(L, "metadata: unsupported alignment"); t = NULL; goto out; }
      t->align = (uint32_t)L->num;
      next(L);
      if (expect(L, ")")) { t = NULL; goto out; }
    }
    uint32_t explicit_align = t->align;
    if (finish(P, t)) { t = NULL; goto out; }
    if (explicit_align > t->align) t->align = explicit_align;
    if (!var) make_flat(P, t);
    if (name) {
      const char *k = arena_alloc(L->m, strlen(key) + 1);
      if (!k || alias_add(P, strcpy((char *)k, key), t)) t = NULL;
    }
  } else if (L->t == T_ID) {
    /* a type name: identifiers. Followed by ';', ',' or '[', the last one
     * is a declarator (the caller reads it again). */
    char name[256] = "";
    const char *last = NULL;
    size_t prev_len = 0;
    int n = 0;
    while (L->t == T_ID && n < 8) {
      prev_len = strlen(name);
      last = L->tok;
      snprintf(name + prev_len, sizeof name - prev_len, "%s%.*s", prev_len ? " " : "",
               (int)(L->len < 60 ? L->len : 60), L->tok);
      next(L);
      n++;
    }
    if (n > 1 && (is(L, ";") || is(L, ",") || is(L, "["))) {
      name[prev_len] = 0;   /* the last identifier is the declarator */
      L->s = last;
      next(L);
    }
    t = alias_find(P, name);
    if (!t) fail(L, "metadata: unknown type %s", name);
  } else fail(L, "metadata: expected a type");
out:
  P->depth--;
  return L->failed ? NULL : t;
}

/* ---- blocks -------------------------------------------------------------- */
static struct nt_type *type_assign(struct pstate *P) {
  if (expect(&P->L, ":=")) return NULL;
  struct nt_type *t = parse_type(P);
  if (t && t->k != NT_STRUCT) { fail(&P->L, "metadata: scope is not a structure"); return NULL; }
  return t;
}

static int member_idx(const struct nt_type *st, const char *bname, int want_int) {
  if (!st) return -1;
  for (int i = 0; i < st->nmem; i++)
    if (strcmp(st->mem[i].bname, bname) == 0) {
      if (want_int && st->mem[i].t->k != NT_INT) return -1;
      return i;
    }
  return -1;
}

/* key path: a.b.c → "a.b.c" */
static int read_key(struct lex *L, char *key, size_t n) {
  key[0] = 0;
  for (;;) {
    if (L->t != T_ID) return fail(L, "metadata: expected a key");
    size_t k = strlen(key);
    snprintf(key + k, n - k, "%.*s", (int)L->len, L->tok);
    next(L);
    if (!is(L, ".")) return 0;
    next(L);
    k = strlen(key);
    snprintf(key + k, n - k, ".");
  }
}

static int parse_uuid(const char *s, uint8_t out[16]) {
  int n = 0;
  for (const char *p = s; *p && n < 32; p++) {
    if (*p == '-') continue;
    int d;
    if (*p >= '0' && *p <= '9') d = *p - '0';
    else if (*p >= 'a' && *p <= 'f') d = *p - 'a' + 10;
    else if (*p >= 'A' && *p <= 'F') d = *p - 'A' + 10;
    else return -1;
    if (n % 2 == 0) out[n / 2] = (uint8_t)(d << 4); else out[n / 2] |= (uint8_t)d;
    n++;
  }
  return n == 32 ? 0 : -1;
}

struct ev_tmp { struct nt_event e; uint64_t stream_id; struct ev_tmp *next; };
struct sc_tmp { struct nt_stream_class s; struct sc_tmp *next; };

/* the shape of LTTng's event headers: 1 compact, 2 large, 0 other */
static int header_form(const struct nt_type *h) {
  if (!h || h->nmem != 2) return 0;
  const struct nt_type *id = h->mem[0].t, *v = h->mem[1].t;
  if (strcmp(h->mem[0].name, "id") || id->k != NT_INT || id->sign || id->be || !id->nranges) return 0;
  if (v->k != NT_VARIANT || h->mem[1].ref != 0 || v->nmem != 2) return 0;
  const struct nt_type *c = NULL, *x = NULL;
  for (int i = 0; i < 2; i++) {
    if (strcmp(v->mem[i].name, "compact") == 0) c = v->mem[i].t;
    if (strcmp(v->mem[i].name, "extended") == 0) x = v->mem[i].t;
  }
  if (!c || !x || c->k != NT_STRUCT || x->k != NT_STRUCT || c->nmem != 1 || x->nmem != 2) return 0;
  const struct nt_type *cts = c->mem[0].t, *xid = x->mem[0].t, *xts = x->mem[1].t;
  if (strcmp(c->mem[0].name, "timestamp") || strcmp(x->mem[0].name, "id") || strcmp(x->mem[1].name, "timestamp")) return 0;
  if (cts->k != NT_INT || !cts->clock || cts->be || cts->sign) return 0;
  if (xid->k != NT_INT || xid->size != 32 || xid->align != 8 || xid->be || xid->sign) return 0;
  if (xts->k != NT_INT || !xts->clock || xts->size != 64 || xts->align != 8 || xts->be || xts->sign) return 0;
  /* the enum: compact = 0 ... max-1, extended = max */
  int form = 0;
  if (id->size == 5 && id->align == 1 && cts->size == 27 && cts->align == 1) form = 1;
  else if (id->size == 16 && id->align == 8 && cts->size == 32 && cts->align == 8) form = 2;
  if (!form) return 0;
  int64_t ext = form == 1 ? 31 : 65535;
  int ok_c = 0, ok_x = 0;
  for (int i = 0; i < id->nranges; i++) {
    const struct nt_range *r = &id->ranges[i];
    if (strcmp(r->label, "compact") == 0 && r->lo == 0 && r->hi == ext - 1) ok_c = 1;
    else if (strcmp(r->label, "extended") == 0 && r->lo == ext && r->hi == ext) ok_x = 1;
    else return 0;
  }
  return ok_c && ok_x ? form : 0;
}

static int parse_all(struct pstate *P, struct ev_tmp **evs, struct sc_tmp **scs) {
  struct lex *L = &P->L;
  struct nt_meta *m = L->m;
  int have_trace = 0;
  next(L);
  while (L->t != T_END && !L->failed) {
    if (is(L, "typealias")) {
      next(L);
      struct nt_type *t = parse_type(P);
      if (!t || expect(L, ":=")) return -1;
      char name[256] = "";
      while (L->t == T_ID) {
        size_t k = strlen(name);
        snprintf(name + k, sizeof name - k, "%s%.*s", k ? " " : "", (int)(L->len < 100 ? L->len : 100), L->tok);
        next(L);
      }
      if (!name[0]) return fail(L, "metadata: bad typealias");
      char *n = arena_alloc(m, strlen(name) + 1);
      if (!n || alias_add(P, strcpy(n, name), t)) return -1;
      if (expect(L, ";")) return -1;
    } else if (is(L, "typedef")) {
      next(L);
      struct nt_type *t = parse_type(P);
      if (!t || L->t != T_ID) return fail(L, "metadata: bad typedef");
      const char *n = dup_tok(L);
      next(L);
      if (!n || alias_add(P, n, t) || expect(L, ";")) return -1;
    } else if (is(L, "struct") || is(L, "enum") || is(L, "variant")) {
      if (!parse_type(P) || expect(L, ";")) return -1;
    } else if (is(L, "trace") || is(L, "env") || is(L, "clock") || is(L, "stream") || is(L, "event") ||
               is(L, "callsite")) {
      char blk[16];
      snprintf(blk, sizeof blk, "%.*s", (int)L->len, L->tok);
      next(L);
      if (expect(L, "{")) return -1;
      struct ev_tmp *ev = NULL;
      struct sc_tmp *sc = NULL;
      if (strcmp(blk, "event") == 0) {
        ev = arena_alloc(m, sizeof *ev);
        if (!ev) return fail(L, "metadata: too large");
        ev->e.name = "";
        ev->next = *evs;
        *evs = ev;
      } else if (strcmp(blk, "stream") == 0) {
        sc = arena_alloc(m, sizeof *sc);
        if (!sc) return fail(L, "metadata: too large");
        sc->next = *scs;
        *scs = sc;
      } else if (strcmp(blk, "clock") == 0) {
        if (m->has_clock) return fail(L, "metadata: unsupported: more than one clock");
        m->has_clock = 1;
        m->freq = 1000000000;
      } else if (strcmp(blk, "trace") == 0) have_trace = 1;
      while (!is(L, "}")) {
        if (L->failed || L->t == T_END) return fail(L, "metadata: unexpected end");
        char key[128];
        if (read_key(L, key, sizeof key)) return -1;
        if (is(L, ":=")) {
          struct nt_type *t = type_assign(P);
          if (!t) return -1;
          if (strcmp(blk, "trace") == 0 && strcmp(key, "packet.header") == 0) m->phdr = t;
          else if (sc && strcmp(key, "event.header") == 0) sc->s.hdr = t;
          else if (sc && strcmp(key, "packet.context") == 0) sc->s.pctx = t;
          else if (sc && strcmp(key, "event.context") == 0) sc->s.ectx = t;
          else if (ev && strcmp(key, "fields") == 0) ev->e.payload = t;
          else if (ev && strcmp(key, "context") == 0) ev->e.ctx = t;
          else return fail(L, "metadata: unsupported scope %s.%s", blk, key);
        } else {
          if (expect(L, "=")) return -1;
          int isnum = L->t == T_NUM, neg = L->neg;
          uint64_t v = L->num;
          const char *sv = NULL;
          if (L->t == T_STR || L->t == T_ID) sv = dup_tok(L);
          else if (!isnum) return fail(L, "metadata: bad value for %s", key);
          next(L);
          if (strcmp(blk, "trace") == 0) {
            if (strcmp(key, "major") == 0 && (!isnum || v != 1)) return fail(L, "metadata: unsupported CTF major version");
            if (strcmp(key, "uuid") == 0) { if (!sv || parse_uuid(sv, m->uuid)) return fail(L, "metadata: bad uuid"); m->has_uuid = 1; }
            if (strcmp(key, "byte_order") == 0 && sv) {
              int be = strcmp(sv, "be") == 0 || strcmp(sv, "network") == 0;
              if (be != L->trace_be) return fail(L, "metadata: byte order declared after its use");
            }
          } else if (strcmp(blk, "env") == 0) {
            if (strcmp(key, "hostname") == 0 && sv) m->hostname = sv;
            else if (strcmp(key, "procname") == 0 && sv) m->procname = sv;
            else if (strcmp(key, "vpid") == 0 && isnum) { m->has_vpid = 1; m->vpid = neg ? -(int64_t)v : (int64_t)v; }
          } else if (strcmp(blk, "clock") == 0) {
            if (strcmp(key, "name") == 0 && sv) P->clock_name = sv;
            else if (strcmp(key, "freq") == 0) { if (!isnum || neg || !v) return fail(L, "metadata: bad clock frequency"); m->freq = v; }
            else if (strcmp(key, "offset") == 0) { if (!isnum || neg) return fail(L, "metadata: bad clock offset"); m->offset = v; }
            else if (strcmp(key, "offset_s") == 0) {
              if (!isnum || v > INT64_MAX) return fail(L, "metadata: bad clock offset_s");
              m->offset_s = neg ? -(int64_t)v : (int64_t)v;
            }
          } else if (sc) {
            if (strcmp(key, "id") == 0) { if (!isnum || neg) return fail(L, "metadata: bad stream id"); sc->s.id = v; }
          } else if (ev) {
            if (strcmp(key, "name") == 0 && sv) ev->e.name = sv;
            else if (strcmp(key, "id") == 0) { if (!isnum || neg) return fail(L, "metadata: bad event id"); ev->e.id = v; }
            else if (strcmp(key, "stream_id") == 0) { if (!isnum || neg) return fail(L, "metadata: bad stream id"); ev->stream_id = v; }
          }
        }
        if (expect(L, ";")) return -1;
      }
      next(L);
      if (expect(L, ";")) return -1;
    } else if (is(L, ";")) {
      next(L);
    } else return fail(L, "metadata: unsupported declaration '%.*s'", (int)(L->len > 40 ? 40 : L->len), L->tok);
  }
  if (L->failed) return -1;
  if (!have_trace) {   /* (at the end of the text, yet not cut short) */
    snprintf(L->why, L->whylen, "metadata: no trace block");
    L->failed = 1;
    return -1;
  }
  return 0;
}

/* Metadata file → text (packetized or plain). Returns 0, 1 unsupported. */
static int read_metadata(const char *path, char **out, size_t *outlen, char *why, size_t whylen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) { snprintf(why, whylen, "%s: %s", path, strerror(errno)); return 1; }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { close(fd); snprintf(why, whylen, "%s: not a file", path); return 1; }
  if ((uint64_t)st.st_size > 4ull * NT_META_MAX) { close(fd); snprintf(why, whylen, "%s: metadata too large", path); return 1; }
  size_t n = (size_t)st.st_size;
  uint8_t *raw = malloc(n + 1);
  if (!raw) { close(fd); snprintf(why, whylen, "out of memory"); return 1; }
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, raw + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  n = got;
  /* Nothing to describe the streams: no reader can read the trace (an
   * error, not libbabeltrace2's "Cannot create trace"). */
  if (n == 0) { free(raw); snprintf(why, whylen, "%s: empty file (a trace's metadata describes its streams: none can be read)", path); return -1; }
  int be = -1;
  if (n >= 4 && raw[0] == 0x57 && raw[1] == 0x1d && raw[2] == 0xd1 && raw[3] == 0x75) be = 0;
  if (n >= 4 && raw[0] == 0x75 && raw[1] == 0xd1 && raw[2] == 0x1d && raw[3] == 0x57) be = 1;
  if (be < 0) {
    if (n < 12 || memcmp(raw, "/* CTF 1.8", 10) != 0) { free(raw); snprintf(why, whylen, "%s: not CTF 1.8 metadata", path); return 1; }
    if (n > NT_META_MAX) { free(raw); snprintf(why, whylen, "%s: metadata too large", path); return 1; }
    raw[n] = 0;
    *out = (char *)raw;
    *outlen = n;
    return 0;
  }
  char *text = malloc(n + 1);
  if (!text) { free(raw); snprintf(why, whylen, "out of memory"); return 1; }
  size_t tl = 0, off = 0;
  /* A packetized metadata file damaged (cut short, a packet past its end):
   * an error (-1), not a fallback: libbabeltrace2 2.0.4 spins on a cut one. */
  while (off < n) {
    if (n - off < 37) {
      free(raw); free(text);
      snprintf(why, whylen, "%s: metadata packet at offset %zu: cut short (%zu bytes of its 37-byte header)", path, off, n - off);
      return -1;
    }
    const uint8_t *h = raw + off;
#define RD32(p) (be ? ((uint32_t)(p)[0] << 24 | (uint32_t)(p)[1] << 16 | (uint32_t)(p)[2] << 8 | (p)[3]) \
                    : ((uint32_t)(p)[3] << 24 | (uint32_t)(p)[2] << 16 | (uint32_t)(p)[1] << 8 | (p)[0]))
    if (RD32(h) != 0x75D11D57u) { free(raw); free(text); snprintf(why, whylen, "%s: metadata packet at offset %zu: bad magic", path, off); return -1; }
    uint32_t content = RD32(h + 24), psize = RD32(h + 28);
#undef RD32
    if (h[32] || h[33] || h[34]) { free(raw); free(text); snprintf(why, whylen, "%s: compressed, encrypted or checksummed metadata", path); return 1; }
    if (content % 8 || psize % 8 || content < 37 * 8 || content > psize) {
      free(raw); free(text);
      snprintf(why, whylen, "%s: metadata packet at offset %zu: bad sizes (content %u bits, packet %u bits)", path, off,
               content, psize);
      return -1;
    }
    if (psize / 8 > n - off) {
      free(raw); free(text);
      snprintf(why, whylen, "%s: metadata packet at offset %zu: packet size %u bytes past the end of the file (%zu bytes left)",
               path, off, psize / 8, n - off);
      return -1;
    }
    size_t len = content / 8 - 37;
    memcpy(text + tl, h + 37, len);
    tl += len;
    off += psize / 8;
  }
  free(raw);
  if (tl > NT_META_MAX) { free(text); snprintf(why, whylen, "%s: metadata too large", path); return 1; }
  text[tl] = 0;
  /* NULs inside the text (padding) end it */
  *outlen = strlen(text);
  *out = text;
  return 0;
}

/* The trace byte order, before the types that depend on it are read. */
static int prescan_be(const char *s, size_t n) {
  struct lex L = { .s = s, .e = s + n };
  char why[8];
  L.why = why; L.whylen = sizeof why;
  int depth = 0, in_trace = 0;
  for (next(&L); L.t != T_END; next(&L)) {
    if (depth == 0 && is(&L, "trace")) { in_trace = 1; continue; }
    if (is(&L, "{")) { depth++; continue; }
    if (is(&L, "}")) { if (--depth == 0) in_trace = 0; continue; }
    if (in_trace && depth == 1 && is(&L, "byte_order")) {
      next(&L);
      if (!is(&L, "=")) continue;
      next(&L);
      return is(&L, "be") || is(&L, "network");
    }
  }
  return 0;
}

int nt_meta_load(struct nt_meta *m, const char *dir, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  char path[4200];
  snprintf(path, sizeof path, "%s/metadata", dir);
  char *text;
  size_t n;
  int mr = read_metadata(path, &text, &n, err, errlen);
  if (mr) return mr;
  struct pstate *P = calloc(1, sizeof *P);
  if (!P) { free(text); snprintf(err, errlen, "out of memory"); return -1; }
  P->L.s = text; P->L.e = text + n; P->L.m = m; P->L.why = err; P->L.whylen = errlen;
  P->L.trace_be = prescan_be(text, n);
  m->be = P->L.trace_be;
  struct ev_tmp *evs = NULL;
  struct sc_tmp *scs = NULL;
  int rc = parse_all(P, &evs, &scs);
  free(text);
  if (rc != 0) { free(P); return 1; }
  if (!m->has_clock) { free(P); snprintf(err, errlen, "metadata: unsupported: no clock"); return 1; }
  /* packet header */
  m->ph_magic = member_idx(m->phdr, "magic", 1);
  m->ph_uuid = member_idx(m->phdr, "uuid", 0);
  m->ph_stream_id = member_idx(m->phdr, "stream_id", 1);
  m->ph_instance = member_idx(m->phdr, "stream_instance_id", 1);
  if (m->ph_uuid >= 0) {
    const struct nt_type *u = m->phdr->mem[m->ph_uuid].t;
    if (u->k != NT_ARRAY || u->len != 16 || u->elem->k != NT_INT || u->elem->size != 8) m->ph_uuid = -1;
  }
  /* stream classes */
  for (struct sc_tmp *s = scs; s; s = s->next) m->nsc++;
  if (!m->nsc) { free(P); snprintf(err, errlen, "metadata: unsupported: no stream class"); return 1; }
  if (m->nsc > 1 && m->ph_stream_id < 0) { free(P); snprintf(err, errlen, "metadata: unsupported: no stream_id"); return 1; }
  m->sc = calloc((size_t)m->nsc, sizeof *m->sc);
  for (struct ev_tmp *e = evs; e; e = e->next) m->nevents++;
  if (m->nevents > NT_EVENTS_MAX) { free(P); snprintf(err, errlen, "metadata: unsupported: too many events"); return 1; }
  m->events = calloc(m->nevents ? (size_t)m->nevents : 1, sizeof *m->events);
  if (!m->sc || !m->events) { free(P); snprintf(err, errlen, "out of memory"); return -1; }
  int i = m->nsc;
  for (struct sc_tmp *s = scs; s; s = s->next) {
    struct nt_stream_class *c = &m->sc[--i];
    *c = s->s;
    for (int j = i + 1; j < m->nsc; j++)
      if (m->sc[j].id == c->id) { free(P); snprintf(err, errlen, "metadata: duplicate stream id"); return 1; }
    c->hdr_form = header_form(c->hdr);
    if (!c->hdr_form) { free(P); snprintf(err, errlen, "metadata: unsupported event header"); return 1; }
    c->hdr_align = c->hdr->align;
    c->pc_begin = member_idx(c->pctx, "timestamp_begin", 1);
    c->pc_end = member_idx(c->pctx, "timestamp_end", 1);
    c->pc_content = member_idx(c->pctx, "content_size", 1);
    c->pc_packet = member_idx(c->pctx, "packet_size", 1);
    c->pc_discarded = member_idx(c->pctx, "events_discarded", 1);
    c->pc_cpu = member_idx(c->pctx, "cpu_id", 1);
    c->pc_seq = member_idx(c->pctx, "packet_seq_num", 1);
    /* babeltrace2 2.0 takes a signed one's values for no packet count */
    if (c->pc_seq >= 0 && c->pctx->mem[c->pc_seq].t->sign) c->pc_seq = -1;
    c->ec_vpid = member_idx(c->ectx, "vpid", 1);
    c->ec_vtid = member_idx(c->ectx, "vtid", 1);
    c->ec_procname = member_idx(c->ectx, "procname", 0);
    if (c->ec_procname >= 0) {
      const struct nt_type *p = c->ectx->mem[c->ec_procname].t;
      int str = p->k == NT_STRING ||
                ((p->k == NT_ARRAY || p->k == NT_SEQ) && p->elem->k == NT_INT && p->elem->text && p->elem->size == 8);
      if (!str) c->ec_procname = -1;
    }
    if (c->pc_begin >= 0 && !c->pctx->mem[c->pc_begin].t->clock) c->pc_begin = -1;
    if (c->pc_end >= 0 && !c->pctx->mem[c->pc_end].t->clock) c->pc_end = -1;
  }
  uint32_t maxid[1024] = {0};
  if (m->nsc > 1024) { free(P); snprintf(err, errlen, "metadata: unsupported: too many stream classes"); return 1; }
  i = m->nevents;
  for (struct ev_tmp *e = evs; e; e = e->next) {
    struct nt_event *ne = &m->events[--i];
    *ne = e->e;
    int k = -1;
    for (int j = 0; j < m->nsc; j++) if (m->sc[j].id == e->stream_id) k = j;
    if (k < 0) { free(P); snprintf(err, errlen, "metadata: event %s of an unknown stream", ne->name); return 1; }
    if (ne->id >= NT_EVENTS_MAX) { free(P); snprintf(err, errlen, "metadata: unsupported event id"); return 1; }
    if (ne->id + 1 > maxid[k]) maxid[k] = (uint32_t)ne->id + 1;
    e->stream_id = (uint64_t)k;   /* now the class index */
  }
  for (int j = 0; j < m->nsc; j++) {
    m->sc[j].nev = maxid[j];
    m->sc[j].ev = calloc(maxid[j] ? maxid[j] : 1, sizeof *m->sc[j].ev);
    if (!m->sc[j].ev) { free(P); snprintf(err, errlen, "out of memory"); return -1; }
  }
  i = m->nevents;
  for (struct ev_tmp *e = evs; e; e = e->next) {
    struct nt_event *ne = &m->events[--i];
    struct nt_stream_class *c = &m->sc[e->stream_id];
    if (c->ev[ne->id]) { free(P); snprintf(err, errlen, "metadata: duplicate event id %llu", (unsigned long long)ne->id); return 1; }
    c->ev[ne->id] = ne;
  }
  /* babeltrace2 moves a clock offset of whole seconds into offset_s */
  if (m->has_clock && m->offset >= m->freq) {
    uint64_t s = m->offset / m->freq;
    m->offset_s += (int64_t)s;
    m->offset -= s * m->freq;
  }
  free(P);
  return 0;
}
