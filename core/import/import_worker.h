/*
 * import_worker.h — run a trace decoder in a child process and receive its
 * batches in the parent (internal to gcs_import).
 *
 * libbabeltrace2 can hang (a cut metadata packet), allocate without bound or
 * crash (SIGSEGV) on damaged CTF input. The decoding therefore runs in a
 * forked process with an address-space limit (RLIMIT_AS) and a progress
 * watchdog; it fills its import_queue.h batches in a ring of IMWK_SLOTS
 * batch slots shared with the parent (MAP_SHARED, mapped before the fork) and
 * passes slot numbers through a pipe. The parent keeps the database: a
 * receiving thread copies each announced slot into a batch of its own, gives
 * the slot back, validates the copy, relocates its string pointers and hands
 * it to the writer through the same struct imq the writer reads. A hang, an
 * overrun of the limit, a crash or Ctrl-C ends in the child being killed and
 * one message; the writer then rolls back.
 *
 * Protocol. Child → parent (a pipe): frames of a struct imwk_frame header:
 * BATCH (slot = base, len = the slot's used bytes, written before the frame;
 * len 0 is a heartbeat), then one DONE followed by len bytes (the caller's
 * result tail). EOF without DONE means the child died. Parent → child (a
 * socket, so that a dead child gives EPIPE, not SIGPIPE): the uint32_t number
 * of each slot copied, which the child may then fill again. A slot is only
 * read by the parent between its BATCH frame and its return, when the child
 * does not write it; what the parent validates is its own copy, so a child
 * that dies or goes wrong mid-batch can never make it read a half-written or
 * changing batch.
 *
 * Threading: imwk_start runs in the caller's thread (fork: call it before
 * starting other threads of the import); imwk_receive runs on one thread.
 * Ownership: imwk_receive returns the DONE tail malloc'ed (caller frees).
 */
#ifndef IMPORT_WORKER_H
#define IMPORT_WORKER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "import_queue.h"

#define IMWK_DEFAULT_TIMEOUT_S 30      /* no frame for this long: the decoder is stuck */
#define IMWK_MIN_MEM_BYTES (4ull << 30)

struct imwk_limits {
  unsigned timeout_s;   /* 0: GCSCOPE_DECODE_TIMEOUT or IMWK_DEFAULT_TIMEOUT_S */
  uint64_t mem_bytes;   /* 0: GCSCOPE_DECODE_MEM_MB or max(4 GiB, 4 x input_bytes) */
  uint64_t input_bytes; /* size of the trace files (for the default limit) */
};

struct imwk_shared;     /* a page shared with the child: where it is reading */

#define IMWK_SLOTS 4      /* shared batch slots (1 MiB) */

struct imwk {
  pid_t pid;
  int fd;               /* frames: parent: read end; child: write end */
  int rfd;              /* slot returns: parent: sending end; child: receiving end */
  struct imq_batch *slots; /* IMWK_SLOTS shared batches (NULL when none) */
  int cur;              /* child: the slot being filled */
  int nfree;            /* child: slots known free (never sent, in free[]) */
  int free[IMWK_SLOTS];
  int errfd;            /* the child's stderr (a memfd), -1 if none */
  struct imwk_shared *sh;
  unsigned timeout_s;
  uint64_t mem_bytes;
  /* child side */
  double last_send;
};

/* Fork the worker. In the child fn(w, arg) runs and the child exits with its
 * return value (it never returns here); in the parent 0 is returned, or -1
 * with a message. */
int imwk_start(struct imwk *w, const struct imwk_limits *lim, int (*fn)(struct imwk *w, void *arg),
               void *arg, char *err, size_t errlen);

/* ---- child side ---- */
/* The batch to fill (a shared slot; its used is 0 after each send). */
struct imq_batch *imwk_batch(struct imwk *w);
/* Hand the filled batch over and take a free slot (waits while the parent
 * holds all of them): call imwk_batch again. Returns -1 if the parent is gone. */
int imwk_send_batch(struct imwk *w);
/* Send a heartbeat if nothing was sent for a while (call it often; cheap). */
int imwk_tick(struct imwk *w);
int imwk_send_done(struct imwk *w, const void *tail, size_t len);
/* Record what is being read now (for the parent's message if the child dies). */
void imwk_where(struct imwk *w, const char *what);

/* ---- parent side ---- */
/* Receive every batch into q (closing q at the end) until the child's DONE
 * frame and exit. cancel is polled at least every 100 ms. Returns 0 with
 * *tail (malloc'ed) and *tail_len; -1 with a one-line message when the child
 * died, hung, overran its memory limit, sent malformed data, or the import
 * was cancelled (*cancelled set) or the writer aborted q. The child is
 * always reaped. */
int imwk_receive(struct imwk *w, struct imq *q, const atomic_int *cancel, void **tail, size_t *tail_len,
                 int *cancelled, char *err, size_t errlen);

/* Kill and reap the child without receiving (when the receiver cannot start). */
void imwk_abort(struct imwk *w);

#endif /* IMPORT_WORKER_H */
