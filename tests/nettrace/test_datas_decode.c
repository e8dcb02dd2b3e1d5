/*
 * test_datas_decode.c — DATAS' GCDynamicEvent payloads through gcs_etw_decode,
 * every byte built here (little-endian, packed, as the runtime's
 * gcevent_serializers.h writes them), each field a distinct value:
 * - SizeAdaptationSample (38 bytes), SizeAdaptationTuning (56) and
 *   SizeAdaptationFullGCTuning (44), version 1, become their own events with
 *   exactly those values (floats exact in binary: 59.25, 0.5, ...) and the
 *   envelope's ClrInstanceID;
 * - version 2, one byte short or one byte long: stay GCDynamicEvent (name and
 *   size kept), never misread; gcs_dynamic_name_known says the name is one
 *   gcscope decodes (the reconstruction counts these as undecoded);
 * - every shorter envelope: no read past its end (ASan), truncated;
 * - the payload text prints the floats, and a NaN float as "unknown";
 * - the payload text names SizeAdaptationTuning's codes as the runtime names
 *   them (struct dynamic_heap_count_data_t's enums in CoreCLR's gc/gcpriv.h,
 *   copied by hand below, not from gcscope's schema): every ChangeDecision
 *   and AdjMetric value, every AdjReason and HcFreqReason bit, 0 and bits
 *   together ("a|b"); a value the runtime does not have prints as its number,
 *   never a name;
 * - .NET 8's HeapCountSample (34 bytes: version u16, GCIndex,
 *   ElapsedBetweenGCs, GCPauseTime, MslWaitTime u64) and HeapCountTuning (36:
 *   version u16, NewHeapCount u16, GCIndex u64, then the f32s median,
 *   smoothed median, tcp_reduction_per_step_up, tcp_increase_per_step_down,
 *   scp_increase_per_step_up, scp_decrease_per_step_down), version 1, become
 *   GCHeapCountSample / GCHeapCountTuning with exactly those values, every
 *   field distinct and non-zero: the order of the runtime's calls (gc.cpp of
 *   .NET 8, GCEventFireHeapCountTuning_V1 in calculate_new_heap_count) and of
 *   .NET 8.0.31's machine code (schemas/gc_events.def);
 *   other versions and sizes stay GCDynamicEvent.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcs_events.h"

#define CHECK_MSG(cond, ...) do { if (cond) check_pass(); else CHECK_FAIL(__VA_ARGS__); } while (0)

struct buf { uint8_t p[256]; size_t n; };
static void put(struct buf *b, const void *d, size_t n) { memcpy(b->p + b->n, d, n); b->n += n; }
static void put8(struct buf *b, uint8_t v) { put(b, &v, 1); }
static void put16(struct buf *b, uint16_t v) { uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) }; put(b, x, 2); }
static void put32(struct buf *b, uint32_t v) { put16(b, (uint16_t)v); put16(b, (uint16_t)(v >> 16)); }
static void put64(struct buf *b, uint64_t v) { put32(b, (uint32_t)v); put32(b, (uint32_t)(v >> 32)); }
static void putf(struct buf *b, float f) { uint32_t u; memcpy(&u, &f, 4); put32(b, u); }
static void name(struct buf *b, const char *s) { while (*s) put16(b, (uint8_t)*s++); put16(b, 0); }

/* The envelope: Name, DataSize, Data, ClrInstanceID. */
static struct buf envelope(const char *nm, const struct buf *data, uint16_t clr) {
  struct buf b = {0};
  name(&b, nm);
  put32(&b, (uint32_t)data->n);
  put(&b, data->p, data->n);
  put16(&b, clr);
  return b;
}

static int decode(struct gcs_event *ev, const struct buf *b, size_t len, char *sb, size_t sbn) {
  memset(ev, 0, sizeof *ev);
  uint8_t *p = malloc(len ? len : 1); /* its own allocation: ASan sees a read past len */
  if (!p) abort();
  memcpy(p, b->p, len);
  int rc = gcs_etw_decode(ev, gcs_kind_GCDynamicEvent, 0, p, len, 8, sb, sbn);
  free(p);
  return rc;
}

static struct buf sample_data(uint16_t version) {
  struct buf d = {0};
  put16(&d, version);
  put64(&d, 123456789012ull); /* GCIndex */
  put32(&d, 250000);          /* ElapsedBetweenGCs */
  put32(&d, 4321);            /* GCPauseTime */
  put32(&d, 17);              /* SOHMSLWaitTime */
  put32(&d, 29);              /* UOHMSLWaitTime */
  put64(&d, 0x123456789aull); /* TotalSOHStableSize */
  put32(&d, 3254040);         /* Gen0BudgetPerHeap */
  return d;
}

