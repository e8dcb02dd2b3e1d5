#!/bin/sh
# advise_matrix.sh GCSCOPE GCSIM CHECKER WORKDIR [SCENARIO...] — records a short
# run of every gcsim scenario with `gcscope record --import` (LTTng; label
# lttng, RESOURCE_LOCK lttng), runs `gcscope advise --format json` on each
# trace and lets advise_matrix_check.py assert, per scenario, the expected
# top finding and that no finding of a wrong kind is there (the table is in
# the checker). Exit 77 (skipped) without lttng; a scenario gcsim cannot run
# here (exit 77: no server or background GC in this librgc) is skipped with a
# SKIP line and the others still count.
set -u
G=$1 SIM=$2 CHECK=$3 WORK=$4
shift 4
SCENARIOS=${*:-alloc-heavy high-survival loh-churn pinning finalizers induced slow-suspension bgc leak server}
command -v lttng >/dev/null 2>&1 || { echo "SKIP: lttng is not installed"; exit 77; }
rm -rf "$WORK"
mkdir -p "$WORK"
DB=$WORK/matrix.db
fail=0 ran=0
# A scenario's findings come from a 2 s wall-clock run, which the machine's
# load shapes (suspension times, how far the finalizer thread falls behind):
# one that fails its check is recorded once more (a RETRY line with the first
# run's failure; its files keep the suffix .1), and fails only if that fails
# too. A wrong advisor fails both.
run() {
  s=$1
  # bgc warms its heap up for about 1.5 s: 6 s show the plateau (not a leak).
  secs=2
  [ "$s" = bgc ] && secs=6
  rm -rf "$WORK/$s"
  "$G" record -o "$WORK/$s" --import -d "$DB" -- "$SIM" --scenario "$s" --seconds "$secs" >"$WORK/$s.log" 2>&1
  rc=$?
  if grep -q "^gcsim: scenario $s needs .* GC, which this librgc cannot create" "$WORK/$s.log"; then
    echo "SKIP $s: $(grep '^gcsim: scenario' "$WORK/$s.log" | head -1)"
    return 3
  fi
  # The trace record --import stored, by its path (the newest: a retry's).
  id=$("$G" sql "$DB" "SELECT max(id) FROM traces WHERE path = '$WORK/$s'" --csv 2>/dev/null | sed -n 2p)
  if [ $rc -ne 0 ] || [ -z "$id" ]; then
    if [ $ran -eq 0 ] && grep -qi 'lttng\|session daemon\|sessiond' "$WORK/$s.log"; then
      echo "SKIP: LTTng is not usable here: $(tail -1 "$WORK/$s.log")"
      exit 77
    fi
    echo "FAIL $s: gcscope record exited $rc"
    tail -5 "$WORK/$s.log" | sed 's/^/  /'
    return 1
  fi
  "$G" advise "$DB" --trace "$id" --format json >"$WORK/$s.json" 2>"$WORK/$s.adv.err" || {
    echo "FAIL $s: gcscope advise exited $?"; cat "$WORK/$s.adv.err"; return 1; }
  python3 "$CHECK" "$s" "$WORK/$s.json"
}
for s in $SCENARIOS; do
  out=$(run "$s" 2>&1)
  rc=$?
  [ $rc -eq 77 ] && { echo "$out"; exit 77; }
  if [ $rc -eq 1 ]; then
    echo "RETRY $s: $out"
    for f in "$WORK/$s.log" "$WORK/$s.json" "$WORK/$s.adv.err"; do
      [ -e "$f" ] && mv "$f" "$f.1"
    done
    out=$(run "$s" 2>&1)
    rc=$?
    [ $rc -eq 77 ] && { echo "$out"; exit 77; }
  fi
  echo "$out"
  [ $rc -eq 3 ] && continue
  [ $rc -eq 0 ] || fail=1
  ran=$((ran + 1))
done
[ $ran -gt 0 ] || { echo "SKIP: no scenario could be recorded"; exit 77; }
[ $fail -eq 0 ] && echo "ok: $ran scenarios"
exit $fail
