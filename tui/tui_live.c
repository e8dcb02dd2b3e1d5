/* tui_live.c — live sources of `gcscope top` (see tui_live.h).
 *
 * A babeltrace2 graph src.ctf.lttng-live → a simple sink of ours. The screen
 * loop polls it: bt_graph_run_once until it says AGAIN (no data yet) or a
 * time slice is used up, so reading never blocks the screen. Each GC event is
 * decoded into struct gcs_event by the importer's decoder (gcs_ctf_decode,
 * the one `gcscope import` uses) and fed to the model through tui_feed (the
 * one GC reconstruction; a ring of recent events for the detail view). */
#include "tui_live.h"

#include <babeltrace2/babeltrace.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gcs_ctf_reader.h"
#include "tui_feed.h"
#include "tui_live_session.h"

struct tui_live {
  struct tui_source base;
  bt_graph *graph;
  const bt_plugin *ctf;
  struct tui_feed *feed;       /* events -> gcs_recon -> the model */
  int ended;
  int failed;
  int out_of_memory;           /* the decoder failed: reported by poll */
  char session[128], url[512];
  struct tui_lsess lsess;      /* `-- COMMAND` only */
  int own_session;
  int child_done;
  struct gcs_ctf_decoder *dec;
};

/* ---- decoding ------------------------------------------------------------ */

static void on_event(struct tui_live *l, const struct gcs_rd_event *rec) {
  /* Not a GC event, or a packed payload that did not decode: skipped. */
  if (!rec->decoded || rec->payload_error) return;
  if (rec->ev.ts_ns > l->base.last_event_ns) l->base.last_event_ns = rec->ev.ts_ns;
  tui_feed_event(l->feed, &rec->ev, rec->procname);
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it, void *ud) {
  struct tui_live *l = ud;
  bt_message_array_const msgs;
  uint64_t count;
  switch (bt_message_iterator_next(it, &msgs, &count)) {
  case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK: break;
  case BT_MESSAGE_ITERATOR_NEXT_STATUS_END: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
  case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
  case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
    return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
  default: return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
  }
  for (uint64_t i = 0; i < count; i++) {
    const bt_message *m = msgs[i];
    const struct gcs_rd_event *rec;
    int d = l->out_of_memory ? 0 : gcs_ctf_decode(l->dec, m, &rec);
    if (d < 0) l->out_of_memory = 1;
    if (d > 0) {
      on_event(l, rec);
    } else if (bt_message_get_type(m) == BT_MESSAGE_TYPE_DISCARDED_EVENTS) {
      uint64_t n = 0;
      if (bt_message_discarded_events_get_count(m, &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE && n) {
        tui_feed_lost(l->feed, n);
      }
    }
    bt_message_put_ref(m);
  }
  return l->out_of_memory ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR
                          : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* babeltrace2's error as one line: every cause's message (root cause
 * first), so explain() can recognise the relayd's answer; then cleared. */
static void take_error(char *out, size_t len) {
  const bt_error *e = bt_current_thread_take_error();
  size_t pos = 0;
  out[0] = '\0';
  uint64_t n = e ? bt_error_get_cause_count(e) : 0;
  for (uint64_t i = 0; i < n && pos + 1 < len; i++) {
    const char *msg = bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, i));
    int w = snprintf(out + pos, len - pos, "%s%s", i ? " / " : "", msg ? msg : "");
    if (w < 0) break;
    pos += (size_t)w;
  }
  if (!out[0]) snprintf(out, len, "unknown babeltrace2 error");
  for (char *p = out; *p; p++) if (*p == '\n') *p = ' ';
  if (e) bt_error_release(e);
}