static struct buf tuning_data(uint16_t version) {
  struct buf d = {0};
  put16(&d, version);
  put16(&d, 7);       /* NewHeapCount */
  put16(&d, 12);      /* MaxHeapCount */
  put16(&d, 3);       /* MinHeapCount */
  put64(&d, 4242);    /* GCIndex */
  put64(&d, 987654321ull); /* TotalSOHStableSize */
  putf(&d, 59.25f);   /* MedianThroughputCostPct */
  putf(&d, 41.5f);    /* TcpToConsider */
  putf(&d, -2.125f);  /* CurrentAroundTargetAccumulation */
  put16(&d, 5);       /* RecordedTcpCount */
  putf(&d, 0.5f);     /* RecordedTcpSlope */
  put32(&d, 66);      /* NumGCsSinceLastChange */
  put8(&d, 2);        /* AggFactor */
  put16(&d, 9);       /* ChangeDecision */
  put16(&d, 10);      /* AdjReason */
  put16(&d, 11);      /* HcChangeFreqFactor */
  put16(&d, 13);      /* HcFreqReason */
  put8(&d, 14);       /* AdjMetric */
  return d;
}

static struct buf full_data(uint16_t version) {
  struct buf d = {0};
  put16(&d, version);
  put16(&d, 4);       /* NewHeapCount */
  put64(&d, 777);     /* GCIndex */
  putf(&d, 6.75f);    /* MedianGen2Tcp */
  put32(&d, 31);      /* NumGen2sSinceLastChange */
  put32(&d, 100); putf(&d, 1.25f);
  put32(&d, 200); putf(&d, 2.5f);
  put32(&d, 300); putf(&d, 3.75f);
  return d;
}

static struct buf hc_sample_data(uint16_t version) {
  struct buf d = {0};
  put16(&d, version);
  put64(&d, 0x0102030405060708ull); /* GCIndex */
  put64(&d, 119974);                /* ElapsedBetweenGCs */
  put64(&d, 1398);                  /* GCPauseTime */
  put64(&d, 0xfedcba9876543210ull); /* MslWaitTime */
  return d;
}

static struct buf hc_tuning_data(uint16_t version) {
  struct buf d = {0};
  put16(&d, version);
  put16(&d, 3);         /* NewHeapCount */
  put64(&d, 4243);      /* GCIndex */
  putf(&d, 28.25f);     /* MedianThroughputCostPct */
  putf(&d, 40.5f);      /* SmoothedMedianThroughputCostPct */
  putf(&d, 1.5f);       /* TcpReductionPerStepUp */
  putf(&d, -2.75f);     /* TcpIncreasePerStepDown */
  putf(&d, 0.125f);     /* ScpIncreasePerStepUp */
  putf(&d, 8.0f);       /* ScpDecreasePerStepDown */
  return d;
}

/* A known name whose payload is not decoded stays GCDynamicEvent. */
static void check_kept(const char *nm, const struct buf *data) {
  char sb[512];
  struct gcs_event ev;
  struct buf b = envelope(nm, data, 5);
  CHECK(decode(&ev, &b, b.n, sb, sizeof sb) == 0);
  CHECK(ev.kind == gcs_kind_GCDynamicEvent && !ev.truncated);
  CHECK(strcmp(ev.u.GCDynamicEvent.Name, nm) == 0 && ev.u.GCDynamicEvent.DataSize == data->n);
  CHECK(ev.u.GCDynamicEvent.ClrInstanceID == 5);
}

static void check_variants(const char *nm, struct buf (*make)(uint16_t), size_t size) {
  struct buf d = make(1);
  CHECK(d.n == size);
  struct buf v2 = make(2);
  check_kept(nm, &v2);                        /* unknown version */
  struct buf shortd = d; shortd.n--;
  check_kept(nm, &shortd);                    /* one byte short */
  struct buf longd = d; put8(&longd, 0);
  check_kept(nm, &longd);                     /* one byte long */
  CHECK(gcs_dynamic_name_known(nm));
  /* every shorter envelope: truncated (or empty), never read past its end */
  char sb[512];
  struct gcs_event ev;
  struct buf b = envelope(nm, &d, 5);
  for (size_t len = 0; len < b.n; len++) {
    decode(&ev, &b, len, sb, sizeof sb);
    CHECK(ev.truncated || len == 0);
    CHECK(ev.kind == gcs_kind_GCDynamicEvent);
  }
}

