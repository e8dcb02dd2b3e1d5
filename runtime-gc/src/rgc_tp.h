/*
 * rgc_tp.h — LTTng-UST tracepoint definitions of the `rgc` provider, generated
 * from schemas/gc_events.def: every event whose Where is RGC_AND_CLR or
 * RGC_ONLY becomes TRACEPOINT_EVENT(rgc, <Symbol>) taking a pointer to its
 * struct gcs_ev_<Name>, one CTF field per schema field (arrays as CTF
 * sequences whose length is their count field). Never packed.
 *
 * Included with TRACEPOINT_DEFINE + TRACEPOINT_PROBE_DYNAMIC_LINKAGE by
 * rgc_trace.c (librgc, which does not link liblttng-ust) and with
 * TRACEPOINT_CREATE_PROBES by rgc_tp_probe.c (librgc-tp.so, the probe provider
 * librgc dlopen()s at start-up).
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER rgc

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "rgc_tp.h"

#if !defined(RGC_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define RGC_TP_H

#include <lttng/tracepoint.h>

#include "gcs_events.h"

#define RGC_TPF_U8(n)   ctf_integer(uint8_t, n, e->n)
#define RGC_TPF_U16(n)  ctf_integer(uint16_t, n, e->n)
#define RGC_TPF_U32(n)  ctf_integer(uint32_t, n, e->n)
#define RGC_TPF_I32(n)  ctf_integer(int32_t, n, e->n)
#define RGC_TPF_U64(n)  ctf_integer(uint64_t, n, e->n)
#define RGC_TPF_PTR(n)  ctf_integer(uint64_t, n, e->n)
#define RGC_TPF_BOOL(n) ctf_integer(int32_t, n, e->n)
#define RGC_TPF_STR(n)  ctf_string(n, e->n ? e->n : "")
#define RGC_TPF_GUID(n) ctf_array(uint8_t, n, e->n.b, 16)
#define RGC_TPF_F32(n)  ctf_float(float, n, e->n)

#define RGC_TP_F(Name, Type, Since, Unit, Doc) RGC_TPF_##Type(Name)
#define RGC_TP_A(Name, Type, CountField, Cap, Since, Unit, Doc) \
  ctf_sequence(GCS_CTYPE_##Type, Name, e->Name, uint32_t, e->CountField)

/* Events marked GCS_STACKED_<Name> in the schema take the stack as two more
 * arguments and end with the GCS_STACK_FIELD sequence. */
#define RGC_TP_SECOND(a, b, ...) b
#define RGC_TP_SECOND_(...) RGC_TP_SECOND(__VA_ARGS__)
#define RGC_TP_IS_STACKED(Name) RGC_TP_SECOND_(GCS_STACKED_##Name, 0, ~)
#define RGC_TP_CAT(a, b) RGC_TP_CAT_(a, b)
#define RGC_TP_CAT_(a, b) a##b
#define RGC_TP_EVENT_0(Name, Symbol, FIELDS) \
  TRACEPOINT_EVENT(rgc, Symbol, TP_ARGS(const struct gcs_ev_##Name *, e), \
                   TP_FIELDS(FIELDS(RGC_TP_F, RGC_TP_A)))
#define RGC_TP_EVENT_1(Name, Symbol, FIELDS) \
  TRACEPOINT_EVENT(rgc, Symbol, \
                   TP_ARGS(const struct gcs_ev_##Name *, e, const uint64_t *, stk_ip, uint8_t, stk_n), \
                   TP_FIELDS(FIELDS(RGC_TP_F, RGC_TP_A) \
                             ctf_sequence(uint64_t, stack, stk_ip, uint8_t, stk_n)))
#define RGC_TP_WHERE_RGC_AND_CLR(Name, Symbol, FIELDS) \
  RGC_TP_CAT(RGC_TP_EVENT_, RGC_TP_IS_STACKED(Name))(Name, Symbol, FIELDS)
#define RGC_TP_WHERE_RGC_ONLY(Name, Symbol, FIELDS) RGC_TP_WHERE_RGC_AND_CLR(Name, Symbol, FIELDS)
#define RGC_TP_WHERE_CLR_ONLY(Name, Symbol, FIELDS)
#define RGC_TP_EV(Name, Symbol, Provider, EtwId, Version, Where, Doc, FIELDS) \
  RGC_TP_WHERE_##Where(Name, Symbol, FIELDS)

GCS_EVENT_LIST(RGC_TP_EV)

#endif /* RGC_TP_H */

#include <lttng/tracepoint-event.h>
