/* nt_fuzz_common.h — what the fuzzer and the corpus replay do with one
 * input: read it from memory and touch every delivered field (strings
 * included) so a sanitizer sees any bad pointer. */
#ifndef NT_FUZZ_COMMON_H
#define NT_FUZZ_COMMON_H

#include <string.h>

#include "nt_internal.h"

static int nt_fuzz_touch(const struct gcs_event *ev, void *ud) {
  char text[4096];
  size_t *sum = ud;
  *sum += gcs_event_format(ev, text, sizeof text) + (size_t)ev->ts_ns + (size_t)ev->tid;
  return 0;
}

static int nt_fuzz_one(const uint8_t *data, size_t size, struct gcs_nettrace_info *info,
                       char *err, size_t errlen) {
  size_t sum = 0;
  int rc = nt_read_buffer("fuzz-input", data, size, nt_fuzz_touch, &sum, info, err, errlen);
  /* The message is one line naming the input. */
  if (rc != 0 && (strncmp(err, "fuzz-input: ", 12) != 0 || strchr(err, '\n'))) __builtin_trap();
  (void)sum;
  return rc;
}

#endif /* NT_FUZZ_COMMON_H */
