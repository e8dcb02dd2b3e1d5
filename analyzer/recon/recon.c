/* Placeholder: the GC reconstruction library (issue 3). */
#include "gcs_events.h"
int gcs_recon_placeholder(void);
int gcs_recon_placeholder(void) { return GCS_KIND_COUNT; }
