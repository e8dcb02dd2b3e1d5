/* trc_watch.c — triggers with notify actions and field captures (trc_watch.h). */
#include "trc_watch.h"

#include "gcs_triggers.h"
#include "trc_lttng.h"

#include <errno.h>
#include <stdarg.h>
#include <lttng/lttng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_TRIGGERS 12
#define MAX_CAPTURES 6

/* What liblttng-ctl 2.13 reads from the notification channel: a message
 * header (struct lttng_notification_channel_message, packed: int8 type,
 * uint32 payload size, uint32 fd count, host byte order), then the payload,
 * at most DEFAULT_MAX_NOTIFICATION_CLIENT_MESSAGE_PAYLOAD_SIZE (64 KiB)
 * bytes. Outside a request only two types may come: a notification (4) and
 * "notifications dropped" (5), neither carrying a file descriptor. */
#define MSG_HEADER 9
#define MSG_MAX_PAYLOAD 65536
#define MSG_NOTIFICATION 4
#define MSG_DROPPED 5
/* Messages one trc_watch_poll reads at most: a daemon flooding the channel
 * delays the caller's loop by one bounded turn, not for ever. */
#define POLL_MAX_MESSAGES 1024

/* One watched event: its kind and the name pattern per provider. The payload
 * fields captured after vpid and vtid are those the stop-trigger rules read
 * (gcs_triggers_event_fields), so the rules see the same fields live as when
 * `gcscope triggers` replays them from the database. */
struct watched {
  enum gcs_kind kind;
  const char *rgc, *clr;
};

static const struct watched watched[] = {
  { gcs_kind_GCSuspendEEBegin, "rgc:GCSuspendEEBegin_V1", "DotNETRuntime:GCSuspendEEBegin*" },
  { gcs_kind_GCSuspendEEEnd, "rgc:GCSuspendEEEnd_V1", "DotNETRuntime:GCSuspendEEEnd*" },
  { gcs_kind_GCStart, "rgc:GCStart_V2", "DotNETRuntime:GCStart*" },
  { gcs_kind_GCEnd, "rgc:GCEnd_V1", "DotNETRuntime:GCEnd*" },
  { gcs_kind_GCHeapStats, "rgc:GCHeapStats_V2", "DotNETRuntime:GCHeapStats*" },
  { gcs_kind_GCRestartEEEnd, "rgc:GCRestartEEEnd_V1", "DotNETRuntime:GCRestartEEEnd*" },
};
#define NWATCHED ((int)(sizeof watched / sizeof watched[0]))

struct trig {
  struct lttng_trigger *t;
  const struct lttng_condition *cond;   /* owned by t */
  const struct watched *w;
  int origin;
  char name[96];
  int registered, subscribed;
};

struct trc_watch {
  struct lttng_notification_channel *ch;
  int fd;                         /* ch's socket (found at start), -1 if unknown */
  int partial;                    /* part of a message is there, since partial_since */
  struct timespec partial_since;  /* CLOCK_MONOTONIC */
  unsigned char *peek;            /* MSG_HEADER + MSG_MAX_PAYLOAD bytes */
  char err[300];                  /* why trc_watch_poll failed (it then fails at once) */
  pid_t pid;                      /* only this process's events, 0 = all */
  struct trig trig[MAX_TRIGGERS];
  int ntrig;
  uint64_t dropped;
};