/* The runtime's values and names (gcpriv.h, dynamic_heap_count_data_t). */
struct code { unsigned v; const char *name; };
static const struct code change_decisions[] = {
  {0x0, "init_change_condition"}, {0x1, "change"}, {0x2, "too_few_samples"},
  {0x4, "not_enough_diff_accumulated"}, {0x8, "already_toward_target"}, {0x10, "tcp_in_range"},
  {0x20, "temp_change"},
};
static const struct code adj_reasons[] = {   /* bits, OR-ed by should_change_hc */
  {0x0, "init_adjustment_reason"}, {0x1, "limited_by_bounds"}, {0x2, "cannot_adjust_budget"},
  {0x4, "change_pct_too_small"}, {0x8, "change_too_soon"},
};
static const struct code hc_freq_reasons[] = {   /* bits, OR-ed by get_hc_change_freq_factors */
  {0x0, "default_reason"}, {0x1, "expensive_hc_change"}, {0x2, "dec"}, {0x4, "dec_multiple"}, {0x8, "fluctuation"},
};
static const struct code adj_metrics[] = { {0, "not_adjusted"}, {1, "adjust_budget"}, {2, "adjust_hc"} };

/* A SizeAdaptationTuning with these codes, decoded: its payload text in text. */
static void tuning_text(unsigned decision, unsigned reason, unsigned freq, unsigned metric, char *text, size_t n) {
  struct buf d = {0};
  put16(&d, 1); put16(&d, 2); put16(&d, 4); put16(&d, 1); put64(&d, 10); put64(&d, 1000);
  putf(&d, 45.5f); putf(&d, 45.5f); putf(&d, 43.5f); put16(&d, 1); putf(&d, 0); put32(&d, 4); put8(&d, 1);
  put16(&d, (uint16_t)decision); put16(&d, (uint16_t)reason); put16(&d, 0); put16(&d, (uint16_t)freq);
  put8(&d, (uint8_t)metric);
  struct buf b = envelope("SizeAdaptationTuning", &d, 0);
  char sb[512];
  struct gcs_event ev;
  CHECK(decode(&ev, &b, b.n, sb, sizeof sb) == 0 && ev.kind == gcs_kind_GCSizeAdaptationTuning);
  gcs_event_format(&ev, text, n);
}

/* "Field=value" in text, followed by a space or the end. */
static int has_field(const char *text, const char *field, const char *value) {
  char want[160];
  snprintf(want, sizeof want, "%s=%s", field, value);
  for (const char *p = strstr(text, want); p; p = strstr(p + 1, want))
    if ((p == text || p[-1] == ' ') && (p[strlen(want)] == ' ' || p[strlen(want)] == '\0')) return 1;
  return 0;
}

static void check_codes(void) {
  char text[1024];
  for (size_t i = 0; i < sizeof change_decisions / sizeof change_decisions[0]; i++) {
    tuning_text(change_decisions[i].v, 0, 0, 0, text, sizeof text);
    CHECK_MSG(has_field(text, "ChangeDecision", change_decisions[i].name), "%s", text);
  }
  for (size_t i = 0; i < sizeof adj_reasons / sizeof adj_reasons[0]; i++) {
    tuning_text(0, adj_reasons[i].v, 0, 0, text, sizeof text);
    CHECK_MSG(has_field(text, "AdjReason", adj_reasons[i].name), "%s", text);
  }
  for (size_t i = 0; i < sizeof hc_freq_reasons / sizeof hc_freq_reasons[0]; i++) {
    tuning_text(0, 0, hc_freq_reasons[i].v, 0, text, sizeof text);
    CHECK_MSG(has_field(text, "HcFreqReason", hc_freq_reasons[i].name), "%s", text);
  }
  for (size_t i = 0; i < sizeof adj_metrics / sizeof adj_metrics[0]; i++) {
    tuning_text(0, 0, 0, adj_metrics[i].v, text, sizeof text);
    CHECK_MSG(has_field(text, "AdjMetric", adj_metrics[i].name), "%s", text);
  }
  /* bits together, in bit order */
  tuning_text(0x2, 0x1 | 0x8, 0x2 | 0x4, 2, text, sizeof text);
  CHECK_MSG(has_field(text, "ChangeDecision", "too_few_samples") &&
            has_field(text, "AdjReason", "limited_by_bounds|change_too_soon") &&
            has_field(text, "HcFreqReason", "dec|dec_multiple") && has_field(text, "AdjMetric", "adjust_hc"),
            "%s", text);
  tuning_text(0, 0xf, 0xf, 1, text, sizeof text);
  CHECK_MSG(has_field(text, "AdjReason", "limited_by_bounds|cannot_adjust_budget|change_pct_too_small|change_too_soon") &&
            has_field(text, "HcFreqReason", "expensive_hc_change|dec|dec_multiple|fluctuation"), "%s", text);
  /* values the runtime does not have: their numbers, no name */
  tuning_text(0x40, 0x10, 0x20, 3, text, sizeof text);
  CHECK_MSG(has_field(text, "ChangeDecision", "64") && has_field(text, "AdjReason", "16") &&
            has_field(text, "HcFreqReason", "32") && has_field(text, "AdjMetric", "3"), "%s", text);
  tuning_text(0x3, 0x9 | 0x100, 0x1 | 0x8000, 255, text, sizeof text);   /* two decisions; a known bit with an unknown one */
  CHECK_MSG(has_field(text, "ChangeDecision", "3") && has_field(text, "AdjReason", "265") &&
            has_field(text, "HcFreqReason", "32769") && has_field(text, "AdjMetric", "255"), "%s", text);
}

