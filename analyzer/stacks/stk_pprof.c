/* stk_pprof.c — placeholder until the pprof writer lands. */
#include <stdio.h>

#include "stk_view.h"

int stk_view_pprof(const struct stk_view *v, FILE *out, char *err, size_t errlen) {
  (void)v; (void)out;
  snprintf(err, errlen, "--format pprof is not available yet");
  return -1;
}
