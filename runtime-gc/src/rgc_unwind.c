/* rgc_unwind.c — the calling thread's return addresses for librgc's stacks
 * (rgc_trace.c), without glibc backtrace()'s cost.
 *
 * backtrace() unwinds through libgcc, which finds each frame's FDE and runs
 * its whole CFA program again for every frame of every stack: ~1,900
 * instructions a frame (callgrind, gcsim alloc-heavy: ~9 frames, 18,500
 * instructions an AllocationTick). Here the same .eh_frame tables are read
 * (libgcc's _Unwind_Find_FDE finds the FDE), but a return address's rule —
 * where its caller's frame and return address are — is worked out once and
 * kept in a table shared by all threads; the next stack through the same
 * call site costs a table look-up and two loads a frame.
 *
 * Only what x86-64 code compiled by GCC or Clang uses is understood: the CFA
 * is %rsp or %rbp plus an offset, the return address is at CFA-8 or
 * undefined (the outermost frame), %rbp is unchanged or saved at CFA-8k.
 * Anything else (a CFA expression, a signal frame, no FDE, a register
 * kept in another register, a frame outside the thread's stack) makes
 * rgc_unwind() return -1 and the caller walks the stack with backtrace()
 * instead, so a stack is either exactly what libgcc would give or comes from
 * libgcc itself. Frame pointers are not needed. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "rgc_internal.h"

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)

struct dwarf_eh_bases { void *tbase, *dbase, *func; };
typedef const void *(*find_fde_fn)(void *pc, struct dwarf_eh_bases *bases);
static find_fde_fn find_fde;

enum { REG_RBP = 6, REG_RSP = 7, REG_RA = 16 };

/* A return address's rule, packed with it into one 64-bit word so that a
 * table slot is read and written whole (no torn entries between threads):
 * bits 0..46 the return address, 47 CFA is %rbp-based (else %rsp-based),
 * 48..57 CFA offset / 8, 58..61 where %rbp is saved (0 unchanged, k: at
 * CFA-8k), 62 the return address is undefined (outermost frame). */
#define E_KEY_BITS 47
#define E_KEY_MASK ((UINT64_C(1) << E_KEY_BITS) - 1)
#define E_CFA_RBP (UINT64_C(1) << 47)
#define E_OFF_SHIFT 48
#define E_OFF_MAX 1023
#define E_BP_SHIFT 58
#define E_BP_MAX 15
#define E_END (UINT64_C(1) << 62)

struct rule { int cfa_rbp; uint64_t cfa_off; unsigned bp_slot; int end; };

#define NSLOTS 4096   /* distinct call sites remembered (32 KiB); more are worked out each time */
#define PROBES 8
static _Atomic uint64_t table[NSLOTS];

/* ---- reading .eh_frame ---- */

