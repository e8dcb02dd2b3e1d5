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

/* The directories on the path from the walk's start to the current one,
 * by device and inode: a directory met again among them is a symlink loop. */
struct ancestors { dev_t dev[64]; ino_t ino[64]; int n; const char *real_base; };

/* 1 when the symlink at p resolves to the walk's start or below it. */
static int link_inside(const char *p, const char *real_base) {
  char *r = realpath(p, NULL);
  if (!r) return 1;  /* dangling or a loop: the stat below says which */
  size_t n = strlen(real_base);
  int in = strncmp(r, real_base, n) == 0 && (r[n] == '\0' || r[n] == '/' || (n == 1 && real_base[0] == '/'));
  free(r);
  return in;
}

static void walk_error(char *err, size_t errlen, const char *path, int e) {
  if (e == EACCES || e == EPERM) snprintf(err, errlen, "%s: permission denied", path);
  else snprintf(err, errlen, "%s: %s", path, strerror(e));
}

/* Depth-first walk. Every directory under the start must be readable (an
 * unreadable one could hold a trace: the import would be silently partial);
 * a symlink back to a directory being walked is an error, not a loop. */
static int walk(const char *dir, const struct stat *dst, struct ancestors *up, struct strvec *found, char *err,
                size_t errlen) {
  for (int i = 0; i < up->n; i++)
    if (up->dev[i] == dst->st_dev && up->ino[i] == dst->st_ino) {
      snprintf(err, errlen, "%s: symlink loop (it leads back to a directory above it)", dir);
      return -1;
    }
  if (up->n == (int)(sizeof up->dev / sizeof up->dev[0])) {
    snprintf(err, errlen, "%s: directories nested too deep", dir);
    return -1;
  }
  DIR *d = opendir(dir);
  if (!d) { walk_error(err, errlen, dir, errno); return -1; }
  up->dev[up->n] = dst->st_dev;
  up->ino[up->n] = dst->st_ino;
  up->n++;
  struct dirent *de;
  int rc = 0, has_metadata = 0;
  char *special = NULL;  /* the first entry neither a file nor a directory (a FIFO, a device) */
  while (rc == 0 && (de = readdir(d)) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    size_t n = strlen(dir) + strlen(de->d_name) + 2;
    char *p = malloc(n);
    if (!p) { snprintf(err, errlen, "out of memory"); rc = -1; break; }
    snprintf(p, n, "%s/%s", dir, de->d_name);
    struct stat st, lst;
    if (lstat(p, &lst) == 0 && S_ISLNK(lst.st_mode) && !link_inside(p, up->real_base)) {
      /* Followed, a link could pull in unrelated traces (or /dev/zero). */
      snprintf(err, errlen, "%s: a symlink leading outside %s (not followed: import its target itself)", p,
               up->real_base);
      rc = -1;
    } else if (stat(p, &st) == 0) {
      if (S_ISDIR(st.st_mode)) rc = walk(p, &st, up, found, err, errlen);
      else if (S_ISREG(st.st_mode) && strcmp(de->d_name, "metadata") == 0) {
        has_metadata = 1;
        if (strvec_push(found, dir) != 0) {
          snprintf(err, errlen, "out of memory");
          rc = -1;
        }
      } else if (!S_ISREG(st.st_mode) && !special) {
        special = p;
        p = NULL;
      }
    } else if (errno == ELOOP) {
      snprintf(err, errlen, "%s: symlink loop", p);
      rc = -1;
    } else if (errno == EACCES) {
      walk_error(err, errlen, p, errno);
      rc = -1;
    }  /* (a dangling symlink is not part of any trace: skipped) */
    free(p);
  }
  closedir(d);
  /* In a trace directory every other file is a stream file libbabeltrace2
   * would skip without a word (a FIFO) or read forever (a link to
   * /dev/zero is a device). */
  if (rc == 0 && has_metadata && special) {
    snprintf(err, errlen, "%s: not a regular file (a FIFO, socket or device where a trace's stream file should be)",
             special);
    rc = -1;
  }
  free(special);
  up->n--;
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
    if (errno == ELOOP) snprintf(err, errlen, "%s: symlink loop", path);
    else walk_error(err, errlen, path, errno);
    free(base);
    return -1;
  }
  char *real_base = realpath(base, NULL);
  if (!real_base) {
    walk_error(err, errlen, path, errno);
    free(base);
    return -1;
  }
  struct ancestors up = { .n = 0, .real_base = real_base };
  int wrc = walk(base, &st, &up, &found, err, errlen);
  free(real_base);
  if (wrc != 0) {
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
