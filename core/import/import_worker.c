/* import_worker.c — the decoding process and its receiver (see import_worker.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create, pipe2, MSG_NOSIGNAL */
#endif
#include "import_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gcs_events.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define IMWK_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define IMWK_SANITIZER 1
#endif
#endif

#define FRAME_MAGIC 0x6b776367u /* "gcwk" */
enum { FRAME_BATCH = 1, FRAME_DONE = 2 };
#define MAX_TAIL (256u << 20)
#define HEARTBEAT_S 0.25

struct imwk_frame {
  uint32_t magic, type;
  uint64_t len;   /* BATCH: the slot's used bytes (0: heartbeat); DONE: bytes that follow */
  uint64_t base;  /* BATCH: the slot */
};

struct imwk_shared {
  char where[4096];
};

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned env_uint(const char *name, unsigned dflt) {
  const char *v = getenv(name);
  if (!v || !*v) return dflt;
  char *end;
  unsigned long n = strtoul(v, &end, 10);
  return *end || n == 0 || n > 1000000 ? dflt : (unsigned)n;
}

/* Read exactly n bytes; 0 at once on EOF before the first byte (*eof set). */
static int read_all(int fd, void *p, size_t n, int *eof) {
  char *s = p;
  size_t got = 0;
  *eof = 0;
  while (got < n) {
    ssize_t k = read(fd, s + got, n - got);
    if (k < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (k == 0) { *eof = got == 0; return got == 0 ? 0 : -1; }
    got += (size_t)k;
  }
  return 0;
}

/* ---- child ---------------------------------------------------------------- */

static int write_all(int fd, const void *p, size_t n) {
  const char *s = p;
  while (n > 0) {
    ssize_t k = write(fd, s, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    s += k;
    n -= (size_t)k;
  }
  return 0;
}

/* A frame header, then plen bytes of p. */
static int send_frame(struct imwk *w, uint32_t type, uint64_t len, uint64_t base, const void *p, size_t plen) {
  struct imwk_frame f = { FRAME_MAGIC, type, len, base };
  if (write_all(w->fd, &f, sizeof f) != 0 || (plen && write_all(w->fd, p, plen) != 0)) return -1;
  w->last_send = mono_s();
  return 0;
}

struct imq_batch *imwk_batch(struct imwk *w) { return &w->slots[w->cur]; }

int imwk_send_batch(struct imwk *w) {
  struct imq_batch *b = &w->slots[w->cur];
  if (!b->used) return 0;
  /* The slot is written: announce it (the pipe orders our writes before the
   * parent's reads), then never touch it until the parent gives it back. */
  if (send_frame(w, FRAME_BATCH, b->used, (uint64_t)w->cur, NULL, 0) != 0) return -1;
  if (w->nfree) {
    w->cur = w->free[--w->nfree];
  } else {
    uint32_t slot;
    int eof;
    if (read_all(w->rfd, &slot, sizeof slot, &eof) != 0 || eof || slot >= IMWK_SLOTS) return -1;
    w->cur = (int)slot;
  }
  w->slots[w->cur].used = 0;
  return 0;
}

int imwk_tick(struct imwk *w) {
  if (mono_s() - w->last_send < HEARTBEAT_S) return 0;
  return send_frame(w, FRAME_BATCH, 0, 0, NULL, 0);
}

int imwk_send_done(struct imwk *w, const void *tail, size_t len) {
  return send_frame(w, FRAME_DONE, len, 0, tail, len);
}

void imwk_where(struct imwk *w, const char *what) {
  if (!w->sh) return;
  size_t n = strlen(what);
  if (n >= sizeof w->sh->where) n = sizeof w->sh->where - 1;
  memcpy(w->sh->where, what, n);
  w->sh->where[n] = '\0';
}

static void child_setup(struct imwk *w, pid_t parent) {
  signal(SIGINT, SIG_IGN);   /* the parent decides: it kills us on Ctrl-C */
  signal(SIGPIPE, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(3);
  prctl(PR_SET_NAME, "gcs-decode");
  if (w->errfd >= 0) { dup2(w->errfd, 2); close(w->errfd); w->errfd = -1; }
#ifndef IMWK_SANITIZER
  /* (A sanitizer's shadow memory needs terabytes of address space.) */
  struct rlimit rl = { (rlim_t)w->mem_bytes, (rlim_t)w->mem_bytes };
  setrlimit(RLIMIT_AS, &rl);
#endif
}

int imwk_start(struct imwk *w, const struct imwk_limits *lim, int (*fn)(struct imwk *w, void *arg), void *arg,
               char *err, size_t errlen) {
  memset(w, 0, sizeof *w);
  w->fd = w->rfd = w->errfd = -1;
  w->timeout_s = lim->timeout_s ? lim->timeout_s : env_uint("GCSCOPE_DECODE_TIMEOUT", IMWK_DEFAULT_TIMEOUT_S);
  uint64_t mem = lim->mem_bytes;
  if (!mem) mem = (uint64_t)env_uint("GCSCOPE_DECODE_MEM_MB", 0) << 20;
  if (!mem) {
    mem = 4 * lim->input_bytes;
    if (mem < IMWK_MIN_MEM_BYTES) mem = IMWK_MIN_MEM_BYTES;
  }
  w->mem_bytes = mem;
  int fds[2], sv[2];
  w->slots = mmap(NULL, IMWK_SLOTS * sizeof *w->slots, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (w->slots == MAP_FAILED) {
    w->slots = NULL;
    snprintf(err, errlen, "cannot map the decoding process's batches: %s", strerror(errno));
    return -1;
  }
  if (pipe2(fds, O_CLOEXEC) != 0) {
    snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
    munmap(w->slots, IMWK_SLOTS * sizeof *w->slots);
    w->slots = NULL;
    return -1;
  }
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    snprintf(err, errlen, "cannot create a socket pair: %s", strerror(errno));
    close(fds[0]); close(fds[1]);
    munmap(w->slots, IMWK_SLOTS * sizeof *w->slots);
    w->slots = NULL;
    return -1;
  }
  w->sh = mmap(NULL, sizeof *w->sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (w->sh == MAP_FAILED) w->sh = NULL;
  else w->sh->where[0] = '\0';
  w->errfd = memfd_create("gcs-decode-stderr", MFD_CLOEXEC);
  fflush(NULL);  /* the child must not write the parent's buffered output again */
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "cannot start the decoding process: %s", strerror(errno));
    close(fds[0]); close(fds[1]); close(sv[0]); close(sv[1]);
    if (w->errfd >= 0) close(w->errfd);
    if (w->sh) munmap(w->sh, sizeof *w->sh);
    munmap(w->slots, IMWK_SLOTS * sizeof *w->slots);
    w->sh = NULL;
    w->slots = NULL;
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    close(sv[0]);
    w->fd = fds[1];
    w->rfd = sv[1];
    w->cur = 0;
    w->slots[0].used = 0;
    for (int i = IMWK_SLOTS - 1; i >= 1; i--) w->free[w->nfree++] = i;
    child_setup(w, parent);
    w->last_send = mono_s();
    int rc = fn(w, arg);
    _exit(rc == 0 ? 0 : 2);
  }
  close(fds[1]);
  close(sv[1]);
  w->pid = pid;
  w->fd = fds[0];
  w->rfd = sv[0];
  return 0;
}

/* ---- parent --------------------------------------------------------------- */

/* Check every record of a received batch and move its string pointers from
 * the child's batch address to ours. Returns -1 on a malformed record. */
static int relocate(struct imq_batch *b, uint64_t base) {
  static const char empty[] = "";
  for (size_t off = 0; off < b->used;) {
    if (b->used - off < sizeof(struct imq_rec)) return -1;
    struct imq_rec *r = (struct imq_rec *)(b->buf + off);
    if (r->size < sizeof *r || r->size % 8 || r->size > b->used - off) return -1;
    size_t payload = r->size - sizeof *r;
    if (r->type == IMQ_EVENT) {
      struct gcs_event *ev = (struct gcs_event *)(r + 1);
      if (payload < offsetof(struct gcs_event, u) || ev->kind < 0 || ev->kind >= GCS_KIND_COUNT) return -1;
      const struct gcs_event_desc *d = &gcs_event_descs[ev->kind];
      if (payload < offsetof(struct gcs_event, u) + d->struct_size) return -1;
      for (int i = 0; i < d->nfields; i++) {
        if (d->fields[i].type != GCS_T_STR) continue;
        uintptr_t p = (uintptr_t)gcs_field_get_str(ev, &d->fields[i]);
        uint64_t rel = (uint64_t)p - base;
        const char *s = empty;
        /* inside this batch and NUL-terminated before its end */
        if (p && rel < b->used && memchr(b->buf + rel, '\0', b->used - rel)) s = (const char *)b->buf + rel;
        gcs_field_set_str(ev, &d->fields[i], s);
      }
    } else if (r->type == IMQ_LOST) {
      if (payload < 3 * sizeof(uint64_t) + sizeof(uint32_t) + 1) return -1;
      ((char *)r)[r->size - 1] = '\0';
    } else if (r->type == IMQ_ORIGIN || r->type == IMQ_HORIZON) {
      if (payload < sizeof(uint64_t)) return -1;
    } else if (r->type == IMQ_STACK) {
      const struct imq_stack *st = (const struct imq_stack *)(r + 1);
      if (payload < sizeof *st || st->depth > (payload - sizeof *st) / sizeof(uint64_t)) return -1;
    } else if (r->type == IMQ_MODULE) {
      if (payload < sizeof(struct imq_module) + 1) return -1;
      ((char *)r)[r->size - 1] = '\0';
    } else {
      return -1;
    }
    off += r->size;
  }
  return 0;
}

static const char *where_of(const struct imwk *w) {
  return w->sh && w->sh->where[0] ? w->sh->where : "the trace";
}

/* Did the child's stderr (glib's g_error) say an allocation failed? */
static int stderr_says_alloc(const struct imwk *w) {
  if (w->errfd < 0) return 0;
  char buf[8192];
  off_t end = lseek(w->errfd, 0, SEEK_END);
  off_t from = end > (off_t)sizeof buf - 1 ? end - (off_t)sizeof buf + 1 : 0;
  ssize_t n = pread(w->errfd, buf, sizeof buf - 1, from);
  if (n <= 0) return 0;
  buf[n] = '\0';
  return strstr(buf, "alloc") != NULL || strstr(buf, "memory") != NULL;
}

/* Why the child ended, as one line. */
static void describe_exit(const struct imwk *w, int status, const struct rusage *ru, char *err, size_t errlen) {
  uint64_t mib = w->mem_bytes >> 20;
  int near_limit = (uint64_t)ru->ru_maxrss * 1024 >= w->mem_bytes / 2;
  if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0)) {
    if (near_limit || stderr_says_alloc(w)) {
      snprintf(err, errlen, "libbabeltrace2 exceeded the decoding memory limit (%llu MiB) reading %s",
               (unsigned long long)mib, where_of(w));
    } else if (WIFSIGNALED(status)) {
      int sig = WTERMSIG(status);
      const char *name = sigabbrev_np(sig);
      snprintf(err, errlen, "libbabeltrace2 crashed (SIG%s) reading %s", name ? name : "?", where_of(w));
    } else {
      snprintf(err, errlen, "the decoding process failed (exit status %d) reading %s", WEXITSTATUS(status),
               where_of(w));
    }
  } else {
    snprintf(err, errlen, "the decoding process ended without its result reading %s", where_of(w));
  }
}

