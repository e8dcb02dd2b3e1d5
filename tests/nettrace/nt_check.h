/* nt_check.h — minimal assertion macros for the nettrace tests: report the
 * failing expression with file:line and count failures; main returns the
 * count so CTest fails on any of them. */
#ifndef NT_CHECK_H
#define NT_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int nt_failures;

#define CHECK(cond) do { if (!(cond)) { \
  fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); nt_failures++; } } while (0)

#define CHECK_EQ(a, b) do { uint64_t va_ = (uint64_t)(a), vb_ = (uint64_t)(b); if (va_ != vb_) { \
  fprintf(stderr, "%s:%d: %s == %" PRIu64 ", expected %s == %" PRIu64 "\n", __FILE__, __LINE__, \
          #a, va_, #b, vb_); nt_failures++; } } while (0)

#define CHECK_STR(a, b) do { const char *sa_ = (a), *sb_ = (b); if (!sa_ || strcmp(sa_, sb_) != 0) { \
  fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
          sa_ ? sa_ : "(null)", sb_); nt_failures++; } } while (0)

#define CHECK_HAS(hay, needle) do { const char *h_ = (hay), *n_ = (needle); \
  if (!h_ || !strstr(h_, n_)) { fprintf(stderr, "%s:%d: \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, \
          h_ ? h_ : "(null)", n_); nt_failures++; } } while (0)

#endif /* NT_CHECK_H */
