/*
 * fuzz_nettrace_live.c — libFuzzer target: the same bytes as a live
 * EventPipe connection delivers them (record --pid, top --pid): in live
 * mode (1 ms lag), fed in pieces whose sizes come from the input's first
 * byte (1 to 256 bytes a piece, as a slow or hostile peer sends them; after
 * every seventh piece the peer is quiet for the lag: gcs_nettrace_stream_idle), with
 * the reconstruction's live consumer behind it (events and lost records). Every feed must return, the
 * stream must end with 0, 1 or -1 and a one-line message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_recon.h"
#include "nt_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_event(const struct gcs_event *ev, void *ud) {
  gcs_recon_feed(ud, ev);
  return 0;
}

/* The gaps go to the reconstruction as serve's do (a window, a count). */
static int on_lost(const struct gcs_nettrace_lost *l, void *ud) {
  if (l->count == 0 || l->begin_ns > l->end_ns) __builtin_trap();
  gcs_recon_lost(ud, -1, l->begin_ns, l->end_ns, l->count);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  size_t piece = (size_t)data[0] + 1;
  data++;
  size--;
  struct gcs_recon *r = gcs_recon_new(NULL, NULL);
  if (!r) return 0;
  struct gcs_nettrace_stream *s = gcs_nettrace_stream_new("fuzz-live", on_event, NULL, r);
  if (!s) { gcs_recon_free(r); return 0; }
  gcs_nettrace_stream_set_live(s, 1000000);
  gcs_nettrace_stream_set_lost(s, on_lost, NULL);
  nt_stream_set_limits(s, 4096, 64u << 10);
  nt_stream_set_sorted_flush_min(s, 64);
  char err[1024] = "";
  int rc = 0;
  for (size_t off = 0, k = 0; rc == 0 && off < size; off += piece, k++) {
    rc = gcs_nettrace_stream_feed(s, data + off, size - off < piece ? size - off : piece, err, sizeof err);
    /* now and then the peer goes quiet for the live lag: what waits is delivered */
    if (rc == 0 && k % 7 == 6) rc = gcs_nettrace_stream_idle(s, err, sizeof err);
  }
  if (rc == 0) rc = gcs_nettrace_stream_finish(s, err, sizeof err);
  if (rc != 0 && (strncmp(err, "fuzz-live: ", 11) != 0 || strchr(err, '\n'))) __builtin_trap();
  gcs_recon_finish(r);
  gcs_nettrace_stream_free(s);
  gcs_recon_free(r);
  return 0;
}
