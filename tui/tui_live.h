/*
 * tui_live.h — live sources of `gcscope top`: GCs reconstructed (gcs_recon)
 * from an LTTng live session read through lttng-relayd with libbabeltrace2's
 * src.ctf.lttng-live component.
 *
 * tui_live_attach: attach to an existing live session NAME (created with
 *   `lttng create NAME --live`). The LTTng live protocol allows one reader per
 *   session and relayd: if another reader holds it, the open fails and says so.
 * tui_live_run: create a live session (live timer live_timer_us, 100 ms by
 *   default so a GC shows within a second), start a relayd if none listens,
 *   run COMMAND, and watch it; closing the source stops COMMAND's session,
 *   destroys it, and stops the relayd it started (by PID).
 *
 * relayd_url: "net://HOST[:CTRL[:DATA]]" style base (default net://127.0.0.1);
 * the live port is 5344 unless the URL gives "net://HOST:LIVEPORT" for attach.
 * Ownership/threading/errors: as tui_source.h.
 */
#ifndef TUI_LIVE_H
#define TUI_LIVE_H

#include <stddef.h>

#include "tui_source.h"

struct tui_source *tui_live_attach(const char *session, const char *relayd_url,
                                   char *err, size_t errlen);
/* keep_dir: -o DIR (see tui_lsess_open). */
struct tui_source *tui_live_run(char **command, const char *relayd_url, long live_timer_us, const char *keep_dir,
                                char *err, size_t errlen);

#endif /* TUI_LIVE_H */
