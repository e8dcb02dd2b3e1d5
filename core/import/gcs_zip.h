/*
 * gcs_zip.h — extract a .zip archive (perfcollect's .trace.zip) into a fresh
 * temporary directory, and remove such a directory afterwards.
 *
 * Supports what perfcollect and `zip` write: stored and deflated entries,
 * no encryption, no Zip64. Entry names with ".." components or an absolute
 * path are refused (an archive cannot write outside the temporary directory).
 *
 * Ownership: gcs_zip_extract returns a malloc'ed directory path the caller
 * passes to gcs_zip_cleanup (which removes the tree and frees the path).
 * Threading: reentrant. Errors: -1 and a one-line message in err naming the
 * archive; a partly extracted directory is removed before returning.
 */
#ifndef GCS_ZIP_H
#define GCS_ZIP_H

#include <stddef.h>

/* 1 if the file at path starts with the zip local-header signature. */
int gcs_zip_is_zip(const char *path);

int gcs_zip_extract(const char *zip_path, char **out_dir, char *err, size_t errlen);
void gcs_zip_cleanup(char *dir);

#endif /* GCS_ZIP_H */
