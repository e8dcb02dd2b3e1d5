/* trc_outdir.c — record's output directory and what a failed recording leaves (trc_outdir.h). */
#include "trc_outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int is_dot(const char *n) { return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])); }

static int cmp_ino(const void *a, const void *b) {
  unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
  return (x > y) - (x < y);
}

/* mkdir, noting a directory made (not one that was there). */
static int make_one(struct trc_outdir *d, size_t len) {
  char c = d->given[len];
  d->given[len] = '\0';
  int rc = mkdir(d->given, 0775);
  int e = errno;
  d->given[len] = c;
  if (rc == 0) {
    if (d->nmade < TRC_OUTDIR_MAX_MADE) d->made[d->nmade++] = len;
    return 0;
  }
  errno = e;
  return e == EEXIST ? 0 : -1;
}

/* The entries of an existing output directory, by inode: what was there before. */
static int note_before(struct trc_outdir *d) {
  DIR *dir = opendir(d->path);
  if (!dir) return -1;
  size_t cap = 0;
  struct dirent *e;
  while ((e = readdir(dir))) {
    if (is_dot(e->d_name)) continue;
    if (d->nbefore == cap) {
      size_t ncap = cap ? 2 * cap : 64;
      unsigned long long *p = realloc(d->before, ncap * sizeof *p);
      if (!p) { closedir(dir); errno = ENOMEM; return -1; }
      d->before = p;
      cap = ncap;
    }
    d->before[d->nbefore++] = (unsigned long long)e->d_ino;
  }
  closedir(dir);
  if (d->nbefore) qsort(d->before, d->nbefore, sizeof *d->before, cmp_ino);
  return 0;
}

int trc_outdir_make(struct trc_outdir *d, const char *output, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  char def[64];
  if (!output) {
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(def, sizeof def, "gcscope-record-%Y%m%d-%H%M%S", &tm);
    output = def;
  }
  int made_last = 0;
  struct stat st;
  if ((size_t)snprintf(d->given, sizeof d->given, "%s", output) >= sizeof d->given) {
    errno = ENAMETOOLONG;
    goto fail;
  }
  for (size_t i = 1; d->given[i]; i++)
    if (d->given[i] == '/' && make_one(d, i) != 0) goto fail;
  int before = d->nmade;
  if (make_one(d, strlen(d->given)) != 0) goto fail;
  made_last = d->nmade > before;
  if (stat(d->given, &st) != 0) goto fail;
  if (!S_ISDIR(st.st_mode)) { errno = ENOTDIR; goto fail; }
  if (access(d->given, W_OK | X_OK) != 0 || !realpath(d->given, d->path)) goto fail;
  d->existed = !made_last;
  if (d->existed && note_before(d) != 0) goto fail;
  return 0;
fail:
  snprintf(err, errlen, "cannot write to output directory '%s': %s", output, strerror(errno));
  d->path[0] = '\0';   /* nothing in it is removed: only the directories made */
  trc_outdir_undo(d);
  trc_outdir_free(d);
  return -1;
}

static int existed_before(const struct trc_outdir *d, unsigned long long ino) {
  return d->existed && bsearch(&ino, d->before, d->nbefore, sizeof ino, cmp_ino) != NULL;
}

/* nftw over one new entry: does it hold no byte (empty regular files and
 * directories only)? Then remove it, deepest first. */
static int holds_byte(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)path, (void)ftw;
  if (type == FTW_F) return !S_ISREG(st->st_mode) || st->st_size != 0;
  return type != FTW_D && type != FTW_DP;   /* a symbolic link, an unreadable directory, ... */
}

static int remove_empty(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)ftw;
  if (type == FTW_DP) rmdir(path);
  else if (type == FTW_F && S_ISREG(st->st_mode) && st->st_size == 0) unlink(path);
  return 0;
}

void trc_outdir_undo(struct trc_outdir *d) {
  if (d->path[0]) {
    DIR *dir = opendir(d->path);
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
      if (is_dot(e->d_name) || existed_before(d, (unsigned long long)e->d_ino)) continue;
      if (n == cap) {
        size_t ncap = cap ? 2 * cap : 16;
        char **p = realloc(names, ncap * sizeof *p);
        if (!p) break;
        names = p;
        cap = ncap;
      }
      if (!(names[n] = strdup(e->d_name))) break;
      n++;
    }
    if (dir) closedir(dir);
    for (size_t i = 0; i < n; i++) {
      char p[PATH_MAX];
      if ((size_t)snprintf(p, sizeof p, "%s/%s", d->path, names[i]) < sizeof p &&
          nftw(p, holds_byte, 8, FTW_PHYS | FTW_MOUNT) == 0)
        nftw(p, remove_empty, 8, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
      free(names[i]);
    }
    free(names);
  }
  /* the directories made, deepest first: each only if empty */
  for (int i = d->nmade - 1; i >= 0; i--) {
    char c = d->given[d->made[i]];
    d->given[d->made[i]] = '\0';
    rmdir(d->given);
    d->given[d->made[i]] = c;
  }
  d->nmade = 0;
}

void trc_outdir_free(struct trc_outdir *d) {
  free(d->before);
  d->before = NULL;
  d->nbefore = 0;
}
