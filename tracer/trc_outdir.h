/*
 * trc_outdir.h — the output directory of `gcscope record` (private to
 * tracer/): made by the capture controller (trc_capture.h) for both
 * transports, and the one rule of what a failed recording leaves in it.
 *
 * trc_outdir_make makes -o DIR (or ./gcscope-record-YYYYMMDD-HHMMSS) with
 * its missing parents, and notes what was there before: the directories it
 * made, and the entries of a directory that existed. After a failed
 * recording, trc_outdir_undo removes what the recording made that holds no
 * recorded byte: each entry that was not there before and whose files are
 * all empty (LTTng's ust/ tree before a stream was written, a
 * trace.nettrace that got no byte), as one whole, then the directories it
 * made, deepest first, when they are empty. An entry that was there before
 * is never touched, and an entry holding a byte is kept whole (a partial
 * trace is the user's data: the transport's line says where it is).
 * Best effort: what cannot be removed stays, silently.
 *
 * Ownership: struct trc_outdir is the caller's; trc_outdir_free frees what
 * make allocated. Threading: one thread. Errors: make returns -1 with one
 * line's text in err.
 */
#ifndef TRC_OUTDIR_H
#define TRC_OUTDIR_H

#include <limits.h>
#include <stddef.h>

#define TRC_OUTDIR_MAX_MADE 64   /* directories made that are noted; more are left if the recording fails */

struct trc_outdir {
  char path[PATH_MAX];                      /* absolute, resolved */
  char given[PATH_MAX];                     /* as made: the made directories are its prefixes */
  size_t made[TRC_OUTDIR_MAX_MADE];         /* their lengths in given, in the order made */
  int nmade;
  int existed;                              /* path was there before: its entries are noted */
  unsigned long long *before;               /* their inode numbers, sorted */
  size_t nbefore;
};

/* Make output (NULL: the dated default in the working directory): 0, or -1
 * with err ("cannot write to output directory 'DIR': REASON"); what it
 * made is removed again on failure. */
int trc_outdir_make(struct trc_outdir *d, const char *output, char *err, size_t errlen);
/* The recording failed: remove what it made that holds no byte (above). */
void trc_outdir_undo(struct trc_outdir *d);
void trc_outdir_free(struct trc_outdir *d);

#endif
