/*
 * replay_main.c — a plain main() for a fuzz target: every file named on the
 * command line (a directory: every file in it, in name order) is passed to
 * LLVMFuzzerTestOneInput once. The normal and sanitizer builds replay the
 * committed corpus this way, without clang (CTest: fuzz.replay_*).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); return -1; }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) { fclose(f); free(buf); return -1; }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, (size_t)n);
  free(buf);
  return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

int main(int argc, char **argv) {
  int count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) { perror(argv[i]); return 1; }
    if (!S_ISDIR(st.st_mode)) {
      if (run_file(argv[i]) != 0) return 1;
      count++;
      continue;
    }
    struct dirent **de;
    int n = scandir(argv[i], &de, NULL, by_name);
    if (n < 0) { perror(argv[i]); return 1; }
    for (int k = 0; k < n; k++) {
      char p[4096];
      snprintf(p, sizeof p, "%s/%s", argv[i], de[k]->d_name);
      if (de[k]->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
        if (run_file(p) != 0) return 1;
        count++;
      }
      free(de[k]);
    }
    free(de);
  }
  printf("replayed %d inputs\n", count);
  return count > 0 ? 0 : 1;
}
