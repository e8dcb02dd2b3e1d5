/* Placeholder until the feature lands (see the issue tracker). */
#include <stdio.h>

#include "commands.h"

int gcs_cmd_top(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "gcscope top: not implemented yet\n");
  return 1;
}
