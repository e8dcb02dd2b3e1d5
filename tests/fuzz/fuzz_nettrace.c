/*
 * fuzz_nettrace.c — libFuzzer target: a .nettrace file read whole, every
 * delivered event formatted (a sanitizer sees any bad pointer) and fed to
 * the GC reconstruction (so a decoded value reaches recon's arithmetic:
 * UBSan sees an overflow there, issue 25's GCPerHeapHistory case).
 * The sort buffer's limits are lowered (4,096 events, 64 KiB of payloads,
 * an IsSorted delivery from 64 waiting events) so small inputs reach every
 * limit and the early-delivery path. An error must be one line naming the
 * input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_recon.h"
#include "nt_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink { struct gcs_recon *r; size_t sum; };

static int on_event(const struct gcs_event *ev, void *ud) {
  struct sink *k = ud;
  char text[4096];
  k->sum += gcs_event_format(ev, text, sizeof text) + (size_t)ev->ts_ns;
  gcs_recon_feed(k->r, ev);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct sink k = { gcs_recon_new(NULL, NULL), 0 };
  if (!k.r) return 0;
  struct gcs_nettrace_stream *s = gcs_nettrace_stream_new("fuzz-input", on_event, NULL, &k);
  if (!s) { gcs_recon_free(k.r); return 0; }
  nt_stream_set_limits(s, 4096, 64u << 10);
  nt_stream_set_sorted_flush_min(s, 64);
  char err[1024] = "";
  int rc = gcs_nettrace_stream_feed(s, data, size, err, sizeof err);
  if (rc == 0) rc = gcs_nettrace_stream_finish(s, err, sizeof err);
  if (rc != 0 && (strncmp(err, "fuzz-input: ", 12) != 0 || strchr(err, '\n'))) __builtin_trap();
  gcs_recon_finish(k.r);
  gcs_nettrace_stream_free(s);
  gcs_recon_free(k.r);
  return 0;
}
