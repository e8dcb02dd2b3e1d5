#!/bin/sh
# record_leftovers.sh CASE GCSCOPE TMP — what a failed `gcscope record` leaves
# on disk (tracer/trc_outdir.h): what it made that holds no byte is removed,
# what was there before and every recorded byte stay. Each run asserts the
# exit status, stderr (exactly one line) and the files left.
#  lttng      `record -- /nonexistent` (the session is created and started,
#             then the command cannot run) from an empty working directory:
#             no ./gcscope-record-DATE/ (its ust/ was left); with -o a new
#             nested directory: none of it; with -o an existing directory
#             holding the user's files (one with bytes, an empty one, an
#             empty directory): exactly those, unchanged.
#  eventpipe  `record --dotnet -- /bin/true` (no runtime connects) from an
#             empty working directory: nothing (a 0-byte trace.nettrace and
#             its directory were left); `record --pid --dotnet -o DIR`
#             against a runtime that never answers (fake_runtime.py mute:
#             dsipc's 10 s timeout): no DIR, nor its new parent; with -o an
#             existing directory holding the user's files, an empty
#             trace.nettrace of theirs included: exactly those; against a
#             peer that sends garbage (fake_runtime.py garbage), into an
#             existing directory: the bytes received are kept (a prefix of
#             what the fake sent) beside the user's files.
# Fake runtimes are stopped by their PID.
set -u
case_=$1; gcscope=$2; tmp=$3/record_leftovers_$1
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$tmp"; mkdir -p "$tmp"
. "$here/fake_runtime.sh"

# run WHAT STATUS LINE CMD...: in the current directory; exactly LINE on stderr
run() {
  what=$1; want_rc=$2; want=$3; shift 3
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
  echo "$what: exit $rc: $(cat "$tmp/err")"
  [ $rc -eq "$want_rc" ] || fail "$what: exit $rc, not $want_rc"
  [ "$(cat "$tmp/err")" = "$want" ] || fail "$what: stderr '$(cat "$tmp/err")', not '$want'"
}
# listing DIR: every entry below it, with its type and size (directories 0)
listing() { (cd "$1" && find . -mindepth 1 -printf '%p %y %s\n' | sed 's/ d [0-9]*$/ d/' | sort); }
empty_dir() { [ -z "$(ls -A "$1")" ] || fail "$2: left $(cd "$1" && find . -mindepth 1 | tr '\n' ' ')"; }
# the user's directory: a file with bytes, an empty file, an empty directory (and more files given)
user_dir() {
  rm -rf "$1"; mkdir -p "$1/sub"
  printf 'my notes\n' >"$1/notes.txt"
  : >"$1/empty"
  for f in "$@"; do [ "$f" = "$1" ] || : >"$1/$f"; done
  listing "$1" >"$tmp/before"
}
same_as_before() {
  listing "$1" >"$tmp/after"
  cmp -s "$tmp/before" "$tmp/after" || fail "$2: the user's directory changed: $(diff "$tmp/before" "$tmp/after" | tr '\n' ' ')"
}


case $case_ in
lttng)
  mkdir "$tmp/cwd" && cd "$tmp/cwd" || exit 1
  line="gcscope record: cannot run the command: No such file or directory"
  run "default directory" 1 "$line" "$gcscope" record -- /nonexistent
  empty_dir "$tmp/cwd" "default directory"
  run "-o new nested" 1 "$line" "$gcscope" record -o new/a/b -- /nonexistent
  empty_dir "$tmp/cwd" "-o new nested"
  user_dir "$tmp/cwd/mine"
  run "-o existing" 1 "$line" "$gcscope" record -o mine -- /nonexistent
  same_as_before "$tmp/cwd/mine" "-o existing"
  ;;
eventpipe)
  mkdir "$tmp/cwd" && cd "$tmp/cwd" || exit 1
  run "--dotnet -- /bin/true" 1 "gcscope record: the command exited before a .NET runtime connected (not a .NET \
program, or it disables diagnostics with DOTNET_EnableDiagnostics=0)" "$gcscope" record --dotnet -- /bin/true
  empty_dir "$tmp/cwd" "--dotnet -- /bin/true"
  start_fake mute
  line="gcscope record: pid $fake_pid: CollectTracing4: no answer from the runtime (timed out)"
  run "mute peer, -o new" 1 "$line" "$gcscope" record -p "$fake_pid" --dotnet -o new/out
  empty_dir "$tmp/cwd" "mute peer, -o new"
  user_dir "$tmp/cwd/mine" trace.nettrace
  run "mute peer, -o existing" 1 "$line" "$gcscope" record -p "$fake_pid" --dotnet -o mine
  same_as_before "$tmp/cwd/mine" "mute peer, -o existing"
  stop_fake
  start_fake garbage
  user_dir "$tmp/cwd/mine"
  run "garbage peer, -o existing" 1 "gcscope record: pid $fake_pid: what its diagnostic socket sent is not a \
nettrace stream (no \"Nettrace\" magic); the bytes received are in $tmp/cwd/mine/trace.nettrace" \
    "$gcscope" record -p "$fake_pid" --dotnet -o mine
  stop_fake
  # the fake sent 'this is not a nettrace stream at all\n' 10 times: what came of it is kept
  sent=$(python3 -c "print('this is not a nettrace stream at all\n' * 10, end='')" | od -An -tx1 | tr -d ' \n')
  got=$(od -An -tx1 "$tmp/cwd/mine/trace.nettrace" 2>/dev/null | tr -d ' \n')
  [ -n "$got" ] && case $sent in "$got"*) true ;; *) false ;; esac ||
    fail "garbage peer: trace.nettrace is not what the peer sent: '$got'"
  rm -f "$tmp/cwd/mine/trace.nettrace" "$tmp/cwd/mine/process.tsv"
  same_as_before "$tmp/cwd/mine" "garbage peer, -o existing"
  ;;
*) echo "unknown case $case_" >&2; exit 2 ;;
esac
# nothing left in TMPDIR (record --dotnet's own diagnostic socket)
empty_dir "$TMPDIR" "TMPDIR"

trap - EXIT
rm -rf "$TMPDIR"
cd /
[ $fails -eq 0 ] && rm -rf "$tmp" && echo "record_leftovers $case_: all passed"
exit $fails
