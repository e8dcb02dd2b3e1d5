/* ins_check.h — minimal assertions for the insight tests: count failures,
 * print file:line and the values, exit non-zero at the end. */
#ifndef INS_CHECK_H
#define INS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int ins_failures;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ins_failures++;                                                        \
    }                                                                        \
  } while (0)

#define CHECK_INT(a, b)                                                             \
  do {                                                                              \
    long long a_ = (long long)(a), b_ = (long long)(b);                             \
    if (a_ != b_) {                                                                 \
      fprintf(stderr, "%s:%d: %s = %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, b_); \
      ins_failures++;                                                               \
    }                                                                               \
  } while (0)

/* Equal within 1e-9 relative (or absolute near 0); NaN equals NaN. */
#define CHECK_NEAR(a, b)                                                                   \
  do {                                                                                     \
    double a_ = (a), b_ = (b);                                                             \
    int ok_ = (isnan(a_) && isnan(b_)) ||                                                  \
              fabs(a_ - b_) <= 1e-9 * (fabs(b_) > 1 ? fabs(b_) : 1);                       \
    if (!ok_) {                                                                            \
      fprintf(stderr, "%s:%d: %s = %.12g, expected %.12g\n", __FILE__, __LINE__, #a, a_, b_); \
      ins_failures++;                                                                      \
    }                                                                                      \
  } while (0)

#define CHECK_STR_HAS(s, sub)                                                            \
  do {                                                                                   \
    if (!strstr((s), (sub))) {                                                           \
      fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, (s), (sub)); \
      ins_failures++;                                                                    \
    }                                                                                    \
  } while (0)

#define CHECK_DONE()                                                   \
  do {                                                                 \
    if (ins_failures) fprintf(stderr, "%d check(s) failed\n", ins_failures); \
    return ins_failures ? 1 : 0;                                       \
  } while (0)

#define MS(x) ((int64_t)((x) * 1000000.0 + 0.5))

#endif /* INS_CHECK_H */
