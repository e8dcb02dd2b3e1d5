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

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

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

/* ---- an existing output directory ------------------------------------ */

static int starts_digit(const char *n, const char *prefix) {
  size_t l = strlen(prefix);
  return strncmp(n, prefix, l) == 0 && n[l] >= '0' && n[l] <= '9';
}

static int ends_with(const char *n, const char *suffix) {
  size_t l = strlen(n), k = strlen(suffix);
  return l > k && strcmp(n + l - k, suffix) == 0;
}

/* A name record writes at the top of its directory (0: none; a lower rank
 * is named first): over LTTng ust/ and kernel/ (a session), capture-N/ and
 * flight-DATE-N/ (snapshots); over EventPipe trace.nettrace,
 * capture-N.nettrace, process.tsv; and unverified-N, firings.tsv. */
static int record_name_rank(const char *n) {
  if (!strcmp(n, "trace.nettrace") || !strcmp(n, "ust") || !strcmp(n, "kernel")) return 1;
  if (ends_with(n, ".nettrace") || starts_digit(n, "capture-") || starts_digit(n, "flight-") ||
      starts_digit(n, "unverified-"))
    return 2;
  if (!strcmp(n, "firings.tsv") || !strcmp(n, "process.tsv")) return 3;
  return 0;
}

/* A CTF metadata file (LTTng's, packetized, or plain text). */
static int ctf_metadata(int dirfd, const char *name) {
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return 0;
  unsigned char b[8];
  ssize_t n = read(fd, b, sizeof b);
  close(fd);
  if (n >= 4 && ((b[0] == 0x57 && b[1] == 0x1D && b[2] == 0xD1 && b[3] == 0x75) ||
                 (b[0] == 0x75 && b[1] == 0xD1 && b[2] == 0x1D && b[3] == 0x57)))
    return 1;
  return n >= 6 && memcmp(b, "/* CTF", 6) == 0;
}

/* The scan of an existing directory: its entries' names are noted (by name,
 * not inode: an entry of the user's rewritten during the recording, a new
 * inode under its old name, is still theirs). */
struct scan {
  struct trc_outdir *d;
  size_t cap, ccap;
  dev_t dev;
  int entries;             /* left to look at inside entries named as record names its own */
  int walk;                /* left to look at in the walk below the others */
  char walked[PATH_MAX];   /* what the walk found */
};

static int push(char ***v, size_t *n, size_t *cap, const char *name) {
  if (*n == *cap) {
    size_t ncap = *cap ? 2 * *cap : 64;
    char **p = realloc(*v, ncap * sizeof *p);
    if (!p) return -1;
    *v = p;
    *cap = ncap;
  }
  if (!((*v)[*n] = strdup(name))) return -1;
  (*n)++;
  return 0;
}

/* The directory name in dirfd, opened for reading without following a link. */
static DIR *open_sub(int dirfd, const char *name) {
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
  if (!dir && fd >= 0) close(fd);
  return dir;
}

/* An entry named as record names its own: 1 if it holds a byte, or what
 * cannot be vouched for (neither a regular file nor a directory, unreadable,
 * on another file system, beyond TRC_OUTDIR_WALK_DEPTH levels or
 * TRC_OUTDIR_WALK_ENTRIES entries); 0 if it holds only empty files and
 * directories, each noted; -1 (ENOMEM). */
static int entry_bytes(struct scan *s, int at, const char *name, const char *rel, int depth) {
  struct stat st;
  if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 1;
  if (S_ISREG(st.st_mode)) return st.st_size != 0;
  if (!S_ISDIR(st.st_mode) || st.st_dev != s->dev || depth > TRC_OUTDIR_WALK_DEPTH) return 1;
  DIR *dir = open_sub(at, name);
  if (!dir) return 1;
  int r = 0;
  struct dirent *e;
  while (!r && (e = readdir(dir))) {
    if (is_dot(e->d_name)) continue;
    char sub[PATH_MAX];
    if (--s->entries < 0 || (size_t)snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name) >= sizeof sub) r = 1;
    else if (push(&s->d->before, &s->d->nbefore, &s->cap, sub)) r = -1;
    else r = entry_bytes(s, dirfd(dir), e->d_name, sub, depth + 1);
  }
  closedir(dir);
  return r;
}

/* Below the other entries: a *.nettrace holding a byte or a CTF metadata
 * file, within the same bounds (what lies beyond is not looked at: a
 * recording writes only entries named as above). 1 with its path in
 * s->walked. */
