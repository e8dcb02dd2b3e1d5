/*
 * nt_time.h — nettrace clock conversion: the Trace object's SyncTimeUTC
 * (a Windows SYSTEMTIME) and QPC timestamps to ns since the Unix epoch.
 */
#ifndef NT_TIME_H
#define NT_TIME_H

#include <stdint.h>

/* SYSTEMTIME fields in file order: year, month, day of week, day, hour,
 * minute, second, millisecond. 0 and *ns set, or -1 if out of range. */
int nt_systemtime_to_ns(const int16_t st[8], uint64_t *ns);

/* sync_ns + (qpc - sync_qpc) * 1e9 / freq, exact (128-bit intermediate),
 * clamped to 0 for times before the epoch. freq must be > 0. */
uint64_t nt_qpc_to_ns(uint64_t qpc, uint64_t sync_qpc, uint64_t freq, uint64_t sync_ns);

#endif /* NT_TIME_H */
