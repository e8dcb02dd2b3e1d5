#!/bin/bash
# scale-bench [GCSCOPE] — the reports on 100,000 GCs and 1,000,000 handle
# events (a database generated in gcscope's schema by tests/insight/scale.py):
# the median of 3 runs of each report and its ratio to a `SELECT count(*)`
# pass over the same database, measured in the same run.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
GCSCOPE=${1:-$ROOT/build/bin/gcscope}
WORK=$(mktemp -d /tmp/gcscope-scale.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
python3 "$ROOT/tests/insight/scale.py" "$GCSCOPE" "$ROOT/../shared/traces/coreclr/netcore31-startup-small" "$WORK" --bench
