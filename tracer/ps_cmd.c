/*
 * ps_cmd.c — `gcscope ps`: the .NET processes gcscope can attach to, like
 * `dotnet-trace ps`: every diagnostic socket in $TMPDIR (or /tmp) whose
 * process is alive, asked for its ProcessInfo2 (runtime version; the command
 * line too where /proc/<pid>/cmdline cannot be read). A socket that cannot be queried (another user's, a hung
 * runtime) is listed with the reason.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcs_cli.h"
#include "gcs_text.h"
#include "gcs_dsipc.h"
#include "gcs_tracer.h"

#define PS_TIMEOUT_MS 2000
#define PS_MAX 4096

static const struct gcs_cli_opt ps_opts[] = { { 0 } };

static const struct gcs_cli_spec ps_spec = {
  .cmd = "ps",
  .usage = "[-h]",
  .about = "Lists the .NET processes whose diagnostic socket gcscope can attach to "
           "(gcscope record --pid PID records one over EventPipe).",
  .opts = ps_opts,
};

static void comm_of(pid_t pid, char *name, size_t len) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
  FILE *f = fopen(path, "r");
  name[0] = '\0';
  if (f) {
    if (fgets(name, (int)len, f)) name[strcspn(name, "\n")] = '\0';
    fclose(f);
  }
  if (!name[0]) snprintf(name, len, "?");
}

/* /proc/<pid>/cmdline with spaces between the arguments; 0 if unreadable.
 * The runtime's ProcessInfo has only the host's path until the managed
 * command line is set, early in start-up. */
static int cmdline_of(pid_t pid, char *out, size_t len) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(out, 1, len - 1, f);
  fclose(f);
  while (n && out[n - 1] == '\0') n--;
  for (size_t i = 0; i < n; i++)
    if (out[i] == '\0') out[i] = ' ';
  out[n] = '\0';
  return n > 0;
}

static int alive(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

int gcs_cmd_ps(int argc, char **argv) {
  struct gcs_cli p;
  gcs_cli_init(&p, &ps_spec, argc, argv);
  for (int k; (k = gcs_cli_next(&p)) != GCS_CLI_DONE;) {
    if (k == GCS_CLI_HELP) { gcs_cli_usage(&ps_spec, stdout); return 0; }
    if (k == GCS_CLI_BAD) return gcs_cli_fail("%s", p.err);
  }
  if (p.optind < argc) return gcs_cli_fail("unexpected argument '%s'", argv[p.optind]);
  static pid_t pids[PS_MAX];
  int n = gcs_dsipc_list_pids(pids, PS_MAX);
  if (n > PS_MAX) n = PS_MAX;
  int shown = 0;
  for (int i = 0; i < n; i++) {
    if (!alive(pids[i])) continue;   /* a stale socket of a process that is gone */
    if (!shown++) printf("%8s  %-16s %-10s %s\n", "PID", "NAME", "RUNTIME", "COMMAND LINE");
    char name[64], comm[64], err[512];
    comm_of(pids[i], comm, sizeof comm);
    gcs_text_printable(comm, strlen(comm), name, sizeof name);
    struct gcs_dsipc_endpoint ep;
    static struct gcs_dsipc_process_info info;
    if (gcs_dsipc_attach_pid(&ep, pids[i], err, sizeof err) == 0) {
      ep.timeout_ms = PS_TIMEOUT_MS;
      if (gcs_dsipc_process_info(&ep, &info, err, sizeof err) == 0) {
        /* What the peer and the process chose: printed with escape
         * sequences and other control characters replaced. */
        char ver[32];
        gcs_text_printable(info.runtime_version, strcspn(info.runtime_version, "+"), ver, sizeof ver);
        static char cmd[8192], safe[8192];
        const char *line = cmdline_of(pids[i], cmd, sizeof cmd) ? cmd : info.command_line;
        gcs_text_printable(line, strlen(line), safe, sizeof safe);
        printf("%8d  %-16s %-10s %s\n", (int)pids[i], name, ver[0] ? ver : "?", safe);
        continue;
      }
    }
    char safe_err[512];
    printf("%8d  %-16s %-10s (cannot query: %s)\n", (int)pids[i], name, "?",
           gcs_text_printable(err, strlen(err), safe_err, sizeof safe_err));
  }
  if (!shown) printf("gcscope ps: no .NET process with a diagnostic socket in %s\n", gcs_dsipc_socket_dir());
  return 0;
}
