#!/bin/sh
# gcsim_diff.sh GCSCOPE GCSIM TMP — gcsim's alloc-heavy (short gen0 pauses)
# against high-survival (survivors promoted: gen1 GCs, pauses of ms): the diff
# calls the pauses a regression and --fail-on 'p99_pause>+10%' exits 1; the
# other way round, an improvement, exit 0. Records with LTTng (label lttng).
set -u
G=$1 SIM=$2 TMP=$3
rm -rf "$TMP"; mkdir -p "$TMP"
fail() { echo "FAIL: $*"; exit 1; }
"$G" record -o "$TMP/ah" -- "$SIM" --scenario alloc-heavy --seconds 2 >/dev/null 2>&1 || fail "record alloc-heavy"
"$G" record -o "$TMP/hs" -- "$SIM" --scenario high-survival --seconds 2 >/dev/null 2>&1 || fail "record high-survival"
"$G" diff -d "$TMP/d.db" "$TMP/ah" "$TMP/hs" --fail-on 'p99_pause>+10%' >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/out" "$TMP/err"
[ $rc -eq 1 ] || fail "exit $rc, expected 1"
grep -q '^pauses: regression (Mann-Whitney' "$TMP/out" || fail "no regression verdict"
grep -q -- '--fail-on p99_pause>+10%: HOLDS' "$TMP/err" || fail "the rule is not named as holding"
"$G" diff -d "$TMP/d.db" "$TMP/hs" "$TMP/ah" --fail-on 'p99_pause>+10%' >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] || fail "reverse: exit $rc, expected 0"
grep -q '^pauses: improvement (Mann-Whitney' "$TMP/out" || fail "reverse: no improvement verdict"
echo ok
