/*
 * trc_child.h — the traced COMMAND: forked first, held on a pipe until the
 * recording session runs, then exec'd (so its first GC is recorded).
 * Errors: 0 / -1 with a one-line reason in err. Threading: one thread.
 */
#ifndef TRC_CHILD_H
#define TRC_CHILD_H

#include <stddef.h>
#include <sys/types.h>

struct trc_child {
  pid_t pid;
  int go_fd;     /* write end: one byte lets the child exec */
  int err_fd;    /* read end: errno of a failed exec, EOF on success */
};

/* dotnet: add DOTNET_EnableEventLog=1 to the command's environment. */
int trc_child_spawn(struct trc_child *c, char *const *argv, int dotnet, char *err, size_t errlen);
/* Let it exec; fails if the exec failed (the child is then reaped). */
int trc_child_release(struct trc_child *c, char *err, size_t errlen);
/* Kill (SIGKILL) and reap a child that was never released. */
void trc_child_abort(struct trc_child *c);
/* Stop the command by its PID and reap it: one never released like
 * trc_child_abort; a running one gets SIGTERM, then SIGKILL after 2 s. */
void trc_child_stop(struct trc_child *c);
/* 1 if CMD (a COMMAND's argv[0]) is a .NET program: the `dotnet` host, or
 * an app host beside its NAME.runtimeconfig.json (looked up in PATH when it
 * has no slash, as execvp does); `record` and `top` then use EventPipe. */
int trc_child_is_dotnet(const char *cmd);

#endif
