/* gcs_ctf_find.c — walk a directory for CTF `metadata` files and group them by
 * LTTng session (see gcs_ctf_find.h). */
#include "gcs_ctf_find.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct strvec { char **v; int n, cap; };

static int strvec_push(struct strvec *sv, const char *s) {
  if (sv->n == sv->cap) {
    int cap = sv->cap ? sv->cap * 2 : 8;
    char **v = realloc(sv->v, (size_t)cap * sizeof *v);
    if (!v) return -1;
    sv->v = v; sv->cap = cap;
  }
  if (!(sv->v[sv->n] = strdup(s))) return -1;
  sv->n++;
  return 0;
}

static void strvec_free(struct strvec *sv) {
  for (int i = 0; i < sv->n; i++) free(sv->v[i]);
  free(sv->v);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Depth-first walk; depth-limited so a symlink loop cannot hang us. */
static int walk(const char *dir, int depth, struct strvec *found) {
  if (depth > 16) return 0;
  DIR *d = opendir(dir);
  if (!d) return 0;  /* unreadable subdirectories are skipped */
  struct dirent *de;
  int rc = 0;
  while (rc == 0 && (de = readdir(d)) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    size_t n = strlen(dir) + strlen(de->d_name) + 2;
    char *p = malloc(n);
    if (!p) { rc = -1; break; }
    snprintf(p, n, "%s/%s", dir, de->d_name);
    struct stat st;
    if (stat(p, &st) == 0) {
      if (S_ISDIR(st.st_mode)) rc = walk(p, depth + 1, found);
      else if (S_ISREG(st.st_mode) && strcmp(de->d_name, "metadata") == 0) rc = strvec_push(found, dir);
    }
    free(p);
  }
  closedir(d);
  return rc;
}

/* Session root of a trace directory: the part of dir before its last
 * "/ust/" or "/kernel/" component, provided it is not above base. */
static char *session_root(const char *base, const char *dir) {
  size_t blen = strlen(base);
  const char *rel = dir + blen;  /* dir starts with base */
  const char *cut = NULL;
  for (const char *p = rel; *p; p++) {
    if (*p != '/') continue;
    if (strncmp(p, "/ust/", 5) == 0 || strncmp(p, "/kernel/", 8) == 0 ||
        strcmp(p, "/kernel") == 0 || strcmp(p, "/ust") == 0)
      cut = p;
  }
  if (!cut) return strdup(dir);
  size_t n = (size_t)(cut - dir);
  char *r = malloc(n + 1);
  if (r) { memcpy(r, dir, n); r[n] = '\0'; }
  return r;
}

int gcs_ctf_find(const char *path, struct gcs_ctf_session **out, int *nout, char *err,
                 size_t errlen) {
  *out = NULL;
  *nout = 0;
  /* Normalise: no trailing slash (but keep "/"). */
  char *base = strdup(path);
  if (!base) { snprintf(err, errlen, "out of memory"); return -1; }
  size_t bl = strlen(base);
  while (bl > 1 && base[bl - 1] == '/') base[--bl] = '\0';

  struct strvec found = {0};
  struct stat st;
  if (stat(base, &st) != 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    free(base);
    return -1;
  }
  if (walk(base, 0, &found) != 0) {
    snprintf(err, errlen, "out of memory");
    strvec_free(&found); free(base);
    return -1;
  }
  if (found.n > 1) qsort(found.v, (size_t)found.n, sizeof *found.v, cmp_str);

  struct gcs_ctf_session *s = calloc((size_t)(found.n ? found.n : 1), sizeof *s);
  int ns = 0, rc = 0;
  for (int i = 0; s && i < found.n && rc == 0; i++) {
    char *root = session_root(base, found.v[i]);
    if (!root) { rc = -1; break; }
    int j;
    for (j = 0; j < ns; j++) if (strcmp(s[j].root, root) == 0) break;
    if (j == ns) { s[ns].root = root; ns++; } else free(root);
    char **dv = realloc(s[j].dirs, (size_t)(s[j].ndirs + 1) * sizeof *dv);
    if (!dv) { rc = -1; break; }
    s[j].dirs = dv;
    if (!(dv[s[j].ndirs] = strdup(found.v[i]))) { rc = -1; break; }
    s[j].ndirs++;
  }
  strvec_free(&found);
  free(base);
  if (!s || rc != 0) {
    gcs_ctf_sessions_free(s, ns);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  *out = s;
  *nout = ns;
  return 0;
}

void gcs_ctf_sessions_free(struct gcs_ctf_session *s, int n) {
  if (!s) return;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < s[i].ndirs; j++) free(s[i].dirs[j]);
    free(s[i].dirs);
    free(s[i].root);
  }
  free(s);
}
