/*
 * test_nettrace_bad.c — bad input gives -1 and one line naming the file,
 * never a crash; a copy cut short after its Trace object is read up to its
 * last whole object (rc 0, info.truncated, the offset and what was dropped
 * named), delivering exactly the events of the same bytes closed by an
 * end-of-stream tag right after that object. Cut copies of the real trace
 * (at several offsets), wrong magic, bumped versions, a V6 and a .netperf header, an
 * absurd block size, a bad block header, a bad tag, an unknown object type,
 * missing / empty / non-regular files.
 * Usage: test_nettrace_bad REAL_FILE SCRATCH_DIR
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcs_nettrace.h"
#include "check.h"

static const char *scratch;
static uint64_t delivered;

static int count_cb(const struct gcs_event *ev, void *ud) {
  (void)ev; (void)ud;
  delivered++;
  return 0;
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)n);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
  fclose(f);
  *len = (size_t)n;
  return b;
}

/* Write data to a scratch file, read it back, expect failure with a message
 * that starts with the path, is one line and contains want. */
static void expect_error(const char *label, const uint8_t *data, size_t len, const char *want) {
  char path[1024];
  snprintf(path, sizeof path, "%s/nt-bad-%s.nettrace", scratch, label);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len) { CHECK_FAIL("cannot write %s", path); if (f) fclose(f); return; }
  fclose(f);
  char err[512] = "";
  struct gcs_nettrace_info info;
  int rc = gcs_nettrace_read(path, count_cb, NULL, &info, err, sizeof err);
  if (rc != -1) fprintf(stderr, "[%s] expected an error\n", label);
  CHECK_EQ_U64(rc, -1);
  CHECK(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':');
  CHECK(strchr(err, '\n') == NULL);
  CHECK_HAS(err, want);
  unlink(path);
}

/* The end of the last whole object in b[0..cut): walks the objects by their
 * framing (tags, type name, declared block size, 4-byte alignment), written
 * apart from the reader. */
static size_t last_whole(const uint8_t *b, size_t cut) {
  size_t p = 32, end = 32;
  for (;;) {
    if (p + 15 > cut || b[p] != 5) return end;
    uint32_t nl = (uint32_t)b[p + 11] | (uint32_t)b[p + 12] << 8 | (uint32_t)b[p + 13] << 16 | (uint32_t)b[p + 14] << 24;
    size_t q = p + 15 + nl + 1;
    if (nl == 5 && memcmp(b + p + 15, "Trace", 5) == 0) {
      q += 48;
    } else {
      if (q + 4 > cut) return end;
      uint32_t size = (uint32_t)b[q] | (uint32_t)b[q + 1] << 8 | (uint32_t)b[q + 2] << 16 | (uint32_t)b[q + 3] << 24;
      q += 4;
      q = (q + 3) & ~(size_t)3;
      q += size;
    }
    q += 1;   /* the object's end tag */
    if (q > cut) return end;
    p = end = q;
  }
}

/* Cut at len: rc 0, truncated at the last whole object, the message names
 * the file, is one line and contains want; the events delivered are those of
 * the whole objects (the same bytes plus an end-of-stream tag, read alone). */
static void expect_truncated(const char *label, const uint8_t *data, size_t len, const char *want) {
  char path[1024], whole[1024];
  snprintf(path, sizeof path, "%s/nt-cut-%s.nettrace", scratch, label);
  snprintf(whole, sizeof whole, "%s/nt-whole-%s.nettrace", scratch, label);
  size_t keep = last_whole(data, len);
  FILE *f = fopen(path, "wb"), *g = fopen(whole, "wb");
  if (!f || !g || fwrite(data, 1, len, f) != len || fwrite(data, 1, keep, g) != keep || fputc(1, g) == EOF) {
    CHECK_FAIL("cannot write %s", path);
    if (f) fclose(f);
    if (g) fclose(g);
    return;
  }
  fclose(f);
  fclose(g);
  char err[512] = "", err2[512] = "";
  struct gcs_nettrace_info info, winfo;
  delivered = 0;
  int rc = gcs_nettrace_read(path, count_cb, NULL, &info, err, sizeof err);
  uint64_t got = delivered;
  delivered = 0;
  int wrc = gcs_nettrace_read(whole, count_cb, NULL, &winfo, err2, sizeof err2);
  if (rc != 0 || wrc != 0) fprintf(stderr, "[%s] rc %d (%s), whole rc %d (%s)\n", label, rc, err, wrc, err2);
  CHECK_EQ_U64(rc, 0);
  CHECK_EQ_U64(wrc, 0);
  CHECK_EQ_U64(info.truncated, 1);
  CHECK_EQ_U64(winfo.truncated, 0);
  CHECK_EQ_U64(info.truncated_at, keep);
  CHECK_EQ_U64(info.dropped_bytes, len - keep);
  CHECK_EQ_U64(got, delivered);
  CHECK_EQ_U64(info.events_decoded, winfo.events_decoded);
  CHECK(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':');
  CHECK(strchr(err, '\n') == NULL);
  CHECK_HAS(err, want);
  unlink(path);
  unlink(whole);
}

