/*
 * check.h — the one assertion set of every C test.
 *
 * Each CHECK_* evaluates its arguments once, counts a pass or a failure, and
 * on failure prints `file:line: ` followed by the expression and the values.
 * A failed check does not stop the test; main ends with `return check_done();`
 * which prints `N passed, N failed` and returns the exit status (0 when no
 * check failed, 1 otherwise).
 *
 *   CHECK(cond)                 cond is true
 *   CHECK_EQ_INT(a, want)       equal as long long
 *   CHECK_EQ_U64(a, want)       equal as uint64_t
 *   CHECK_NEAR(a, want, tol)    |a - want| <= tol (absolute); NaN never passes
 *   CHECK_REL(a, want, rel)     |a - want| <= rel * max(1, |want|); NaN never passes
 *   CHECK_NAN(a)                a is NaN
 *   CHECK_STR(a, want)          strings equal (a NULL string never passes)
 *   CHECK_HAS(s, sub)           s contains sub (a NULL string never passes)
 *   CHECK_FAIL(fmt, ...)        an unconditional failure with a message
 */
#ifndef GCS_TEST_CHECK_H
#define GCS_TEST_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Atomic: the runtime tests check from several mutator threads. */
static atomic_int check_passed_, check_failed_;

__attribute__((format(printf, 3, 4)))
static inline void check_fail_at(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  atomic_fetch_add(&check_failed_, 1);
}

static inline void check_pass(void) { atomic_fetch_add(&check_passed_, 1); }

/* How many checks failed so far (for tests that stop early on failure). */
static inline int check_failures(void) { return atomic_load(&check_failed_); }

/* Prints the summary line; the exit status of the test. */
static inline int check_done(void) {
  fflush(stdout);
  int failed = atomic_load(&check_failed_);
  fprintf(stderr, "%d passed, %d failed\n", atomic_load(&check_passed_), failed);
  return failed ? 1 : 0;
}

static inline int check_near_(double a, double b, double tol) { return fabs(a - b) <= tol; }
static inline int check_rel_(double a, double b, double rel) {
  return fabs(a - b) <= rel * (fabs(b) > 1 ? fabs(b) : 1);
}

#define CHECK_FAIL(...) check_fail_at(__FILE__, __LINE__, __VA_ARGS__)

#define CHECK(cond) do { \
    if (cond) check_pass(); \
    else CHECK_FAIL("CHECK failed: %s", #cond); \
  } while (0)

#define CHECK_EQ_INT(a, want) do { \
    long long a_ = (long long)(a), w_ = (long long)(want); \
    if (a_ == w_) check_pass(); \
    else CHECK_FAIL("%s = %lld, expected %s = %lld", #a, a_, #want, w_); \
  } while (0)

#define CHECK_EQ_U64(a, want) do { \
    uint64_t a_ = (uint64_t)(a), w_ = (uint64_t)(want); \
    if (a_ == w_) check_pass(); \
    else CHECK_FAIL("%s = %" PRIu64 ", expected %s = %" PRIu64, #a, a_, #want, w_); \
  } while (0)

#define CHECK_NEAR(a, want, tol) do { \
    double a_ = (a), w_ = (want); \
    if (check_near_(a_, w_, (tol))) check_pass(); \
    else CHECK_FAIL("%s = %.12g, expected %.12g (within %g)", #a, a_, w_, (double)(tol)); \
  } while (0)

#define CHECK_REL(a, want, rel) do { \
    double a_ = (a), w_ = (want); \
    if (check_rel_(a_, w_, (rel))) check_pass(); \
    else CHECK_FAIL("%s = %.12g, expected %.12g (within %g relative)", #a, a_, w_, (double)(rel)); \
  } while (0)

#define CHECK_NAN(a) do { \
    double a_ = (a); \
    if (isnan(a_)) check_pass(); \
    else CHECK_FAIL("%s = %.12g, expected NaN", #a, a_); \
  } while (0)

#define CHECK_STR(a, want) do { \
    const char *a_ = (a), *w_ = (want); \
    if (a_ && w_ && strcmp(a_, w_) == 0) check_pass(); \
    else CHECK_FAIL("%s = \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", w_ ? w_ : "(null)"); \
  } while (0)

#define CHECK_HAS(s, sub) do { \
    const char *s_ = (s), *n_ = (sub); \
    if (s_ && n_ && strstr(s_, n_)) check_pass(); \
    else CHECK_FAIL("%s = \"%s\" lacks \"%s\"", #s, s_ ? s_ : "(null)", n_ ? n_ : "(null)"); \
  } while (0)

#endif /* GCS_TEST_CHECK_H */
