/* Placeholder until the feature lands (see the issue tracker). */
#include <stdio.h>

#include "commands.h"

int gcs_cmd_events(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "gcscope events: not implemented yet\n");
  return 1;
}
