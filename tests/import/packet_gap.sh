#!/usr/bin/env bash
# packet_gap.sh GCSCOPE CTF_DUMP TRACES TMP — a gap in a stream's
# packet_seq_num (missing packets: a deleted middle file, an overwritten
# sub-buffer, a damaged copy) is a lost record of an unknown count of events
# (counted 1, CTF_LOST_UNKNOWN) in both CTF readers, at the end of the gap,
# as libbabeltrace2 2.0's discarded-packets message gives it.
#
# The trace: netcore31-perfcollect-default (.NET Core 3.1, per-uid, 4 stream
# files channel0_0.._3 of 512 KiB packets, packet_seq_num 0, 1, 2, ... in each).
# Hand-edited copies: channel0_1's third packet (byte 1048576; its
# packet_seq_num is the u64 at byte 64 of the packet: after the 32-byte packet
# header, timestamp_begin, timestamp_end, content_size, packet_size) gets
#   3 (a gap 1 -> 3: one packet missing),
#   1 (the same number again: no gap there, then 1 -> 3 at the fourth packet),
#   0 (the number goes back: libbabeltrace2 reports it as a gap of 2^64 - 2
#     packets, then 0 -> 3 a gap of 2: two lost records, as libbabeltrace2).
# Expected values, computed independently:
#   - from the bytes: each packet's timestamp_begin/_end + the metadata's clock
#     offset (freq 1 GHz): the lost record's time is the begin of the packet
#     after the gap, its stream the file's path;
#   - from babeltrace2's own text output (--clock-seconds): its "Tracer
#     discarded N packet(s) between [A] and [B] ... within stream S" warnings:
#     one per lost record, B its time, A the previous packet's end, S its stream;
#   - the GCs open at the gap (GCStart_V2 to the process's next
#     GCRestartEEEnd_V1, from babeltrace2's text) are those marked incomplete
#     (here none: every packet boundary of this trace lies between GCs), and
#     `gcscope stats` counts every GCStart_V2 of the process as complete.
set -u
g=$1 dump=$2 traces=$3 tmp=$4
src=$traces/coreclr/netcore31-perfcollect-default/lttngTrace/auto-20200317-170407
command -v babeltrace2 >/dev/null || { echo "SKIP: no babeltrace2"; exit 77; }
rm -rf "$tmp"; mkdir -p "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
s=ust/uid/1000/64-bit
t=$tmp/t
support=$(cd "$(dirname "$0")/../support" && pwd)
packets_py=$support/ctf_packets.py

# edit V: a fresh copy with channel0_1's third packet's packet_seq_num set to V
edit() {
  rm -rf "$t"; cp -r "$src" "$t"; chmod -R u+w "$t"
  python3 "$packets_py" set-u64 "$t/$s/channel0_1" $((1048576 + 64)) "$1"
}

# gaps: from the bytes, per gap "stream prev_end_ns begin_ns" (babeltrace2's rule:
# the number is not the previous packet's + 1 modulo 2^64, nor the same)
gaps() {
  PYTHONPATH=$support python3 - "$t/$s" <<'EOF'
import sys
from ctf_packets import clock_offset, packets, stream_files
d = sys.argv[1]
for p in stream_files(d):
    pk = packets(p, clock_offset(d))
    for prev, cur in zip(pk, pk[1:]):
        if (cur.seq - prev.seq) % 2**64 > 1:
            print(p, prev.end, cur.begin)
EOF
}

# bt_gaps: babeltrace2's discarded-packets warnings, "stream begin_ns end_ns count"
bt_gaps() {
  babeltrace2 --clock-seconds "$t" >/dev/null 2>"$tmp/bt.err" || fail "babeltrace2: $(head -1 "$tmp/bt.err")"
  python3 - "$tmp/bt.err" <<'EOF'
import re, sys
for m in re.finditer(r'Tracer discarded (\d+) packets? between \[(\d+)\.(\d{9})\] and \[(\d+)\.(\d{9})\]'
                     r' in trace .* within stream "([^"]*)"', open(sys.argv[1]).read()):
    print(m.group(6), int(m.group(2)) * 10**9 + int(m.group(3)), int(m.group(4)) * 10**9 + int(m.group(5)),
          m.group(1))
EOF
}

