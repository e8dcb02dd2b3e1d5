#!/bin/bash
# cli_test.sh CASE GCSIM — gcsim's command line contract: --help lists every
# scenario; a bad option gives exactly one "gcsim: ..." line on stderr and
# exit 2; a run whose signature cannot hold exits 3 under --check.
set -u
CASE=$1 GCSIM=$2
WORK=$(mktemp -d /tmp/gcsim-cli-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL ($CASE): $*" >&2; for f in out err; do [ -f "$WORK/$f" ] && sed "s/^/  $f: /" "$WORK/$f" >&2; done; exit 1; }

# usage_error EXPECTED_REGEX ARGS... : exit 2, one stderr line matching, no stdout
usage_error() {
  local re=$1; shift
  "$GCSIM" "$@" >"$WORK/out" 2>"$WORK/err"
  local rc=$?
  [ $rc = 2 ] || fail "gcsim $* exited $rc, want 2"
  [ "$(wc -l <"$WORK/err")" = 1 ] || fail "gcsim $*: want exactly one stderr line"
  grep -qE "^gcsim: $re" "$WORK/err" || fail "gcsim $*: stderr does not match '^gcsim: $re'"
  [ ! -s "$WORK/out" ] || fail "gcsim $*: wrote to stdout"
}

case $CASE in
help)
  "$GCSIM" --help >"$WORK/out" 2>"$WORK/err" || fail "--help exited $?"
  for s in alloc-heavy high-survival loh-churn pinning finalizers induced slow-suspension bgc leak server; do
    grep -qE "^  $s +[a-z]" "$WORK/out" || fail "--help does not list scenario $s"
  done
  for o in --seconds --threads --alloc-mb --survival --lifetime --ring-chunk --size-min --size-max --loh-fraction \
           --poh-fraction --pin-fraction --finalizable-fraction --induce-every --requests --request-kb --check; do
    grep -qE -- "(^| )$o( |$)" "$WORK/out" || fail "--help does not document $o"
  done
  ;;
bad)
  usage_error "unknown option '--bogus'" --bogus
  usage_error "--scenario: unknown scenario 'nope'" --scenario nope
  usage_error "--scenario: missing NAME" --scenario
  usage_error "--survival: expected a number from 0 to 1, got '1.5'" --survival 1.5
  usage_error "--threads: expected an integer, got '2.5'" --threads 2.5
  usage_error "--threads: expected a number from 1 to 256, got '0'" --threads 0
  usage_error "--seconds: expected a number from 0 to 86400, got 'x'" --seconds x
  usage_error "--seconds: expected a number from 0 to 86400, got ''" --seconds
  usage_error "--lifetime: expected a count from 1 to 1e\\+08 or 'forever', got 'never'" --lifetime never
  usage_error "--size-min 5000 is larger than --size-max 4000" --size-min 5000
  usage_error "--loh-fraction \\+ --poh-fraction must not exceed 1" --loh-fraction 0.6 --poh-fraction 0.6
  usage_error "--slow-ms 300 must be shorter than --slow-every-ms 200" --slow-ms 300 --slow-every-ms 200
  RGC_GCgen0size=abc usage_error "RGC_GCgen0size: not a non-negative integer: 'abc'" --seconds 0
  ;;
alloc-limit)
  # --alloc-mb ends the run long before --seconds; gcsim's byte counts add up.
  "$GCSIM" --alloc-mb 50 --seconds 60 --threads 1 >"$WORK/out" 2>"$WORK/err" || fail "exit $?"
  soh=$(sed -n 's/^soh_allocated_bytes=//p' "$WORK/out")
  secs=$(sed -n 's/^seconds_taken=//p' "$WORK/out")
  [ -n "$soh" ] && [ "$soh" -ge 50000000 ] || fail "soh_allocated_bytes=$soh, want >= 50000000"
  # one thread stops within one 256 KB flush (262144) plus one object (< 4200 B) of the limit
  [ "$soh" -le 50270000 ] || fail "soh_allocated_bytes=$soh overshoots 50 MB by more than a 256 KB flush and one object"
  awk -v s="$secs" 'BEGIN { exit !(s < 30) }' || fail "ran $secs s: the allocation limit did not end the run"
  ;;
leak-negative)
  # Survivors that die (finite lifetime) do not leak: the leak signature must fail
  # (~14 full GCs: a chance strictly growing series is out of reach).
  "$GCSIM" --scenario leak --lifetime 50 --induce-every 100 --seconds 1.5 --check >"$WORK/out" 2>"$WORK/err"
  rc=$?
  [ $rc = 3 ] || fail "exit $rc, want 3 (signature not met)"
  grep -q '^signature=not-met$' "$WORK/out" || fail "no signature=not-met line"
  grep -qE '^gcsim: scenario leak: signature not met: live heap after full GCs grew in only' "$WORK/err" || fail "stderr reason"
  ;;
survival-negative)
  # Half of the objects surviving is not alloc-heavy's signature.
  "$GCSIM" --scenario alloc-heavy --survival 0.5 --lifetime 5000 --seconds 1 --check >"$WORK/out" 2>"$WORK/err"
  rc=$?
  [ $rc = 3 ] || fail "exit $rc, want 3 (signature not met)"
  grep -qE 'ephemeral GCs promote 0\.[0-9]+ of gen0 \(want <= 0\.05' "$WORK/err" || fail "stderr reason"
  ;;
*) fail "unknown case" ;;
esac
