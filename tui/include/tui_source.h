/*
 * tui_source.h — where `gcscope top` gets its GCs from: a database
 * (tui_db.c, `gcscope top DB`) or a live LTTng session (tui_live.c). The
 * screen loop polls the source; the source adds GCs to the model.
 *
 * Ownership: a source is created by its open function and released by
 * ops->close (which frees it). Event lines returned by gc_events are
 * malloc'ed; the caller frees them.
 * Threading: one thread.
 * Errors: open functions return NULL and write one line (without the
 * "gcscope top:" prefix) into the caller's buffer; poll returns -1 and sets
 * src->err on an error that ends the session, 0 when nothing changed, 1 when
 * the model changed.
 */
#ifndef TUI_SOURCE_H
#define TUI_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "tui_model.h"

/* One event of a GC's event sequence (the detail view). */
struct tui_evline {
  double ms;                   /* ms since the trace start */
  char name[48];               /* "GCSuspendEEBegin_V1" */
  char text[200];              /* payload text */
};

struct tui_source;

struct tui_source_ops {
  int (*poll)(struct tui_source *src, struct tui_model *m);
  /* The events of one GC (from its suspension to its restart or GCEnd,
   * whichever is later), and any per-generation sizes the model lacks
   * (fills gc->gen_before_mb / gen_after_mb). Returns the count, or -1. */
  long (*gc_events)(struct tui_source *src, struct tui_gc *gc, struct tui_evline **out);
  void (*close)(struct tui_source *src);
};

struct tui_source {
  const struct tui_source_ops *ops;
  char desc[256];              /* title line: "DB gc.db", "live session gcdemo" */
  char err[512];               /* last error (poll returned -1) */
  char note[128];              /* transient status for the status line, "" if none */
  int poll_ms;                 /* how often the loop polls (ms) */
  size_t max_gcs;              /* GCs the model keeps per process (0: all); live sources bound it */
  int live;                    /* a live source: the title says how old its newest event is */
  uint64_t last_event_ns;      /* live: the newest event's time (ns since the epoch), 0 none yet */
  int loading;                 /* a database still being read in (more rows than one poll takes):
                                * the figures are partial; the loop polls again at once */
};

/* `gcscope top DB`: follow the gcs table of a gcscope database. */
struct tui_source *tui_db_open(const char *path, char *err, size_t errlen);

#endif /* TUI_SOURCE_H */