static int walk_below(struct scan *s, int at, const char *name, const char *rel, int depth) {
  struct stat st;
  if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
  if (S_ISREG(st.st_mode)) {
    if ((ends_with(name, ".nettrace") && st.st_size > 0) || (!strcmp(name, "metadata") && ctf_metadata(at, name))) {
      snprintf(s->walked, sizeof s->walked, "%s", rel);
      return 1;
    }
    return 0;
  }
  if (!S_ISDIR(st.st_mode) || st.st_dev != s->dev || depth >= TRC_OUTDIR_WALK_DEPTH) return 0;
  DIR *dir = open_sub(at, name);
  if (!dir) return 0;
  int hit = 0;
  struct dirent *e;
  while (!hit && s->walk > 0 && (e = readdir(dir))) {
    if (is_dot(e->d_name)) continue;
    s->walk--;
    char sub[PATH_MAX];
    if ((size_t)snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name) < sizeof sub)
      hit = walk_below(s, dirfd(dir), e->d_name, sub, depth + 1);
  }
  closedir(dir);
  return hit;
}

/* The existing directory d->path: its entries noted (and, inside the
 * byte-less entries named as record's, theirs). 1 if it holds a recording,
 * with its path relative to the directory in found; 0 if not; -1 (errno). */
static int scan_existing(struct trc_outdir *d, char *found, size_t len) {
  int fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct scan s = { .d = d, .entries = TRC_OUTDIR_WALK_ENTRIES, .walk = TRC_OUTDIR_WALK_ENTRIES };
  struct stat st;
  DIR *dir = fstat(fd, &st) == 0 ? fdopendir(fd) : NULL;
  if (!dir) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  s.dev = st.st_dev;
  int best = 0, rc = 0;
  struct dirent *e;
  while ((e = readdir(dir))) {
    if (is_dot(e->d_name)) continue;
    if (push(&d->before, &d->nbefore, &s.cap, e->d_name)) { rc = -1; break; }
    int rank = record_name_rank(e->d_name);
    if (!rank) {
      if (!s.walked[0]) walk_below(&s, fd, e->d_name, e->d_name, 1);
      continue;
    }
    int r = entry_bytes(&s, fd, e->d_name, e->d_name, 1);
    if (r < 0 || (!r && push(&d->clean, &d->nclean, &s.ccap, e->d_name))) { rc = -1; break; }
    if (r && (!best || rank < best || (rank == best && strcmp(e->d_name, found) < 0))) {
      best = rank;
      snprintf(found, len, "%s", e->d_name);
    }
  }
  closedir(dir);
  if (rc) { errno = ENOMEM; return -1; }
  if (d->nbefore) qsort(d->before, d->nbefore, sizeof *d->before, cmp_name);
  if (d->nclean) qsort(d->clean, d->nclean, sizeof *d->clean, cmp_name);
  if (best) return 1;
  if (s.walked[0]) {
    snprintf(found, len, "%s", s.walked);
    return 1;
  }
  return 0;
}

/* The dated default, new: gcscope-record-DATE-TIME, or -2, -3, ... when a
 * recording of the same second has it. */
static int make_dated(struct trc_outdir *d) {
  char base[64];
  time_t t = time(NULL);
  struct tm tm;
  localtime_r(&t, &tm);
  strftime(base, sizeof base, "gcscope-record-%Y%m%d-%H%M%S", &tm);
  for (int i = 1; i <= TRC_OUTDIR_DATED_TRIES; i++) {
    if (i == 1) snprintf(d->given, sizeof d->given, "%s", base);
    else snprintf(d->given, sizeof d->given, "%s-%d", base, i);
    if (mkdir(d->given, 0775) == 0) {
      d->made[d->nmade++] = strlen(d->given);
      return 0;
    }
    if (errno != EEXIST) return -1;
  }
  return -1;   /* EEXIST */
}