static int add_trigger(struct trc_watch *w, const struct watched *wd, const char *pattern,
                       int origin, char *err, size_t errlen) {
  struct trig *t = &w->trig[w->ntrig];
  snprintf(t->name, sizeof t->name, "gcscope-%d-%s-%s", (int)getpid(),
           gcs_event_descs[wd->kind].name, origin == GCS_ORIGIN_RGC ? "rgc" : "clr");
  t->w = wd;
  t->origin = origin;
  struct lttng_event_rule *rule = lttng_event_rule_user_tracepoint_create();
  if (!rule) goto oom;
  if (lttng_event_rule_user_tracepoint_set_name_pattern(rule, pattern) != LTTNG_EVENT_RULE_STATUS_OK) {
    lttng_event_rule_destroy(rule);
    goto oom;
  }
  /* No vpid filter on the rule: with a filter, liblttng-ctl 2.13.9 leaks every
   * notification's trigger copy; decode() drops other processes instead. */
  struct lttng_condition *cond = lttng_condition_event_rule_matches_create(rule);
  lttng_event_rule_destroy(rule);     /* the condition holds a reference */
  if (!cond) goto oom;
  lttng_condition_event_rule_matches_append_capture_descriptor(
      cond, lttng_event_expr_channel_context_field_create("vpid"));
  lttng_condition_event_rule_matches_append_capture_descriptor(
      cond, lttng_event_expr_channel_context_field_create("vtid"));
  const char *const *fields = gcs_triggers_event_fields(wd->kind);
  for (int i = 0; i < MAX_CAPTURES && fields[i]; i++)
    lttng_condition_event_rule_matches_append_capture_descriptor(
        cond, lttng_event_expr_event_payload_field_create(fields[i]));
  struct lttng_action *notify = lttng_action_notify_create();
  if (notify) t->t = lttng_trigger_create(cond, notify);
  lttng_action_destroy(notify);       /* both are reference counted */
  lttng_condition_destroy(cond);
  if (!t->t) goto oom;
  t->cond = lttng_trigger_get_const_condition(t->t);
  w->ntrig++;
  if (trc_ctl_begin(err, errlen, "register trigger %s", t->name)) return -1;
  enum lttng_error_code ec = lttng_register_trigger_with_name(t->t, t->name);
  if (ec == LTTNG_OK) t->registered = 1;
  enum lttng_notification_channel_status st = LTTNG_NOTIFICATION_CHANNEL_STATUS_ERROR;
  if (ec == LTTNG_OK && !trc_ctl_next("subscribe to trigger %s", t->name))
    st = lttng_notification_channel_subscribe(w->ch, t->cond);
  if (trc_ctl_end(err, errlen)) return -1;
  if (ec != LTTNG_OK) {
    snprintf(err, errlen, "cannot register trigger %s: %s", t->name, lttng_strerror(-(int)ec));
    return -1;
  }
  if (st != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK) {
    snprintf(err, errlen, "cannot subscribe to trigger %s", t->name);
    return -1;
  }
  t->subscribed = 1;
  return 0;
oom:
  snprintf(err, errlen, "cannot build trigger %s (out of memory?)", t->name);
  return -1;
}

struct trc_watch *trc_watch_start(int dotnet, pid_t pid, char *err, size_t errlen) {
  struct trc_watch *w = calloc(1, sizeof *w);
  if (!w) { snprintf(err, errlen, "out of memory"); return NULL; }
  w->pid = pid;
  w->fd = -1;
  w->peek = malloc(MSG_HEADER + MSG_MAX_PAYLOAD);
  if (!w->peek) { free(w); snprintf(err, errlen, "out of memory"); return NULL; }
  /* The channel's socket: the one connected to the notification socket that
   * was not there before. */
  int before[16], after[16];
  int nbefore = trc_ctl_notification_fds(before, 16);
  if (trc_ctl_begin(err, errlen, "open a notification channel")) { free(w->peek); free(w); return NULL; }
  w->ch = lttng_notification_channel_create(lttng_session_daemon_notification_endpoint);
  if (trc_ctl_end(err, errlen)) {
    if (w->ch) lttng_notification_channel_destroy(w->ch);
    free(w->peek);
    free(w);
    return NULL;
  }
  if (!w->ch) {
    snprintf(err, errlen, "cannot open an LTTng notification channel");
    free(w->peek);
    free(w);
    return NULL;
  }
  int nafter = trc_ctl_notification_fds(after, 16);
  for (int i = 0; i < nafter; i++) {
    int old = 0;
    for (int j = 0; j < nbefore; j++) old |= after[i] == before[j];
    if (!old) { w->fd = after[i]; break; }
  }
  for (int i = 0; i < NWATCHED; i++) {
    if (add_trigger(w, &watched[i], watched[i].rgc, GCS_ORIGIN_RGC, err, errlen) ||
        (dotnet && add_trigger(w, &watched[i], watched[i].clr, GCS_ORIGIN_CLR, err, errlen))) {
      trc_watch_stop(w);
      return NULL;
    }
  }
  return w;
}

