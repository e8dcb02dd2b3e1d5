#!/bin/sh
# record_no_overwrite.sh CASE GCSCOPE TMP [GCSIM] — `gcscope record -o DIR`
# never destroys an earlier recording (tracer/trc_outdir.h): a second record
# into a DIR holding one exits 1 with exactly one line on stderr, at once,
# and every file of the first recording is byte-identical afterwards (sha256)
# with nothing added.
#  lttng      gcsim recorded into DIR (ust/), then again; a --stop-on-gc-over
#             recording whose captures are in DIR (capture-N/), then again; a
#             recording of a command with no GC provider leaves an empty ust/:
#             recording into that DIR again is allowed; with no -o, a trigger
#             recording in which nothing fired leaves no dated directory
#             ("nothing was recorded" on stdout), and with -o it keeps DIR.
#  eventpipe  a fake runtime's stream recorded into DIR (trace.nettrace,
#             process.tsv), then again against a runtime that would stream
#             (sortbomb) and one that never answers (mute, which used to
#             truncate trace.nettrace before timing out); a trace.nettrace
#             found deeper (DIR/old/x.nettrace) is refused the same way.
# Fake runtimes are stopped by their PID.
set -u
case_=$1; gcscope=$2; tmp=$3/record_no_overwrite_$1; gcsim=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$tmp"; mkdir -p "$tmp"
. "$here/fake_runtime.sh"

# sums DIR: every file below DIR with its sha256, every directory, sorted
sums() { (cd "$1" && find . -mindepth 1 \( -type f -exec sha256sum {} + \) -o \( -type d -print \) | sort); }
# again WHAT DIR SECS CMD...: a second record into DIR: exit 1, exactly the
# line naming ENTRY ($entry) on stderr, within SECS, DIR unchanged
again() {
  what=$1; dir=$2; secs=$3; shift 3
  sums "$dir" >"$tmp/before"
  [ -s "$tmp/before" ] || fail "$what: premise: $dir is empty"
  t0=$(date +%s)
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
  t=$(($(date +%s) - t0))
  echo "$what: exit $rc in ${t}s: $(cat "$tmp/err")"
  [ $rc -eq 1 ] || fail "$what: exit $rc, not 1"
  want="gcscope record: '$dir' already holds a recording (${dir%/}/$entry); choose another -o or remove it"
  [ "$(cat "$tmp/err")" = "$want" ] || fail "$what: stderr '$(cat "$tmp/err")', not '$want'"
  [ ! -s "$tmp/out" ] || fail "$what: stdout '$(cat "$tmp/out")'"
  [ $t -le "$secs" ] || fail "$what: took ${t}s"
  sums "$dir" >"$tmp/after"
  cmp -s "$tmp/before" "$tmp/after" ||
    fail "$what: the first recording changed: $(diff "$tmp/before" "$tmp/after" | tr '\n' ' ')"
}


