/*
 * import_identity.h — content identity of a trace, so importing the same
 * trace twice (even from another path, or from its zip) is detected.
 *
 * import_identity_dirs (the identity of earlier versions, still matched so
 * that their databases recognise their traces) hashes, for every trace
 * directory (relative to the session root, sorted) the whole `metadata` file (it holds the trace UUID) and, for
 * every other file, its relative name, size and first and last 64 KiB. For a
 * single file (.nettrace) the same is done for that file. Cheap (bounded
 * reads) and stable across copies. Result: 32 hex digits + NUL.
 * Threading: reentrant. Errors: -1 with a message in err.
 */
#ifndef IMPORT_IDENTITY_H
#define IMPORT_IDENTITY_H

#include <stddef.h>

#define IMPORT_IDENTITY_LEN 33

int import_identity_dirs(const char *root, const char *const *dirs, int ndirs,
                         char out[IMPORT_IDENTITY_LEN], char *err, size_t errlen);
int import_identity_file(const char *path, char out[IMPORT_IDENTITY_LEN], char *err, size_t errlen);

/* The identity of an LTTng trace that does not depend on where the import
 * started: "ctf1:" followed by one hash per trace directory (the directory
 * holding `metadata`: its files' names, the whole metadata, the other files'
 * sizes and first/last 64 KiB; no path above it), sorted, comma-separated.
 * A session imported whole and its ust/ subdirectory share the hash of the
 * user-space trace: an identity sharing any hash with a stored one is
 * the same recording. *out is malloc'ed. */
#define IMPORT_IDENTITY_CTF_PREFIX "ctf1:"
int import_identity_ctf(const char *const *dirs, int ndirs, char **out, char *err, size_t errlen);

#endif /* IMPORT_IDENTITY_H */
