/* Placeholder until the feature lands (see the issue tracker). */
#include <stdio.h>

#include "commands.h"

int gcs_cmd_import(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "gcscope import: not implemented yet\n");
  return 1;
}