static uint64_t uleb(const uint8_t **p, const uint8_t *end, int *bad) {
  uint64_t v = 0;
  for (int shift = 0; *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  *bad = 1;
  return 0;
}

static int64_t sleb(const uint8_t **p, const uint8_t *end, int *bad) {
  int64_t v = 0;
  int shift = 0;
  uint8_t b = 0x80;
  while (*p < end && (b & 0x80)) {
    b = *(*p)++;
    if (shift < 64) v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
    shift += 7;
  }
  if (b & 0x80) { *bad = 1; return 0; }
  if (shift < 64 && (b & 0x40)) v |= -(INT64_C(1) << shift);
  return v;
}

/* Bytes an encoded pointer takes (DW_EH_PE_* format), or -1. */
static int enc_size(uint8_t enc, const uint8_t *p, const uint8_t *end) {
  if (enc == 0xff) return 0;   /* DW_EH_PE_omit */
  switch (enc & 0x0f) {
  case 0x00: case 0x04: case 0x0c: return 8;
  case 0x02: case 0x0a: return 2;
  case 0x03: case 0x0b: return 4;
  case 0x01: case 0x09: {
    int n = 0;
    while (p + n < end && (p[n] & 0x80)) n++;
    return p + n < end ? n + 1 : -1;
  }
  default: return -1;
  }
}

struct cie {
  uint64_t caf;      /* code alignment factor */
  int64_t daf;       /* data alignment factor */
  uint8_t fde_enc;   /* 'R' */
  int has_z;
  const uint8_t *insns, *end;
};

static int parse_cie(const uint8_t *c, struct cie *ci) {
  uint32_t len;
  memcpy(&len, c, 4);
  if (len == 0 || len == 0xffffffffu) return -1;
  const uint8_t *end = c + 4 + len, *p = c + 8;
  int bad = 0;
  uint8_t version = *p++;
  if (version != 1 && version != 3) return -1;
  const char *aug = (const char *)p;
  size_t alen = strnlen(aug, (size_t)(end - p));
  p += alen + 1;
  if (p > end || (alen && aug[0] != 'z') || strstr(aug, "eh") || strchr(aug, 'S')) return -1;
  ci->caf = uleb(&p, end, &bad);
  ci->daf = sleb(&p, end, &bad);
  uint64_t ra = version == 1 ? (p < end ? *p++ : 0) : uleb(&p, end, &bad);
  if (bad || ra != REG_RA) return -1;
  ci->fde_enc = 0;   /* DW_EH_PE_absptr */
  ci->has_z = alen > 0;
  if (ci->has_z) {
    uint64_t zlen = uleb(&p, end, &bad);
    if (bad || zlen > (uint64_t)(end - p)) return -1;
    const uint8_t *q = p, *zend = p + zlen;
    for (size_t i = 1; i < alen; i++) {
      switch (aug[i]) {
      case 'R': if (q >= zend) return -1; ci->fde_enc = *q++; break;
      case 'L': if (q >= zend) return -1; q++; break;
      case 'P': {
        if (q >= zend) return -1;
        uint8_t penc = *q++;
        int n = enc_size(penc, q, zend);
        if (n < 0 || (penc & 0x70) == 0x50) return -1;   /* DW_EH_PE_aligned */
        q += n;
        break;
      }
      default: return -1;   /* an augmentation not known here */
      }
    }
    p = zend;
  }
  ci->insns = p;
  ci->end = end;
  return 0;
}

/* The CFA program's state: CFA = reg + off; %rbp and the return address. */
enum { R_SAME, R_OFFSET, R_UNDEF, R_OTHER };
struct state { int cfa_reg; int64_t cfa_off; int cfa_expr; int bp_how, ra_how; int64_t bp_off, ra_off; };

/* Runs insns[..end) from loc while loc < target (as libgcc does for a
 * return address). Returns -1 on anything not understood. */
static int run_cfa(const uint8_t *p, const uint8_t *end, const struct cie *ci, uint64_t *loc, uint64_t target,
                   struct state *s, const struct state *init) {
  struct state saved[8];
  int nsaved = 0, bad = 0;
  while (p < end && *loc < target) {
    uint8_t op = *p++, low = op & 0x3f;
    uint64_t reg = 0, u;
    int64_t off;
    switch (op >> 6) {
    case 1: *loc += low * ci->caf; continue;
    case 2: reg = low; off = (int64_t)uleb(&p, end, &bad) * ci->daf; goto set_offset;
    case 3: reg = low; goto restore;
    default: break;
    }
    switch (op) {
    case 0x00: break;                                              /* nop */
    case 0x02: if (p + 1 > end) return -1; *loc += p[0] * ci->caf; p += 1; break;
    case 0x03: { uint16_t d; if (p + 2 > end) return -1; memcpy(&d, p, 2); *loc += d * ci->caf; p += 2; break; }
    case 0x04: { uint32_t d; if (p + 4 > end) return -1; memcpy(&d, p, 4); *loc += d * ci->caf; p += 4; break; }
    case 0x05: reg = uleb(&p, end, &bad); off = (int64_t)uleb(&p, end, &bad) * ci->daf; goto set_offset;
    case 0x06: reg = uleb(&p, end, &bad); goto restore;
    case 0x07: case 0x08:                                          /* undefined, same value */
      reg = uleb(&p, end, &bad);
      if (reg == REG_RBP) s->bp_how = op == 0x07 ? R_UNDEF : R_SAME;
      if (reg == REG_RA) s->ra_how = op == 0x07 ? R_UNDEF : R_OTHER;
      break;
    case 0x09:                                                     /* register */
      reg = uleb(&p, end, &bad);
      (void)uleb(&p, end, &bad);
      if (reg == REG_RBP) s->bp_how = R_OTHER;
      if (reg == REG_RA) s->ra_how = R_OTHER;
      break;
    case 0x0a: if (nsaved == 8) return -1; saved[nsaved++] = *s; break;
    case 0x0b: {
      if (!nsaved) return -1;
      *s = saved[--nsaved];   /* the whole row, the CFA rule too (as libgcc) */
      break;
    }
    case 0x0c: s->cfa_reg = (int)uleb(&p, end, &bad); s->cfa_off = (int64_t)uleb(&p, end, &bad); s->cfa_expr = 0; break;
    case 0x0d: s->cfa_reg = (int)uleb(&p, end, &bad); s->cfa_expr = 0; break;
    case 0x0e: s->cfa_off = (int64_t)uleb(&p, end, &bad); break;
    case 0x0f:                                                     /* def_cfa_expression */
      u = uleb(&p, end, &bad);
      if (bad || u > (uint64_t)(end - p)) return -1;
      p += u;
      s->cfa_expr = 1;
      break;
    case 0x10: case 0x16:                                          /* (val_)expression */
      reg = uleb(&p, end, &bad);
      u = uleb(&p, end, &bad);
      if (bad || u > (uint64_t)(end - p)) return -1;
      p += u;
      if (reg == REG_RBP) s->bp_how = R_OTHER;
      if (reg == REG_RA) s->ra_how = R_OTHER;
      break;
    case 0x11: reg = uleb(&p, end, &bad); off = sleb(&p, end, &bad) * ci->daf; goto set_offset;
    case 0x12: s->cfa_reg = (int)uleb(&p, end, &bad); s->cfa_off = sleb(&p, end, &bad) * ci->daf; s->cfa_expr = 0; break;
    case 0x13: s->cfa_off = sleb(&p, end, &bad) * ci->daf; break;
    case 0x14: case 0x15:                                          /* val_offset(_sf) */
      reg = uleb(&p, end, &bad);
      if (op == 0x14) (void)uleb(&p, end, &bad);
      else (void)sleb(&p, end, &bad);
      if (reg == REG_RBP) s->bp_how = R_OTHER;
      if (reg == REG_RA) s->ra_how = R_OTHER;
      break;
    case 0x2e: (void)uleb(&p, end, &bad); break;                   /* GNU_args_size */
    case 0x2f: reg = uleb(&p, end, &bad); off = -(int64_t)uleb(&p, end, &bad) * ci->daf; goto set_offset;
    default: return -1;                                            /* set_loc, vendor ops ... */
    }
    if (bad) return -1;
    continue;
  set_offset:
    if (bad) return -1;
    if (reg == REG_RBP) { s->bp_how = R_OFFSET; s->bp_off = off; }
    if (reg == REG_RA) { s->ra_how = R_OFFSET; s->ra_off = off; }
    continue;
  restore:
    if (bad) return -1;
    if (!init) return -1;   /* restore inside the CIE's own instructions */
    if (reg == REG_RBP) { s->bp_how = init->bp_how; s->bp_off = init->bp_off; }
    if (reg == REG_RA) { s->ra_how = init->ra_how; s->ra_off = init->ra_off; }
  }
  return bad ? -1 : 0;
}

/* The rule for return address ra (a call site's next instruction). */
static int find_rule(uint64_t ra, struct rule *r) {
  struct dwarf_eh_bases bases;
  const uint8_t *fde = find_fde ? find_fde((void *)(uintptr_t)(ra - 1), &bases) : NULL;
  if (!fde) return -1;
  uint32_t len, cie_off;
  memcpy(&len, fde, 4);
  if (len == 0 || len == 0xffffffffu) return -1;
  memcpy(&cie_off, fde + 4, 4);
  struct cie ci;
  if (parse_cie(fde + 4 - cie_off, &ci)) return -1;
  const uint8_t *end = fde + 4 + len, *p = fde + 8;
  int n = enc_size(ci.fde_enc, p, end);   /* pc_begin */
  if (n <= 0) return -1;
  p += n;
  n = enc_size(ci.fde_enc & 0x0f, p, end);   /* pc_range */
  if (n <= 0) return -1;
  p += n;
  int bad = 0;
  if (ci.has_z) {
    uint64_t zlen = uleb(&p, end, &bad);
    if (bad || zlen > (uint64_t)(end - p)) return -1;
    p += zlen;
  }
  struct state s = { -1, 0, 0, R_SAME, R_UNDEF, 0, 0 };
  uint64_t loc = (uint64_t)(uintptr_t)bases.func;
  if (run_cfa(ci.insns, ci.end, &ci, &loc, UINT64_MAX, &s, NULL)) return -1;
  struct state init = s;
  loc = (uint64_t)(uintptr_t)bases.func;
  if (run_cfa(p, end, &ci, &loc, ra, &s, &init)) return -1;
  if (s.cfa_expr || (s.cfa_reg != REG_RSP && s.cfa_reg != REG_RBP) || s.cfa_off < 8) return -1;
  if (s.ra_how == R_UNDEF) r->end = 1;
  else if (s.ra_how == R_OFFSET && s.ra_off == -8) r->end = 0;
  else return -1;
  r->cfa_rbp = s.cfa_reg == REG_RBP;
  r->cfa_off = (uint64_t)s.cfa_off;
  if (s.bp_how == R_SAME) r->bp_slot = 0;
  else if (s.bp_how == R_OFFSET && s.bp_off < 0 && s.bp_off % 8 == 0 && -s.bp_off / 8 <= E_BP_MAX)
    r->bp_slot = (unsigned)(-s.bp_off / 8);
  else if (s.bp_how == R_UNDEF) r->bp_slot = E_BP_MAX + 1;   /* %rbp unknown above this frame */
  else return -1;
  return 0;
}

static int rule_of(uint64_t ra, struct rule *r) {
  uint64_t h = (ra * UINT64_C(0x9E3779B97F4A7C15)) >> 52;   /* 12 bits: NSLOTS */
  int cacheable = (ra & ~E_KEY_MASK) == 0;
  if (cacheable)
    for (int i = 0; i < PROBES; i++) {
      uint64_t e = atomic_load_explicit(&table[(h + i) % NSLOTS], memory_order_relaxed);
      if (!e) break;
      if ((e & E_KEY_MASK) == ra) {
        r->cfa_rbp = !!(e & E_CFA_RBP);
        r->cfa_off = ((e >> E_OFF_SHIFT) & E_OFF_MAX) * 8;
        r->bp_slot = (unsigned)((e >> E_BP_SHIFT) & E_BP_MAX);
        r->end = !!(e & E_END);
        return 0;
      }
    }
  if (find_rule(ra, r)) return -1;
  if (!cacheable || r->cfa_off % 8 || r->cfa_off / 8 > E_OFF_MAX || r->bp_slot > E_BP_MAX) return 0;
  uint64_t e = ra | (r->cfa_rbp ? E_CFA_RBP : 0) | (r->cfa_off / 8) << E_OFF_SHIFT |
               (uint64_t)r->bp_slot << E_BP_SHIFT | (r->end ? E_END : 0);
  for (int i = 0; i < PROBES; i++) {
    uint64_t zero = 0;
    _Atomic uint64_t *slot = &table[(h + i) % NSLOTS];
    if (atomic_compare_exchange_strong_explicit(slot, &zero, e, memory_order_relaxed, memory_order_relaxed)) break;
    if ((zero & E_KEY_MASK) == ra) break;   /* another thread put it there */
  }
  return 0;
}

/* The calling thread's stack bounds, once per thread. */
static _Thread_local uintptr_t stack_lo, stack_hi;

static int stack_bounds(void) {
  if (stack_hi) return 0;
  pthread_attr_t a;
  void *addr;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &a)) return -1;
  int r = pthread_attr_getstack(&a, &addr, &size);
  pthread_attr_destroy(&a);
  if (r) return -1;
  stack_lo = (uintptr_t)addr;
  stack_hi = (uintptr_t)addr + size;
  return 0;
}

