/*
 * import_queue.h — bounded hand-over of decoded records from the decoding
 * thread to the SQLite writer (internal to gcs_import).
 *
 * Records are packed into fixed-size batches (a record never spans two
 * batches). At most IMPORT_QUEUE_BATCHES batches exist; the producer blocks
 * when all are full, so memory stays bounded whatever the trace size.
 * A record's pointers (strings of a struct gcs_event) point inside its batch
 * and stay valid until the consumer releases the batch.
 *
 * Threading: one producer thread, one consumer thread. Ownership: the queue
 * owns its batches; imq_free releases everything.
 */
#ifndef IMPORT_QUEUE_H
#define IMPORT_QUEUE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define IMPORT_QUEUE_BATCHES 32  /* 8 MiB: absorbs scheduling gaps on a busy machine */
#define IMPORT_BATCH_BYTES (256 * 1024)

/* IMQ_ORIGIN (payload: uint64_t ns) is the trace's first timestamp, sent
 * before any event record. */
/* IMQ_STACK (struct imq_stack) is the call stack of the IMQ_EVENT that
 * follows it; IMQ_MODULE (struct imq_module) a statedump module (librgc's
 * stacks resolve from them). */
/* IMQ_HORIZON (payload: uint64_t ns) is the reader's
 * gcs_rd_stats.lost_horizon_ns, sent before the record that follows each
 * change (gcs_recon_lost_horizon). */
enum imq_rec_type { IMQ_EVENT = 1, IMQ_LOST = 2, IMQ_ORIGIN = 3, IMQ_STACK = 4, IMQ_MODULE = 5, IMQ_HORIZON = 6 };
struct imq_stack { uint32_t depth; uint32_t truncated; uint64_t ip[]; };
struct imq_module { int32_t pid; int32_t is_pic; uint64_t baddr, memsz; char path[]; };

/* Record header; the payload follows, 8-byte aligned. */
struct imq_rec {
  uint32_t type;
  uint32_t size;  /* header + payload, multiple of 8 */
};

struct imq_batch {
  struct imq_batch *next;
  size_t used;
  _Alignas(8) unsigned char buf[IMPORT_BATCH_BYTES];
};

struct imq {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct imq_batch *ready_head, *ready_tail;  /* FIFO of filled batches */
  struct imq_batch *free_list;
  int allocated;
  int closed;     /* producer finished */
  int aborted;    /* consumer gave up: producer should stop */
};

int imq_init(struct imq *q);
void imq_free(struct imq *q);

/* Producer: a batch to fill (blocks while IMPORT_QUEUE_BATCHES are in use);
 * NULL if the consumer aborted or memory ran out. */
struct imq_batch *imq_get_empty(struct imq *q);
void imq_push(struct imq *q, struct imq_batch *b);
void imq_close(struct imq *q);           /* no more batches */

/* Consumer: next filled batch, NULL at the end. */
struct imq_batch *imq_pop(struct imq *q);
void imq_release(struct imq *q, struct imq_batch *b);
void imq_abort(struct imq *q);           /* stop the producer */
int imq_aborted(struct imq *q);

/* Reserve size bytes (rounded up to 8) in b; NULL if it does not fit. */
void *imq_reserve(struct imq_batch *b, size_t size);

#endif /* IMPORT_QUEUE_H */
