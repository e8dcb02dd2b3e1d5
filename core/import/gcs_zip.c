/* gcs_zip.c — a small .zip extractor on zlib (see gcs_zip.h). Reads the
 * central directory (authoritative sizes and offsets), then each entry's
 * local header and data. */
#include "gcs_zip.h"

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "gcs_text.h"

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

int gcs_zip_is_zip(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  uint8_t b[4];
  int ok = fread(b, 1, 4, f) == 4 && le32(b) == 0x04034b50;
  fclose(f);
  return ok;
}

static int read_at(FILE *f, long off, void *buf, size_t n) {
  return fseek(f, off, SEEK_SET) == 0 && fread(buf, 1, n, f) == n ? 0 : -1;
}

static int safe_name(const char *n) {
  if (n[0] == '/' || n[0] == '\0') return 0;
  for (const char *p = n; *p; ) {
    const char *s = strchr(p, '/');
    size_t len = s ? (size_t)(s - p) : strlen(p);
    if (len == 2 && p[0] == '.' && p[1] == '.') return 0;
    if (!s) break;
    p = s + 1;
  }
  return 1;
}

/* mkdir -p for every directory component of path (below base). */
static int make_parents(char *path, size_t from) {
  for (char *p = path + from; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    int rc = mkdir(path, 0700);
    *p = '/';
    if (rc != 0 && errno != EEXIST) return -1;
  }
  return 0;
}

#define ZIP_MIN_LIMIT (256ull << 20)
#define ZIP_MAX_LIMIT (16ull << 30)
#define ZIP_DEFAULT_RATIO 100

uint64_t gcs_zip_default_limit(uint64_t zip_bytes) {
  const char *e = getenv("GCSCOPE_ZIP_MAX_MB");
  if (e && *e) {
    char *end;
    unsigned long long mb = strtoull(e, &end, 10);
    if (*end == '\0' && mb > 0) return (uint64_t)mb * 1000000ull;
  }
  uint64_t l = zip_bytes * ZIP_DEFAULT_RATIO;
  if (l < ZIP_MIN_LIMIT) l = ZIP_MIN_LIMIT;
  if (l > ZIP_MAX_LIMIT) l = ZIP_MAX_LIMIT;
  return l;
}

/* "name" as it can be printed (an entry name is the archive maker's bytes). */
static const char *shown(const char *name, char *buf, size_t cap) {
  return gcs_text_printable(name, strlen(name), buf, cap);
}

/* inflate_to's results besides 0. */
enum { ZIP_CORRUPT = -1, ZIP_WRITE = -2, ZIP_CANCELLED = -3 };

static int write_out(FILE *out, const void *p, size_t n) {
  errno = 0;
  return fwrite(p, 1, n, out) == n ? 0 : ZIP_WRITE;
}

/* Copy or inflate one entry; never more than usize bytes are written. */
static int inflate_to(FILE *in, FILE *out, uint32_t csize, uint32_t usize, int method, const atomic_int *cancel) {
  uint8_t ibuf[65536], obuf[65536];
  uint32_t left = csize, written = 0;
  if (method == 0) {
    if (csize != usize) return ZIP_CORRUPT;
    while (left > 0) {
      if (cancel && *cancel) return ZIP_CANCELLED;
      size_t n = left < sizeof ibuf ? left : sizeof ibuf;
      if (fread(ibuf, 1, n, in) != n) return ZIP_CORRUPT;
      if (write_out(out, ibuf, n)) return ZIP_WRITE;
      left -= (uint32_t)n;
      written += (uint32_t)n;
    }
    return 0;
  }
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return -1;
  int zr = Z_OK, rc = 0;
  while (zr != Z_STREAM_END) {
    if (cancel && *cancel) { rc = ZIP_CANCELLED; break; }
    if (zs.avail_in == 0) {
      if (left == 0) break;
      size_t n = left < sizeof ibuf ? left : sizeof ibuf;
      if (fread(ibuf, 1, n, in) != n) break;
      left -= (uint32_t)n;
      zs.next_in = ibuf;
      zs.avail_in = (uInt)n;
    }
    zs.next_out = obuf;
    zs.avail_out = sizeof obuf;
    zr = inflate(&zs, Z_NO_FLUSH);
    if (zr != Z_OK && zr != Z_STREAM_END) break;
    size_t n = sizeof obuf - zs.avail_out;
    if (n > (size_t)(usize - written)) { rc = ZIP_CORRUPT; break; }   /* inflates past its declared size */
    if (n && write_out(out, obuf, n)) { rc = ZIP_WRITE; break; }
    written += (uint32_t)n;
  }
  inflateEnd(&zs);
  if (rc) return rc;
  return zr == Z_STREAM_END && written == usize ? 0 : ZIP_CORRUPT;
}

