/*
 * trc_replay_probe DIR KIND GC THRESHOLD_MS — record's capture verification
 * (trc_replay) on a recorded trace: the pause of KIND (gc-over,
 * suspend-over, bgc-final-pause-over) of GC number GC as the trace times it.
 * Prints "matched=0" or "matched=1 ms=MS fires=0|1"; exit 1 on a read error.
 * The shell test compares MS with babeltrace2's timestamps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trc_replay.h"

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: trc_replay_probe DIR KIND GC THRESHOLD_MS\n");
    return 2;
  }
  struct gcs_trigger_pair want = { .gen = -1, .type = -1, .resolved = 1 };
  int k;
  for (k = 0; k < GCS_TRIGGER_NKINDS; k++)
    if (strcmp(argv[2], gcs_trigger_name((enum gcs_trigger_kind)k)) == 0) break;
  if (k == GCS_TRIGGER_NKINDS) {
    fprintf(stderr, "trc_replay_probe: unknown kind '%s'\n", argv[2]);
    return 2;
  }
  want.kind = (enum gcs_trigger_kind)k;
  want.gc_index = (uint32_t)strtoul(argv[3], NULL, 10);
  struct gcs_trigger_thresholds thr = { .on = { false } };
  thr.on[k] = true;
  thr.ms[k] = strtod(argv[4], NULL);
  static struct trc_replay r;
  char err[512];
  /* the trace's only process: take it from a first replay */
  if (trc_replay(argv[1], &thr, 0, NULL, &r, err, sizeof err)) {
    fprintf(stderr, "trc_replay_probe: %s\n", err);
    return 1;
  }
  want.pid = r.sum.max_pid;
  if (trc_replay(argv[1], &thr, 0, &want, &r, err, sizeof err)) {
    fprintf(stderr, "trc_replay_probe: %s\n", err);
    return 1;
  }
  if (!r.matched) printf("matched=0\n");
  else printf("matched=1 ms=%.3f fires=%d\n", r.match.ms, r.match.fires);
  return 0;
}