case $case_ in
lttng)
  [ -x "$gcsim" ] || { echo "no gcsim" >&2; exit 2; }
  mkdir "$tmp/cwd" && cd "$tmp/cwd" || exit 1
  sim="$gcsim --scenario alloc-heavy --threads 1 --seconds 1 --quiet"
  # shellcheck disable=SC2086
  timeout 120 "$gcscope" record -o out -- $sim >"$tmp/out1" 2>&1 || fail "first recording: $(cat "$tmp/out1")"
  [ -n "$(find out/ust -name metadata -size +0)" ] || fail "premise: no trace in out/ust"
  entry=ust
  # shellcheck disable=SC2086
  again "lttng into its own DIR" out 5 "$gcscope" record -o out -- $sim
  again "lttng, DIR/ given" out/ 5 "$gcscope" record -o out/ -- $sim
  # a snapshot recording: its capture in DIR/capture-1/ (the second snapshot
  # of the same recording is tracer.record.multiple's)
  # shellcheck disable=SC2086
  timeout 120 "$gcscope" record -o caps --stop-on-gc-over 0 --delay-after-trigger 0 -- $sim >"$tmp/out2" 2>&1 ||
    fail "trigger recording: $(cat "$tmp/out2")"
  [ -d caps/capture-1 ] || fail "premise: no caps/capture-1: $(cat "$tmp/out2")"
  entry=capture-1
  # shellcheck disable=SC2086
  again "lttng into a DIR of captures" caps 5 "$gcscope" record -o caps --stop-on-gc-over 0 -- $sim
  # a recording that got no event leaves an empty ust/: DIR is used again
  timeout 60 "$gcscope" record -o none -- /bin/true >"$tmp/out3" 2>&1 || fail "empty recording: $(cat "$tmp/out3")"
  [ -d none/ust ] && [ -z "$(find none -type f)" ] || fail "premise: none/ is not an empty ust/ tree"
  # shellcheck disable=SC2086
  timeout 120 "$gcscope" record -o none -- $sim >"$tmp/out4" 2>&1 || fail "into an empty ust/: $(cat "$tmp/out4")"
  [ -n "$(find none/ust -name metadata -size +0)" ] || fail "into an empty ust/: no trace"
  # nothing fired, no -o: no dated directory is left, and stdout says so
  mkdir "$tmp/cwd2" && cd "$tmp/cwd2" || exit 1
  timeout 60 "$gcscope" record --stop-on-gc-over 100000 -- /bin/true >"$tmp/out5" 2>"$tmp/err5"; rc=$?
  [ $rc -eq 0 ] || fail "nothing fired: exit $rc: $(cat "$tmp/err5")"
  [ ! -s "$tmp/err5" ] || fail "nothing fired: stderr $(cat "$tmp/err5")"
  grep -Eq '^gcscope record: nothing was recorded; removed the empty gcscope-record-[0-9]{8}-[0-9]{6}(-[0-9]+)?$' \
    "$tmp/out5" || fail "nothing fired: stdout $(cat "$tmp/out5")"
  [ -z "$(ls -A .)" ] || fail "nothing fired: left $(ls -A .)"
  timeout 60 "$gcscope" record -o kept --stop-on-gc-over 100000 -- /bin/true >"$tmp/out6" 2>&1 ||
    fail "nothing fired, -o: $(cat "$tmp/out6")"
  [ -d kept ] && [ -z "$(ls -A kept)" ] || fail "nothing fired, -o: kept/ is not there, empty"
  grep -q 'nothing was recorded' "$tmp/out6" && fail "nothing fired, -o: $(cat "$tmp/out6")"
  ;;
eventpipe)
  mkdir "$tmp/cwd" && cd "$tmp/cwd" || exit 1
  start_fake sortbomb
  timeout 60 "$gcscope" record --pid "$fake_pid" --duration 2 -o out >"$tmp/out1" 2>&1 ||
    fail "first recording: $(cat "$tmp/out1")"
  [ -s out/trace.nettrace ] || fail "premise: no out/trace.nettrace"
  entry=trace.nettrace
  again "eventpipe, a streaming peer" out 5 "$gcscope" record --pid "$fake_pid" --duration 2 -o out
  again "eventpipe, with triggers" out 5 "$gcscope" record --pid "$fake_pid" --duration 2 --stop-on-gc-over 1 -o out
  stop_fake
  start_fake mute
  again "eventpipe, a peer that never answers" out 5 "$gcscope" record --pid "$fake_pid" -o out
  stop_fake
  # a recording below the top level (found by the bounded walk)
  mkdir -p deep/old && cp out/trace.nettrace deep/old/x.nettrace && printf 'notes\n' >deep/notes.txt
  entry=old/x.nettrace
  again "eventpipe, a nettrace below" deep 5 "$gcscope" record --dotnet -o deep -- /bin/true
  ;;
*) echo "unknown case $case_" >&2; exit 2 ;;
esac
empty=$(ls -A "$TMPDIR")
[ -z "$empty" ] || fail "left in TMPDIR: $empty"

trap - EXIT
rm -rf "$TMPDIR"
cd /
[ $fails -eq 0 ] && rm -rf "$tmp" && echo "record_no_overwrite $case_: all passed"
exit $fails
