/*
 * fuzz_ctf.c — libFuzzer target: the native CTF reader (core/ctf/
 * ctf_native_meta.c, ctf_native_read.c). An input is a little trace: a
 * 4-byte little-endian length N, N bytes of metadata (plain text or
 * packetized), then the bytes of one stream file. It is written to a
 * directory under TMPDIR (metadata, channel0_0) and read with nt_read; every
 * record is formatted (its strings, fields and stack read). Metadata outside
 * the subset is refused (2), a damaged stream is one line (-1): anything
 * else (a crash, a sanitizer report, a hang, a runaway allocation) is a bug.
 *
 * Rotated streams (LTTng's --tracefile-size): when N's top bit is set, N's
 * bits 24-30 are K and its low 24 bits the length; the stream bytes are
 * written as two files of one rotated stream, channel0_0_0 (the first K x
 * 4096 bytes) and channel0_0_1 (the rest), or for K = 0 the same bytes
 * twice (a copied file).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctf_native.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[4096];

static int on_event(const struct gcs_rd_event *e, void *ud) {
  size_t *sum = ud;
  char text[8192];
  *sum += strlen(e->name) + strlen(e->procname) + (size_t)e->ev.ts_ns;
  if (e->bin_info) *sum += strlen(e->bin_info->path) + e->bin_info->baddr;
  if (e->decoded) {
    *sum += gcs_event_format(&e->ev, text, sizeof text);
    if (e->ev.stack)
      for (uint32_t i = 0; i < e->ev.stack->depth; i++) *sum += (size_t)e->ev.stack->ip[i];
  }
  return 0;
}

static int on_lost(const struct gcs_rd_lost *l, void *ud) {
  size_t *sum = ud;
  *sum += (size_t)l->count + strlen(l->stream);
  return 0;
}

static void put(const char *name, const uint8_t *p, size_t n) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (n && fwrite(p, 1, n, f) != n) abort();
  fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!dir[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/fuzz-ctf-%d", t && *t ? t : "/tmp", (int)getpid());
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0) abort();
  }
  if (size < 4) return 0;
  uint32_t n = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
  uint32_t rotated = n >> 31, k = (n >> 24) & 0x7f;
  if (rotated) n &= 0xffffff;
  if (n > size - 4) n = (uint32_t)(size - 4);
  put("metadata", data + 4, n);
  const uint8_t *sb = data + 4 + n;
  size_t sn = size - 4 - n;
  const char *names[3] = { "channel0_0", "channel0_0_0", "channel0_0_1" };
  for (int i = 0; i < 3; i++) {   /* the previous input's stream files */
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  if (!rotated) put("channel0_0", sb, sn);
  else {
    size_t cut = k ? ((size_t)k * 4096 < sn ? (size_t)k * 4096 : sn) : sn;
    put("channel0_0_0", sb, cut);
    if (k) put("channel0_0_1", sb + cut, sn - cut);
    else put("channel0_0_1", sb, sn);
  }
  const char *dirs[1] = { dir };
  size_t sum = 0;
  struct gcs_rd_callbacks cb = { .event = on_event, .lost = on_lost };
  struct gcs_rd_stats st;
  memset(&st, 0, sizeof st);
  char err[1024] = "";
  int rc = nt_read(dirs, 1, &cb, &sum, NULL, &st, err, sizeof err);
  if (rc != 0 && (!err[0] || strchr(err, '\n'))) abort();   /* an error is one line */
  if (rc == 0 && st.events && st.first_ns > st.last_ns && st.last_ns) (void)0;
  return (int)(sum & 0);
}