int main(void) {
  char sb[512], text[1024];
  struct gcs_event ev;

  struct buf d = sample_data(1);
  struct buf b = envelope("SizeAdaptationSample", &d, 3);
  CHECK(d.n == 38);
  CHECK(decode(&ev, &b, b.n, sb, sizeof sb) == 0);
  CHECK(ev.kind == gcs_kind_GCSizeAdaptationSample && !ev.truncated);
  const struct gcs_ev_GCSizeAdaptationSample *s = &ev.u.GCSizeAdaptationSample;
  CHECK(s->Version == 1 && s->GCIndex == 123456789012ull && s->ElapsedBetweenGCs == 250000);
  CHECK(s->GCPauseTime == 4321 && s->SOHMSLWaitTime == 17 && s->UOHMSLWaitTime == 29);
  CHECK(s->TotalSOHStableSize == 0x123456789aull && s->Gen0BudgetPerHeap == 3254040 && s->ClrInstanceID == 3);

  d = tuning_data(1);
  b = envelope("SizeAdaptationTuning", &d, 4);
  CHECK(d.n == 56);
  CHECK(decode(&ev, &b, b.n, sb, sizeof sb) == 0);
  CHECK(ev.kind == gcs_kind_GCSizeAdaptationTuning && !ev.truncated);
  const struct gcs_ev_GCSizeAdaptationTuning *t = &ev.u.GCSizeAdaptationTuning;
  CHECK(t->Version == 1 && t->NewHeapCount == 7 && t->MaxHeapCount == 12 && t->MinHeapCount == 3);
  CHECK(t->GCIndex == 4242 && t->TotalSOHStableSize == 987654321ull);
  CHECK(t->MedianThroughputCostPct == 59.25f && t->TcpToConsider == 41.5f);
  CHECK(t->CurrentAroundTargetAccumulation == -2.125f && t->RecordedTcpCount == 5 && t->RecordedTcpSlope == 0.5f);
  CHECK(t->NumGCsSinceLastChange == 66 && t->AggFactor == 2 && t->ChangeDecision == 9 && t->AdjReason == 10);
  CHECK(t->HcChangeFreqFactor == 11 && t->HcFreqReason == 13 && t->AdjMetric == 14 && t->ClrInstanceID == 4);
  /* the generic accessors and the payload text */
  const struct gcs_field_desc *f = gcs_field_find(gcs_kind_GCSizeAdaptationTuning, "MedianThroughputCostPct");
  CHECK(f && f->type == GCS_T_F32 && gcs_field_get_f32(&ev, f) == 59.25);
  gcs_event_format(&ev, text, sizeof text);
  CHECK(strstr(text, "NewHeapCount=7 ") && strstr(text, "MedianThroughputCostPct=59.25 "));
  CHECK(strstr(text, "CurrentAroundTargetAccumulation=-2.125 ") && strstr(text, "AdjMetric=14"));
  /* 9 is no decision; 10 = cannot_adjust_budget (0x2) | change_too_soon (0x8); 13 = 0x1 | 0x4 | 0x8 */
  CHECK_MSG(strstr(text, "ChangeDecision=9 AdjReason=cannot_adjust_budget|change_too_soon HcChangeFreqFactor=11 "
                         "HcFreqReason=expensive_hc_change|dec_multiple|fluctuation AdjMetric=14") != NULL, "%s", text);
  ev.u.GCSizeAdaptationTuning.TcpToConsider = NAN;
  gcs_event_format(&ev, text, sizeof text);
  CHECK(strstr(text, "TcpToConsider=unknown ") != NULL);

  d = full_data(1);
  b = envelope("SizeAdaptationFullGCTuning", &d, 6);
  CHECK(d.n == 44);
  CHECK(decode(&ev, &b, b.n, sb, sizeof sb) == 0);
  CHECK(ev.kind == gcs_kind_GCSizeAdaptationFullGCTuning && !ev.truncated);
  const struct gcs_ev_GCSizeAdaptationFullGCTuning *g = &ev.u.GCSizeAdaptationFullGCTuning;
  CHECK(g->Version == 1 && g->NewHeapCount == 4 && g->GCIndex == 777 && g->MedianGen2Tcp == 6.75f);
  CHECK(g->NumGen2sSinceLastChange == 31 && g->Gen2Sample0Distance == 100 && g->Gen2Sample0Pct == 1.25f);
  CHECK(g->Gen2Sample1Distance == 200 && g->Gen2Sample1Pct == 2.5f);
  CHECK(g->Gen2Sample2Distance == 300 && g->Gen2Sample2Pct == 3.75f && g->ClrInstanceID == 6);

  check_variants("SizeAdaptationSample", sample_data, 38);
  check_variants("SizeAdaptationTuning", tuning_data, 56);
  check_variants("SizeAdaptationFullGCTuning", full_data, 44);
  /* .NET 8 */
  d = hc_sample_data(1);
  b = envelope("HeapCountSample", &d, 7);
  CHECK(d.n == 34);
  CHECK(decode(&ev, &b, b.n, sb, sizeof sb) == 0);
  CHECK(ev.kind == gcs_kind_GCHeapCountSample && !ev.truncated);
  const struct gcs_ev_GCHeapCountSample *hs = &ev.u.GCHeapCountSample;
  CHECK(hs->Version == 1 && hs->GCIndex == 0x0102030405060708ull && hs->ElapsedBetweenGCs == 119974);
  CHECK(hs->GCPauseTime == 1398 && hs->MslWaitTime == 0xfedcba9876543210ull && hs->ClrInstanceID == 7);
  gcs_event_format(&ev, text, sizeof text);
  CHECK_STR(text, "Version=1 GCIndex=72623859790382856 ElapsedBetweenGCs=119974 GCPauseTime=1398 "
                  "MslWaitTime=18364758544493064720");
  d = hc_tuning_data(1);
  b = envelope("HeapCountTuning", &d, 8);
  CHECK(d.n == 36);
  CHECK(decode(&ev, &b, b.n, sb, sizeof sb) == 0);
  CHECK(ev.kind == gcs_kind_GCHeapCountTuning && !ev.truncated);
  const struct gcs_ev_GCHeapCountTuning *ht = &ev.u.GCHeapCountTuning;
  CHECK(ht->Version == 1 && ht->NewHeapCount == 3 && ht->GCIndex == 4243 && ht->ClrInstanceID == 8);
  CHECK(ht->MedianThroughputCostPct == 28.25f && ht->SmoothedMedianThroughputCostPct == 40.5f);
  CHECK(ht->TcpReductionPerStepUp == 1.5f && ht->TcpIncreasePerStepDown == -2.75f);
  CHECK(ht->ScpIncreasePerStepUp == 0.125f && ht->ScpDecreasePerStepDown == 8.0f);
  gcs_event_format(&ev, text, sizeof text);
  CHECK_STR(text, "Version=1 NewHeapCount=3 GCIndex=4243 MedianThroughputCostPct=28.25 "
                  "SmoothedMedianThroughputCostPct=40.5 TcpReductionPerStepUp=1.5 TcpIncreasePerStepDown=-2.75 "
                  "ScpIncreasePerStepUp=0.125 ScpDecreasePerStepDown=8");
  check_variants("HeapCountSample", hc_sample_data, 34);
  check_variants("HeapCountTuning", hc_tuning_data, 36);
  CHECK(gcs_dynamic_name_known("CommittedUsage") && !gcs_dynamic_name_known("HeapCountSomethingElse"));
  CHECK(!gcs_dynamic_name_known(NULL));
  check_codes();
  return check_done();
}
