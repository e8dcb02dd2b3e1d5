/* gcs_ctf_live.c — the LTTng live reader (see gcs_ctf_live.h): a babeltrace2
 * graph src.ctf.lttng-live → a simple sink whose consume function decodes
 * each message with gcs_ctf_decode. */
#include "gcs_ctf_live.h"
#include "ctf_map.h"
#include "ctf_next.h"

#include <babeltrace2/babeltrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct gcs_ctf_live {
  bt_graph *graph;
  const bt_plugin *ctf;
  struct gcs_ctf_decoder *dec;
  struct gcs_ctf_live_callbacks cb;
  void *ud;
  int out_of_memory;    /* the decoder failed */
  char session[128], url[512];
  struct ctf_owed owed;   /* discarded events: ctf_lost_settle, per stream */
};

/* A clock snapshot in ns since the epoch, 0 if none or unknown. */
static uint64_t snap_ns(const bt_clock_snapshot *c) {
  int64_t ns;
  if (!c || bt_clock_snapshot_get_ns_from_origin(c, &ns) != BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK || ns <= 0)
    return 0;
  return (uint64_t)ns;
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it, void *ud) {
  struct gcs_ctf_live *l = ud;
  bt_message_array_const msgs;
  uint64_t count;
  bt_graph_simple_sink_component_consume_func_status status;
  if (!ctf_next(it, &msgs, &count, &status)) return status;
  for (uint64_t i = 0; i < count; i++) {
    const bt_message *m = msgs[i];
    const struct gcs_rd_event *rec;
    int d = l->out_of_memory ? 0 : gcs_ctf_decode(l->dec, m, &rec);
    if (d < 0) l->out_of_memory = 1;
    if (d > 0) {
      l->cb.event(rec, l->ud);
    } else if (bt_message_get_type(m) == BT_MESSAGE_TYPE_DISCARDED_EVENTS) {
      uint64_t n = 0;
      uint64_t *owed = ctf_owed_of(&l->owed, bt_message_discarded_events_borrow_stream_const(m));
      if (!owed) l->out_of_memory = 1;
      else {
        /* no count: the stream's first packet (events lost before it), as
         * the file readers count it (CTF_LOST_UNKNOWN, ctf_map.h) */
        int first = bt_message_discarded_events_get_count(m, &n) != BT_PROPERTY_AVAILABILITY_AVAILABLE;
        if (first) n = CTF_LOST_UNKNOWN;
        const bt_stream *s = bt_message_discarded_events_borrow_stream_const(m);
        int clk = bt_stream_class_discarded_events_have_default_clock_snapshots(bt_stream_borrow_class_const(s));
        uint64_t b = clk && !first ? snap_ns(bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(m)) : 0;
        uint64_t e = clk ? snap_ns(bt_message_discarded_events_borrow_end_default_clock_snapshot_const(m)) : 0;
        if ((n = ctf_lost_settle(owed, n)) && l->cb.lost) l->cb.lost(n, b, e, l->ud);
      }
    } else if (bt_message_get_type(m) == BT_MESSAGE_TYPE_DISCARDED_PACKETS) {
      /* missing packets (a packet_seq_num gap): their events, an unknown
       * count, as the file readers count them (CTF_LOST_UNKNOWN) */
      const bt_stream *s = bt_message_discarded_packets_borrow_stream_const(m);
      int clk = bt_stream_class_discarded_packets_have_default_clock_snapshots(bt_stream_borrow_class_const(s));
      uint64_t b = clk ? snap_ns(bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(m)) : 0;
      uint64_t e = clk ? snap_ns(bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(m)) : 0;
      if (l->cb.lost) l->cb.lost(CTF_LOST_UNKNOWN, b, e, l->ud);
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
  for (char *p = out; *p; p++)
    if (*p == '\n') *p = ' ';
  if (e) bt_error_release(e);
}

/* A failed live read as one plain line. The messages are those of
 * babeltrace2 2.0's lttng-live component. */
static void explain(const struct gcs_ctf_live *l, const char *why, char *err, size_t errlen) {
  if (strstr(why, "already a viewer"))
    snprintf(err, errlen,
             "session '%.60s' is already being read by another live viewer (LTTng allows one per session "
             "and relayd): close it first", l->session);
  else if (strstr(why, "requested live viewer session") || strstr(why, "session-not-found"))
    snprintf(err, errlen, "no live session '%.60s' on %.100s (create it with `lttng create %.60s --live`)",
             l->session, l->url, l->session);
  else if (strstr(why, "refused") || strstr(why, "onnect to") || strstr(why, "onnection"))
    snprintf(err, errlen, "cannot reach lttng-relayd at %.100s: %.200s", l->url, why);
  else
    snprintf(err, errlen, "%.100s: %.300s", l->url, why);
}

void gcs_ctf_live_url(const char *relayd, const char *hostname, const char *session, char *url, size_t urllen,
                      char *name, size_t namelen) {
  const char *slash = strchr(session, '/');
  char target[256];
  if (slash) {
    snprintf(target, sizeof target, "%.*s", (int)(slash - session), session);
    session = slash + 1;
  } else {
    snprintf(target, sizeof target, "%s", hostname);
  }
  snprintf(name, namelen, "%s", session);
  size_t n = strlen(relayd);
  while (n && relayd[n - 1] == '/') n--;
  snprintf(url, urllen, "%.*s/host/%s/%s", (int)n, relayd, target, session);
}

void gcs_ctf_live_close(struct gcs_ctf_live *l) {
  if (!l) return;
  bt_graph_put_ref(l->graph);
  bt_plugin_put_ref(l->ctf);
  bt_current_thread_clear_error();
  gcs_ctf_decoder_free(l->dec);
  free(l->owed.v);
  free(l);
}

struct gcs_ctf_live *gcs_ctf_live_open(const char *url, const char *session, int fail_if_missing,
                                       const struct gcs_ctf_live_callbacks *cb, void *ud, char *err,
                                       size_t errlen) {
  struct gcs_ctf_live *l = calloc(1, sizeof *l);
  if (l) l->dec = gcs_ctf_decoder_new();
  if (!l || !l->dec) {
    free(l);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  l->cb = *cb;
  l->ud = ud;
  snprintf(l->url, sizeof l->url, "%s", url);
  snprintf(l->session, sizeof l->session, "%s", session);
  if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &l->ctf) != BT_PLUGIN_FIND_STATUS_OK) {
    bt_current_thread_clear_error();
    snprintf(err, errlen, "babeltrace2's ctf plugin is not installed");
    gcs_ctf_live_close(l);
    return NULL;
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
    gcs_ctf_live_close(l);
    return NULL;
  }
  const bt_component_source *src;
  const bt_component_sink *sink;
  if (bt_graph_add_source_component(l->graph, bt_plugin_borrow_source_component_class_by_name_const(l->ctf, "lttng-live"),
                                    "live", params, BT_LOGGING_LEVEL_NONE, &src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
      bt_graph_add_simple_sink_component(l->graph, "gcscope-live", NULL, consume, NULL, l, &sink) !=
        BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
      bt_graph_connect_ports(l->graph, bt_component_source_borrow_output_port_by_index_const(src, 0),
                             bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL) !=
        BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
    char why[256];
    take_error(why, sizeof why);
    bt_value_put_ref(params);
    snprintf(err, errlen, "%.200s: %.200s", l->url, why);
    gcs_ctf_live_close(l);
    return NULL;
  }
  bt_value_put_ref(params);
  return l;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int gcs_ctf_live_poll(struct gcs_ctf_live *l, int budget_ms, char *err, size_t errlen) {
  double t0 = now_ms();
  while (now_ms() - t0 < budget_ms) {
    bt_graph_run_once_status s = bt_graph_run_once(l->graph);
    if (s == BT_GRAPH_RUN_ONCE_STATUS_OK) continue;
    if (s == BT_GRAPH_RUN_ONCE_STATUS_AGAIN) return GCS_CTF_LIVE_MORE;
    if (s == BT_GRAPH_RUN_ONCE_STATUS_END) return GCS_CTF_LIVE_END;
    char why[2048];
    take_error(why, sizeof why);
    if (l->out_of_memory) snprintf(err, errlen, "out of memory decoding the live events");
    else explain(l, why, err, errlen);
    return -1;
  }
  return GCS_CTF_LIVE_MORE;
}