static void reap(struct imwk *w, int kill_it, int *status, struct rusage *ru) {
  if (kill_it) kill(w->pid, SIGKILL);
  memset(ru, 0, sizeof *ru);
  *status = 0;
  while (wait4(w->pid, status, 0, ru) < 0 && errno == EINTR) {}
}

static void cleanup(struct imwk *w) {
  if (w->fd >= 0) close(w->fd);
  if (w->rfd >= 0) close(w->rfd);
  if (w->errfd >= 0) close(w->errfd);
  if (w->sh) munmap(w->sh, sizeof *w->sh);
  if (w->slots) munmap(w->slots, IMWK_SLOTS * sizeof *w->slots);
  w->fd = w->rfd = w->errfd = -1;
  w->sh = NULL;
  w->slots = NULL;
}

int imwk_receive(struct imwk *w, struct imq *q, const atomic_int *cancel, void **tail, size_t *tail_len,
                 int *cancelled, char *err, size_t errlen) {
  *tail = NULL;
  *tail_len = 0;
  *cancelled = 0;
  double last = mono_s();
  int rc = -1, kill_it = 1, status;
  struct rusage ru;
  err[0] = '\0';
  for (;;) {
    if (cancel && *cancel) { *cancelled = 1; snprintf(err, errlen, "interrupted"); break; }
    struct pollfd pfd = { w->fd, POLLIN, 0 };
    int pr = poll(&pfd, 1, 100);
    if (pr < 0 && errno != EINTR) { snprintf(err, errlen, "poll: %s", strerror(errno)); break; }
    if (pr <= 0) {
      if (mono_s() - last >= (double)w->timeout_s) {
        snprintf(err, errlen, "libbabeltrace2 made no progress for %u s reading %s (stopped; GCSCOPE_DECODE_TIMEOUT "
                 "sets the limit)", w->timeout_s, where_of(w));
        break;
      }
      continue;
    }
    struct imwk_frame f;
    int eof;
    if (read_all(w->fd, &f, sizeof f, &eof) != 0 || eof) {
      /* The child died (or closed the pipe): say why. */
      reap(w, 0, &status, &ru);
      kill_it = -1;
      describe_exit(w, status, &ru, err, errlen);
      break;
    }
    if (f.magic != FRAME_MAGIC) { snprintf(err, errlen, "the decoding process sent malformed data"); break; }
    if (f.type == FRAME_BATCH) {
      if (f.len == 0) { last = mono_s(); continue; }
      if (f.len > IMPORT_BATCH_BYTES || f.base >= IMWK_SLOTS) {
        snprintf(err, errlen, "the decoding process sent malformed data");
        break;
      }
      struct imq_batch *b = imq_get_empty(q);
      if (!b) { snprintf(err, errlen, "aborted by the writer"); break; }
      /* Our own copy, then the slot goes back: whatever the child does
       * next, what we check and hand on cannot change. */
      const struct imq_batch *slot = &w->slots[f.base];
      memcpy(b->buf, slot->buf, f.len);
      b->used = f.len;
      uint32_t back = (uint32_t)f.base;
      /* At most IMWK_SLOTS numbers are outstanding, so this never fills the
       * socket unless the child misbehaves; a dead child shows as EOF above. */
      if (send(w->rfd, &back, sizeof back, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno != EPIPE &&
          errno != ECONNRESET) {
        imq_release(q, b);
        snprintf(err, errlen, "the decoding process sent malformed data");
        break;
      }
      if (relocate(b, (uint64_t)(uintptr_t)slot->buf) != 0) {
        imq_release(q, b);
        snprintf(err, errlen, "the decoding process sent malformed data");
        break;
      }
      imq_push(q, b);
      last = mono_s();
    } else if (f.type == FRAME_DONE) {
      if (f.len > MAX_TAIL || !(*tail = malloc(f.len ? f.len : 1))) {
        snprintf(err, errlen, "out of memory");
        break;
      }
      if (read_all(w->fd, *tail, f.len, &eof) != 0 || eof) {
        free(*tail);
        *tail = NULL;
        reap(w, 0, &status, &ru);
        kill_it = -1;
        describe_exit(w, status, &ru, err, errlen);
        break;
      }
      *tail_len = f.len;
      reap(w, 0, &status, &ru);
      kill_it = -1;
      if (WIFEXITED(status)) rc = 0;
      else describe_exit(w, status, &ru, err, errlen);
      break;
    } else {
      snprintf(err, errlen, "the decoding process sent malformed data");
      break;
    }
  }
  if (kill_it >= 0) reap(w, 1, &status, &ru);
  if (rc != 0) { free(*tail); *tail = NULL; *tail_len = 0; }
  cleanup(w);
  imq_close(q);
  return rc;
}

void imwk_abort(struct imwk *w) {
  int status;
  struct rusage ru;
  reap(w, 1, &status, &ru);
  cleanup(w);
}
