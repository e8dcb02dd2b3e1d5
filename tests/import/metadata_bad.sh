#!/bin/sh
# metadata_bad.sh GCSCOPE_BIN TRACES_DIR TMPDIR — a CTF trace whose metadata
# file is empty, garbage (bytes, text) or a plain-text metadata cut short:
# one gcscope line naming the metadata file, exit 1, no database left (was
# libbabeltrace2's "Cannot create trace for `DIR`.", naming no file).
set -u
gcscope=$1; traces=$2; tmp=$3/metadata_bad
rm -rf "$tmp"; mkdir -p "$tmp"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
cp -r "$traces/coreclr/netcore31-perfcollect-default/lttngTrace" "$tmp/t"; chmod -R u+w "$tmp/t"
d=$tmp/t/auto-20200317-170407/ust/uid/1000/64-bit
m=$d/metadata
# The plain-text form of the same metadata (babeltrace2's own rendering).
babeltrace2 --output-format=ctf-metadata "$d" >"$tmp/plain.txt" || fail "babeltrace2 ctf-metadata"

# case NAME LINE: import gives exactly LINE on stderr, exit 1, no database
case_() {
  name=$1; want=$2
  "$gcscope" import -d "$tmp/x.db" "$tmp/t" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 1 ] || fail "$name: exit $rc, want 1"
  [ "$(cat "$tmp/err")" = "$want" ] || fail "$name: stderr '$(cat "$tmp/err")', want '$want'"
  [ ! -e "$tmp/x.db" ] || fail "$name: a database was left"
}

: >"$m"
case_ empty "gcscope import: $d/metadata: empty file (a trace's metadata describes its streams: none can be read)"
printf '\001\002\003\004garbage\377\376' >"$m"
case_ bytes "gcscope import: $d/metadata: unreadable metadata: not CTF 1.8 metadata (libbabeltrace2 cannot read it either)"
echo 'garbage text {' >"$m"
case_ text "gcscope import: $d/metadata: unreadable metadata: not CTF 1.8 metadata (libbabeltrace2 cannot read it either)"
head -c 5000 "$tmp/plain.txt" >"$m"
case_ cut-text "gcscope import: $d/metadata: unreadable metadata: cut short (the text ends inside a declaration) (libbabeltrace2 cannot read it either)"
# (the whole plain text reads: the cases above fail for what was done to it)
cp "$tmp/plain.txt" "$m"
"$gcscope" import -q -d "$tmp/x.db" "$tmp/t" 2>"$tmp/err" || fail "whole plain text: $(cat "$tmp/err")"

[ $fails -eq 0 ] || exit 1
echo "metadata_bad: ok"
