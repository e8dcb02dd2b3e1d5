/*
 * nt_corpus_replay.c — runs every file of the fuzz corpus through the reader
 * the way the fuzzer does (so CI replays it under ASan/UBSan). Files named
 * valid-* must parse and deliver events, bad-* must fail, truncated-* must
 * be read up to their cut (rc 0, info.truncated); others (fuzzer finds kept
 * as regressions) must only not crash.
 * Usage: nt_corpus_replay CORPUS_DIR
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "nt_fuzz_common.h"

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]); return 2; }
  DIR *d = opendir(argv[1]);
  if (!d) { perror(argv[1]); return 2; }
  int failures = 0, files = 0, valid = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[1], de->d_name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;
    uint8_t chunk[65536];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
      if (len + n > cap) {
        cap = (len + n) * 2;
        uint8_t *nb = realloc(buf, cap);
        if (!nb) { free(buf); fclose(f); closedir(d); return 2; }
        buf = nb;
      }
      memcpy(buf + len, chunk, n);
      len += n;
    }
    fclose(f);
    struct gcs_nettrace_info info;
    char err[512] = "";
    int rc = nt_fuzz_one(buf ? buf : chunk, len, &info, err, sizeof err);
    files++;
    if (strncmp(de->d_name, "valid-", 6) == 0) {
      valid++;
      if (rc != 0 || info.events_decoded == 0) {
        fprintf(stderr, "%s: expected to parse, got rc=%d (%s)\n", de->d_name, rc, err);
        failures++;
      }
    } else if (strncmp(de->d_name, "truncated-", 10) == 0 && (rc != 0 || !info.truncated)) {
      fprintf(stderr, "%s: expected a truncated stream, got rc=%d truncated=%d (%s)\n", de->d_name, rc,
              info.truncated, err);
      failures++;
    } else if (strncmp(de->d_name, "bad-", 4) == 0 && rc != -1) {
      fprintf(stderr, "%s: expected an error\n", de->d_name);
      failures++;
    }
    free(buf);
  }
  closedir(d);
  printf("%d corpus files replayed (%d valid)\n", files, valid);
  if (valid == 0) { fprintf(stderr, "no valid-* seed in %s\n", argv[1]); failures++; }
  return failures != 0;
}
