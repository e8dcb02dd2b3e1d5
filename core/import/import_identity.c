/* import_identity.c — content identity of a trace (see import_identity.h). */
#include "import_identity.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EDGE (64 * 1024)

/* Two independent 64-bit FNV-1a lanes. */
struct h2 { uint64_t a, b; };

static void h_bytes(struct h2 *h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) {
    h->a = (h->a ^ s[i]) * 1099511628211ull;
    h->b = (h->b ^ s[i]) * 0x100000001b3ull * 31ull + 7;
  }
}
static void h_str(struct h2 *h, const char *s) { h_bytes(h, s, strlen(s) + 1); }

static int h_file(struct h2 *h, const char *path, int whole, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) { snprintf(err, errlen, "%s: %s", path, errno == EACCES ? "permission denied" : strerror(errno)); return -1; }
  unsigned char *buf = malloc(EDGE);
  if (!buf) { fclose(f); snprintf(err, errlen, "out of memory"); return -1; }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  h_bytes(h, &size, sizeof size);
  size_t n;
  if (whole) {
    while ((n = fread(buf, 1, EDGE, f)) > 0) h_bytes(h, buf, n);
  } else {
    n = fread(buf, 1, EDGE, f);
    h_bytes(h, buf, n);
    if (size > 2 * EDGE) {
      fseek(f, size - EDGE, SEEK_SET);
      n = fread(buf, 1, EDGE, f);
      h_bytes(h, buf, n);
    }
  }
  free(buf);
  fclose(f);
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int h_dir(struct h2 *h, const char *dir, char *err, size_t errlen) {
  DIR *d = opendir(dir);
  if (!d) { snprintf(err, errlen, "%s: %s", dir, errno == EACCES ? "permission denied" : strerror(errno)); return -1; }
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *de;
  int rc = 0;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      char **nn = realloc(names, cap * sizeof *nn);
      if (!nn) { rc = -1; break; }
      names = nn;
    }
    if (!(names[n] = strdup(de->d_name))) { rc = -1; break; }
    n++;
  }
  closedir(d);
  if (rc == 0 && n > 1) qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    h_str(h, names[i]);
    rc = h_file(h, path, strcmp(names[i], "metadata") == 0, err, errlen);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  if (rc != 0 && !err[0]) snprintf(err, errlen, "out of memory");
  return rc;
}

static void h_out(const struct h2 *h, char out[IMPORT_IDENTITY_LEN]) {
  snprintf(out, IMPORT_IDENTITY_LEN, "%016llx%016llx", (unsigned long long)h->a, (unsigned long long)h->b);
}

int import_identity_dirs(const char *root, const char *const *dirs, int ndirs,
                         char out[IMPORT_IDENTITY_LEN], char *err, size_t errlen) {
  struct h2 h = { 1469598103934665603ull, 0x9e3779b97f4a7c15ull };
  size_t rl = strlen(root);
  err[0] = '\0';
  for (int i = 0; i < ndirs; i++) {  /* dirs come sorted from gcs_ctf_find */
    const char *rel = strncmp(dirs[i], root, rl) == 0 ? dirs[i] + rl : dirs[i];
    h_str(&h, rel);
    if (h_dir(&h, dirs[i], err, errlen) != 0) return -1;
  }
  h_out(&h, out);
  return 0;
}

int import_identity_file(const char *path, char out[IMPORT_IDENTITY_LEN], char *err, size_t errlen) {
  struct h2 h = { 1469598103934665603ull, 0x9e3779b97f4a7c15ull };
  h_str(&h, "file");
  if (h_file(&h, path, 0, err, errlen) != 0) return -1;
  h_out(&h, out);
  return 0;
}

static int cmp_hash(const void *a, const void *b) { return memcmp(a, b, IMPORT_IDENTITY_LEN); }

int import_identity_ctf(const char *const *dirs, int ndirs, char **out, char *err, size_t errlen) {
  err[0] = '\0';
  *out = NULL;
  char (*hs)[IMPORT_IDENTITY_LEN] = calloc((size_t)(ndirs ? ndirs : 1), sizeof *hs);
  if (!hs) { snprintf(err, errlen, "out of memory"); return -1; }
  for (int i = 0; i < ndirs; i++) {
    struct h2 h = { 1469598103934665603ull, 0x9e3779b97f4a7c15ull };
    if (h_dir(&h, dirs[i], err, errlen) != 0) { free(hs); return -1; }
    h_out(&h, hs[i]);
  }
  qsort(hs, (size_t)ndirs, sizeof *hs, cmp_hash);
  size_t len = strlen(IMPORT_IDENTITY_CTF_PREFIX) + (size_t)ndirs * IMPORT_IDENTITY_LEN + 1;
  char *s = malloc(len);
  if (!s) { free(hs); snprintf(err, errlen, "out of memory"); return -1; }
  strcpy(s, IMPORT_IDENTITY_CTF_PREFIX);
  for (int i = 0; i < ndirs; i++) {
    if (i) strcat(s, ",");
    strcat(s, hs[i]);
  }
  free(hs);
  *out = s;
  return 0;
}