static int get_uint(const struct lttng_event_field_value *arr, unsigned i, uint64_t *out) {
  const struct lttng_event_field_value *v;
  if (lttng_event_field_value_array_get_element_at_index(arr, i, &v) != LTTNG_EVENT_FIELD_VALUE_STATUS_OK)
    return -1;
  switch (lttng_event_field_value_get_type(v)) {
  case LTTNG_EVENT_FIELD_VALUE_TYPE_UNSIGNED_INT:
  case LTTNG_EVENT_FIELD_VALUE_TYPE_UNSIGNED_ENUM:
    return lttng_event_field_value_unsigned_int_get_value(v, out) == LTTNG_EVENT_FIELD_VALUE_STATUS_OK ? 0 : -1;
  case LTTNG_EVENT_FIELD_VALUE_TYPE_SIGNED_INT:
  case LTTNG_EVENT_FIELD_VALUE_TYPE_SIGNED_ENUM: {
    int64_t s;
    if (lttng_event_field_value_signed_int_get_value(v, &s) != LTTNG_EVENT_FIELD_VALUE_STATUS_OK) return -1;
    *out = (uint64_t)s;
    return 0;
  }
  default:
    return -1;
  }
}

/* Notification -> event; 0 if it is one of ours. */
static int decode(struct trc_watch *w, struct lttng_notification *n, struct gcs_event *ev) {
  const struct lttng_trigger *lt = lttng_notification_get_trigger(n);
  const char *name = NULL;
  if (!lt || lttng_trigger_get_name(lt, &name) != LTTNG_TRIGGER_STATUS_OK || !name) return -1;
  const struct trig *t = NULL;
  for (int i = 0; i < w->ntrig; i++)
    if (!strcmp(w->trig[i].name, name)) { t = &w->trig[i]; break; }
  if (!t) return -1;      /* an identical condition of someone else's trigger */
  const struct lttng_event_field_value *arr = NULL;
  if (lttng_evaluation_event_rule_matches_get_captured_values(lttng_notification_get_evaluation(n), &arr) !=
      LTTNG_EVALUATION_EVENT_RULE_MATCHES_STATUS_OK)
    return -1;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  memset(ev, 0, offsetof(struct gcs_event, u) + gcs_event_descs[t->w->kind].struct_size);
  ev->kind = t->w->kind;
  ev->origin = (uint8_t)t->origin;
  ev->version = gcs_event_descs[t->w->kind].version;
  ev->ts_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
  ev->cpu = -1;
  uint64_t v;
  ev->pid = get_uint(arr, 0, &v) == 0 ? (int32_t)v : -1;
  ev->tid = get_uint(arr, 1, &v) == 0 ? (int32_t)v : -1;
  if (w->pid > 0 && ev->pid != (int32_t)w->pid) return -1;
  const char *const *fields = gcs_triggers_event_fields(t->w->kind);
  for (unsigned i = 0; i < MAX_CAPTURES && fields[i]; i++) {
    const struct gcs_field_desc *f = gcs_field_find(t->w->kind, fields[i]);
    if (f && get_uint(arr, 2 + i, &v) == 0) gcs_field_set_int(ev, f, v);
    /* an older CoreCLR version without the field leaves it 0 */
  }
  return 0;
}

static double since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int fail(struct trc_watch *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct trc_watch *w, const char *fmt, ...) {
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  pid_t p = w->fd >= 0 ? trc_ctl_peer_pid(w->fd) : 0;
  if (p > 0) snprintf(w->err, sizeof w->err, "lttng-sessiond (pid %d) %s", (int)p, what);
  else snprintf(w->err, sizeof w->err, "lttng-sessiond %s", what);
  return -1;
}

