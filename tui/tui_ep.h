/*
 * tui_ep.h — `gcscope top --dotnet`: the live view of a .NET process over
 * EventPipe (gcs_session's trc_ep_session: launch mode `-- COMMAND`, attach mode
 * `--pid PID`). The stream is decoded as it arrives by the nettrace stream
 * reader in live mode (events ordered across threads half a second after
 * they arrive; the runtime flushes about every 100 ms) and fed to the model
 * through tui_feed. COMMAND's output goes to a file, not the screen.
 * keep_dir (-o DIR) keeps the stream as DIR/trace.nettrace; otherwise
 * nothing is written but that output file.
 *
 * Ownership/threading/errors: as tui_source.h.
 */
#ifndef TUI_EP_H
#define TUI_EP_H

#include <stddef.h>
#include <sys/types.h>

#include "tui_source.h"

/* req/nreq: `--requests` pairs recorded too (their rate and p99 in the header). */
struct gcs_nettrace_reqspec;
struct tui_source *tui_ep_open(char **command, pid_t pid, const char *keep_dir, const struct gcs_nettrace_reqspec *req,
                               int nreq, char *err, size_t errlen);

#endif
