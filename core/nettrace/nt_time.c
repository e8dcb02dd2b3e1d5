/* nt_time.c — see nt_time.h. */
#include "nt_time.h"

/* Days from 1970-01-01 to the given proleptic Gregorian date (the classic
 * era-based civil calendar computation). */
static int64_t nt_days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int nt_systemtime_to_ns(const int16_t st[8], uint64_t *ns) {
  int year = st[0], month = st[1], day = st[3];
  int hour = st[4], min = st[5], sec = st[6], msec = st[7];
  if (year < 1970 || year > 2500 || month < 1 || month > 12 || day < 1 || day > 31 ||
      hour < 0 || hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 60 ||
      msec < 0 || msec > 999)
    return -1;
  int64_t days = nt_days_from_civil(year, month, day);
  int64_t s = days * 86400 + hour * 3600 + min * 60 + sec;
  *ns = (uint64_t)s * 1000000000ull + (uint64_t)msec * 1000000ull;
  return 0;
}

uint64_t nt_qpc_to_ns(uint64_t qpc, uint64_t sync_qpc, uint64_t freq, uint64_t sync_ns) {
  __int128 delta = (__int128)(int64_t)(qpc - sync_qpc);
  __int128 ns = (__int128)sync_ns + delta * 1000000000 / (__int128)freq;
  if (ns < 0) return 0;
  if (ns > (__int128)UINT64_MAX) return UINT64_MAX;
  return (uint64_t)ns;
}