static int build_graph(struct tui_live *l, int fail_if_missing, char *err, size_t errlen) {
  if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &l->ctf) != BT_PLUGIN_FIND_STATUS_OK) {
    bt_current_thread_clear_error();
    snprintf(err, errlen, "babeltrace2's ctf plugin is not installed");
    return -1;
  }
  l->graph = bt_graph_create(0);
  bt_value *params = bt_value_map_create();
  bt_value *arr = NULL;
  if (!l->graph || !params ||
      bt_value_map_insert_empty_array_entry(params, "inputs", &arr) != BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
      bt_value_array_append_string_element(arr, l->url) != BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK ||
      bt_value_map_insert_string_entry(params, "session-not-found-action", fail_if_missing ? "fail" : "continue") !=
        BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK) {
    bt_current_thread_clear_error();
    bt_value_put_ref(params);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  const bt_component_source *src;
  const bt_component_sink *sink;
  if (bt_graph_add_source_component(l->graph, bt_plugin_borrow_source_component_class_by_name_const(l->ctf, "lttng-live"),
                                    "live", params, BT_LOGGING_LEVEL_NONE, &src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
      bt_graph_add_simple_sink_component(l->graph, "gcscope-top", NULL, consume, NULL, l, &sink) !=
        BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
      bt_graph_connect_ports(l->graph, bt_component_source_borrow_output_port_by_index_const(src, 0),
                             bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL) !=
        BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
    char why[256];
    take_error(why, sizeof why);
    bt_value_put_ref(params);
    snprintf(err, errlen, "%.200s: %.200s", l->url, why);
    return -1;
  }
  bt_value_put_ref(params);
  return 0;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Turn a failed live read into one plain line. The messages are those of
 * babeltrace2 2.0's lttng-live component. */
static void explain(struct tui_live *l, const char *why) {
  if (strstr(why, "already a viewer"))
    snprintf(l->base.err, sizeof l->base.err,
             "session '%.60s' is already being read by another live viewer (LTTng allows one per session "
             "and relayd): close it first", l->session);
  else if (strstr(why, "requested live viewer session") || strstr(why, "session-not-found"))
    snprintf(l->base.err, sizeof l->base.err, "no live session '%.60s' on %.100s (create it with "
             "`lttng create %.60s --live`)", l->session, l->url, l->session);
  else if (strstr(why, "onnect") || strstr(why, "refused"))
    snprintf(l->base.err, sizeof l->base.err, "cannot reach lttng-relayd at %.100s: %.200s", l->url, why);
  else
    snprintf(l->base.err, sizeof l->base.err, "%.100s: %.300s", l->url, why);
}

static int live_poll(struct tui_source *src, struct tui_model *m) {
  struct tui_live *l = (struct tui_live *)src;
  tui_feed_set_model(l->feed, m);
  if (l->own_session && !l->child_done && tui_lsess_child_exited(&l->lsess)) {
    l->child_done = 1;
    int st = l->lsess.child_status;
    snprintf(src->note, sizeof src->note, "command exited (%s %d, output in %.60s); q quits",
             WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
             l->lsess.out_path);
  }
  if (l->ended || l->failed) return 0;
  double t0 = now_ms();
  /* Read what is there, at most ~40 ms per poll, so keys stay responsive. */
  while (now_ms() - t0 < 40) {
    bt_graph_run_once_status s = bt_graph_run_once(l->graph);
    if (s == BT_GRAPH_RUN_ONCE_STATUS_OK) continue;
    if (s == BT_GRAPH_RUN_ONCE_STATUS_AGAIN) break;
    if (s == BT_GRAPH_RUN_ONCE_STATUS_END) {
      l->ended = 1;
      tui_feed_finish(l->feed);
      snprintf(src->note, sizeof src->note, "the live session ended; q quits");
      break;
    }
    char why[2048];
    take_error(why, sizeof why);
    if (l->out_of_memory) snprintf(src->err, sizeof src->err, "out of memory decoding the live events");
    else explain(l, why);
    l->failed = 1;
    return -1;
  }
  uint64_t lost = tui_feed_lost_total(l->feed);
  if (lost && !src->note[0])
    snprintf(src->note, sizeof src->note, "%llu events lost: GCs open then are marked incomplete",
             (unsigned long long)lost);
  return tui_feed_take_changed(l->feed);
}

static long live_gc_events(struct tui_source *src, struct tui_gc *gc, struct tui_evline **out) {
  return tui_feed_gc_events(((struct tui_live *)src)->feed, gc, out);
}

static void live_close(struct tui_source *src) {
  struct tui_live *l = (struct tui_live *)src;
  /* The reader first (it holds the relayd's viewer slot), then the session. */
  bt_graph_put_ref(l->graph);
  bt_plugin_put_ref(l->ctf);
  bt_current_thread_clear_error();
  if (l->own_session) tui_lsess_close(&l->lsess);
  tui_feed_free(l->feed);
  gcs_ctf_decoder_free(l->dec);
  free(l);
}

static const struct tui_source_ops live_ops = { live_poll, live_gc_events, live_close };

static struct tui_live *live_new(char *err, size_t errlen) {
  struct tui_live *l = calloc(1, sizeof *l);
  if (l) l->feed = tui_feed_new();
  if (l && l->feed) l->dec = gcs_ctf_decoder_new();
  if (!l || !l->feed || !l->dec) {
    if (l) { tui_feed_free(l->feed); free(l); }
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  l->base.ops = &live_ops;
  l->base.poll_ms = 100;
  l->base.live = 1;
  /* a live view may run for days: the list keeps the newest GCs, the figures all */
  l->base.max_gcs = TUI_LIVE_MAX_GCS;
  return l;
}

/* "net://HOST[:PORT]" + "/host/TARGET/SESSION". NAME may be "TARGETHOST/SESSION". */
static void make_url(struct tui_live *l, const char *relayd, const char *host, const char *session) {
  const char *slash = strchr(session, '/');
  char target[256];
  if (slash) {
    snprintf(target, sizeof target, "%.*s", (int)(slash - session), session);
    session = slash + 1;
  } else {
    snprintf(target, sizeof target, "%s", host);
  }
  snprintf(l->session, sizeof l->session, "%s", session);
  size_t n = strlen(relayd);
  while (n && relayd[n - 1] == '/') n--;
  snprintf(l->url, sizeof l->url, "%.*s/host/%s/%s", (int)n, relayd, target, session);
}

struct tui_source *tui_live_attach(const char *session, const char *relayd_url, char *err, size_t errlen) {
  if (!*session) { snprintf(err, errlen, "--session needs a session name"); return NULL; }
  const char *relayd = relayd_url ? relayd_url : "net://127.0.0.1";
  if (strncmp(relayd, "net://", 6) && strncmp(relayd, "net4://", 7) && strncmp(relayd, "net6://", 7)) {
    snprintf(err, errlen, "--relayd wants net://HOST[:PORT], not '%s'", relayd);
    return NULL;
  }
  if (!relayd_url && !trc_port_listening(TRC_LIVE_PORT)) {
    snprintf(err, errlen, "no lttng-relayd listens on 127.0.0.1:5344 (start `lttng-relayd -d`, "
                          "and create the session with `lttng create %s --live`)", session);
    return NULL;
  }
  struct tui_live *l = live_new(err, errlen);
  if (!l) return NULL;
  char host[256] = "localhost";
  gethostname(host, sizeof host);
  host[sizeof host - 1] = '\0';
  make_url(l, relayd, host, session);
  snprintf(l->base.desc, sizeof l->base.desc, "live session %s", l->session);
  if (build_graph(l, 1, err, errlen) < 0) { live_close(&l->base); return NULL; }
  return &l->base;
}

struct tui_source *tui_live_run(char **command, const char *relayd_url, long live_timer_us, const char *keep_dir,
                                char *err, size_t errlen) {
  if (relayd_url) {
    snprintf(err, errlen, "--relayd is for --session; -- COMMAND uses a local relayd");
    return NULL;
  }
  struct tui_live *l = live_new(err, errlen);
  if (!l) return NULL;
  l->own_session = 1;
  if (tui_lsess_open(&l->lsess, command, live_timer_us, keep_dir, err, errlen) < 0) { live_close(&l->base); return NULL; }
  make_url(l, "net://127.0.0.1", l->lsess.host, l->lsess.name);
  snprintf(l->base.desc, sizeof l->base.desc, "live: %s", command[0]);
  if (!l->lsess.trace_dir[0])
    snprintf(l->base.note, sizeof l->base.note, "trace: in the running lttng-relayd's output directory");
  else if (l->lsess.trace_is_temp)
    snprintf(l->base.note, sizeof l->base.note, "temp trace (removed on exit; -o DIR keeps it): %.80s", l->lsess.trace_dir);
  else
    snprintf(l->base.note, sizeof l->base.note, "trace kept in %.90s", l->lsess.trace_dir);
  if (build_graph(l, 0, err, errlen) < 0) { live_close(&l->base); return NULL; }
  return &l->base;
}
