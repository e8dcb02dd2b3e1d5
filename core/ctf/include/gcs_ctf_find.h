/*
 * gcs_ctf_find.h — locate the CTF traces under a path and group them into
 * recording sessions.
 *
 * libbabeltrace2's src.ctf.fs needs the directory that holds a `metadata`
 * file; users pass whatever they have (an LTTng session directory, a
 * perfcollect `lttngTrace/` folder, `ust/uid/1000/64-bit`, a directory of
 * sessions). gcs_ctf_find walks the path and returns one gcs_ctf_session per
 * recording: the directories with a `metadata` file are grouped by the
 * directory above their `ust/` or `kernel/` component (the LTTng session
 * directory), so a session's kernel and user-space traces are read together
 * and several sessions give several sessions.
 *
 * Ownership: the caller frees the result with gcs_ctf_sessions_free().
 * Threading: reentrant. Errors: returns -1 and a one-line message in err,
 * also when a directory under path cannot be read ("DIR: permission
 * denied": a trace in it would silently be left out) or a symlink leads
 * back to a directory above it ("DIR: symlink loop"), a symlink under path
 * resolves outside it ("LINK: a symlink leading outside PATH": followed, it
 * would import unrelated traces), or a directory holding a `metadata` file
 * also holds something that is neither a file nor a directory ("FILE: not a
 * regular file": a FIFO or a link to /dev/zero where a stream file should
 * be, which libbabeltrace2 would skip without a word or read forever).
 */
#ifndef GCS_CTF_FIND_H
#define GCS_CTF_FIND_H

#include <stddef.h>

struct gcs_ctf_session {
  char *root;      /* session directory (or the given path if it is below ust/ or kernel/) */
  char **dirs;     /* directories holding a `metadata` file, sorted */
  int ndirs;
};

/* Find every CTF trace under path (a directory). On success *out holds
 * *nout >= 0 sessions (0: no trace found), sorted by root. */
int gcs_ctf_find(const char *path, struct gcs_ctf_session **out, int *nout, char *err,
                 size_t errlen);
void gcs_ctf_sessions_free(struct gcs_ctf_session *s, int n);

#endif /* GCS_CTF_FIND_H */