/* What the central directory declares: the sum of the entries' sizes and
 * of their directory depths (the directories an extraction walks or makes:
 * "a/b/c" counts 2). -1 if the directory is corrupt. */
static int declared_totals(const uint8_t *cd, uint32_t cdsize, unsigned nent, uint64_t *bytes, uint64_t *dirs) {
  size_t pos = 0;
  *bytes = *dirs = 0;
  for (unsigned i = 0; i < nent; i++) {
    if (pos + 46 > cdsize || le32(cd + pos) != 0x02014b50) return -1;
    *bytes += le32(cd + pos + 24);
    uint16_t nlen = le16(cd + pos + 28);
    if (pos + 46 + nlen > cdsize) return -1;
    for (uint16_t k = 0; k < nlen; k++) *dirs += cd[pos + 46 + k] == '/';
    pos += 46 + (size_t)nlen + le16(cd + pos + 30) + le16(cd + pos + 32);
  }
  return 0;
}

static void write_error(char *err, size_t errlen, const char *zip_path, const char *dir, const char *out, int e) {
  if (e == ENOSPC || e == EDQUOT)
    snprintf(err, errlen, "%s: no space left on device while extracting into %s (set TMPDIR to a larger file "
             "system)", zip_path, dir);
  else
  {
    char safe[512];
    snprintf(err, errlen, "%s: cannot write %s: %s", zip_path, shown(out, safe, sizeof safe), strerror(e ? e : EIO));
  }
}