int trc_outdir_make(struct trc_outdir *d, const char *output, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  struct stat st;
  if (!output) {
    d->dated = 1;
    if (make_dated(d) != 0) {
      snprintf(err, errlen, "cannot write to output directory '%s': %s", d->given, strerror(errno));
      trc_outdir_free(d);
      return -1;
    }
  } else {
    if ((size_t)snprintf(d->given, sizeof d->given, "%s", output) >= sizeof d->given) {
      errno = ENAMETOOLONG;
      goto fail;
    }
    for (size_t i = 1; d->given[i]; i++)
      if (d->given[i] == '/' && make_one(d, i) != 0) goto fail;
    if (make_one(d, strlen(d->given)) != 0) goto fail;
  }
  size_t glen = strlen(d->given);
  while (glen > 1 && d->given[glen - 1] == '/') glen--;
  int made_last = d->nmade > 0 && d->made[d->nmade - 1] == glen;
  if (stat(d->given, &st) != 0) goto fail;
  if (!S_ISDIR(st.st_mode)) { errno = ENOTDIR; goto fail; }
  if (access(d->given, W_OK | X_OK) != 0 || !realpath(d->given, d->path)) goto fail;
  d->existed = !made_last;
  if (d->existed) {
    /* One holding a recording is refused (a new one would truncate or mix
     * with it): nothing was made in it, nor written. */
    char found[PATH_MAX];
    int r = scan_existing(d, found, sizeof found);
    if (r < 0) goto fail;
    if (r > 0) {
      size_t l = strlen(d->given);
      snprintf(err, errlen, "'%s' already holds a recording (%s%s%s); choose another -o or remove it", d->given,
               d->given, l && d->given[l - 1] == '/' ? "" : "/", found);
      d->path[0] = '\0';
      trc_outdir_undo(d);
      trc_outdir_free(d);
      return -1;
    }
  }
  return 0;
fail:
  snprintf(err, errlen, "cannot write to output directory '%s': %s", output ? output : d->given, strerror(errno));
  d->path[0] = '\0';   /* nothing in it is removed: only the directories made */
  trc_outdir_undo(d);
  trc_outdir_free(d);
  return -1;
}

static int existed_before(const struct trc_outdir *d, const char *name) {
  return d->existed && d->nbefore && bsearch(&name, d->before, d->nbefore, sizeof name, cmp_name) != NULL;
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

/* An entry named as record's that was there holding no byte: what the
 * recording added inside it goes when it all holds no byte (the entry and
 * what was in it stay). */
static const struct trc_outdir *tidy_dir;
static size_t tidy_base;

static int remove_added(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  const char *rel = path + tidy_base;
  if (ftw->level == 0 ||
      (tidy_dir->nbefore && bsearch(&rel, tidy_dir->before, tidy_dir->nbefore, sizeof rel, cmp_name)))
    return 0;
  return remove_empty(path, st, type, ftw);
}

static void tidy(const struct trc_outdir *d, const char *name) {
  char p[PATH_MAX];
  if ((size_t)snprintf(p, sizeof p, "%s/%s", d->path, name) >= sizeof p ||
      nftw(p, holds_byte, 8, FTW_PHYS | FTW_MOUNT) != 0)
    return;
  tidy_dir = d;
  tidy_base = strlen(d->path) + 1;
  nftw(p, remove_added, 8, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
  tidy_dir = NULL;
}

void trc_outdir_undo(struct trc_outdir *d) {
  if (d->path[0]) {
    DIR *dir = opendir(d->path);
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
      if (is_dot(e->d_name)) continue;
      if (existed_before(d, e->d_name)) {
        if (d->nclean && bsearch(&(const char *){ e->d_name }, d->clean, d->nclean, sizeof *d->clean, cmp_name))
          tidy(d, e->d_name);
        continue;
      }
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

int trc_outdir_unused(struct trc_outdir *d) {
  if (!d->dated || d->existed || !d->path[0] || nftw(d->path, holds_byte, 8, FTW_PHYS | FTW_MOUNT) != 0) return 0;
  trc_outdir_undo(d);
  return access(d->path, F_OK) != 0;
}

int trc_outdir_make_new(const char *parent, const char *name, char *out, size_t outlen) {
  for (int i = 1; i <= TRC_OUTDIR_DATED_TRIES; i++) {
    int n = i == 1 ? snprintf(out, outlen, "%s/%s", parent, name) : snprintf(out, outlen, "%s/%s-%d", parent, name, i);
    if (n < 0 || (size_t)n >= outlen) { errno = ENAMETOOLONG; return -1; }
    if (mkdir(out, 0775) == 0) return 0;
    if (errno != EEXIST) return -1;
  }
  return -1;   /* EEXIST */
}

void trc_outdir_free(struct trc_outdir *d) {
  for (size_t i = 0; i < d->nbefore; i++) free(d->before[i]);
  free(d->before);
  for (size_t i = 0; i < d->nclean; i++) free(d->clean[i]);
  free(d->clean);
  d->clean = NULL;
  d->nclean = 0;
  d->before = NULL;
  d->nbefore = 0;
}
