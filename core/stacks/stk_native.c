/* stk_native.c — native frames of librgc stacks: the modules of a process
 * from LTTng-UST's statedump (bin_info), their symbols read with elfutils'
 * libdwfl (the ELF symbol table, so static functions too; separate debug
 * files found by build-id or .gnu_debuglink). */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stk_native.h"

#define STK_MAX_MODULES 4096

struct stk_module {
  int32_t pid;
  uint64_t base, memsz;
  char *path;
  int is_pic;
  int tried;          /* opened (or failed to) */
  Dwfl *dwfl;
  Dwfl_Module *mod;
  int nsyms;          /* symbols in its table; 0: none (stripped) */
  char why[200];      /* why its frames do not resolve, "" */
};

static const Dwfl_Callbacks callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};

void stk_native_free(struct stk_native *n) {
  for (size_t i = 0; i < n->n; i++) {
    if (n->m[i].dwfl) dwfl_end(n->m[i].dwfl);
    free(n->m[i].path);
  }
  free(n->m);
  memset(n, 0, sizeof *n);
}

int stk_native_add(struct stk_native *n, int32_t pid, uint64_t base, uint64_t memsz, const char *path, int is_pic) {
  /* A process maps hundreds of modules; past this bound (a crafted trace)
   * the rest are ignored: their frames print as addresses. */
  if (!memsz || !path || !*path || n->n >= STK_MAX_MODULES) return 0;
  for (size_t i = 0; i < n->n; i++)   /* the statedump may be given twice (regenerated) */
    if (n->m[i].pid == pid && n->m[i].base == base && n->m[i].memsz == memsz) return 0;
  if (n->n == n->cap) {
    size_t c = n->cap ? n->cap * 2 : 16;
    struct stk_module *m = realloc(n->m, c * sizeof *m);
    if (!m) return -1;
    n->m = m;
    n->cap = c;
  }
  struct stk_module *m = &n->m[n->n];
  memset(m, 0, sizeof *m);
  if (!(m->path = strdup(path))) return -1;
  m->pid = pid;
  m->base = base;
  m->memsz = memsz;
  m->is_pic = is_pic;
  n->n++;
  return 0;
}

size_t stk_native_modules(const struct stk_native *n, int32_t pid) {
  size_t k = 0;
  for (size_t i = 0; i < n->n; i++) k += n->m[i].pid == pid;
  return k;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* The module's own file has a full symbol table (.symtab: static functions
 * too), not only the dynamic one. */
static int has_symtab(Dwfl_Module *mod) {
  GElf_Addr bias;
  Elf *elf = dwfl_module_getelf(mod, &bias);
  for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) return 1;
  }
  return 0;
}

static void open_module(struct stk_module *m) {
  m->tried = 1;
  if (!(m->dwfl = dwfl_begin(&callbacks))) {
    snprintf(m->why, sizeof m->why, "%s: elfutils: %s", base_name(m->path), dwfl_errmsg(-1));
    return;
  }
  dwfl_report_begin(m->dwfl);
  /* bin_info's baddr is where the module's first segment was mapped: the
   * load bias of a position-independent module; an ET_EXEC one is at its
   * link-time addresses. */
  m->mod = dwfl_report_elf(m->dwfl, base_name(m->path), m->path, -1, m->is_pic ? m->base : 0, false);
  dwfl_report_end(m->dwfl, NULL, NULL);
  if (!m->mod) {
    snprintf(m->why, sizeof m->why, "%s: cannot read %s (%s)", base_name(m->path), m->path, dwfl_errmsg(-1));
    return;
  }
  m->nsyms = dwfl_module_getsymtab(m->mod);
  const char *debugfile = NULL;
  dwfl_module_info(m->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
  if (m->nsyms <= 0 || (!has_symtab(m->mod) && !debugfile))
    snprintf(m->why, sizeof m->why, "%s is stripped (no .symtab, and no debug file found by build-id or "
             "debuglink): only its exported functions are named; keep its symbols or install its debug symbols",
             base_name(m->path));
}

int stk_native_resolve(struct stk_native *n, int32_t pid, uint64_t ip, int caller, char *out, size_t outlen,
                       const char **why) {
  *why = NULL;
  struct stk_module *m = NULL;
  for (size_t i = 0; i < n->n; i++)
    if (n->m[i].pid == pid && ip - n->m[i].base < n->m[i].memsz) { m = &n->m[i]; break; }
  if (!m) return -1;
  if (!m->tried) open_module(m);
  if (m->mod && m->nsyms > 0) {
    /* A caller's frame holds a return address: the call is the byte before. */
    GElf_Addr a = caller ? ip - 1 : ip;
    GElf_Off off;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(m->mod, a, &off, &sym, NULL, NULL, NULL);
    if (name && *name) {
      size_t len = strcspn(name, "@");   /* "__libc_start_main@@GLIBC_2.34": the function */
      snprintf(out, outlen, "%.*s", (int)(len ? len : strlen(name)), name);
      return 1;
    }
    if (!m->why[0]) snprintf(m->why, sizeof m->why, "%s: some addresses are in no symbol", base_name(m->path));
  }
  snprintf(out, outlen, "%s+0x%llx", base_name(m->path), (unsigned long long)(ip - m->base));
  *why = m->why[0] ? m->why : NULL;
  return 0;
}
