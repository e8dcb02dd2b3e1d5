#!/usr/bin/env bash
# native_vs_bt.sh corpus CTF_DUMP GCSCOPE TRACES TMP
# native_vs_bt.sh rgc    CTF_DUMP GCSCOPE GCSIM TMP   (label lttng)
#
# The native CTF reader gives the records libbabeltrace2 gives, record by
# record: `ctf_dump -a` (time, pid, tid, cpu, name, procname and whether it is
# the environment's, every decoded field, version, origin, truncation, payload
# errors, bin_info, the stack, every discarded-events record with its count,
# stream and time, and the stats: events, decoded, discarded, first, last,
# hostname) under GCSCOPE_CTF_READER=native and =babeltrace2 must be the same
# bytes, in the same order. The reference is babeltrace2's own reading.
#
# Order: the native reader merges the streams by time and breaks ties by
# stream file name (then by position in the stream); babeltrace2's muxer gives
# the same order on every trace here, and the comparison is exact, ties
# included: nothing is allowed to differ.
#
#   corpus: every CoreCLR trace in TRACES/coreclr (lttng-ust 2.9-era packed
#           and per-field events, lttng-modules kernel streams); then the
#           imports under both readers give the same `gcscope stats` and
#           `gcscope events` output.
#   rgc:    gcsim recorded with `gcscope record` under the gc, alloc and
#           verbose profiles and with --stacks (bin_info statedump events,
#           per-process buffers: vpid/procname from the environment), and a
#           per-uid session with procname contexts and 4 KiB sub-buffers that
#           loses events (discarded-event records).
set -u
mode=$1 dump=$2 g=$3
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=../support/ctf_readers.sh
. "$(dirname "$0")/../support/ctf_readers.sh"

# same NAME DIR: both readers' records of DIR are the same; echo the count.
same() {
  local n=$1 out=$tmp/$1
  ctf_readers_same "$1" "$2" "$out"
  grep -q '^STATS ' "$out.native" || fail "$n: no STATS line"
}
count() { grep -c -- "$1" "$tmp/$2.native"; }

case $mode in
corpus)
  traces=$4 tmp=$5
  rm -rf "$tmp"; mkdir -p "$tmp"
  total=0
  for d in "$traces"/coreclr/*/; do
    n=$(basename "$d")
    same "$n" "$d"
    c=$(grep -vc '^\(SESSION\|STATS\|LOST\) ' "$tmp/$n.native")
    echo "ok: $n: $c records the same"
    total=$((total + c))
  done
  [ "$total" -gt 30000 ] || fail "only $total records in the corpus"
  # The imports: the same reports.
  t=$traces/coreclr/netcore31-perfcollect-default
  for r in native babeltrace2; do
    GCSCOPE_CTF_READER=$r "$g" import -q -d "$tmp/$r.db" "$t" >"$tmp/$r.imp" 2>&1 || { cat "$tmp/$r.imp"; fail "import ($r)"; }
    { "$g" stats "$tmp/$r.db" --no-pager && "$g" events "$tmp/$r.db"; } >"$tmp/$r.rep" 2>&1 || fail "reports ($r)"
  done
  cmp -s "$tmp/native.rep" "$tmp/babeltrace2.rep" || { diff "$tmp/babeltrace2.rep" "$tmp/native.rep" | head -5; fail "reports differ"; }
  [ "$(wc -l <"$tmp/native.rep")" -gt 500 ] || fail "short reports"
  echo "ok: $total records; gcscope stats and events the same ($(wc -l <"$tmp/native.rep") lines)"
  ;;
rgc)
  gcsim=$4 tmp=$5
  rm -rf "$tmp"; mkdir -p "$tmp"
  command -v lttng >/dev/null && command -v babeltrace2 >/dev/null || { echo "SKIP: no lttng/babeltrace2"; exit 77; }
  for p in gc alloc verbose stacks; do
    opt=(--profile "$p"); [ "$p" = stacks ] && opt=(--profile alloc --stacks)
    "$g" record -o "$tmp/rec-$p" "${opt[@]}" -- "$gcsim" --scenario alloc-heavy --seconds 1 \
      >"$tmp/rec-$p.log" 2>&1 || { tail -3 "$tmp/rec-$p.log"; fail "record $p"; }
    same "$p" "$tmp/rec-$p"
    echo "ok: $p: $(count '' "$p") lines the same"
  done
  # per-process buffers: the environment names the process, on every event
  [ "$(count ' \[gcsim\] env' gc)" -gt 1000 ] || fail "gc: events without the environment's procname"
  [ "$(count ' BIN ' stacks)" -gt 0 ] || fail "stacks: no bin_info record"
  [ "$(count ' | STACK ' stacks)" -gt 1000 ] || fail "stacks: no stacks"
  # A lossy per-uid session (procname context, 4 KiB sub-buffers).
  # shellcheck source=../support/rgc_trace.sh
  . "$(dirname "$0")/../support/rgc_trace.sh"
  trap rgc_trace_close EXIT
  s=gcs-native-lossy-$$
  lttng create "$s" --output="$tmp/lossy" >"$tmp/lossy.log" 2>&1 &&
    lttng enable-channel -u -s "$s" --subbuf-size=4096 --num-subbuf=2 --buffers-uid lc >>"$tmp/lossy.log" 2>&1 &&
    lttng enable-event -u -s "$s" -c lc 'rgc:*' >>"$tmp/lossy.log" 2>&1 &&
    lttng add-context -u -s "$s" -c lc -t vpid -t vtid -t procname >>"$tmp/lossy.log" 2>&1 &&
    lttng start "$s" >>"$tmp/lossy.log" 2>&1 || { RGC_TRACE_SESSION=$s; tail -2 "$tmp/lossy.log"; fail "lttng"; }
  RGC_TRACE_SESSION=$s
  "$gcsim" --scenario alloc-heavy --seconds 1 >/dev/null 2>&1 || fail "gcsim"
  lttng stop "$s" >>"$tmp/lossy.log" 2>&1
  rgc_trace_close; RGC_TRACE_SESSION=
  same lossy "$tmp/lossy"
  [ "$(count '^LOST ' lossy)" -gt 0 ] || fail "lossy: no discarded events (the session lost none?)"
  [ "$(count ' \[gcsim\] v' lossy)" -gt 1000 ] || fail "lossy: no procname context"
  echo "ok: lossy: $(count '' lossy) lines the same, $(count '^LOST ' lossy) discarded-event records"
  ;;
*) fail "mode $mode" ;;
esac
