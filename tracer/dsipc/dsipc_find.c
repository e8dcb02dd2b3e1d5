/*
 * dsipc_find.c — where a process's diagnostic socket is: the runtime
 * creates dotnet-diagnostic-<pid>-<key>-socket in $TMPDIR (or /tmp), the
 * key being the process's start time in jiffies since boot on Linux. A pid
 * reused by a later process can leave several; the live one has the key of
 * the current process's start time, and a socket with another key is an
 * earlier process's (a .NET program killed before it could remove it): it
 * is never taken for the live process's. Only when the start time cannot be
 * read (no /proc) does the newest socket of the pid count.
 */
#include "gcs_dsipc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PREFIX "dotnet-diagnostic-"
#define SUFFIX "-socket"

const char *gcs_dsipc_socket_dir(void) {
  const char *t = getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

/* pid and key of a socket file name; 0 if the name is not one. */
static int parse_name(const char *name, long *pid, unsigned long long *key) {
  size_t n = strlen(name), p = sizeof PREFIX - 1, s = sizeof SUFFIX - 1;
  if (n <= p + s || strncmp(name, PREFIX, p) || strcmp(name + n - s, SUFFIX)) return 0;
  char *end;
  errno = 0;
  *pid = strtol(name + p, &end, 10);
  if (end == name + p || *end != '-' || *pid <= 0 || errno) return 0;
  const char *k = end + 1;
  *key = strtoull(k, &end, 10);
  return end != k && end == name + n - s;
}

/* Field 22 of /proc/<pid>/stat (after the parenthesised command name). */
static int start_time(pid_t pid, unsigned long long *jiffies) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *p = strrchr(buf, ')');
  if (!p) return -1;
  p++;
  for (int field = 3; field < 22 && p; field++) p = strchr(p + 1, ' ');   /* p: the space before field 3 */
  return p && sscanf(p, " %llu", jiffies) == 1 ? 0 : -1;
}

static int find_socket(pid_t pid, char *path, size_t len) {
  const char *dir = gcs_dsipc_socket_dir();
  DIR *d = opendir(dir);
  if (!d) return -1;
  unsigned long long want = 0, key;
  int have_start = start_time(pid, &want) == 0, exact = 0;
  time_t newest = 0;
  long p;
  path[0] = '\0';
  for (struct dirent *e; (e = readdir(d));) {
    if (!parse_name(e->d_name, &p, &key) || p != pid || exact) continue;
    char full[4096];
    struct stat st;
    snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
    if (stat(full, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    if (have_start && key == want) exact = 1;
    else if (have_start) continue;   /* an earlier process's with this pid: stale */
    else if (path[0] && st.st_mtime < newest) continue;
    newest = st.st_mtime;
    snprintf(path, len, "%s", full);
  }
  closedir(d);
  return path[0] ? 0 : -1;
}

int gcs_dsipc_has_socket(pid_t pid) {
  char path[4096];
  return find_socket(pid, path, sizeof path) == 0;
}

int gcs_dsipc_attach_pid(struct gcs_dsipc_endpoint *ep, pid_t pid, char *err, size_t errlen) {
  char path[4096];
  if (find_socket(pid, path, sizeof path) != 0) {
    snprintf(err, errlen,
             "process %d has no diagnostic socket in %s (not a .NET process, started with "
             "DOTNET_EnableDiagnostics=0, or another TMPDIR)",
             (int)pid, gcs_dsipc_socket_dir());
    return -1;
  }
  return gcs_dsipc_attach_path(ep, path, err, errlen);
}

static int cmp_pid(const void *a, const void *b) {
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return (x > y) - (x < y);
}

int gcs_dsipc_list_pids(pid_t *pids, int max) {
  DIR *d = opendir(gcs_dsipc_socket_dir());
  if (!d) return 0;
  int n = 0, cap = 64;
  pid_t *all = malloc(sizeof *all * (size_t)cap);
  long p;
  unsigned long long key;
  for (struct dirent *e; all && (e = readdir(d));) {
    if (!parse_name(e->d_name, &p, &key)) continue;
    unsigned long long start;
    if (start_time((pid_t)p, &start) == 0 && start != key) continue;   /* the pid now runs another process */
    if (n == cap) {
      pid_t *t = realloc(all, sizeof *all * (size_t)(cap *= 2));
      if (!t) break;
      all = t;
    }
    all[n++] = (pid_t)p;
  }
  closedir(d);
  if (!all) return 0;
  qsort(all, (size_t)n, sizeof *all, cmp_pid);
  int u = 0;
  for (int i = 0; i < n; i++) {
    if (i && all[i] == all[i - 1]) continue;
    if (u < max) pids[u] = all[i];
    u++;
  }
  free(all);
  return u;
}
