/*
 * gcs_zip.h — extract a .zip archive (perfcollect's .trace.zip) into a fresh
 * temporary directory, and remove such a directory afterwards.
 *
 * Supports what perfcollect and `zip` write: stored and deflated entries,
 * no encryption, no Zip64. Entry names with ".." components or an absolute
 * path are refused (an archive cannot write outside the temporary directory).
 *
 * Limits (a zip bomb, a full disk): the entries' declared sizes must add up
 * to at most the limit (lim->max_bytes; 0: GCSCOPE_ZIP_MAX_MB, or 100 x the
 * archive's size, at least 256 MB and at most 16 GB) before anything is
 * written, and no entry may inflate past its declared size. The entries'
 * directory depths ("a/b/c" counts 2) must add up to at most lim->max_dirs
 * (0: GCS_ZIP_MAX_DIRS; perfcollect's archives need a few hundred): 2,000
 * entries 300 directories deep made 600,000 directories in 110 s. A full
 * $TMPDIR is named as such ("no space left on device"). lim->cancel, when
 * set during the extraction (Ctrl-C), stops it ("interrupted"): it is
 * checked between entries and between 64 KiB chunks of one. Entry names in
 * messages are made printable (gcs_text_printable).
 *
 * Ownership: gcs_zip_extract returns a malloc'ed directory path the caller
 * passes to gcs_zip_cleanup (which removes the tree and frees the path).
 * Threading: reentrant. Errors: -1 and a one-line message in err naming the
 * archive; a partly extracted directory is removed before returning.
 */
#ifndef GCS_ZIP_H
#define GCS_ZIP_H

#include <stdatomic.h>
#include <stddef.h>

/* 1 if the file at path starts with the zip local-header signature. */
int gcs_zip_is_zip(const char *path);

#include <stdint.h>

#define GCS_ZIP_MAX_DIRS 65536

struct gcs_zip_limits {
  uint64_t max_bytes;             /* 0: the default above */
  uint64_t max_dirs;              /* 0: GCS_ZIP_MAX_DIRS */
  const atomic_int *cancel;     /* may be NULL */
};

/* The limit that applies to an archive of zip_bytes. */
uint64_t gcs_zip_default_limit(uint64_t zip_bytes);
int gcs_zip_extract(const char *zip_path, const struct gcs_zip_limits *lim, char **out_dir, char *err,
                    size_t errlen);
void gcs_zip_cleanup(char *dir);

#endif /* GCS_ZIP_H */
