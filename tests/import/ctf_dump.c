/* ctf_dump — test helper: prints every decoded event the CTF reader yields,
 * one line each: ts_ns pid tid cpu name procname | payload text. Used by the
 * import tests to compare the reader with babeltrace2's own text output.
 * With -a, every event (decoded or not) with everything a record holds:
 * procname_env, payload_error, bin_info, the stack, and the lost records and
 * stats: the native reader and the libbabeltrace2 one are compared with it
 * (GCSCOPE_CTF_READER=native|babeltrace2). With -w, as -a, and each lost
 * record's window beginning and whether packets or events were lost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_ctf_find.h"
#include "gcs_ctf_reader.h"

static int quiet, all, windows;

static int on_event(const struct gcs_rd_event *e, void *ud) {
  (void)ud;
  static char buf[8192];
  if (all) {
    printf("%llu %d %d %d %s [%s]%s", (unsigned long long)e->ev.ts_ns, e->ev.pid, e->ev.tid, e->ev.cpu, e->name,
           e->procname, e->procname_env ? " env" : "");
    if (e->bin_info)
      printf(" BIN %llx %llu %s %d", (unsigned long long)e->bin_info->baddr, (unsigned long long)e->bin_info->memsz,
             e->bin_info->path, e->bin_info->is_pic);
    if (e->decoded) {
      gcs_event_format(&e->ev, buf, sizeof buf);
      printf(" v%d o%d%s%s | %s", e->ev.version, e->ev.origin, e->ev.truncated ? " TRUNCATED" : "",
             e->payload_error ? " PAYLOAD_ERROR" : "", buf);
      if (e->ev.stack) {
        printf(" | STACK %u%s", e->ev.stack->depth, e->ev.stack->truncated ? "+" : "");
        for (uint32_t i = 0; i < e->ev.stack->depth; i++) printf(" %llx", (unsigned long long)e->ev.stack->ip[i]);
      }
    }
    printf("\n");
    return 0;
  }
  if (!e->decoded || quiet) return 0;
  gcs_event_format(&e->ev, buf, sizeof buf);
  printf("%llu %d %d %d %s %s%s | %s\n", (unsigned long long)e->ev.ts_ns, e->ev.pid, e->ev.tid,
         e->ev.cpu, e->name, e->procname, e->ev.truncated ? " TRUNCATED" : "", buf);
  return 0;
}

static int on_lost(const struct gcs_rd_lost *l, void *ud) {
  (void)ud;
  if (windows)  /* -w: the window too, and what was lost */
    printf("LOST %llu %s %llu begin %llu %s\n", (unsigned long long)l->count, l->stream, (unsigned long long)l->ts_ns,
           (unsigned long long)l->begin_ns, l->packet_gap ? "packets" : "events");
  else
    printf("LOST %llu %s %llu\n", (unsigned long long)l->count, l->stream, (unsigned long long)l->ts_ns);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "-n") == 0) { quiet = 1; argv++; argc--; }  /* decode only */
  if (argc == 3 && strcmp(argv[1], "-a") == 0) { all = 1; argv++; argc--; }    /* every record */
  if (argc == 3 && strcmp(argv[1], "-w") == 0) { all = windows = 1; argv++; argc--; } /* and lost windows */
  if (argc != 2) { fprintf(stderr, "usage: ctf_dump [-n|-a|-w] DIR\n"); return 2; }
  char err[1024];
  struct gcs_ctf_session *s;
  int n;
  if (gcs_ctf_find(argv[1], &s, &n, err, sizeof err) != 0) { fprintf(stderr, "%s\n", err); return 1; }
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    struct gcs_rd_callbacks cb = { .event = on_event, .lost = on_lost };
    struct gcs_rd_stats st;
    printf("SESSION %s (%d dirs)\n", s[i].root, s[i].ndirs);
    if (gcs_ctf_read((const char *const *)s[i].dirs, s[i].ndirs, &cb, NULL, NULL, &st, err, sizeof err) != 0) {
      fprintf(stderr, "%s\n", err);
      rc = 1;
      break;
    }
    printf("STATS events=%llu decoded=%llu discarded=%llu gaps=%llu first=%llu last=%llu host=%s\n",
           (unsigned long long)st.events, (unsigned long long)st.decoded, (unsigned long long)st.discarded,
           (unsigned long long)st.packet_gaps,
           (unsigned long long)st.first_ns, (unsigned long long)st.last_ns, st.hostname);
    if (st.cut_streams)   /* stream files cut short: the first one's line */
      printf("CUT %llu %s\n", (unsigned long long)st.cut_streams, st.cut_why);
  }
  gcs_ctf_sessions_free(s, n);
  return rc;
}
