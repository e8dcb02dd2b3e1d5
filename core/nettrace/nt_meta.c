/* nt_meta.c — nettrace metadata records -> gcscope event kinds. */
#include "nt_meta.h"

#include <string.h>
#include <strings.h>

#include "gcs_events.h"
#include "nt_cursor.h"

#define NT_PROV_RUNTIME   "Microsoft-Windows-DotNETRuntime"
#define NT_PROV_PRIVATE   "Microsoft-Windows-DotNETRuntimePrivate"
#define NT_PROV_RUNDOWN   "Microsoft-Windows-DotNETRuntimeRundown"
#define NT_PROV_EVENTPIPE "Microsoft-DotNETCore-EventPipe"
#define NT_RUNTIME_INFO_ID 187  /* RuntimeInformationStart / RuntimeInformationRundown */
#define NT_PROCESSINFO_ID  1
#define NT_TYPECODE_OBJECT 1    /* System.TypeCode.Object: a nested description follows */
#define NT_MAX_NESTING     8

/* Read a UTF-16LE NUL-terminated string; keep an ASCII copy of at most
 * cap-1 characters (others become '?'). Fails the cursor if unterminated. */
static void nt_utf16z_ascii(struct nt_cursor *c, char *out, size_t cap) {
  size_t o = 0;
  for (;;) {
    uint16_t ch = nt_u16(c);
    if (!c->ok || ch == 0) break;
    if (o + 1 < cap) out[o++] = ch < 0x80 ? (char)ch : '?';
  }
  out[o] = '\0';
}

static void nt_skip_utf16z(struct nt_cursor *c) {
  while (c->ok && nt_u16(c) != 0) {}
}

/* V1 payload description: i32 count, then per field i32 TypeCode, a nested
 * description for TypeCode Object, and the UTF-16 field name. */
static void nt_skip_fields(struct nt_cursor *c, int depth) {
  if (depth > NT_MAX_NESTING) { c->ok = 0; return; }
  uint32_t n = nt_u32(c);
  for (uint32_t i = 0; i < n && c->ok; i++) {
    uint32_t tc = nt_u32(c);
    if (tc == NT_TYPECODE_OBJECT) nt_skip_fields(c, depth + 1);
    nt_skip_utf16z(c);
  }
}

static int16_t nt_kind_of(const char *prov, uint32_t id, uint32_t version) {
  if (strcasecmp(prov, NT_PROV_RUNTIME) == 0)
    return (int16_t)gcs_kind_from_etw(GCS_PROV_RUNTIME, (int)id, (int)version);
  if (strcasecmp(prov, NT_PROV_PRIVATE) == 0)
    return (int16_t)gcs_kind_from_etw(GCS_PROV_PRIVATE, (int)id, (int)version);
  if (strcasecmp(prov, NT_PROV_RUNDOWN) == 0)
    return id == NT_RUNTIME_INFO_ID ? gcs_kind_RuntimeInformationStart  /* same template as the runtime's */
                                    : (int16_t)gcs_kind_from_etw(GCS_PROV_RUNDOWN, (int)id, (int)version);
  if (strcasecmp(prov, NT_PROV_EVENTPIPE) == 0 && id == NT_PROCESSINFO_ID)
    return NT_META_PROCESSINFO;
  return NT_META_SKIP;
}

int nt_meta_parse(const uint8_t *payload, size_t len, uint32_t *meta_id, struct nt_meta *out) {
  struct nt_cursor c = nt_cursor_make(payload, 0, len);
  char prov[96];
  *meta_id = nt_u32(&c);
  nt_utf16z_ascii(&c, prov, sizeof prov);
  uint32_t event_id = nt_u32(&c);
  nt_skip_utf16z(&c);     /* event name */
  nt_skip(&c, 8);         /* keywords */
  uint32_t version = nt_u32(&c);
  nt_skip(&c, 4);         /* level */
  if (!c.ok) return -1;

  out->req = 0;
  out->kind = nt_kind_of(prov, event_id, version);
  if (out->kind < NT_META_PROCESSINFO) out->kind = NT_META_SKIP;
  out->version = version > 255 ? 255 : (uint8_t)version;
  out->v5_tags = 0;

  /* Field descriptions (absent in old writers), then V5 tags: i32 size,
   * u8 kind (1 opcode, 2 V2 parameters), size bytes. */
  if (nt_left(&c) == 0) return 0;
  nt_skip_fields(&c, 0);
  while (c.ok && nt_left(&c) >= 5) {
    uint32_t size = nt_u32(&c);
    uint8_t kind = nt_u8(&c);
    nt_skip(&c, size);
    if (c.ok && (kind == 1 || kind == 2)) out->v5_tags = 1;
  }
  return 0;
}

int nt_meta_names(const uint8_t *payload, size_t len, struct nt_meta_names *names) {
  struct nt_cursor c = nt_cursor_make(payload, 0, len);
  memset(names, 0, sizeof *names);
  names->nfields = -1;
  (void)nt_u32(&c);
  nt_utf16z_ascii(&c, names->provider, sizeof names->provider);
  names->event_id = nt_u32(&c);
  nt_utf16z_ascii(&c, names->event, sizeof names->event);
  nt_skip(&c, 16);        /* keywords, version, level */
  if (!c.ok) return -1;
  if (nt_left(&c) == 0) return 0;
  uint32_t n = nt_u32(&c);
  int k = 0;
  for (uint32_t i = 0; i < n && c.ok && k < NT_META_MAX_FIELDS; i++) {
    uint32_t tc = nt_u32(&c);
    if (tc == NT_TYPECODE_OBJECT) break;  /* nested: the fields from here on are not located */
    names->typecode[k] = tc;
    nt_utf16z_ascii(&c, names->field[k], sizeof names->field[k]);
    if (c.ok) k++;
  }
  names->nfields = k;
  return 0;
}