/* What the channel's socket holds, looked at (MSG_PEEK) before liblttng-ctl
 * reads it: liblttng-ctl reads a whole message once a byte of it has come,
 * blocking until the rest comes (for ever, from a daemon that stopped
 * mid-message), and takes the header's fd count as is (an array of that
 * many is allocated). 0: nothing, or one complete, well-formed message (the
 * library's read then does not block); 1: part of a message, wait for the
 * rest (at most GCSCOPE_SESSIOND_TIMEOUT); -1: w->err says what is wrong. */
static int check_next(struct trc_watch *w) {
  if (w->fd < 0) return 0;   /* socket not found: unchecked, as liblttng-ctl reads it */
  /* the header, then (checked) just that message: no more is copied */
  ssize_t n = recv(w->fd, w->peek, MSG_HEADER, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    w->partial = 0;
    return 0;
  }
  if (n < 0 && errno == EINTR) return 1;
  if (n < 0) return fail(w, "notification channel: %s", strerror(errno));
  if (n == 0) return fail(w, "closed the notification channel");
  uint32_t size = 0, fds = 0;
  int type = (int8_t)w->peek[0];
  if (n >= MSG_HEADER) {
    memcpy(&size, w->peek + 1, 4);
    memcpy(&fds, w->peek + 5, 4);
    if ((type != MSG_NOTIFICATION && type != MSG_DROPPED) || size > MSG_MAX_PAYLOAD || fds != 0)
      return fail(w, "sent a malformed notification (type %d, %u bytes, %u file descriptors); restart it",
                  type, size, fds);
    if (size) n = recv(w->fd, w->peek, MSG_HEADER + (size_t)size, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0) return errno == EINTR ? 1 : fail(w, "notification channel: %s", strerror(errno));
    if ((size_t)n >= MSG_HEADER + (size_t)size) {
      w->partial = 0;
      return 0;
    }
  }
  if (!w->partial) {
    w->partial = 1;
    clock_gettime(CLOCK_MONOTONIC, &w->partial_since);
  }
  int secs;
  char ignored[160];
  if (trc_ctl_timeout(&secs, ignored, sizeof ignored)) secs = 10;
  if (since(&w->partial_since) >= secs)
    return fail(w, "sent %zd of the %u bytes of a notification and nothing more within %d s; restart it",
                n, n >= MSG_HEADER ? (unsigned)(MSG_HEADER + size) : MSG_HEADER, secs);
  return 1;
}

/* Not a request: has_pending polls the channel's socket without waiting, and
 * a notification is read only when it has wholly arrived (check_next). */
int trc_watch_poll(struct trc_watch *w, trc_watch_fn fn, void *ud) {
  int delivered = 0;
  if (trc_ctl_hung() || w->err[0]) return -1;
  for (int i = 0; i < POLL_MAX_MESSAGES; i++) {
    int c = check_next(w);
    if (c < 0) return -1;
    if (c > 0) return delivered;   /* the rest of a message: next turn */
    bool pending = false;
    if (lttng_notification_channel_has_pending_notification(w->ch, &pending) !=
        LTTNG_NOTIFICATION_CHANNEL_STATUS_OK)
      return fail(w, "sent a notification liblttng-ctl cannot read; restart it");
    if (!pending) return delivered;
    struct lttng_notification *n = NULL;
    enum lttng_notification_channel_status st = lttng_notification_channel_get_next_notification(w->ch, &n);
    if (st == LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED) { w->dropped++; continue; }
    if (st == LTTNG_NOTIFICATION_CHANNEL_STATUS_INTERRUPTED) continue;
    if (st != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK)
      return fail(w, "sent a notification liblttng-ctl cannot read; restart it");
    struct gcs_event ev;
    if (decode(w, n, &ev) == 0) {
      fn(&ev, ud);
      delivered++;
    }
    lttng_notification_destroy(n);
  }
  return delivered;
}

const char *trc_watch_error(const struct trc_watch *w) {
  return trc_ctl_hung() ? trc_ctl_hung() : w->err[0] ? w->err : "lost the notification channel";
}

uint64_t trc_watch_dropped(const struct trc_watch *w) { return w->dropped; }

/* The counters of one trigger's condition (for event-rule-matches: the
 * tracer-side "discarded tracer messages"). */
