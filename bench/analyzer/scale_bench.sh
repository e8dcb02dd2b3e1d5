#!/bin/bash
# scale-bench [GCSCOPE] — the reports at scale, two parts:
#
# 1. The reports on 100,000 GCs and 1,000,000 handle events (a database
#    generated in gcscope's schema by tests/insight/scale.py): the median of 3
#    runs of each report and its ratio to a `SELECT count(*)` pass over the
#    same database, measured in the same run.
#
# 2. The views on a recorded database of 69,500 GCs and 3.0 M events
#    (views_bench.py, issue 27 item 4): `events | tail -1`, `heaps`,
#    `export --format chrome-json` and `top`'s first and first complete
#    frame, each a process of its own, SCALE_ROUNDS rounds (default 7), median
#    (lowest-highest). The database: `gcscope record --profile alloc --
#    gcsim --scenario alloc-heavy --alloc-mb 146000` with RGC_GCgen0size=
#    2500000 (a 2.5 MB gen0 budget: 69,467 GCs, 2,954,400 events, 150 MB),
#    imported; this needs a running lttng-sessiond (else SCALE_VIEWS_DB=DB
#    names a database to use; part 2 is skipped when there is neither).
#    GCSCOPE_BASE=GCSCOPE2 runs an older build in the same rounds,
#    alternating, and prints the ratios (an old build: `git worktree add
#    /tmp/old main && bash .ci/build /tmp/old/build` in /tmp/old).
#    SCALE_PART=1 or 2 runs one part only.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
GCSCOPE=${1:-$ROOT/build/bin/gcscope}
WORK=$(mktemp -d /tmp/gcscope-scale.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
part=${SCALE_PART:-all}
if [ "$part" != 2 ]; then
  python3 "$ROOT/tests/insight/scale.py" "$GCSCOPE" "$ROOT/../shared/traces/coreclr/netcore31-startup-small" "$WORK" --bench
fi
[ "$part" = 1 ] && exit 0
db=${SCALE_VIEWS_DB:-}
if [ -z "$db" ]; then
  if ! lttng list >/dev/null 2>&1; then
    echo "views: skipped (no lttng-sessiond answers; SCALE_VIEWS_DB=DB names a database)"
    exit 0
  fi
  gcsim=$(dirname "$GCSCOPE")/gcsim
  RGC_GCgen0size=2500000 "$GCSCOPE" record -o "$WORK/trace" --profile alloc -- \
    "$gcsim" --scenario alloc-heavy --seconds 600 --alloc-mb 146000 --quiet >"$WORK/record.log" 2>&1 ||
    { cat "$WORK/record.log"; exit 1; }
  "$GCSCOPE" import -q -d "$WORK/views.db" "$WORK/trace" >/dev/null
  rm -rf "$WORK/trace"
  db=$WORK/views.db
fi
echo "views: $("$GCSCOPE" sql "$db" "SELECT count(*) FROM gcs" | tail -1 | tr -d ' ') GCs," \
     "$("$GCSCOPE" sql "$db" "SELECT sum(event_count) FROM traces" | tail -1 | tr -d ' ') events"
python3 "$HERE/views_bench.py" "$GCSCOPE" "$db" --rounds "${SCALE_ROUNDS:-7}" ${GCSCOPE_BASE:+--base "$GCSCOPE_BASE"} \
  --work "$WORK"