# check NAME NGAPS: both readers' records are the same bytes; the lost records
# are the gaps of the bytes and babeltrace2's warnings
check() {
  local n=$1 want=$2
  GCSCOPE_CTF_READER=native "$dump" -a "$t" >"$tmp/$n.native" 2>"$tmp/err" || fail "$n: native: $(head -1 "$tmp/err")"
  GCSCOPE_CTF_READER=babeltrace2 "$dump" -a "$t" >"$tmp/$n.bt" 2>"$tmp/err" || fail "$n: babeltrace2: $(head -1 "$tmp/err")"
  cmp -s "$tmp/$n.native" "$tmp/$n.bt" || { diff "$tmp/$n.bt" "$tmp/$n.native" | head -4; fail "$n: the readers differ"; }
  gaps >"$tmp/$n.gaps"
  bt_gaps >"$tmp/$n.btgaps"
  [ "$(wc -l <"$tmp/$n.gaps")" = "$want" ] || fail "$n: $(wc -l <"$tmp/$n.gaps") gaps in the bytes, want $want"
  # the records: LOST 1 STREAM END, in the bytes' order (one stream)
  awk '{print "LOST 1", $1, $3}' "$tmp/$n.gaps" >"$tmp/$n.want"
  grep '^LOST ' "$tmp/$n.native" >"$tmp/$n.lost"
  cmp -s "$tmp/$n.want" "$tmp/$n.lost" || fail "$n: lost records '$(cat "$tmp/$n.lost")', want '$(cat "$tmp/$n.want")'"
  # babeltrace2's warnings: the same streams and time ranges
  awk '{print $1, $2, $3}' "$tmp/$n.btgaps" >"$tmp/$n.btwant"
  cmp -s "$tmp/$n.gaps" "$tmp/$n.btwant" || fail "$n: babeltrace2 says '$(cat "$tmp/$n.btgaps")', the bytes '$(cat "$tmp/$n.gaps")'"
  grep -q "^STATS .* discarded=$want gaps=$want " "$tmp/$n.native" || fail "$n: $(grep '^STATS' "$tmp/$n.native")"
  echo "ok: $n: $want lost record(s) at $(awk '{printf "%s ", $3}' "$tmp/$n.gaps")as babeltrace2 ($(awk '{printf "%s ", $4}' "$tmp/$n.btgaps")packets)"
}

edit 3; check bumped 1
[ "$(awk '{print $4}' "$tmp/bumped.btgaps")" = 1 ] || fail "bumped: babeltrace2 counts $(awk '{print $4}' "$tmp/bumped.btgaps") packets"
read -r stream _ gap_ns < "$tmp/bumped.gaps"

# the import: the lost record, the total, one warning line
for reader in native babeltrace2; do
  rm -f "$tmp/$reader.db"
  GCSCOPE_CTF_READER=$reader "$g" import -d "$tmp/$reader.db" "$t" >"$tmp/imp.out" 2>&1 || fail "import ($reader): $(head -1 "$tmp/imp.out")"
  want="$t: warning: 1 gap of missing packets (events unknown): nearby GCs marked incomplete"
  [ "$(grep -c warning "$tmp/imp.out")" = 1 ] && grep -qxF "$want" "$tmp/imp.out" || fail "import ($reader): $(cat "$tmp/imp.out")"
  grep -q ", 1 discarded$" "$tmp/imp.out" || fail "import ($reader): $(head -1 "$tmp/imp.out")"
  [ "$("$g" sql "$tmp/$reader.db" "SELECT discarded FROM traces" --csv | tail -n +2)" = 1 ] || fail "import ($reader): traces.discarded"
  got=$("$g" sql "$tmp/$reader.db" "SELECT stream, ts_ns, count FROM lost_events" --csv | tail -n +2)
  [ "$got" = "$stream,$gap_ns,1" ] || fail "import ($reader): lost_events '$got', want '$stream,$gap_ns,1'"
done
echo "ok: import: lost_events $stream,$gap_ns,1; traces.discarded 1; one warning line"

# stats: the GCs open at the gap (it begins at the previous packet's end, where
# the reader reports the record) are incomplete, every other GC complete
babeltrace2 --clock-seconds "$t" 2>/dev/null | python3 -c '
import re, sys
gap = int(sys.argv[1])
start, done, total = {}, {}, {}
for line in sys.stdin:
    m = re.match(r"\[(\d+)\.(\d{9})\] .* DotNETRuntime:(GCStart_V2|GCRestartEEEnd_V1): .*vpid = (\d+)", line)
    if not m:
        continue
    ts, pid = int(m.group(1)) * 10**9 + int(m.group(2)), int(m.group(4))
    if m.group(3) == "GCStart_V2":
        start[pid] = ts
        total[pid] = total.get(pid, 0) + 1
    elif pid in start:
        done.setdefault(pid, []).append((start.pop(pid), ts))
for pid in sorted(total):
    open_ = sum(1 for a, b in done.get(pid, []) if a < gap < b) + (1 if pid in start and start[pid] < gap else 0)
    print(pid, total[pid] - open_, open_)
' "$gap_ns" >"$tmp/gcs.want"
[ "$(wc -l <"$tmp/gcs.want")" = 2 ] || fail "stats: babeltrace2's GCs: $(cat "$tmp/gcs.want")"
"$g" stats "$tmp/native.db" >"$tmp/stats.out" 2>&1 || fail "stats: $(head -1 "$tmp/stats.out")"
while read -r pid complete incomplete; do
  grep -A8 "^GC Stats for Process *$pid:" "$tmp/stats.out" | grep -qx "  GCs: $complete complete, $incomplete incomplete (left out of every figure)" ||
    fail "stats: process $pid: '$(grep -A8 "^GC Stats for Process *$pid:" "$tmp/stats.out" | grep 'GCs:')', want $complete complete, $incomplete incomplete"
done <"$tmp/gcs.want"
echo "ok: stats: $(tr '\n' ';' <"$tmp/gcs.want") (pid complete incomplete)"

edit 1; check repeated 1
edit 0; check back 2
[ "$(awk 'NR == 1 {print $4}' "$tmp/back.btgaps")" = 18446744073709551614 ] || fail "back: babeltrace2: $(cat "$tmp/back.btgaps")"
echo "ok: packet gaps"
