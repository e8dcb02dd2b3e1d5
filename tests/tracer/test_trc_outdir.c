/* test_trc_outdir — record's output directory rule (tracer/trc_outdir.h)
 * on directories made here: what is refused as holding a recording (its
 * line, nothing changed), the walk's depth bound, what a failed recording's
 * undo leaves inside a byte-less ust/ that was there and of a user's file
 * rewritten during it, a second dated default in the same second, and the
 * dated default a recording left holding no byte. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "trc_outdir.h"

static char root[PATH_MAX];

static void put(const char *rel, const char *text) {
  char p[PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/%s", root, rel);
  FILE *f = fopen(p, "w");
  if (!f) CHECK_FAIL("cannot write %s", p);
  else {
    fputs(text, f);
    fclose(f);
  }
}

static void dir(const char *rel) {
  char p[PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/%s", root, rel);
  if (mkdir(p, 0775) != 0) CHECK_FAIL("mkdir %s: %s", p, strerror(errno));
}

static int there(const char *rel) {
  char p[PATH_MAX + 64];
  struct stat st;
  snprintf(p, sizeof p, "%s/%s", root, rel);
  return lstat(p, &st) == 0;
}

/* make on root/rel: its result; err is the line */
static int make(struct trc_outdir *d, const char *rel, char *err, size_t errlen) {
  char p[PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/%s", root, rel);
  err[0] = '\0';
  return trc_outdir_make(d, p, err, errlen);
}

static void refused(const char *rel, const char *found) {
  struct trc_outdir d;
  char err[PATH_MAX * 3], want[PATH_MAX * 3];
  CHECK(make(&d, rel, err, sizeof err) == -1);
  snprintf(want, sizeof want, "'%s/%s' already holds a recording (%s/%s/%s); choose another -o or remove it", root,
           rel, root, rel, found);
  CHECK_STR(err, want);
}

static void used(const char *rel) {
  struct trc_outdir d;
  char err[PATH_MAX * 3];
  CHECK(make(&d, rel, err, sizeof err) == 0);
  CHECK_STR(err, "");
  trc_outdir_free(&d);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/gcs-outdir-XXXXXX");
  if (!mkdtemp(root)) return CHECK_FAIL("mkdtemp"), check_done();

  /* refused: a top-level entry of record's holding a byte, named first by rank */
  dir("a");
  put("a/process.tsv", "pid\n");
  put("a/trace.nettrace", "Nettrace");
  put("a/capture-2.nettrace", "x");
  refused("a", "trace.nettrace");
  CHECK(there("a/trace.nettrace") && there("a/process.tsv") && !there("a/ust"));
  dir("b");
  dir("b/capture-1");
  dir("b/capture-1/x");
  put("b/capture-1/x/stream", "y");
  refused("b", "capture-1");
  /* a link named trace.nettrace (the recording would write through it) */
  dir("c");
  char p[PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/c/trace.nettrace", root);
  CHECK(symlink("/nonexistent-target", p) == 0);
  refused("c", "trace.nettrace");
  /* below: CTF metadata (packetized magic), a *.nettrace with a byte */
  dir("d");
  dir("d/old");
  put("d/old/metadata", "\x57\x1d\xd1\x75 rest");
  refused("d", "old/metadata");
  /* the walk's bound: a nettrace 8 levels down is seen, 9 levels down not */
  dir("e");
  const char *lv[] = { "e/1", "e/1/2", "e/1/2/3", "e/1/2/3/4", "e/1/2/3/4/5", "e/1/2/3/4/5/6", "e/1/2/3/4/5/6/7",
                       "e/1/2/3/4/5/6/7/8" };
  for (int i = 0; i < 8; i++) dir(lv[i]);
  put("e/1/2/3/4/5/6/7/8/t.nettrace", "x");
  used("e");
  put("e/1/2/3/4/5/6/7/t.nettrace", "x");
  refused("e", "1/2/3/4/5/6/7/t.nettrace");

  /* used: unrelated files, an empty nettrace below, a byte-less record entry */
  dir("f");
  put("f/notes.txt", "mine\n");
  put("f/metadata", "not ctf");
  dir("f/sub");
  put("f/sub/empty.nettrace", "");
  used("f");

  /* a failed recording into a directory holding a byte-less ust/ and a
   * user's empty file: what it added inside ust/ goes, ust/uid stays; the
   * user's file, rewritten under its name during the recording (a new
   * inode), stays */
  dir("g");
  dir("g/ust");
  dir("g/ust/uid");
  put("g/keep", "");
  struct trc_outdir d;
  char err[PATH_MAX * 3];
  CHECK(make(&d, "g", err, sizeof err) == 0);
  dir("g/ust/pid");
  dir("g/ust/pid/app-1");
  put("g/ust/pid/app-1/chan_0", "");
  put("g/trace.nettrace", "");
  put("g/keep.new", "");
  char a[PATH_MAX + 64], b[PATH_MAX + 64];
  snprintf(a, sizeof a, "%s/g/keep.new", root);
  snprintf(b, sizeof b, "%s/g/keep", root);
  CHECK(rename(a, b) == 0);
  trc_outdir_undo(&d);
  trc_outdir_free(&d);
  CHECK(there("g/ust/uid") && !there("g/ust/pid") && !there("g/trace.nettrace") && there("g/keep"));
  /* ... but what it added there holding a byte is kept whole */
  CHECK(make(&d, "g", err, sizeof err) == 0);
  dir("g/ust/pid");
  put("g/ust/pid/metadata", "m");
  put("g/ust/pid/chan_0", "");
  trc_outdir_undo(&d);
  trc_outdir_free(&d);
  CHECK(there("g/ust/pid/metadata") && there("g/ust/pid/chan_0"));

  /* the dated default: a second one in the same second is another; one
   * holding no byte goes after a recording that went well, one holding a
   * byte stays, and a -o directory stays */
  char cwd[PATH_MAX];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  dir("h");
  snprintf(p, sizeof p, "%s/h", root);
  CHECK(chdir(p) == 0);
  struct trc_outdir d1, d2;
  CHECK(trc_outdir_make(&d1, NULL, err, sizeof err) == 0);
  CHECK(trc_outdir_make(&d2, NULL, err, sizeof err) == 0);
  CHECK(strcmp(d1.path, d2.path) != 0);
  if (strcmp(d1.given, d2.given) != 0 && strncmp(d1.given, d2.given, strlen(d1.given)) == 0)
    CHECK_STR(d2.given + strlen(d1.given), "-2");
  snprintf(p, sizeof p, "%s/capture-1", d2.path);
  CHECK(mkdir(p, 0775) == 0);
  CHECK(trc_outdir_unused(&d1) == 1);
  CHECK(access(d1.path, F_OK) != 0);
  snprintf(p, sizeof p, "%s/firings.tsv", d2.path);
  FILE *f = fopen(p, "w");
  CHECK(f != NULL);
  if (f) { fputs("rule\n", f); fclose(f); }
  CHECK(trc_outdir_unused(&d2) == 0);
  CHECK(access(p, F_OK) == 0);
  trc_outdir_free(&d1);
  trc_outdir_free(&d2);
  CHECK(trc_outdir_make(&d1, "mine", err, sizeof err) == 0);
  CHECK(trc_outdir_unused(&d1) == 0);
  CHECK(access("mine", F_OK) == 0);
  trc_outdir_free(&d1);
  CHECK(chdir(cwd) == 0);

  char cmd[PATH_MAX + 32];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd) != 0) {}
  return check_done();
}
