/* gcscope-import — test driver: `gcscope import` without the umbrella binary
 * (so the import tests do not depend on every other command linking). */
#include "commands.h"

int main(int argc, char **argv) { return gcs_cmd_import(argc, argv); }
