/*
 * test_gcsettings_decode.c — the rundown's GCSettingsRundown (provider
 * Microsoft-Windows-DotNETRuntimeRundown, event 10, version 0) decoded from
 * bytes written here by hand, in the layout of the payload a .NET 10.0.12
 * runtime sent with DOTNET_GCHeapHardLimit=0x10000000 (gcscope events on
 * that recording: HardLimit=268435456 LOHThreshold=85000 ... BitSettings=0x1d):
 *   u64 HardLimit, u64 LOHThreshold, u64 PhysicalMemoryConfig,
 *   u64 Gen0MinBudgetConfig, u64 Gen0MaxBudgetConfig, u32 HighMemPercentConfig,
 *   u32 BitSettings, u16 ClrInstanceID — 50 bytes.
 * Each field gets a distinct value so a shifted field shows.
 */
#include <string.h>

#include "check.h"
#include "gcs_events.h"

static size_t put(uint8_t *p, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
  return at + (size_t)n;
}

int main(void) {
  uint8_t b[64];
  size_t n = 0;
  n = put(b, n, 0x10000000u, 8);  /* HardLimit: 268435456 */
  n = put(b, n, 85000, 8);        /* LOHThreshold */
  n = put(b, n, 0x30000000u, 8);  /* PhysicalMemoryConfig */
  n = put(b, n, 0x100000, 8);     /* Gen0MinBudgetConfig */
  n = put(b, n, 0x600000, 8);     /* Gen0MaxBudgetConfig */
  n = put(b, n, 90, 4);           /* HighMemPercentConfig */
  n = put(b, n, 0x1d, 4);         /* BitSettings: concurrent, frozen segments, hard limit config, no affinitize */
  n = put(b, n, 7, 2);            /* ClrInstanceID */
  CHECK_EQ_U64(n, 50);

  int kind = gcs_kind_from_etw(GCS_PROV_RUNDOWN, 10, 0);
  CHECK(kind == gcs_kind_GCSettingsRundown);

  struct gcs_event ev;
  char sb[64];
  memset(&ev, 0, sizeof ev);
  CHECK(gcs_etw_decode(&ev, gcs_kind_GCSettingsRundown, 0, b, n, 8, sb, sizeof sb) == 0);
  const struct gcs_ev_GCSettingsRundown *s = &ev.u.GCSettingsRundown;
  CHECK_EQ_U64(s->HardLimit, 268435456u);
  CHECK_EQ_U64(s->LOHThreshold, 85000);
  CHECK_EQ_U64(s->PhysicalMemoryConfig, 0x30000000u);
  CHECK_EQ_U64(s->Gen0MinBudgetConfig, 0x100000);
  CHECK_EQ_U64(s->Gen0MaxBudgetConfig, 0x600000);
  CHECK_EQ_U64(s->HighMemPercentConfig, 90);
  CHECK_EQ_U64(s->BitSettings, 0x1d);
  CHECK_EQ_U64(s->ClrInstanceID, 7);
  CHECK(!ev.truncated);
  CHECK(gcs_settings_is_concurrent_gc(s->BitSettings));
  CHECK(!gcs_settings_is_concurrent_gc(0x1c));

  char text[512];
  gcs_event_format(&ev, text, sizeof text);
  CHECK(strstr(text, "HardLimit=268435456 LOHThreshold=85000 PhysicalMemoryConfig=805306368 "
                     "Gen0MinBudgetConfig=1048576 Gen0MaxBudgetConfig=6291456 HighMemPercentConfig=90") != NULL);
  CHECK(strstr(text, "BitSettings=") != NULL);

  /* Cut before BitSettings: the fields that came are kept, the event says it is short. */
  memset(&ev, 0, sizeof ev);
  CHECK(gcs_etw_decode(&ev, gcs_kind_GCSettingsRundown, 0, b, 44, 8, sb, sizeof sb) == 0);
  CHECK_EQ_U64(ev.u.GCSettingsRundown.HighMemPercentConfig, 90);
  CHECK_EQ_U64(ev.u.GCSettingsRundown.BitSettings, 0);
  CHECK(ev.truncated);
  return check_done();
}
