/* ctf_map.c — payload members → schema fields, for both CTF readers (see ctf_map.h). */
#include "ctf_map.h"

#include <stdlib.h>

static uint8_t type_width(enum gcs_type t) {
  switch (t) {
  case GCS_T_U8: return 1;
  case GCS_T_U16: return 2;
  case GCS_T_U32: case GCS_T_I32: case GCS_T_BOOL: return 4;
  case GCS_T_U64: case GCS_T_PTR: return 8;
  default: return 0;
  }
}

static int member_index(const struct ctf_mdesc *mem, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(mem[i].name, name) == 0) return i;
  return -1;
}

void ctf_map_free(struct ctf_map *m) {
  free(m->ops);
  free(m->missing_str);
  m->ops = NULL;
  m->missing_str = NULL;
  m->nops = m->nmissing_str = 0;
}

int ctf_map_build(struct ctf_map *m, const char *name, const struct ctf_mdesc *mem, int n) {
  memset(m, 0, sizeof *m);
  m->data_idx = m->stack_idx = -1;
  m->bin_baddr = m->bin_memsz = m->bin_path = m->bin_pic = -1;
  int ver = 0, org = 0;
  m->kind = gcs_kind_from_lttng_name(name, &ver, &org);
  m->version = ver;
  m->origin = org;
  if (m->kind < 0) {
    if (strcmp(name, "lttng_ust_statedump:bin_info") == 0) {
      m->bin_baddr = member_index(mem, n, "baddr");
      m->bin_memsz = member_index(mem, n, "memsz");
      m->bin_path = member_index(mem, n, "path");
      m->bin_pic = member_index(mem, n, "is_pic");
    }
    return 0;
  }
  const struct gcs_field_desc **where = calloc(n ? (size_t)n : 1, sizeof *where);  /* desc per member */
  enum ctf_mk *how = calloc(n ? (size_t)n : 1, sizeof *how);                      /* stored as */
  if (!where || !how) { free(where); free(how); return -1; }
  for (int i = 0; i < n; i++) {
    if (m->origin == GCS_ORIGIN_CLR && strcmp(mem[i].name, "__data__") == 0) {
      if (mem[i].k == CM_ARRAY) m->data_idx = i;
      continue;
    }
    if (strcmp(mem[i].name, GCS_STACK_FIELD) == 0) {
      if (mem[i].k == CM_ARRAY && mem[i].elem_uint) m->stack_idx = i;
      continue;
    }
    const struct gcs_field_desc *d = gcs_field_find((enum gcs_kind)m->kind, mem[i].name);
    if (!d) continue;
    switch (mem[i].k) {
    case CM_UINT: case CM_SINT: how[i] = mem[i].k; break;
    case CM_STR: how[i] = d->type == GCS_T_STR ? CM_STR : CM_OTHER; break;
    case CM_ARRAY: how[i] = d->type == GCS_T_GUID || d->is_array ? CM_ARRAY : CM_OTHER; break;
    default: how[i] = CM_OTHER; break;
    }
    where[i] = d;
  }
  int rc = -1;
  if (m->data_idx >= 0) { rc = 0; goto out; }
  m->ops = calloc(n ? (size_t)n : 1, sizeof *m->ops);
  if (!m->ops) goto out;
  for (int i = 0; i < n; i++) {
    const struct gcs_field_desc *d = where[i];
    if (!d || how[i] == CM_OTHER) continue;
    struct pl_op *o = &m->ops[m->nops];
    o->idx = (uint32_t)i;
    o->offset = d->offset;
    o->desc = d;
    switch (how[i]) {
    case CM_UINT: case CM_SINT: {
      int base = how[i] == CM_UINT ? OP_U8 : OP_S8;
      switch (type_width(d->type)) {
      case 1: o->op = (uint8_t)base; break;
      case 2: o->op = (uint8_t)(base + 1); break;
      case 4: o->op = (uint8_t)(base + 2); break;
      case 8: o->op = (uint8_t)(base + 3); break;
      default: o->op = OP_INT; break;
      }
      break;
    }
    case CM_STR: o->op = OP_STR; break;
    case CM_ARRAY:
      o->op = d->type == GCS_T_GUID ? OP_GUID : OP_ARRAY;
      break;
    default: continue;
    }
    m->nops++;
  }
  /* String fields of the schema the payload lacks must not stay NULL. */
  const struct gcs_event_desc *ed = &gcs_event_descs[m->kind];
  m->missing_str = calloc((size_t)ed->nfields + 1, sizeof *m->missing_str);
  if (!m->missing_str) goto out;
  for (int f = 0; f < ed->nfields; f++) {
    if (ed->fields[f].type != GCS_T_STR) continue;
    int present = 0;
    for (int i = 0; i < n; i++)
      if (where[i] == &ed->fields[f] && how[i] == CM_STR) present = 1;
    if (!present) m->missing_str[m->nmissing_str++] = &ed->fields[f];
  }
  for (int f = 0; f < ed->nfields; f++) {
    if (!ed->fields[f].is_array || ed->fields[f].since > m->version) continue;
    int present = 0;
    for (int i = 0; i < n; i++)
      if (where[i] == &ed->fields[f] && how[i] == CM_ARRAY) present = 1;
    if (!present) m->missing_array = 1;
  }
  rc = 0;
out:
  free(where);
  free(how);
  if (rc != 0) ctf_map_free(m);
  return rc;
}
