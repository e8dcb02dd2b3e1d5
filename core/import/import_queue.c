/* import_queue.c — bounded batch queue between decoder and writer. */
#include "import_queue.h"

#include <stdlib.h>

int imq_init(struct imq *q) {
  q->ready_head = q->ready_tail = q->free_list = NULL;
  q->allocated = 0;
  q->closed = q->aborted = 0;
  if (pthread_mutex_init(&q->mu, NULL) != 0) return -1;
  if (pthread_cond_init(&q->cv, NULL) != 0) { pthread_mutex_destroy(&q->mu); return -1; }
  return 0;
}

static void free_list(struct imq_batch *b) {
  while (b) { struct imq_batch *n = b->next; free(b); b = n; }
}

void imq_free(struct imq *q) {
  free_list(q->ready_head);
  free_list(q->free_list);
  pthread_cond_destroy(&q->cv);
  pthread_mutex_destroy(&q->mu);
}

struct imq_batch *imq_get_empty(struct imq *q) {
  struct imq_batch *b = NULL;
  pthread_mutex_lock(&q->mu);
  for (;;) {
    if (q->aborted) break;
    if (q->free_list) { b = q->free_list; q->free_list = b->next; break; }
    if (q->allocated < IMPORT_QUEUE_BATCHES) {
      b = malloc(sizeof *b);
      if (b) q->allocated++;
      break;
    }
    pthread_cond_wait(&q->cv, &q->mu);
  }
  pthread_mutex_unlock(&q->mu);
  if (b) { b->next = NULL; b->used = 0; }
  return b;
}

void imq_push(struct imq *q, struct imq_batch *b) {
  pthread_mutex_lock(&q->mu);
  b->next = NULL;
  if (q->ready_tail) q->ready_tail->next = b; else q->ready_head = b;
  q->ready_tail = b;
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

void imq_close(struct imq *q) {
  pthread_mutex_lock(&q->mu);
  q->closed = 1;
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

struct imq_batch *imq_pop(struct imq *q) {
  struct imq_batch *b = NULL;
  pthread_mutex_lock(&q->mu);
  while (!q->ready_head && !q->closed) pthread_cond_wait(&q->cv, &q->mu);
  if (q->ready_head) {
    b = q->ready_head;
    q->ready_head = b->next;
    if (!q->ready_head) q->ready_tail = NULL;
  }
  pthread_mutex_unlock(&q->mu);
  return b;
}

void imq_release(struct imq *q, struct imq_batch *b) {
  pthread_mutex_lock(&q->mu);
  b->next = q->free_list;
  q->free_list = b;
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

void imq_abort(struct imq *q) {
  pthread_mutex_lock(&q->mu);
  q->aborted = 1;
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

int imq_aborted(struct imq *q) {
  pthread_mutex_lock(&q->mu);
  int a = q->aborted;
  pthread_mutex_unlock(&q->mu);
  return a;
}

void *imq_reserve(struct imq_batch *b, size_t size) {
  size = (size + 7) & ~(size_t)7;
  if (b->used + size > IMPORT_BATCH_BYTES) return NULL;
  void *p = b->buf + b->used;
  b->used += size;
  return p;
}
