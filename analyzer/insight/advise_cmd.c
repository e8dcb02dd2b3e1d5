/* Placeholder until the feature lands (see the issue tracker). */
#include <stdio.h>

#include "commands.h"

int gcs_cmd_advise(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "gcscope advise: not implemented yet\n");
  return 1;
}
