/* fuzz_nettrace.c — libFuzzer entry point for the nettrace reader (built
 * with -DGCSCOPE_FUZZ=ON and clang). Seeds: tests/nettrace/corpus/. */
#include <stddef.h>
#include <stdint.h>

#include "nt_fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct gcs_nettrace_info info;
  char err[512];
  (void)nt_fuzz_one(data, size, &info, err, sizeof err);
  return 0;
}