void rgc_unwind_init(void) {
  /* libgcc_s is loaded by now (backtrace() loaded it); a program that
   * links it has it too. */
  void *h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h) h = dlopen("libgcc_s.so.1", RTLD_NOW);
  if (h) find_fde = (find_fde_fn)(uintptr_t)dlsym(h, "_Unwind_Find_FDE");
}

/* Return addresses from this function's caller outwards, at most max.
 * Reads only the stack's return-address and saved-%rbp slots, checked to
 * lie inside the thread's stack. */
__attribute__((noinline, no_sanitize_address)) int rgc_unwind(uint64_t *ip, int max) {
  if (!find_fde || stack_bounds()) return -1;
  uintptr_t fp = (uintptr_t)__builtin_frame_address(0);   /* this function has a frame pointer */
  if (fp < stack_lo || fp + 16 > stack_hi) return -1;
  uint64_t pc = ((uint64_t *)fp)[1];
  uintptr_t sp = fp + 16, bp = ((uintptr_t *)fp)[0];
  int bp_known = 1, n = 0;
  while (n < max) {
    ip[n++] = pc;
    struct rule r;
    if (rule_of(pc, &r)) return -1;
    if (r.end) break;
    if (r.cfa_rbp && !bp_known) return -1;
    uintptr_t cfa = (r.cfa_rbp ? bp : sp) + r.cfa_off;
    if (cfa <= sp || cfa > stack_hi || cfa - 8 < stack_lo) return -1;
    if (r.bp_slot > E_BP_MAX) bp_known = 0;
    else if (r.bp_slot) {
      uintptr_t at = cfa - 8 * r.bp_slot;
      if (at < sp) return -1;
      bp = *(uintptr_t *)at;
    }
    pc = *(uint64_t *)(cfa - 8);
    sp = cfa;
    if (!pc) break;
  }
  return n;
}

#else

void rgc_unwind_init(void) {}
int rgc_unwind(uint64_t *ip, int max) { (void)ip; (void)max; return -1; }

#endif
