/*
 * fuzz_zip.c — libFuzzer target: the input as a .zip archive given to
 * `import` (gcs_zip_extract into $TMPDIR), with the limits lowered (1 MB
 * of declared sizes, 256 directory levels in all) so small inputs reach
 * them. An error is one line whose printable form is itself (entry names
 * are made printable before they are printed: no control character, ESC
 * included), and a failed extraction leaves no directory behind.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcs_zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_path[4096];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_path[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(g_path, sizeof g_path, "%s/gcs-fuzz-zip-%d.zip", t && *t ? t : "/tmp", (int)getpid());
  }
  FILE *f = fopen(g_path, "wb");
  if (!f) return 0;
  if (size) fwrite(data, 1, size, f);
  fclose(f);
  struct gcs_zip_limits lim = { .max_bytes = 1000000, .max_dirs = 256 };
  char *dir = NULL, err[1024] = "";
  if (gcs_zip_extract(g_path, &lim, &dir, err, sizeof err) == 0) {
    gcs_zip_cleanup(dir);
  } else {
    if (dir) __builtin_trap();
    for (const char *p = err; *p; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7f) __builtin_trap();
  }
  unlink(g_path);
  return 0;
}
