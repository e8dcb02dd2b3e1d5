/*
 * tui_feed.h — GC events into `gcscope top`'s model, the same for every live
 * source (LTTng live through babeltrace2, EventPipe streams): each event goes
 * to the one GC reconstruction (gcs_recon), whose finished GCs become model
 * rows; the most recent events stay in a ring for the detail view.
 *
 * Ownership: tui_feed_new allocates, tui_feed_free releases. Event lines from
 * tui_feed_gc_events are malloc'ed; the caller frees them.
 * Threading: one thread. Errors: tui_feed_new returns NULL when out of memory.
 */
#ifndef TUI_FEED_H
#define TUI_FEED_H

#include <stdint.h>

#include "gcs_events.h"
#include "tui_source.h"

/* GCs a live view lists per process (the header, rollup and histogram still
 * count every GC); the reconstruction keeps only its last TUI_FEED_KEEP_GCS. */
#define TUI_LIVE_MAX_GCS 100000
#define TUI_FEED_KEEP_GCS 1024

struct tui_feed;

struct tui_feed *tui_feed_new(void);
void tui_feed_free(struct tui_feed *f);
/* The model the next events go to (set before feeding; may change). */
void tui_feed_set_model(struct tui_feed *f, struct tui_model *m);
/* One decoded event; procname names its process if the source knows it
 * (NULL or "" otherwise). */
void tui_feed_event(struct tui_feed *f, const struct gcs_event *ev, const char *procname);
/* count events were lost somewhere in [begin_ns, end_ns] (gcs_recon_lost:
 * the GCs whose events may lie there become incomplete; 0: unknown). */
void tui_feed_lost(struct tui_feed *f, uint64_t begin_ns, uint64_t end_ns, uint64_t count);
/* The source ended: GCs still open are finished. */
void tui_feed_finish(struct tui_feed *f);
/* Did the model change since the last call? (clears the flag) */
int tui_feed_take_changed(struct tui_feed *f);
uint64_t tui_feed_lost_total(const struct tui_feed *f);
/* tui_source_ops.gc_events from the ring. */
long tui_feed_gc_events(struct tui_feed *f, struct tui_gc *gc, struct tui_evline **out);

#endif
