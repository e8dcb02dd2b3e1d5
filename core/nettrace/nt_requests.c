/* nt_requests.c — EventSource start/stop pairs as request events (nt_requests.h). */
#include "nt_requests.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* System.TypeCode values of EventPipe field descriptions. */
enum { TC_BOOLEAN = 3, TC_CHAR, TC_SBYTE, TC_BYTE, TC_INT16, TC_UINT16, TC_INT32, TC_UINT32, TC_INT64,
       TC_UINT64, TC_SINGLE, TC_DOUBLE, TC_DECIMAL, TC_DATETIME, TC_GUID, TC_STRING };

/* Keys of events without an activity id: the thread, marked apart from folded ids. */
#define NT_REQ_THREAD_KEY (1ull << 62)

static void spec_set(struct gcs_nettrace_reqspec *s, const char *prov, const char *start, const char *stop,
                     const char *key, int source) {
  memset(s, 0, sizeof *s);
  snprintf(s->provider, sizeof s->provider, "%s", prov);
  snprintf(s->start, sizeof s->start, "%s", start);
  snprintf(s->stop, sizeof s->stop, "%s", stop);
  snprintf(s->key, sizeof s->key, "%s", key);
  s->source = source;
}

int gcs_nettrace_reqspec_parse(const char *text, struct gcs_nettrace_reqspec *out, char *err, size_t errlen) {
  if (!strcmp(text, "aspnet")) {
    spec_set(out, GCS_NETTRACE_ASPNET_PROVIDER, "RequestStart", "RequestStop", "", GCS_NT_REQ_ASPNET);
    return 0;
  }
  if (!strcmp(text, "http")) {
    spec_set(out, GCS_NETTRACE_HTTP_PROVIDER, "RequestStart", "RequestStop", "", GCS_NT_REQ_HTTP);
    return 0;
  }
  char part[4][128] = { "", "", "", "" };
  int n = 0;
  const char *p = text;
  for (;;) {
    const char *c = strchr(p, ':');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    if (n == 4 || len == 0 || len >= sizeof part[0]) { n = -1; break; }
    memcpy(part[n], p, len);
    part[n++][len] = '\0';
    if (!c) break;
    p = c + 1;
  }
  if (n < 3 || strlen(part[1]) >= sizeof out->start || strlen(part[2]) >= sizeof out->stop ||
      strlen(part[3]) >= sizeof out->key) {
    snprintf(err, errlen, "'%s': expected aspnet, http or PROVIDER:START:STOP[:KEY]", text);
    return -1;
  }
  for (const char *q = part[0]; *q; q++)
    if (!isalnum((unsigned char)*q) && *q != '.' && *q != '-' && *q != '_') {
      snprintf(err, errlen, "'%s': the provider name '%s' holds '%c'", text, part[0], *q);
      return -1;
    }
  spec_set(out, part[0], part[1], part[2], part[3], GCS_NT_REQ_CUSTOM);
  return 0;
}

void nt_req_init(struct nt_req *q) {
  memset(q, 0, sizeof *q);
  char err[8];
  gcs_nettrace_reqspec_parse("aspnet", &q->specs[q->nspecs++], err, sizeof err);
  gcs_nettrace_reqspec_parse("http", &q->specs[q->nspecs++], err, sizeof err);
}

void nt_req_free(struct nt_req *q) {
  free(q->layouts);
  free(q->scratch);
  q->layouts = NULL;
  q->scratch = NULL;
}

int nt_req_add(struct nt_req *q, const struct gcs_nettrace_reqspec *spec) {
  if (q->nspecs >= GCS_NETTRACE_MAX_REQSPECS) return -1;
  q->specs[q->nspecs++] = *spec;
  return 0;
}

/* An event named by its name or its decimal id. */
static int names_event(const char *want, const struct nt_meta_names *nm) {
  if (!strcmp(want, nm->event)) return 1;
  char *end;
  unsigned long id = strtoul(want, &end, 10);
  return want[0] >= '0' && want[0] <= '9' && *end == '\0' && id == nm->event_id;
}

static int field_index(const struct nt_meta_names *nm, const char *name) {
  for (int i = 0; i < nm->nfields; i++)
    if (!strcasecmp(nm->field[i], name)) return i;
  return -1;
}

