/* rgc_tp_probe.c — the probe provider librgc-tp.so: LTTng-UST probes of the
 * `rgc` tracepoints (rgc_tp.h), loaded by librgc at run time. */
#define TRACEPOINT_CREATE_PROBES
#include "rgc_tp.h"
