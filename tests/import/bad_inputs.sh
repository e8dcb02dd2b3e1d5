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
expect_error text-file "$tmp/notes.txt: not an LTTng trace, .trace.zip or .nettrace" "$tmp/notes.txt"
expect_error missing "$tmp/nope: No such file or directory" "$tmp/nope"
# A truncated stream file (the 3.1 trace, one stream cut mid-packet) imports
# its whole packets with a warning: import.ctf_cut.
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

# No events at all (the session's kernel trace recorded nothing): an error,
# nothing committed (issue 25: it was committed with exit 0).
expect_error no-events "$traces/coreclr/netcore31-perfcollect-default/lttngTrace/auto-20200317-170407/kernel: no events in this trace (an empty recording?): nothing imported" \
  "$traces/coreclr/netcore31-perfcollect-default/lttngTrace/auto-20200317-170407/kernel"
[ ! -e "$db" ] || fail "no-events: a database was left"
# The 3.1 startup trace has GC events (2 segments, 1 allocation tick, runtime info) but no GC:
# a warning, exit 0.
imp -d "$db" "$traces/coreclr/netcore31-startup-small" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "startup-small: exit $rc"
grep -qx ".*/netcore31-startup-small: trace 1, host BRIANROB-L2" "$tmp/out" &&
  grep -qx '  66 events (4 GC events), 1 process, 0 GCs, 0 discarded' "$tmp/out" || fail "startup-small summary: $(cat "$tmp/out")"
# Same trace again: already imported.
imp -d "$db" "$traces/coreclr/netcore31-startup-small" >"$tmp/out" 2>&1
grep -q 'already imported (trace 1), nothing added' "$tmp/out" || fail "re-import: $(cat "$tmp/out")"
# Not a database.
expect_error not-a-db "" -d "$tmp/notes.txt" "$traces/coreclr/netcore31-startup-small"
grep -q "notes.txt" "$tmp/err" || fail "not-a-db: $(cat "$tmp/err")"

# ---- issue 25's hostile inputs: one line, exit 1, the database unchanged ----
sum0=$(cksum <"$db")
small=$traces/coreclr/netcore31-startup-small/auto-20200310-161654
# A stream file that is a FIFO: libbabeltrace2 skipped it without a word.
cp -r "$small" "$tmp/fifo"; chmod -R u+w "$tmp/fifo"
rm "$tmp/fifo/ust/uid/1000/64-bit/channel0_1"; mkfifo "$tmp/fifo/ust/uid/1000/64-bit/channel0_1"
expect_error fifo-stream "^gcscope import: $tmp/fifo/ust/uid/1000/64-bit/channel0_1: not a regular file (a FIFO, socket or device where a trace's stream file should be)\$" "$tmp/fifo"
# A stream file that is a link to /dev/zero (endless zeros).
cp -r "$small" "$tmp/zero"; chmod -R u+w "$tmp/zero"
rm "$tmp/zero/kernel/channel0_2"; ln -s /dev/zero "$tmp/zero/kernel/channel0_2"
expect_error zero-stream "^gcscope import: $tmp/zero/kernel/channel0_2: a symlink leading outside $tmp/zero (not followed: import its target itself)\$" "$tmp/zero"
# A symlink inside a trace directory to another folder of traces: not followed.
mkdir "$tmp/linkdir"; cp -r "$small" "$tmp/linkdir/t"; chmod -R u+w "$tmp/linkdir"
ln -s "$traces/coreclr" "$tmp/linkdir/more"
expect_error link-outside "^gcscope import: $tmp/linkdir/more: a symlink leading outside $tmp/linkdir (not followed: import its target itself)\$" "$tmp/linkdir"
# A link that stays inside is followed as before.
mkdir "$tmp/linkin"; cp -r "$small" "$tmp/linkin/real"; chmod -R u+w "$tmp/linkin"
ln -s real "$tmp/linkin/alias"
imp -d "$tmp/linkin.db" "$tmp/linkin" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "link-inside: exit $rc: $(cat "$tmp/err")"
grep -q "^$tmp/linkin/real: already imported (trace 1), nothing added\$" "$tmp/out" || fail "link-inside: $(cat "$tmp/out")"
# -d naming a directory.
mkdir "$tmp/dbdir"
expect_error db-is-dir "^gcscope import: $tmp/dbdir: is a directory (the database is a file: -d $tmp/dbdir/gcscope.db?)\$" -d "$tmp/dbdir" "$small"
[ -z "$(ls -A "$tmp/dbdir")" ] || fail "db-is-dir: files written into it: $(ls -A "$tmp/dbdir")"
# A zip whose entries nest 2,000 x 300 directories: refused before anything is made, fast.
python3 - "$tmp/deep.zip" "$tmp/esc.zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    for i in range(2000):
        z.writestr('/'.join(['d%d' % i] + ['x'] * 299) + '/f', b'')
with zipfile.ZipFile(sys.argv[2], 'w') as z:
    z.writestr('\x1b]0;pwned\x07\x1b[2J/../../evil', b'x')
PY
start=$(date +%s)
TMPDIR=$tmp expect_error zip-deep "^gcscope import: $tmp/deep.zip: 2000 entries nest 600000 directory levels in all, more than the 65536 a trace archive may (a directory bomb?)\$" "$tmp/deep.zip"
[ $(($(date +%s) - start)) -le 5 ] || fail "zip-deep: took $(($(date +%s) - start)) s"
[ -z "$(ls -d "$tmp"/gcscope-zip-* 2>/dev/null)" ] || fail "zip-deep: left a temporary directory"
# An entry name with escape sequences is printed with them replaced.
expect_error zip-escape "^gcscope import: $tmp/esc.zip: unsafe entry name \"?]0;pwned??\[2J/../../evil\"\$" "$tmp/esc.zip"
grep -q "$(printf '\033')" "$tmp/err" && fail "zip-escape: raw ESC printed"
[ "$(cksum <"$db")" = "$sum0" ] || fail "the database changed"

rm -rf "$tmp"
[ $fails -eq 0 ] && echo "bad_inputs: all passed"
exit $fails
