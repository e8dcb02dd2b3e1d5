#!/bin/sh
# bad_inputs.sh GCSCOPE_BIN TRACES_DIR TMPDIR — `gcscope import` on bad inputs:
# each must give one clear line naming the file and a non-zero exit, leaving
# the database without a trace row; a trace with no GC events is a warning.
set -u
gcscope=$1; traces=$2; tmp=$3/bad_inputs
imp() { "$gcscope" import "$@"; }
rm -rf "$tmp"; mkdir -p "$tmp"
db=$tmp/t.db
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# expect_error NAME PATTERN ARGS...: exit 1, exactly one stderr line matching PATTERN
expect_error() {
  name=$1; pat=$2; shift 2
  imp -d "$db" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 1 ] || fail "$name: exit $rc, want 1"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$name: stderr is not one line: $(cat "$tmp/err")"
  grep -q -- "$pat" "$tmp/err" || fail "$name: stderr '$(cat "$tmp/err")' lacks '$pat'"
  grep -q '^gcscope import: ' "$tmp/err" || fail "$name: no 'gcscope import:' prefix"
}

mkdir "$tmp/empty"
expect_error empty-dir "$tmp/empty: no trace found (no LTTng/CTF \`metadata\` file under it, no .nettrace file in it)" "$tmp/empty"
echo "hello" >"$tmp/notes.txt"
expect_error text-file "$tmp/notes.txt: not a trace" "$tmp/notes.txt"
expect_error missing "$tmp/nope: No such file or directory" "$tmp/nope"
# A truncated stream file: copy the 3.1 trace and cut one stream mid-packet.
cp -r "$traces/coreclr/netcore31-perfcollect-default/lttngTrace/auto-20200317-170407" "$tmp/cut"
chmod -R u+w "$tmp/cut"
truncate -s 300000 "$tmp/cut/ust/uid/1000/64-bit/channel0_0"
expect_error truncated "channel0_0" "$tmp/cut"
grep -q "$tmp/cut" "$tmp/err" || fail "truncated: the error does not name the trace"
# A zip cut in the middle.
head -c 100000 "$traces/coreclr/netcore31-perfcollect-default/clr-only.trace.zip" >"$tmp/cut.trace.zip"
expect_error truncated-zip "$tmp/cut.trace.zip: not a zip archive" "$tmp/cut.trace.zip"
# Nothing was committed, so the database these failed imports would have created does not exist.
[ ! -e "$db" ] || fail "failed imports left a database: $(sqlite3 "$db" 'SELECT count(*) FROM traces' 2>&1) trace rows"

# Usage errors exit 2.
imp -d "$db" --bogus "$tmp/empty" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "unknown option: exit $rc"
imp 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "no argument: exit $rc"
imp --help >"$tmp/out"; rc=$?
[ $rc -eq 0 ] && grep -q 'usage: gcscope import' "$tmp/out" || fail "--help"

# No GC events: the (empty) kernel trace of the session imports with a warning and 0 GCs.
imp -d "$db" "$traces/coreclr/netcore31-perfcollect-default/lttngTrace/auto-20200317-170407/kernel" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "no-gc-events: exit $rc ($(cat "$tmp/err"))"
grep -q 'warning: no GC events' "$tmp/out" || fail "no-gc-events: no warning: $(cat "$tmp/out")"
grep -q ': trace 1: 0 events (0 GC events), 0 processes, 0 GCs, 0 discarded' "$tmp/out" || fail "no-gc-events summary: $(cat "$tmp/out")"
# The 3.1 startup trace has GC events (2 segments, 1 allocation tick, runtime info) but no GC.
imp -d "$db" "$traces/coreclr/netcore31-startup-small" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "startup-small: exit $rc"
grep -q ': trace 2: 66 events (4 GC events), 1 processes, 0 GCs, 0 discarded, host BRIANROB-L2' "$tmp/out" || fail "startup-small summary: $(cat "$tmp/out")"
# Same trace again: already imported.
imp -d "$db" "$traces/coreclr/netcore31-startup-small" >"$tmp/out" 2>&1
grep -q 'already imported (trace 2), nothing added' "$tmp/out" || fail "re-import: $(cat "$tmp/out")"
# Not a database.
expect_error not-a-db "" -d "$tmp/notes.txt" "$traces/coreclr/netcore31-startup-small"
grep -q "notes.txt" "$tmp/err" || fail "not-a-db: $(cat "$tmp/err")"

rm -rf "$tmp"
[ $fails -eq 0 ] && echo "bad_inputs: all passed"
exit $fails
