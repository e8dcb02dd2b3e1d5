/* nt_fuzz_common.h — what the fuzzer and the corpus replay do with one
 * input: read it from memory and touch every delivered field (strings
 * included) so a sanitizer sees any bad pointer. */
#ifndef NT_FUZZ_COMMON_H
#define NT_FUZZ_COMMON_H

#include <string.h>

#include "nt_internal.h"

struct nt_fuzz_acc { size_t sum; uint64_t lost; };

static int nt_fuzz_touch(const struct gcs_event *ev, void *ud) {
  char text[4096];
  struct nt_fuzz_acc *a = ud;
  a->sum += gcs_event_format(ev, text, sizeof text) + (size_t)ev->ts_ns + (size_t)ev->tid;
  return 0;
}

/* A lost record counts at least one event, in a window that does not end
 * before it begins. */
static int nt_fuzz_lost(const struct gcs_nettrace_lost *l, void *ud) {
  struct nt_fuzz_acc *a = ud;
  if (l->count == 0 || l->begin_ns > l->end_ns) __builtin_trap();
  a->lost += l->count;
  return 0;
}

static int nt_fuzz_one(const uint8_t *data, size_t size, struct gcs_nettrace_info *info,
                       char *err, size_t errlen) {
  struct nt_fuzz_acc a = { 0, 0 };
  err[0] = '\0';
  memset(info, 0, sizeof *info);
  struct gcs_nettrace_stream *s = gcs_nettrace_stream_new("fuzz-input", nt_fuzz_touch, NULL, &a);
  if (!s) return -1;
  gcs_nettrace_stream_set_lost(s, nt_fuzz_lost, NULL);
  int rc = gcs_nettrace_stream_feed(s, data, size, err, errlen);
  if (rc == 0) rc = gcs_nettrace_stream_finish(s, err, errlen);
  *info = *gcs_nettrace_stream_info(s);
  gcs_nettrace_stream_free(s);
  rc = rc < 0 ? -1 : 0;
  /* The message is one line naming the input. */
  if (rc != 0 && (strncmp(err, "fuzz-input: ", 12) != 0 || strchr(err, '\n'))) __builtin_trap();
  /* Read to its end, every gap counted was delivered as a lost record. */
  if (rc == 0 && a.lost != info->events_lost) __builtin_trap();
  return rc;
}

#endif /* NT_FUZZ_COMMON_H */
