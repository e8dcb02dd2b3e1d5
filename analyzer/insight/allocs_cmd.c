/* Placeholder until the feature lands (see the issue tracker). */
#include <stdio.h>

#include "commands.h"

int gcs_cmd_allocs(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "gcscope allocs: not implemented yet\n");
  return 1;
}