static int condition_discards(const struct lttng_trigger *t, uint64_t *sum) {
  struct lttng_error_query *q = lttng_error_query_condition_create(t);
  if (!q) return -1;
  struct lttng_error_query_results *res = NULL;
  int rc = -1;
  char err[8];
  if (trc_ctl_begin(err, sizeof err, "query the discarded events")) {
    lttng_error_query_destroy(q);
    return -1;
  }
  enum lttng_error_code ec = lttng_error_query_execute(q, lttng_session_daemon_command_endpoint, &res);
  if (trc_ctl_end(err, sizeof err)) ec = LTTNG_ERR_FATAL;
  if (ec == LTTNG_OK) {
    unsigned n = 0;
    rc = lttng_error_query_results_get_count(res, &n) == LTTNG_ERROR_QUERY_RESULTS_STATUS_OK ? 0 : -1;
    for (unsigned i = 0; rc == 0 && i < n; i++) {
      const struct lttng_error_query_result *r = NULL;
      uint64_t v = 0;
      if (lttng_error_query_results_get_result(res, &r, i) != LTTNG_ERROR_QUERY_RESULTS_STATUS_OK) rc = -1;
      else if (lttng_error_query_result_get_type(r) == LTTNG_ERROR_QUERY_RESULT_TYPE_COUNTER &&
               lttng_error_query_result_counter_get_value(r, &v) == LTTNG_ERROR_QUERY_RESULT_STATUS_OK)
        *sum += v;
    }
  }
  if (res) lttng_error_query_results_destroy(res);
  lttng_error_query_destroy(q);
  return rc;
}

int trc_watch_discarded(struct trc_watch *w, uint64_t *count) {
  uint64_t sum = 0;
  for (int i = 0; i < w->ntrig; i++)
    if (w->trig[i].registered && condition_discards(w->trig[i].t, &sum) != 0) return -1;
  *count = sum;
  return 0;
}

/* Destroy every notification already queued: liblttng-ctl 2.13.9 does not
 * free the ones still queued when the channel is destroyed. */
static void discard_pending(struct trc_watch *w) {
  for (;;) {
    bool pending = false;
    struct lttng_notification *n = NULL;
    if (check_next(w) != 0) return;   /* part of a message, or not a notification: not read */
    if (lttng_notification_channel_has_pending_notification(w->ch, &pending) !=
            LTTNG_NOTIFICATION_CHANNEL_STATUS_OK || !pending)
      return;
    enum lttng_notification_channel_status st = lttng_notification_channel_get_next_notification(w->ch, &n);
    if (n) lttng_notification_destroy(n);
    if (st != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK && st != LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED)
      return;
  }
}

/* With a session daemon that stopped answering (trc_ctl_hung), nothing is
 * asked of it: the triggers stay registered in it. After the channel failed
 * (w->err), or with part of a message on it, nothing more is read from it
 * (no unsubscribing: the reply would be read after that message); the
 * triggers are unregistered. */
void trc_watch_stop(struct trc_watch *w) {
  if (!w) return;
  char err[8];
  for (int i = 0; i < w->ntrig; i++)
    if (w->trig[i].registered && !trc_ctl_begin(err, sizeof err, "unregister trigger %s", w->trig[i].name)) {
      lttng_unregister_trigger(w->trig[i].t);
      trc_ctl_end(err, sizeof err);
    }
  /* part of a message waiting: an unsubscribe's reply would be read after it */
  int broken = w->err[0] != 0 || check_next(w) != 0;
  if (!trc_ctl_hung() && !broken) discard_pending(w);
  for (int i = 0; i < w->ntrig; i++) {
    struct trig *t = &w->trig[i];
    if (t->subscribed && !broken && !trc_ctl_begin(err, sizeof err, "unsubscribe from trigger %s", t->name)) {
      lttng_notification_channel_unsubscribe(w->ch, t->cond);
      trc_ctl_end(err, sizeof err);
    }
    if (!trc_ctl_hung() && !broken) discard_pending(w);
    lttng_trigger_destroy(t->t);
  }
  lttng_notification_channel_destroy(w->ch);
  free(w->peek);
  free(w);
}
