#!/bin/sh
# run.sh BUILD_DIR [SECONDS] — build the libFuzzer targets with clang into
# BUILD_DIR, replay the committed corpus through each (every seed must pass),
# then fuzz each target for SECONDS (default 20) from that corpus, new inputs
# going to a scratch directory (the committed corpus is not changed). Prints,
# per target: the seeds replayed, executions per second and coverage (edges,
# features) at the end. Exit status: 0, or 1 when a target crashed, leaked,
# hung (10 s an input) or ran out of memory (2 GB): the reproducer is
# BUILD_DIR/crashes/<target>/. Without clang it says so and exits 0 (skipped).
# The fuzzer's random seed is fixed (GCSCOPE_FUZZ_SEED, default 1) so that a
# CI run explores as the run before it did and a submission's gate does not
# depend on luck; set another seed (or 0: libFuzzer picks one) to explore.
set -u
build=$1; secs=${2:-20}
seed=${GCSCOPE_FUZZ_SEED:-1}
src=$(cd "$(dirname "$0")" && pwd)
cc=$(command -v clang || command -v clang-14 || true)
if [ -z "$cc" ]; then
  echo "fuzz: SKIPPED: clang not installed (apt-get install clang libclang-rt-14-dev)"
  exit 0
fi
cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
cmake --build "$build" -j"$(nproc)" >/dev/null || { cmake --build "$build" 2>&1 | tail -20; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
tmp=$build/tmp; mkdir -p "$tmp"; export TMPDIR=$tmp
status=0
for t in nettrace nettrace_live zip dsipc stacks ctf; do
  seeds="$src/corpus/$t"
  [ "$t" = nettrace ] && seeds="$seeds $src/../nettrace/corpus"
  new=$build/new/$t; crashes=$build/crashes/$t
  rm -rf "$new"; mkdir -p "$new" "$crashes"
  log=$build/$t.log
  # shellcheck disable=SC2086
  "$build/bin/fuzz_$t" -seed="$seed" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
    -print_final_stats=1 -artifact_prefix="$crashes/" "$new" $seeds >"$log" 2>&1
  rc=$?
  n=$(find $seeds -type f | wc -l)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
  if [ $rc -ne 0 ]; then
    echo "fuzz $t: FAILED (exit $rc), reproducer in $crashes:"; grep -m5 -E 'ERROR|SUMMARY|==[0-9]+==' "$log"
    status=1
  else
    printf 'fuzz %-14s %3d seeds, %8s runs in %s s, %6s exec/s, %s\n' "$t" "$n" "$execs" "$secs" "$eps" "$cov"
  fi
done
rm -rf "$tmp"
exit $status