static size_t find(const uint8_t *b, size_t len, const char *s) {
  size_t n = strlen(s);
  for (size_t i = 0; i + n <= len; i++)
    if (memcmp(b + i, s, n) == 0) return i;
  return (size_t)-1;
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s REAL_FILE SCRATCH_DIR\n", argv[0]); return 2; }
  scratch = argv[2];
  mkdir(scratch, 0755);
  size_t len;
  uint8_t *real = slurp(argv[1], &len);
  if (!real || len < 4000000) { fprintf(stderr, "cannot read %s\n", argv[1]); return 2; }
  uint8_t *buf = malloc(len + 64);
  if (!buf) return 2;

  /* Truncated copies. The stream header is 32 bytes, the Trace object ends
   * at byte 102, the first MetadataBlock starts there. */
  expect_error("cut-1", real, 1, "not a nettrace file");
  expect_error("cut-8", real, 8, "truncated stream header");
  expect_error("cut-20", real, 20, "truncated stream header");
  expect_error("cut-40", real, 40, "truncated object type");
  expect_error("cut-60", real, 60, "truncated Trace object");
  expect_truncated("cut-102", real, 102, "truncated at byte 102 after a whole object: the end-of-stream tag is missing");
  expect_truncated("cut-150", real, 150, "truncated at byte 150 inside a MetadataBlock that starts at byte 102");
  expect_truncated("cut-5000", real, 5000, "truncated at byte 5000 inside");
  expect_truncated("cut-100000", real, 100000, "truncated at byte 100000 inside");
  expect_truncated("cut-half", real, len / 2, "(");
  CHECK(delivered > 0 && delivered < 64258);  /* what came before the cut was delivered */
  expect_truncated("cut-minus2", real, len - 2, "dropped); the events of the");
  expect_truncated("cut-minus1", real, len - 1, "the end-of-stream tag is missing; every event before it is kept");

  /* Wrong magic. */
  memcpy(buf, real, len);
  buf[3] = 'T';
  expect_error("magic", buf, len, "not a nettrace file");

  /* Bumped Trace object version (i32 version at 35, min reader version at 39). */
  CHECK(real[32] == 5 && real[33] == 5 && real[34] == 1 && real[35] == 4 && real[39] == 4);
  memcpy(buf, real, len);
  buf[35] = 6; buf[39] = 6;
  expect_error("version6", buf, len, "unsupported nettrace Trace object version 6");
  memcpy(buf, real, len);
  buf[39] = 9;
  expect_error("minreader9", buf, len, "minimum reader version 9");
  memcpy(buf, real, len);
  buf[35] = 3; buf[39] = 3;
  expect_error("version3", buf, len, "unsupported nettrace Trace object version 3");

  /* V6 header: magic, u32 0, u32 major, u32 minor. */
  memcpy(buf, "Nettrace\0\0\0\0\6\0\0\0\0\0\0\0", 20);
  memcpy(buf + 20, real + 32, 4000);
  expect_error("v6", buf, 4020, "nettrace format V6 is not supported");

  /* .netperf (V3): the stream header without the magic. */
  expect_error("netperf", real + 8, len - 8, "netperf");

  /* Absurd size of the first MetadataBlock. */
  size_t mb = find(real, 4096, "MetadataBlock");
  CHECK(mb != (size_t)-1);
  size_t size_at = mb + 13 + 1;  /* type name, end tag of the type */
  memcpy(buf, real, len);
  buf[size_at] = 0xFF; buf[size_at + 1] = 0xFF; buf[size_at + 2] = 0xFF; buf[size_at + 3] = 0x7F;
  expect_error("blocksize", buf, len, "truncated MetadataBlock (2147483647 bytes declared");

  /* Block header size smaller than the fixed header. */
  memcpy(buf, real, len);
  size_t body = (size_at + 4 + 3) & ~(size_t)3;
  buf[body] = 4; buf[body + 1] = 0;
  expect_error("headersize", buf, len, "bad MetadataBlock header size 4");

  /* A bad tag where the first block should begin, and an unknown type. */
  memcpy(buf, real, len);
  buf[102] = 7;
  expect_error("tag", buf, len, "unexpected tag 7");
  memcpy(buf, real, len);
  buf[mb + 12] = 'X';
  expect_error("typename", buf, len, "unknown object type 'MetadataBlocX'");

  /* Files that cannot be read. */
  char err[512];
  char path[1024];
  snprintf(path, sizeof path, "%s/does-not-exist.nettrace", scratch);
  CHECK_EQ_U64(gcs_nettrace_read(path, NULL, NULL, NULL, err, sizeof err), -1);
  CHECK_HAS(err, "No such file or directory");
  CHECK_EQ_U64(gcs_nettrace_read(scratch, NULL, NULL, NULL, err, sizeof err), -1);
  CHECK_HAS(err, "not a regular file");
  expect_error("empty", real, 0, "empty file");

  /* The magic check. */
  CHECK_EQ_U64(gcs_nettrace_is_nettrace(argv[1]), 1);
  CHECK_EQ_U64(gcs_nettrace_is_nettrace(path), 0);
  snprintf(path, sizeof path, "%s/nt-magic-check", scratch);
  FILE *f = fopen(path, "wb");
  if (f) { fwrite("NettracX", 1, 8, f); fclose(f); }
  CHECK_EQ_U64(gcs_nettrace_is_nettrace(path), 0);
  unlink(path);

  free(buf);
  free(real);
  return check_done();
}
