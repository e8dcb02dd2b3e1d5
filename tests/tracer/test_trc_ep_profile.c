/* test_trc_ep_profile — `record --dotnet`'s profiles as EventPipe providers
 * (keywords and levels as PerfView's GCCollectOnly and perfcollect set them;
 * the values are CoreCLR's ClrEtwAll.man), and --transport's parsing. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "trc_ep_profile.h"
#include "trc_opts.h"

static void expect(enum trc_profile p, unsigned long long kw, unsigned level, unsigned private_level) {
  struct gcs_dsipc_provider v[TRC_EP_MAX_PROVIDERS];
  CHECK_EQ_INT(trc_ep_profile_providers(p, v), 2);
  CHECK_STR(v[0].name, "Microsoft-Windows-DotNETRuntime");
  CHECK_EQ_U64(v[0].keywords, kw);
  CHECK_EQ_INT(v[0].level, level);
  CHECK_STR(v[1].name, "Microsoft-Windows-DotNETRuntimePrivate");
  CHECK_EQ_U64(v[1].keywords, 0x1);
  CHECK_EQ_INT(v[1].level, private_level);
}

int main(void) {
  expect(TRC_PROFILE_GC, 0x1, 4, 4);        /* GC keyword, Informational */
  expect(TRC_PROFILE_ALLOC, 0x1, 5, 4);     /* + Verbose: GCAllocationTick */
  expect(TRC_PROFILE_HANDLES, 0x3, 5, 4);   /* + GCHandle keyword; PinObjectAtGCTime is Verbose */
  expect(TRC_PROFILE_VERBOSE, 0x3, 5, 5);   /* + the private provider's Verbose events */
  struct trc_opts o;
  char *a1[] = { "record", "--dotnet", "--", "dotnet", "app.dll", NULL };
  CHECK_EQ_INT(trc_opts_parse(5, a1, &o), 0);
  CHECK(o.dotnet && o.transport == TRC_TRANSPORT_AUTO);
  char *a2[] = { "record", "--transport", "eventpipe", "--pid", "1", NULL };
  CHECK_EQ_INT(trc_opts_parse(5, a2, &o), 0);
  CHECK(o.dotnet && o.transport == TRC_TRANSPORT_EVENTPIPE && o.pid == 1);
  char *a3[] = { "record", "--dotnet", "--transport", "lttng", "--", "dotnet", "app.dll", NULL };
  CHECK_EQ_INT(trc_opts_parse(7, a3, &o), 0);
  CHECK(o.dotnet && o.transport == TRC_TRANSPORT_LTTNG);
  char *a4[] = { "record", "--transport", "etw", NULL };
  CHECK_EQ_INT(trc_opts_parse(3, a4, &o), 2);
  /* --stacks: stacks, the rundown, and the JIT (0x10) and Loader (0x8) keywords on the runtime provider. */
  for (int p = TRC_PROFILE_GC; p <= TRC_PROFILE_VERBOSE; p++) {
    struct gcs_dsipc_provider v[TRC_EP_MAX_PROVIDERS];
    struct gcs_dsipc_session_cfg sc = { .providers = v, .nproviders = trc_ep_profile_providers((enum trc_profile)p, v) };
    uint64_t before = v[0].keywords, private_before = v[1].keywords;
    trc_ep_profile_stacks(&sc, v);
    CHECK_EQ_U64(v[0].keywords, before | 0x18);
    CHECK_EQ_U64(v[1].keywords, private_before);
    CHECK(sc.request_stacks == 1 && sc.request_rundown == 1);
  }
  char *a5[] = { "record", "--dotnet", "--stacks", "--", "dotnet", "app.dll", NULL };
  CHECK_EQ_INT(trc_opts_parse(6, a5, &o), 0);
  CHECK(o.stacks && o.dotnet);
  char *a6[] = { "record", "--stacks", "--", "./rgc-app", NULL };       /* librgc over LTTng (stacks.rgc) */
  CHECK_EQ_INT(trc_opts_parse(4, a6, &o), 0);
  CHECK(o.stacks && !o.dotnet);
  trc_opts_free(&o);
  char *a7[] = { "record", "--dotnet", "--transport", "lttng", "--stacks", "--", "dotnet", "app.dll", NULL };
  CHECK_EQ_INT(trc_opts_parse(8, a7, &o), 2);                           /* CoreCLR's LTTng events carry none */
  return check_done();
}
