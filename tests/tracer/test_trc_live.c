/* test_trc_live — the tracer's live mode (trc_lttng): a live session's
 * configuration is refused without a relayd URL or as a snapshot session; a
 * relayd is there after trc_relayd_ensure; the live session it creates has
 * the live timer, channel, events and vpid tracker asked for (read back from
 * the session daemon with liblttng-ctl), and is gone after destruction.
 * Needs a session daemon (label lttng). */
#include <errno.h>
#include <lttng/lttng.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "trc_lttng.h"


/* The session NAME as the daemon lists it; found 0 if absent. */
static int find_session(const char *name, struct lttng_session *out) {
  struct lttng_session *ss = NULL;
  int n = lttng_list_sessions(&ss);
  int found = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(ss[i].name, name)) { *out = ss[i]; found = 1; }
  free(ss);
  return found;
}

static void check_refused(void) {
  const char *ev[] = { "rgc:GCStart_V2" };
  char err[256] = "";
  struct trc_session_cfg no_url = { .name = "gcscope-test-live-x", .live_timer_us = 100000,
                                    .events = ev, .nevents = 1 };
  CHECK(trc_session_create(&no_url, err, sizeof err) == -1);
  CHECK(!strcmp(err, "a live session needs a relayd URL"));
  struct trc_session_cfg snap = { .name = "gcscope-test-live-x", .relayd = "net://127.0.0.1",
                                  .snapshot = 1, .live_timer_us = 100000, .events = ev, .nevents = 1 };
  err[0] = '\0';
  CHECK(trc_session_create(&snap, err, sizeof err) == -1);
  CHECK(!strcmp(err, "a live session cannot be a snapshot session"));
  struct lttng_session s;
  CHECK(!find_session("gcscope-test-live-x", &s));   /* nothing was created */
}

static void check_session(const char *name, pid_t pid) {
  struct lttng_session s;
  CHECK(find_session(name, &s));
  CHECK(s.live_timer_interval == 250000);
  CHECK(s.enabled == 0);                         /* created, not started */

  struct lttng_domain dom;
  memset(&dom, 0, sizeof dom);
  dom.type = LTTNG_DOMAIN_UST;
  struct lttng_handle *h = lttng_create_handle(name, &dom);
  CHECK(h != NULL);
  if (!h) return;
  struct lttng_channel *ch = NULL;
  int nch = lttng_list_channels(h, &ch);
  CHECK(nch == 1 && !strcmp(ch[0].name, "gcscope"));
  free(ch);
  struct lttng_event *evs = NULL;
  int nev = lttng_list_events(h, "gcscope", &evs);
  int start = 0, end = 0;
  for (int i = 0; i < nev; i++) {
    if (!strcmp(evs[i].name, "rgc:GCStart_V2")) start++;
    if (!strcmp(evs[i].name, "rgc:GCEnd_V1")) end++;
  }
  CHECK(nev == 2 && start == 1 && end == 1);
  free(evs);
  lttng_destroy_handle(h);

  struct lttng_process_attr_tracker_handle *th = NULL;
  CHECK(lttng_session_get_tracker_handle(name, LTTNG_DOMAIN_UST, LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID, &th) ==
        LTTNG_OK);
  if (!th) return;
  const struct lttng_process_attr_values *vals = NULL;
  unsigned int nvals = 0;
  pid_t got = 0;
  CHECK(lttng_process_attr_tracker_handle_get_inclusion_set(th, &vals) == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK);
  CHECK(vals && lttng_process_attr_values_get_count(vals, &nvals) == LTTNG_PROCESS_ATTR_VALUES_STATUS_OK);
  CHECK(nvals == 1);
  CHECK(nvals == 1 && lttng_process_attr_values_get_pid_at_index(vals, 0, &got) == LTTNG_PROCESS_ATTR_VALUES_STATUS_OK);
  CHECK(got == pid);
  lttng_process_attr_tracker_handle_destroy(th);
}

int main(void) {
  char err[512] = "";
  check_refused();

  struct trc_daemon d;
  if (trc_daemon_ensure(&d, err, sizeof err) < 0) { fprintf(stderr, "no session daemon: %s\n", err); return 1; }
  struct trc_relayd r;
  if (trc_relayd_ensure(&r, NULL, err, sizeof err) < 0) {
    fprintf(stderr, "no relayd: %s\n", err);
    trc_daemon_stop(&d);
    return 1;
  }
  CHECK(trc_port_listening(TRC_LIVE_PORT));

  char name[64];
  snprintf(name, sizeof name, "gcscope-test-live-%d", (int)getpid());
  const char *ev[] = { "rgc:GCStart_V2", "rgc:GCEnd_V1" };
  struct trc_session_cfg cfg = { .name = name, .relayd = "net://127.0.0.1", .live_timer_us = 250000,
                                 .events = ev, .nevents = 2, .pid = getpid() };
  err[0] = '\0';
  int rc = trc_session_create(&cfg, err, sizeof err);
  CHECK(rc == 0);
  if (rc) fprintf(stderr, "trc_session_create: %s\n", err);
  else {
    check_session(name, getpid());
    CHECK(trc_session_start(name, err, sizeof err) == 0);
    struct lttng_session s;
    CHECK(find_session(name, &s) && s.enabled == 1);
    CHECK(trc_session_stop(name, err, sizeof err) == 0);
    CHECK(trc_session_destroy_wait(name, 5000, err, sizeof err) == 0);
    CHECK(!find_session(name, &s));
  }

  pid_t started = r.pid;
  trc_relayd_stop(&r);
  CHECK(r.pid == 0);
  if (started) CHECK(kill(started, 0) == -1 && errno == ESRCH);   /* ours, stopped and reaped */
  trc_daemon_stop(&d);
  return check_done();
}