int gcs_zip_extract(const char *zip_path, const struct gcs_zip_limits *lim, char **out_dir, char *err,
                    size_t errlen) {
  static const struct gcs_zip_limits none;
  if (!lim) lim = &none;
  *out_dir = NULL;
  FILE *f = fopen(zip_path, "rb");
  if (!f) { snprintf(err, errlen, "%s: %s", zip_path, strerror(errno)); return -1; }
  /* End of central directory: last 22 bytes plus a comment of up to 64 KiB. */
  fseek(f, 0, SEEK_END);
  long fsize = ftell(f);
  long tail = fsize < 22 + 65535 ? fsize : 22 + 65535;
  uint8_t *buf = malloc((size_t)(tail > 0 ? tail : 1));
  long eocd = -1;
  if (buf && tail >= 22 && read_at(f, fsize - tail, buf, (size_t)tail) == 0)
    for (long i = tail - 22; i >= 0; i--)
      if (le32(buf + i) == 0x06054b50) { eocd = i; break; }
  if (eocd < 0) {
    free(buf); fclose(f);
    snprintf(err, errlen, "%s: not a zip archive (no central directory)", zip_path);
    return -1;
  }
  uint16_t nent = le16(buf + eocd + 10);
  uint32_t cdsize = le32(buf + eocd + 12), cdoff = le32(buf + eocd + 16);
  free(buf);
  if (nent == 0xFFFF || cdoff == 0xFFFFFFFFu || (long)cdoff + (long)cdsize > fsize) {
    fclose(f);
    snprintf(err, errlen, "%s: unsupported or corrupt zip archive (Zip64?)", zip_path);
    return -1;
  }
  uint8_t *cd = malloc(cdsize ? cdsize : 1);
  if (!cd || read_at(f, (long)cdoff, cd, cdsize) != 0) {
    free(cd); fclose(f);
    snprintf(err, errlen, "%s: truncated zip archive", zip_path);
    return -1;
  }
  uint64_t total, dirs;
  int bad = declared_totals(cd, cdsize, nent, &total, &dirs);
  uint64_t limit = lim->max_bytes ? lim->max_bytes : gcs_zip_default_limit((uint64_t)fsize);
  uint64_t max_dirs = lim->max_dirs ? lim->max_dirs : GCS_ZIP_MAX_DIRS;
  if (bad || total > limit || dirs > max_dirs) {
    free(cd); fclose(f);
    if (bad) snprintf(err, errlen, "%s: corrupt zip central directory", zip_path);
    else if (total > limit)
      snprintf(err, errlen, "%s: expands to %.1f MB, more than the %.1f MB allowed for a %.1f MB archive "
               "(a zip bomb?; GCSCOPE_ZIP_MAX_MB raises the limit)", zip_path, (double)total / 1e6,
               (double)limit / 1e6, (double)fsize / 1e6);
    else
      snprintf(err, errlen, "%s: %u entries nest %llu directory levels in all, more than the %llu a trace "
               "archive may (a directory bomb?)", zip_path, (unsigned)nent, (unsigned long long)dirs,
               (unsigned long long)max_dirs);
    return -1;
  }
  const char *tmp = getenv("TMPDIR");
  char tmpl[4096];
  snprintf(tmpl, sizeof tmpl, "%s/gcscope-zip-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  char *dir = mkdtemp(tmpl) ? strdup(tmpl) : NULL;
  if (!dir) {
    free(cd); fclose(f);
    snprintf(err, errlen, "%s: cannot create a temporary directory: %s", zip_path, strerror(errno));
    return -1;
  }
  size_t pos = 0;
  int rc = 0;
  char safe[256];
  for (unsigned i = 0; i < nent && rc == 0; i++) {
    if (lim->cancel && *lim->cancel) { snprintf(err, errlen, "interrupted"); rc = -1; break; }
    if (pos + 46 > cdsize || le32(cd + pos) != 0x02014b50) {
      snprintf(err, errlen, "%s: corrupt zip central directory", zip_path); rc = -1; break;
    }
    const uint8_t *h = cd + pos;
    uint16_t flags = le16(h + 8), method = le16(h + 10);
    uint32_t csize = le32(h + 20), usize = le32(h + 24);
    uint16_t nlen = le16(h + 28), xlen = le16(h + 30), clen = le16(h + 32);
    uint32_t loff = le32(h + 42);
    if (pos + 46 + nlen > cdsize) { snprintf(err, errlen, "%s: corrupt zip central directory", zip_path); rc = -1; break; }
    char name[1024];
    size_t cn = nlen < sizeof name - 1 ? nlen : sizeof name - 1;
    memcpy(name, h + 46, cn);
    name[cn] = '\0';
    pos += 46 + (size_t)nlen + xlen + clen;
    if (!safe_name(name)) { snprintf(err, errlen, "%s: unsafe entry name \"%s\"", zip_path, shown(name, safe, sizeof safe)); rc = -1; break; }
    if ((flags & 1) || (method != 0 && method != 8)) {
      snprintf(err, errlen, "%s: entry \"%s\" is encrypted or uses an unsupported method", zip_path,
               shown(name, safe, sizeof safe));
      rc = -1; break;
    }
    size_t plen = strlen(dir) + 1 + strlen(name) + 1;
    char *out = malloc(plen);
    if (!out) { snprintf(err, errlen, "out of memory"); rc = -1; break; }
    snprintf(out, plen, "%s/%s", dir, name);
    if (make_parents(out, strlen(dir) + 1) != 0) {
      int e = errno;
      snprintf(err, errlen, "%s: cannot create %s: %s", zip_path, shown(out, safe, sizeof safe), strerror(e));
      free(out); rc = -1; break;
    }
    if (name[strlen(name) - 1] == '/') { free(out); continue; }  /* directory entry */
    uint8_t lh[30];
    if (read_at(f, (long)loff, lh, 30) != 0 || le32(lh) != 0x04034b50 ||
        fseek(f, (long)loff + 30 + le16(lh + 26) + le16(lh + 28), SEEK_SET) != 0) {
      snprintf(err, errlen, "%s: corrupt or truncated entry \"%s\"", zip_path, shown(name, safe, sizeof safe));
      free(out); rc = -1; break;
    }
    FILE *o = fopen(out, "wb");
    if (!o) {
      int e = errno;
      snprintf(err, errlen, "%s: cannot write %s: %s", zip_path, shown(out, safe, sizeof safe), strerror(e));
      free(out); rc = -1; break;
    }
    int ir = inflate_to(f, o, csize, usize, method, lim->cancel);
    int we = errno;
    if (ir == ZIP_CORRUPT) snprintf(err, errlen, "%s: corrupt or truncated entry \"%s\"", zip_path, shown(name, safe, sizeof safe));
    else if (ir == ZIP_CANCELLED) snprintf(err, errlen, "interrupted");
    else if (ir == ZIP_WRITE) write_error(err, errlen, zip_path, dir, out, we);
    if (ir) rc = -1;
    errno = 0;
    if (fclose(o) != 0 && rc == 0) {
      write_error(err, errlen, zip_path, dir, out, errno);
      rc = -1;
    }
    free(out);
  }
  free(cd);
  fclose(f);
  if (rc != 0) { gcs_zip_cleanup(dir); return -1; }
  *out_dir = dir;
  return 0;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb; (void)flag; (void)ftw;
  return remove(p);
}

void gcs_zip_cleanup(char *dir) {
  if (!dir) return;
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  free(dir);
}