int nt_req_match(struct nt_req *q, const uint8_t *payload, size_t len, struct nt_meta *m) {
  struct nt_meta_names nm;
  if (nt_meta_names(payload, len, &nm) != 0 || !nm.provider[0]) return 0;
  for (int i = q->nspecs - 1; i >= 0; i--) {   /* the stream's own pairs before the built-in ones */
    const struct gcs_nettrace_reqspec *s = &q->specs[i];
    if (strcasecmp(s->provider, nm.provider) != 0) continue;
    int start = names_event(s->start, &nm);
    if (!start && !names_event(s->stop, &nm)) continue;
    if (q->nlayouts >= NT_REQ_MAX_LAYOUTS) return 0;
    if (!q->layouts && !(q->layouts = calloc(NT_REQ_MAX_LAYOUTS, sizeof *q->layouts))) return -1;
    struct nt_req_layout *l = &q->layouts[q->nlayouts];
    memset(l, 0, sizeof *l);
    l->start = start;
    l->source = (uint8_t)s->source;
    l->nfields = nm.nfields;
    memcpy(l->typecode, nm.typecode, sizeof l->typecode);
    l->method_i = (int8_t)field_index(&nm, "method");
    l->path_i = (int8_t)field_index(&nm, "path");
    if (l->path_i < 0) l->path_i = (int8_t)field_index(&nm, "pathAndQuery");
    l->key_i = s->key[0] ? (int8_t)field_index(&nm, s->key) : -1;
    if (s->key[0] && l->key_i < 0) l->key_i = -2;   /* a key that is not there: not pairable */
    m->kind = start ? gcs_kind_SourceRequestStart : gcs_kind_SourceRequestStop;
    m->req = (uint16_t)(++q->nlayouts);
    return 0;
  }
  return 0;
}

const uint8_t *nt_req_pack(struct nt_req *q, const struct nt_meta *m, const uint8_t activity[16],
                           const uint8_t *payload, uint32_t len, uint32_t *out_len) {
  size_t need = (size_t)len + NT_REQ_PREFIX;
  if (need > q->scratch_cap) {
    uint8_t *nb = realloc(q->scratch, need);
    if (!nb) return NULL;
    q->scratch = nb;
    q->scratch_cap = need;
  }
  memcpy(q->scratch, activity, 16);
  uint32_t idx = m->req;
  memcpy(q->scratch + 16, &idx, 4);
  if (len) memcpy(q->scratch + NT_REQ_PREFIX, payload, len);
  *out_len = (uint32_t)need;
  return q->scratch;
}

/* Size of a fixed-size field, 0 for a string, -1 for one not walked past. */
static int tc_size(uint32_t tc) {
  switch (tc) {
  case TC_SBYTE: case TC_BYTE: return 1;
  case TC_CHAR: case TC_INT16: case TC_UINT16: return 2;
  case TC_BOOLEAN: case TC_INT32: case TC_UINT32: case TC_SINGLE: return 4;
  case TC_INT64: case TC_UINT64: case TC_DOUBLE: case TC_DATETIME: return 8;
  case TC_DECIMAL: case TC_GUID: return 16;
  case TC_STRING: return 0;
  default: return -1;
  }
}

/* Offsets of the first `want` fields: off[i], len[i] (strings without the NUL). */
static int walk(const struct nt_req_layout *l, const uint8_t *p, size_t len, size_t *off, size_t *flen, int want) {
  size_t at = 0;
  int i;
  for (i = 0; i < want && i < l->nfields; i++) {
    int sz = tc_size(l->typecode[i]);
    if (sz < 0) break;
    off[i] = at;
    if (sz > 0) {
      if (len - at < (size_t)sz) break;
      flen[i] = (size_t)sz;
      at += (size_t)sz;
    } else {
      size_t e = at;
      while (e + 1 < len && (p[e] | p[e + 1])) e += 2;
      if (e + 1 >= len) break;   /* unterminated */
      flen[i] = e - at;
      at = e + 2;
    }
  }
  return i;
}

static uint64_t fnv(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* UTF-16LE (n bytes) to UTF-8 at *o in buf; returns the string. */
static const char *put_utf8(const uint8_t *s, size_t n, char *buf, size_t cap, size_t *o) {
  char *out = buf + *o;
  size_t k = *o;
  for (size_t i = 0; i + 1 < n; i += 2) {
    uint32_t c = (uint32_t)s[i] | ((uint32_t)s[i + 1] << 8);
    if (c >= 0xD800 && c < 0xDC00 && i + 3 < n) {
      uint32_t c2 = (uint32_t)s[i + 2] | ((uint32_t)s[i + 3] << 8);
      if (c2 >= 0xDC00 && c2 < 0xE000) { c = 0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00); i += 2; }
    }
    char e[4];
    size_t m;
    if (c < 0x80) { e[0] = (char)c; m = 1; }
    else if (c < 0x800) { e[0] = (char)(0xC0 | (c >> 6)); e[1] = (char)(0x80 | (c & 0x3F)); m = 2; }
    else if (c < 0x10000) {
      e[0] = (char)(0xE0 | (c >> 12)); e[1] = (char)(0x80 | ((c >> 6) & 0x3F)); e[2] = (char)(0x80 | (c & 0x3F));
      m = 3;
    } else {
      e[0] = (char)(0xF0 | (c >> 18)); e[1] = (char)(0x80 | ((c >> 12) & 0x3F));
      e[2] = (char)(0x80 | ((c >> 6) & 0x3F)); e[3] = (char)(0x80 | (c & 0x3F)); m = 4;
    }
    if (k + m + 1 > cap) break;
    memcpy(buf + k, e, m);
    k += m;
  }
  if (k < cap) buf[k++] = '\0';
  *o = k;
  return out;
}

