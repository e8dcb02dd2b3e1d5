/*
 * gcs_nettrace.h — read EventPipe .nettrace files (what `dotnet-trace collect`
 * writes) and deliver their GC events as struct gcs_event records, the same
 * records the LTTng (CTF) decoders produce.
 *
 * Supported: the "Nettrace" FastSerialization container, format V4 and V5
 * (.NET Core 3.0 up to .NET 9; V5 only adds optional metadata tags). V6
 * (.NET 10 `collect-linux`) and the older .netperf (V1–V3) are recognised
 * and rejected with a clear message.
 *
 * Delivered events: those of Microsoft-Windows-DotNETRuntime and
 * Microsoft-Windows-DotNETRuntimePrivate that schemas/gc_events.def defines
 * (decoded by provider, event ID and version with gcs_etw_decode), plus the
 * rundown provider's RuntimeInformation (ID 187), delivered as
 * RuntimeInformationStart. Microsoft-DotNETCore-EventPipe/ProcessInfo fills
 * info->command_line. Every other event is counted in events_total and
 * skipped. Events come in timestamp order (sorted inside each region between
 * sequence points, ties kept in file order), with origin GCS_ORIGIN_CLR,
 * pid = the Trace object's ProcessId, tid = the event's ThreadId, cpu = its
 * ProcessorNumber.
 *
 * Ownership: the gcs_event passed to the callback, and every string it
 * points to, belong to the reader and are valid only during the call.
 * Threading: reentrant; no global state; one call reads one file.
 * Errors: functions return 0 on success and -1 on failure with a one-line
 * message (no newline) in err naming the file; nothing is printed. Events
 * delivered before an error stay delivered (the caller decides whether to
 * keep them). Memory is bounded: the file is mapped read-only and only the
 * GC events of one sequence-point region are buffered (at most
 * GCS_NETTRACE_MAX_PENDING of them; more is an error).
 */
#ifndef GCS_NETTRACE_H
#define GCS_NETTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "gcs_events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of not-yet-sorted GC events held at once (40 bytes each: 40 MB). */
#define GCS_NETTRACE_MAX_PENDING (1u << 20)

struct gcs_nettrace_info {
  int32_t pid;               /* Trace object ProcessId */
  int pointer_size;          /* 4 or 8 */
  char hostname[256];        /* "" (V4/V5 files carry no host name) */
  char command_line[1024];   /* ProcessInfo, else RuntimeInformation; "" if neither */
  uint64_t start_ns, end_ns; /* ns since the Unix epoch: SyncTimeUTC, and the
                                timestamp of the last event in the file
                                (converted with SyncTimeQPC and QPCFrequency) */
  uint64_t events_total;     /* event records in the file (all providers) */
  uint64_t events_decoded;   /* events delivered to the callback */
  uint64_t events_lost;      /* sequence-number gaps (per capture thread and
                                at sequence points) */
  int format_version;        /* 4 or 5 (5 when metadata carries V5 tags or the
                                Trace object says 5) */
};

/* Called once per delivered event; a non-zero return stops the read, which
 * then returns 0 with info describing what was read so far. */
typedef int (*gcs_nettrace_event_cb)(const struct gcs_event *ev, void *ud);

/* Read the file at path. cb may be NULL (only info is filled); info may be
 * NULL. Returns 0, or -1 with "<path>: <what went wrong>" in err. */
int gcs_nettrace_read(const char *path, gcs_nettrace_event_cb cb, void *ud,
                      struct gcs_nettrace_info *info, char *err, size_t errlen);

/* 1 if the file starts with the "Nettrace" magic, 0 otherwise (also when it
 * cannot be opened). */
int gcs_nettrace_is_nettrace(const char *path);

#ifdef __cplusplus
}
#endif
#endif /* GCS_NETTRACE_H */
