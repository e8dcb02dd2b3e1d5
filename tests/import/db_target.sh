#!/bin/sh
# db_target.sh GCSCOPE_BIN TRACES_DIR TMPDIR — what `gcscope import -d DB`
# refuses before it writes anything: a DB that is a FIFO, a character
# device, a socket, or a link to one (SQLite wrote to them: /dev/full gave
# "database or disk is full" and left /dev/full-journal), and a gcscope
# database with a table dropped (the import made the table again, empty,
# and added its trace with exit 0), a view over it or its schema version
# telling; a link to a regular database is fine.
# Each refusal: exactly one line, exit 1, nothing created beside it, the
# file unchanged.
set -u
gcscope=$1; traces=$2; tmp=$3/db_target
rm -rf "$tmp"; mkdir -p "$tmp"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
small=$traces/coreclr/netcore2017-gcstart-gcend

# refused NAME DB LINE: exit 1, stderr exactly LINE, no DB-journal left
refused() {
  name=$1; db=$2; want=$3
  "$gcscope" import -d "$db" "$small" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 1 ] || fail "$name: exit $rc, want 1"
  [ "$(cat "$tmp/err")" = "$want" ] || fail "$name: stderr '$(cat "$tmp/err")', want '$want'"
  [ ! -s "$tmp/out" ] || fail "$name: stdout '$(cat "$tmp/out")'"
  [ ! -e "$db-journal" ] || fail "$name: $db-journal left"
}

mkfifo "$tmp/fifo"
refused fifo "$tmp/fifo" "gcscope import: $tmp/fifo: is a FIFO, not a database file (nothing written)"
[ -p "$tmp/fifo" ] || fail "fifo: no longer a FIFO"
# A device node of our own (the numbers of /dev/full), never /dev/full itself.
if mknod "$tmp/full" c 1 7 2>/dev/null; then
  refused chardev "$tmp/full" "gcscope import: $tmp/full: is a character device, not a database file (nothing written)"
  [ -c "$tmp/full" ] || fail "chardev: no longer a character device"
  ln -s "$tmp/full" "$tmp/full-link"
  refused chardev-link "$tmp/full-link" "gcscope import: $tmp/full-link: is a character device, not a database file (nothing written)"
else
  echo "note: mknod not permitted: the device cases are skipped"
fi
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$tmp/sock"
refused socket "$tmp/sock" "gcscope import: $tmp/sock: is a socket, not a database file (nothing written)"
[ -S "$tmp/sock" ] || fail "socket: no longer a socket"

# A link to a regular database: imported into the file it names.
"$gcscope" import -q -d "$tmp/real.db" "$traces/nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace" || fail "real.db"
ln -s real.db "$tmp/link.db"
"$gcscope" import -q -d "$tmp/link.db" "$small" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "link to a regular file: exit $rc: $(cat "$tmp/err")"
[ "$(sqlite3 "$tmp/real.db" 'SELECT count(*) FROM traces')" = 2 ] || fail "link: real.db does not hold 2 traces"
[ -L "$tmp/link.db" ] || fail "link: no longer a link"

# A database with a table dropped: refused as the reports refuse it, untouched.
"$gcscope" import -q -d "$tmp/nt.db" "$traces/nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace" || fail "nt.db"
for t in gcs_base gc_heaps_base event_blocks; do
  cp "$tmp/nt.db" "$tmp/d.db"
  sqlite3 "$tmp/d.db" "DROP TABLE $t"
  sum=$(cksum <"$tmp/d.db")
  # the first view (by name) that does not read for want of it (the plain
  # sqlite3 shell lacks gcscope's functions: only that reason counts)
  view=$(sqlite3 "$tmp/d.db" "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name" | while read -r v; do
    sqlite3 "$tmp/d.db" "SELECT * FROM \"$v\" LIMIT 0" 2>&1 | grep -q "no such table: main.$t" && { echo "$v"; break; }; done)
  [ -n "$view" ] || fail "drop $t: no view of it fails to read (the test's own check)"
  refused "drop-$t" "$tmp/d.db" "gcscope import: $tmp/d.db: damaged database: view $view does not read (no such table: main.$t)"
  [ "$(cksum <"$tmp/d.db")" = "$sum" ] || fail "drop $t: the file changed"
  # and a report importing into it says the same
  "$gcscope" stats -d "$tmp/d.db" "$small" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "gcscope stats: $tmp/d.db: damaged database: view $view does not read (no such table: main.$t)" ] ||
    fail "stats -d, drop $t: exit $rc, '$(cat "$tmp/err")'"
  [ "$(cksum <"$tmp/d.db")" = "$sum" ] || fail "stats -d, drop $t: the file changed"
done

# A table no view reads (frames, stacks, trigger_firings, gc_loh_waits):
# nothing above sees it gone, but the database's schema version (PRAGMA
# user_version: 13, the tables added since the first release) says it had
# it: refused, untouched (before: made again, empty, and the import went on).
ver=$(sqlite3 "$tmp/nt.db" "PRAGMA user_version")
[ "$ver" = 13 ] || fail "a new database: schema version '$ver', want 13"
for t in frames stacks trigger_firings gc_loh_waits; do
  cp "$tmp/nt.db" "$tmp/d.db"
  sqlite3 "$tmp/d.db" "DROP TABLE $t"
  sum=$(cksum <"$tmp/d.db")
  line="$tmp/d.db: damaged database: table $t is missing (dropped: schema version 13 has it)"
  refused "drop-$t" "$tmp/d.db" "gcscope import: $line"
  [ "$(cksum <"$tmp/d.db")" = "$sum" ] || fail "drop $t: the file changed"
  "$gcscope" stats "$tmp/d.db" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "gcscope stats: $line" ] && [ ! -s "$tmp/out" ] ||
    fail "stats, drop $t: exit $rc, '$(cat "$tmp/err")'"
  [ "$(cksum <"$tmp/d.db")" = "$sum" ] || fail "stats, drop $t: the file changed"
done
# A genuinely older database lacks such a table: version 0 (before
# versions), or 3 (made when trigger_firings, event_blocks and stacks were
# the tables added, not yet frames): brought up to date, the table made,
# empty, the version set to 13; an import and a report both do it.
for v in 0 3; do
  for cmd in import stats; do
    cp "$tmp/nt.db" "$tmp/o.db"
    sqlite3 "$tmp/o.db" "DROP TABLE frames; DROP TABLE stack_symbols; PRAGMA user_version = $v"
    if [ $cmd = import ]; then "$gcscope" import -q -d "$tmp/o.db" "$small" 2>"$tmp/err"; rc=$?
    else "$gcscope" stats "$tmp/o.db" >"$tmp/out" 2>"$tmp/err"; rc=$?; fi
    [ $rc -eq 0 ] || fail "version $v, $cmd: exit $rc: $(cat "$tmp/err")"
    got=$(sqlite3 "$tmp/o.db" "SELECT count(*) FROM frames; SELECT count(*) FROM stack_symbols; PRAGMA user_version" | tr '\n' ' ')
    [ "$got" = "0 0 13 " ] || fail "version $v, $cmd: frames, stack_symbols and the version: '$got', want '0 0 13 '"
  done
done

[ $fails -eq 0 ] || exit 1
echo "db_target: ok"