void nt_req_decode(const struct nt_req *q, struct gcs_event *ev, const uint8_t *packed, uint32_t len,
                   char *strbuf, size_t cap) {
  struct gcs_ev_SourceRequestStart *r = &ev->u.SourceRequestStart;
  memset(r, 0, sizeof *r);
  r->Method = r->Path = "";
  if (len < NT_REQ_PREFIX) return;
  const uint8_t *act = packed;
  uint32_t idx;
  memcpy(&idx, packed + 16, 4);
  const uint8_t *p = packed + NT_REQ_PREFIX;
  size_t plen = len - NT_REQ_PREFIX;
  static const uint8_t zero[16];
  if (idx == 0 || idx > q->nlayouts) return;
  const struct nt_req_layout *l = &q->layouts[idx - 1];
  r->Source = l->source;
  size_t off[NT_META_MAX_FIELDS], flen[NT_META_MAX_FIELDS];
  int got = walk(l, p, plen, off, flen, NT_META_MAX_FIELDS);
  size_t o = 0;
  if (l->method_i >= 0 && l->method_i < got && tc_size(l->typecode[l->method_i]) == 0)
    r->Method = put_utf8(p + off[l->method_i], flen[l->method_i], strbuf, cap, &o);
  if (l->path_i >= 0 && l->path_i < got && tc_size(l->typecode[l->path_i]) == 0)
    r->Path = put_utf8(p + off[l->path_i], flen[l->path_i], strbuf, cap, &o);
  if (l->key_i >= 0 && l->key_i < got) {
    int k = l->key_i;
    uint64_t v = 0;
    if (tc_size(l->typecode[k]) == 0 || flen[k] > 8) v = fnv(p + off[k], flen[k]);
    else for (size_t i = 0; i < flen[k]; i++) v |= (uint64_t)p[off[k] + i] << (8 * i);
    r->Id = v & 0x7FFFFFFFFFFFFFFFull;
  } else if (l->key_i == -1 && memcmp(act, zero, 16) != 0) {
    r->Id = fnv(act, 16) & 0x3FFFFFFFFFFFFFFFull;
  } else {
    r->Id = NT_REQ_THREAD_KEY | (uint32_t)ev->tid;
  }
}

static void sidecar_name(char *out, size_t cap, const char *trace_path, int strip_gz) {
  size_t n = strlen(trace_path);
  if (strip_gz && n > 3 && !strcmp(trace_path + n - 3, ".gz")) n -= 3;
  snprintf(out, cap, "%.*s.requests", (int)n, trace_path);
}

int gcs_nettrace_stream_load_requests(struct gcs_nettrace_stream *s, const char *trace_path, char *err, size_t errlen) {
  char name[4200];
  sidecar_name(name, sizeof name, trace_path, 0);
  FILE *f = fopen(name, "r");
  if (!f) {
    sidecar_name(name, sizeof name, trace_path, 1);
    f = fopen(name, "r");
  }
  if (!f) return 0;
  char line[512];
  int lineno = 0, rc = 0;
  while (rc == 0 && fgets(line, sizeof line, f)) {
    lineno++;
    line[strcspn(line, "\r\n")] = '\0';
    char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '#') continue;
    struct gcs_nettrace_reqspec spec;
    char e[300];
    if (gcs_nettrace_reqspec_parse(p, &spec, e, sizeof e) != 0) {
      snprintf(err, errlen, "%s:%d: %s", name, lineno, e);
      rc = -1;
    } else if (spec.source == GCS_NT_REQ_CUSTOM && gcs_nettrace_stream_add_requests(s, &spec) != 0) {
      snprintf(err, errlen, "%s:%d: more than %d pairs", name, lineno, GCS_NETTRACE_MAX_REQSPECS - 2);
      rc = -1;
    }
  }
  fclose(f);
  return rc;
}

int gcs_nettrace_write_requests(const char *trace_path, const struct gcs_nettrace_reqspec *spec, int n, char *err,
                                size_t errlen) {
  int any = 0;
  for (int i = 0; i < n; i++) any |= spec[i].source == GCS_NT_REQ_CUSTOM;
  if (!any) return 0;
  char name[4200];
  sidecar_name(name, sizeof name, trace_path, 0);
  FILE *f = fopen(name, "w");
  if (!f) {
    snprintf(err, errlen, "cannot write %s", name);
    return -1;
  }
  fprintf(f, "# the EventSource start/stop pairs `gcscope record --requests` recorded (docs/dotnet.md)\n");
  for (int i = 0; i < n; i++)
    if (spec[i].source == GCS_NT_REQ_CUSTOM)
      fprintf(f, "%s:%s:%s%s%s\n", spec[i].provider, spec[i].start, spec[i].stop, spec[i].key[0] ? ":" : "",
              spec[i].key);
  if (fclose(f) != 0) {
    snprintf(err, errlen, "cannot write %s", name);
    return -1;
  }
  return 0;
}
