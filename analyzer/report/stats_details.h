/* stats_details.h — issue 26's figures of `gcscope stats` (stats_details.c):
 * loaders into a process already loaded by st_load, and the JSON writer of
 * each GC's and each process's part. Ownership: the arrays hang off the
 * st_proc; st_free_details releases them (st_free calls it). */
#ifndef STATS_DETAILS_H
#define STATS_DETAILS_H

#include <stdio.h>

#include "stats_model.h"

/* p->set from processes and gc_process_summary (every load level but PROCS). */
void st_load_settings(sqlite3 *db, struct st_proc *p);
/* Each GC's genf, pinning, revisits, marks, LOH compaction and buckets
 * (ST_LOAD_ALL). Needs p->set (st_load_settings) first. */
void st_load_details(sqlite3 *db, struct st_proc *p);
void st_free_details(struct st_proc *p);
/* The key stem of a GCMarkWithType root kind ("stack", "fq", "handles",
 * "older", "dependent_handles", "new_fq" ...), NULL for a kind not named. */
const char *st_mark_stem(int kind);

struct rpt_wbuf;
/* The per-GC keys (each starting ", "), after the GC's other keys. */
void st_json_gc_details(struct rpt_wbuf *w, const struct st_proc *p, const struct st_gc *g);
/* The process's "gc_settings" and "startup_flags" keys (each starting ", "). */
void st_json_settings(FILE *o, const struct st_proc *p);
/* The summary's lines on LOH compaction, pinning and background GC
 * revisits (text: each "  LINE", HTML: each an item); returns how many. */
#define ST_SUMMARY_LINE 200
int st_summary_lines(const struct st_proc *p, char lines[][ST_SUMMARY_LINE], int max);
/* The text header's lines (wrapped by the caller): the start-up flags, the
 * GC settings and what was configured; returns how many. */
int st_settings_lines(const struct st_proc *p, char lines[][ST_SUMMARY_LINE], int max);
/* The names of a flags map's set bits in v, ", "-separated (an unnamed bit
 * as 0x..) into buf; returns the length, 0 when no bit is set. */
size_t st_flags_text(char *buf, size_t n, const char *map, uint64_t v);

#endif /* STATS_DETAILS_H */
