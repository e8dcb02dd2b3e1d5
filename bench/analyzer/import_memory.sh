#!/bin/sh
# import_memory.sh TRACE GCSCOPE [OTHER_GCSCOPE...] — what importing one
# trace holds: peak resident memory (/usr/bin/time -v's "Maximum resident
# set size"), wall time, the GCs written while the events were read
# against the most done and waiting at once (`gcscope import -v`: the GC
# rows a loss horizon holds back), and the most GCs the reconstruction held
# in memory at once (import -v's "at most K GCs held in memory"; the GCs
# written early are freed). Each build imports TRACE into a fresh
# database IMPORT_MEMORY_RUNS times (default 5), the builds alternating, in
# separate processes; per build the median and the spread (lowest, highest)
# of the peak RSS (MB = 10^6 bytes) and wall time, the GC counts (the same
# every run), and the ratio of medians against the first build.
# An older build prints no GC counts unless it has import -v's counts line
# (and no held count before the GCs written early were freed).
# docs/import.md ("Which GCs a loss marks") gives the figures for a
# .nettrace with an idle capture thread: main, before the horizon was
# bounded, and after (recorded with tests/dotnet's gcprog idlethread).
set -u
[ $# -ge 2 ] || { echo "usage: import_memory.sh TRACE GCSCOPE [OTHER_GCSCOPE...]" >&2; exit 2; }
trace=$1; shift
runs=${IMPORT_MEMORY_RUNS:-5}
[ -x /usr/bin/time ] || { echo "import_memory.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/gcscope-import-memory.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0
for g in "$@"; do n=$((n + 1)); : >"$tmp/b$n.rss"; : >"$tmp/b$n.wall"; done
r=0
while [ "$r" -lt "$runs" ]; do
  r=$((r + 1)); k=0
  for g in "$@"; do
    k=$((k + 1))
    rm -f "$tmp/db"
    /usr/bin/time -v "$g" import -v -d "$tmp/db" "$trace" >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
    awk -F': ' '/Maximum resident set size/ { printf "%.1f\n", $2 * 1024 / 1e6 }' "$tmp/out" >>"$tmp/b$k.rss"
    awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.3f\n", s }' \
      "$tmp/out" >>"$tmp/b$k.wall"
    grep -o '[0-9]* GCs written while reading, at most [0-9]* done and waiting' "$tmp/out" >"$tmp/b$k.gcs" || :
    grep -o 'at most [0-9]* GCs held in memory' "$tmp/out" >"$tmp/b$k.held" || :
  done
done
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%s (%s-%s)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
medv() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "import_memory: $trace, $runs runs each, alternating; median (lowest-highest)"
base_rss=$(medv "$tmp/b1.rss")
k=0
for g in "$@"; do
  k=$((k + 1))
  gcs=$(cat "$tmp/b$k.gcs"); [ -n "$gcs" ] || gcs="GC counts unknown (no import -v counts line)"
  held=$(sort -u "$tmp/b$k.held" | tr '\n' ' '); [ -n "$held" ] && gcs="$gcs
  ${held% }"
  printf '%s\n  peak RSS %s MB, wall %s s, x%s RSS of the first\n  %s\n' "$g" "$(med "$tmp/b$k.rss")" \
    "$(med "$tmp/b$k.wall")" "$(awk -v a="$(medv "$tmp/b$k.rss")" -v b="$base_rss" 'BEGIN { printf "%.3f", a / b }')" "$gcs"
done
