/* trc_clr_lttng.c — does CoreCLR's LTTng provider load? (trc_clr_lttng.h) */
#include "trc_clr_lttng.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROVIDER "libcoreclrtraceptprovider.so"

/* The directory of the libcoreclr.so mapped into pid. */
static int runtime_dir_of_pid(pid_t pid, char *dir, size_t len) {
  char path[64], line[PATH_MAX + 256];
  snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    char *p = strchr(line, '/');
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (!p || !strstr(p, "/libcoreclr.so")) continue;
    char *slash = strrchr(p, '/');
    *slash = '\0';
    snprintf(dir, len, "%s", p);
    found = 1;
  }
  fclose(f);
  return found ? 0 : -1;
}

/* The dotnet host's directory: $DOTNET_ROOT, or where `dotnet` on PATH lives. */
static int dotnet_root(char *const *command, char *root, size_t len) {
  const char *env = getenv("DOTNET_ROOT");
  if (env && *env) { snprintf(root, len, "%s", env); return 0; }
  const char *exe = command && command[0] && strchr(command[0], '/') && strstr(command[0], "dotnet") ? command[0] : NULL;
  char cand[PATH_MAX], real[PATH_MAX];
  const char *path = getenv("PATH");
  if (!exe && path) {
    char *dup = strdup(path), *save = NULL;
    for (char *d = dup ? strtok_r(dup, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
      snprintf(cand, sizeof cand, "%.4000s/dotnet", d);
      if (access(cand, X_OK) == 0) { exe = cand; break; }
    }
    if (exe && exe == cand) { snprintf(real, sizeof real, "%s", cand); exe = real; }
    free(dup);
  }
  char resolved[PATH_MAX];
  if (!exe || !realpath(exe, resolved)) return -1;
  char *slash = strrchr(resolved, '/');
  *slash = '\0';
  snprintf(root, len, "%s", resolved);
  return 0;
}

/* Newest <root>/shared/Microsoft.NETCore.App/<version>. */
static int newest_runtime(const char *root, char *dir, size_t len) {
  char base[PATH_MAX], best[256] = "";
  snprintf(base, sizeof base, "%.3000s/shared/Microsoft.NETCore.App", root);
  DIR *d = opendir(base);
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.' && (!best[0] || strverscmp(e->d_name, best) > 0)) snprintf(best, sizeof best, "%s", e->d_name);
  closedir(d);
  if (!best[0]) return -1;
  snprintf(dir, len, "%.3000s/%s", base, best);
  return 0;
}

int trc_clr_lttng_check_provider(const char *provider, char *why, size_t whylen) {
  struct stat st;
  if (stat(provider, &st) != 0) {
    snprintf(why, whylen, "the runtime has no LTTng provider (%s: %s)", provider, strerror(errno));
    return -1;
  }
  int p[2];
  if (pipe(p) != 0) return 0;
  pid_t pid = fork();
  if (pid < 0) { close(p[0]); close(p[1]); return 0; }
  if (pid == 0) {
    close(p[0]);
    void *h = dlopen(provider, RTLD_NOW | RTLD_LOCAL);
    const char *e = h ? "" : dlerror();
    if (write(p[1], e, strlen(e)) < 0) {}
    _exit(0);
  }
  close(p[1]);
  char msg[1024];
  size_t n = 0;
  ssize_t r;
  while (n < sizeof msg - 1 && (r = read(p[0], msg + n, sizeof msg - 1 - n)) > 0) n += (size_t)r;
  msg[n] = '\0';
  close(p[0]);
  waitpid(pid, NULL, 0);
  if (!n) return 0;
  snprintf(why, whylen, "CoreCLR's LTTng provider %s cannot load (%s), so the runtime emits no LTTng events",
           provider, msg);
  return -1;
}

int trc_clr_lttng_check(pid_t pid, char *const *command, char *why, size_t whylen) {
  char dir[PATH_MAX], root[PATH_MAX], provider[PATH_MAX + 64];
  int found = pid > 0 ? runtime_dir_of_pid(pid, dir, sizeof dir) == 0
                      : dotnet_root(command, root, sizeof root) == 0 && newest_runtime(root, dir, sizeof dir) == 0;
  if (!found) return 0;
  snprintf(provider, sizeof provider, "%s/%s", dir, PROVIDER);
  return trc_clr_lttng_check_provider(provider, why, whylen);
}
