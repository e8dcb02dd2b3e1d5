/* test_trc_opts — `gcscope record`'s option parser (trc_opts): values,
 * PerfView's defaults, and rejected input. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "trc_opts.h"


int main(void) {
  struct trc_opts o;
  char *a1[] = { "record", "--stop-on-gc-over", "15", "--collect-multiple", "3", "--circular-mb", "300",
                 "--delay-after-trigger", "0", "--", "prog", "-x", NULL };
  CHECK(trc_opts_parse(12, a1, &o) == 0);
  CHECK(o.stop_on.on[GCS_TRIGGER_GC_OVER] && o.stop_on.ms[GCS_TRIGGER_GC_OVER] == 15 && !o.stop_on.on[GCS_TRIGGER_SUSPEND_OVER]);
  CHECK(o.collect_multiple == 3 && o.circular_mb == 300 && o.delay_after_sec == 0);
  CHECK(o.command && !strcmp(o.command[0], "prog") && !strcmp(o.command[1], "-x"));
  char *a2[] = { "record", "--buffer-size", "1M", "--num-subbuf", "8", "--profile", "alloc", NULL };
  CHECK(trc_opts_parse(7, a2, &o) == 0);
  CHECK(o.subbuf_size == 1048576 && o.num_subbuf == 8 && o.profile == TRC_PROFILE_ALLOC);
  CHECK(o.delay_after_sec == 5 && o.collect_multiple == 1 && !o.command);   /* PerfView's defaults */
  char *a3[] = { "record", "--buffer-size", "3000", NULL };
  CHECK(trc_opts_parse(3, a3, &o) == 2);                      /* not a power of two */
  char *a4[] = { "record", "--collect-multiple", "0", NULL };
  CHECK(trc_opts_parse(3, a4, &o) == 2);
  char *a5[] = { "record", "--stop-on-suspend-over", "-1", NULL };
  CHECK(trc_opts_parse(3, a5, &o) == 2);                      /* negative threshold */
  char *a6[] = { "record", "--relayd", "net://127.0.0.1", "--", "prog", NULL };
  CHECK(trc_opts_parse(5, a6, &o) == 0);
  CHECK(o.relayd && !strcmp(o.relayd, "net://127.0.0.1") && !o.output);
  char *a7[] = { "record", "-o", "/tmp/x", "--relayd", "net://127.0.0.1", "--", "prog", NULL };
  CHECK(trc_opts_parse(7, a7, &o) == 2);                      /* the relayd writes the trace */
  char *a8[] = { "record", "--relayd", "net://127.0.0.1", "--import", "--", "prog", NULL };
  CHECK(trc_opts_parse(6, a8, &o) == 2);                      /* nothing local to import */

  /* Default LTTng buffers by profile and CPU count (issue 29, item 10):
   * 8 sub-buffers per CPU; gc 4 MiB, alloc 32 MiB per CPU; at most 256 MiB
   * over all CPUs, at least 256 KiB per CPU. */
  unsigned long long sb, n;
  trc_profile_geometry(TRC_PROFILE_GC, 2, &sb, &n);
  CHECK(sb == 512ull << 10 && n == 8);                         /* 2 x 4 MiB */
  trc_profile_geometry(TRC_PROFILE_ALLOC, 2, &sb, &n);
  CHECK(sb == 4ull << 20 && n == 8);                           /* 2 x 32 MiB */
  trc_profile_geometry(TRC_PROFILE_HANDLES, 2, &sb, &n);
  CHECK(sb == 2ull << 20 && n == 8);
  trc_profile_geometry(TRC_PROFILE_ALLOC, 64, &sb, &n);
  CHECK(sb == 512ull << 10 && n == 8);                         /* 256 MiB / 64 = 4 MiB per CPU */
  trc_profile_geometry(TRC_PROFILE_GC, 4096, &sb, &n);
  CHECK(sb == 32ull << 10 && n == 8);                          /* the 256 KiB floor per CPU */
  return check_done();
}
