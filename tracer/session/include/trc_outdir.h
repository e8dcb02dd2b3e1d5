/*
 * trc_outdir.h — the output directory of a recording (gcs_session): made by
 * record's capture controller (trc_capture.h) for both transports and by
 * `gcscope top -o DIR` (tui/) for its kept trace, and the one rule of what
 * a failed recording leaves in it.
 *
 * trc_outdir_make makes -o DIR with its missing parents, or a new
 * ./gcscope-record-YYYYMMDD-HHMMSS (-2, -3, ... when that one exists). It
 * refuses an existing DIR that already holds a recording, before anything is
 * made or written in it:
 *  - an entry at its top level named as record names what it writes
 *    (trace.nettrace, any *.nettrace, ust/, kernel/, capture-N, flight-N...,
 *    unverified-N, process.tsv, firings.tsv) that holds a byte, or that
 *    cannot be vouched for (a link, a special file, an unreadable directory,
 *    beyond the walk's bounds); every top-level entry is looked at;
 *  - below the other entries, a *.nettrace holding a byte or a CTF metadata
 *    file (a walk of at most TRC_OUTDIR_WALK_DEPTH levels and
 *    TRC_OUTDIR_WALK_ENTRIES entries, not following links nor leaving the
 *    file system; what lies beyond is not written by a recording).
 * An empty DIR, or one holding other files or only byte-less entries named
 * as record's (an empty ust/ of a recording that got no event), is used:
 * its entries' names are noted (and the paths inside those byte-less ones).
 *
 * After a failed recording, trc_outdir_undo removes what the recording made
 * that holds no recorded byte: each top-level entry whose name was not there
 * before and whose files are all empty (LTTng's ust/ tree before a stream
 * was written, a trace.nettrace that got no byte), as one whole; inside a
 * byte-less entry of record's that was there, what was added, when it all
 * holds no byte; then the directories it made, deepest first, when they are
 * empty. What was there before is never touched, and an entry holding a
 * byte is kept whole (a partial trace is the user's data: the transport's
 * line says where it is). After a recording that went well,
 * trc_outdir_unused removes the dated default the same way when it holds no
 * byte (a -o DIR was asked for: it stays). Best effort: what cannot be
 * removed stays, silently.
 *
 * Ownership: struct trc_outdir is the caller's; trc_outdir_free frees what
 * make allocated. Threading: one thread. Errors: make returns -1 with one
 * line's text in err.
 */
#ifndef TRC_OUTDIR_H
#define TRC_OUTDIR_H

#include <limits.h>
#include <stddef.h>

#define TRC_OUTDIR_MAX_MADE 64        /* directories made that are noted; more are left if the recording fails */
#define TRC_OUTDIR_WALK_DEPTH 8       /* a snapshot's metadata: capture-1/NAME-DATE-0/ust/uid/U/64-bit/metadata is 7 */
#define TRC_OUTDIR_WALK_ENTRIES 10000 /* entries looked at below the top level */
#define TRC_OUTDIR_DATED_TRIES 100    /* gcscope-record-DATE-TIME, -2, ... -100 */

struct trc_outdir {
  char path[PATH_MAX];                      /* absolute, resolved */
  char given[PATH_MAX];                     /* as made: the made directories are its prefixes */
  size_t made[TRC_OUTDIR_MAX_MADE];         /* their lengths in given, in the order made */
  int nmade;
  int existed;                              /* path was there before: its entries are noted */
  int dated;                                /* the dated default (no -o) */
  char **before;                            /* their names, sorted (and the paths inside clean ones) */
  size_t nbefore;
  char **clean;                             /* those named as record's that held no byte, sorted */
  size_t nclean;
};

/* Make output (NULL: the dated default in the working directory): 0, or -1
 * with err ("cannot write to output directory 'DIR': REASON", or "'DIR'
 * already holds a recording (DIR/ENTRY); choose another -o or remove it");
 * what it made is removed again on failure. */
int trc_outdir_make(struct trc_outdir *d, const char *output, char *err, size_t errlen);
/* The recording failed: remove what it made that holds no byte (above). */
void trc_outdir_undo(struct trc_outdir *d);
/* The recording went well: a dated default holding no byte is removed (as
 * undo does). 1 if it was, 0 otherwise (a -o DIR is never removed). */
int trc_outdir_unused(struct trc_outdir *d);
/* serve's per-process directory: PARENT/NAME made new, or NAME-2, NAME-3,
 * ... when it exists (an earlier watch's, kept whole); its path in out. 0,
 * or -1 (errno). */
int trc_outdir_make_new(const char *parent, const char *name, char *out, size_t outlen);
void trc_outdir_free(struct trc_outdir *d);

#endif
