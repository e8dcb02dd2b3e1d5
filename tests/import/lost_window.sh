#!/usr/bin/env bash
# lost_window.sh GCSCOPE CTF_DUMP TRACES TMP — events lost in a CTF trace mark
# exactly the GCs whose events may lie in the loss's window, and reports say
# what was lost.
#
# The trace: netcore31-perfcollect-default (.NET Core 3.1, per-uid, stream
# files channel0_0.._3, one per CPU; 11 blocking GCs in pids 5747 and 5767;
# each packet begins where the stream's previous one ends). A packet's
# context (after its 32-byte header): timestamp_begin @32, timestamp_end @40,
# content_size @48, packet_size @56 (bits), packet_seq_num @64,
# events_discarded @72 (u64 LE each). Hand-edited copies:
#   gap:       channel0_1's third packet cut out: packet_seq_num 1 -> 3, a
#              window from packet 1's end to packet 3's beginning (264 ms);
#   discarded: channel0_2's events_discarded 7 from its second packet on: 7
#              events lost between packet 0's end and packet 1's end;
#   unknown:   channel0_3's events_discarded 3 in every packet: its first
#              packet already counts losses, from the trace's start (unknown)
#              to that packet's end;
#   late:      channel0_3's first two packets cut out and its counter 3: the
#              stream's first packet begins 2 s into the trace, and reports
#              losses from the start: GCs done long before it must be marked
#              (imported with GCSCOPE_STORE_GCS_EVERY=1 too: a GC may be
#              written only once no later window can reach it);
#   both:      gap and discarded together (the reports' wording).
# Expected values, computed independently of gcscope:
#   - each window from the bytes (the timestamps above + the metadata's clock
#     offset; 1 GHz);
#   - each GC's span from babeltrace2's text of the edited trace: from the
#     GCSuspendEEBegin (SuspendForGC) before its GCStart to the
#     GCRestartEEEnd on the same thread after its GCHeapStats (open without
#     one); a GC is marked iff its span meets a window (ends inclusive);
#   - the GC numbers marked "events lost" in the gcs table must be that set,
#     with both CTF readers; the set is checked to hold a GC that began and
#     completed inside a window (which the old rule, "GCs open when the loss
#     is read", left complete), and to leave some GC out.
set -u
g=$1 dump=$2 traces=$3 tmp=$4
src=$traces/coreclr/netcore31-perfcollect-default/lttngTrace/auto-20200317-170407
command -v babeltrace2 >/dev/null || { echo "SKIP: no babeltrace2"; exit 77; }
rm -rf "$tmp"; mkdir -p "$tmp"
fail() { echo "FAIL: $*"; exit 1; }
s=ust/uid/1000/64-bit
support=$(cd "$(dirname "$0")/../support" && pwd)

# edit NAME OPS...: a fresh copy with the edits (python below) applied
edit() {
  local n=$1; shift
  rm -rf "$tmp/$n"; cp -r "$src" "$tmp/$n"; chmod -R u+w "$tmp/$n"
  PYTHONPATH=$support python3 - "$tmp/$n/$s" "$@" <<'EOF' || fail "edit $n"
import os, struct, sys
from ctf_packets import DISCARDED_AT, packets_of
d, ops = sys.argv[1], sys.argv[2:]
for op in ops:
    what, f, arg = op.split(':')
    p = os.path.join(d, f)
    b = bytearray(open(p, 'rb').read())
    pk = packets_of(b, p)
    if what == 'cut':        # cut packets FIRST-LAST (indices)
        a, z = map(int, arg.split('-'))
        b = b[:pk[a].off] + b[pk[z].off + pk[z].size:]
    elif what == 'disc':     # events_discarded VALUE from packet FROM on: FROM=VALUE
        first, v = map(int, arg.split('='))
        for k in pk[first:]:
            struct.pack_into('<Q', b, k.off + DISCARDED_AT, v)
    open(p, 'wb').write(bytes(b))
EOF
}

# windows NAME: from the bytes, per lost record "begin end" (ns since the
# epoch; begin 0: unknown): a packet_seq_num gap (previous end, this begin), a
# discarded counter that rose (previous end, this end), or a first packet
# whose counter is not 0 (0, its end)
windows() {
  PYTHONPATH=$support python3 - "$tmp/$1/$s" <<'EOF'
import sys
from ctf_packets import clock_offset, packets, stream_files
d = sys.argv[1]
for p in stream_files(d):
    pk = packets(p, clock_offset(d))
    if pk and pk[0].discarded:
        print(0, pk[0].end)
    for prev, cur in zip(pk, pk[1:]):
        if cur.discarded > prev.discarded:
            print(prev.end, cur.end)
        if (cur.seq - prev.seq) % 2**64 > 1:
            print(prev.end, cur.begin)
EOF
}

# expect NAME: "pid number" of the GCs whose span meets a window, sorted;
# also NAME.inside: those that began and completed inside one
expect() {
  local n=$1
  windows "$n" >"$tmp/$n.win"
  babeltrace2 --clock-seconds "$tmp/$n" 2>/dev/null | python3 -c '
import re, sys
wins = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
susp, pend, gcs = {}, {}, []
for line in sys.stdin:
    m = re.match(r"\[(\d+)\.(\d{9})\] .* DotNETRuntime:(\w+?)(_V\d+)?: .*vpid = (\d+), vtid = (\d+)", line)
    if not m:
        continue
    ts, kind, pid, tid = int(m.group(1)) * 10**9 + int(m.group(2)), m.group(3), int(m.group(5)), int(m.group(6))
    if kind == "GCSuspendEEBegin" and re.search(r"Reason = 1,", line):
        susp[pid] = (ts, tid)
    elif kind == "GCStart":
        s = susp.pop(pid, None)
        g = {"pid": pid, "n": int(re.search(r"Count = (\d+)", line).group(1)), "first": s[0] if s else ts,
             "tid": s[1] if s else tid, "stats": False, "done": None}
        gcs.append(g); pend[pid] = g
    elif kind == "GCHeapStats" and pid in pend:
        pend[pid]["stats"] = True
    elif kind == "GCRestartEEEnd" and pid in pend and pend[pid]["tid"] == tid:
        g = pend.pop(pid)
        if g["stats"]:
            g["done"] = ts
out, inside = [], []
for g in gcs:
    for b, e in wins:
        if g["first"] <= e and (g["done"] is None or g["done"] >= b):
            out.append("%d %d" % (g["pid"], g["n"]))
            if g["done"] is not None and g["first"] >= b and g["done"] <= e:
                inside.append("%d %d" % (g["pid"], g["n"]))
            break
print("\n".join(sorted(out)), file=open(sys.argv[2], "w"))
print("\n".join(sorted(inside)), file=open(sys.argv[3], "w"))
print(len(gcs), file=open(sys.argv[4], "w"))
' "$tmp/$n.win" "$tmp/$n.want" "$tmp/$n.inside" "$tmp/$n.total"
}

# check NAME [ENV...]: both readers give the same lost records and windows
# (ctf_dump -w), those of the bytes; the import with each reader marks
# exactly the expected GCs
check() {
  local n=$1; shift
  expect "$n"
  local nw; nw=$(wc -l <"$tmp/$n.win")
  [ "$nw" -ge 1 ] || fail "$n: no window in the bytes"
  GCSCOPE_CTF_READER=native "$dump" -w "$tmp/$n" >"$tmp/$n.native" 2>"$tmp/err" || fail "$n: native: $(head -1 "$tmp/err")"
  GCSCOPE_CTF_READER=babeltrace2 "$dump" -w "$tmp/$n" >"$tmp/$n.bt" 2>"$tmp/err" || fail "$n: babeltrace2: $(head -1 "$tmp/err")"
  grep '^LOST ' "$tmp/$n.native" >"$tmp/$n.lost"
  cmp -s "$tmp/$n.lost" <(grep '^LOST ' "$tmp/$n.bt") ||
    fail "$n: the readers' lost records differ: '$(cat "$tmp/$n.lost")' / '$(grep '^LOST ' "$tmp/$n.bt")'"
  awk '{print $6, $4}' "$tmp/$n.lost" | sort >"$tmp/$n.gotwin"
  sort "$tmp/$n.win" | cmp -s - "$tmp/$n.gotwin" || fail "$n: windows '$(cat "$tmp/$n.gotwin")', the bytes '$(cat "$tmp/$n.win")'"
  local total marked; total=$(cat "$tmp/$n.total"); marked=$(grep -c . "$tmp/$n.want")
  [ "$marked" -ge 1 ] && [ "$marked" -lt "$total" ] || fail "$n: premise: $marked of $total GCs in the windows"
  for reader in native babeltrace2; do
    for every in default 1; do
      db=$tmp/$n.$reader.$every.db
      if [ $every = default ]; then
        env GCSCOPE_CTF_READER=$reader "$g" import -q -d "$db" "$tmp/$n" >"$tmp/imp.out" 2>&1
      else
        env GCSCOPE_CTF_READER=$reader GCSCOPE_STORE_GCS_EVERY=$every "$g" import -q -d "$db" "$tmp/$n" >"$tmp/imp.out" 2>&1
      fi || fail "$n: import ($reader): $(head -1 "$tmp/imp.out")"
      "$g" sql "$db" "SELECT pid || ' ' || gc_index FROM gcs WHERE incomplete_why LIKE '%events lost%'" --csv |
        tail -n +2 | sort >"$tmp/$n.got"
      cmp -s "$tmp/$n.want" "$tmp/$n.got" ||
        fail "$n ($reader, store every $every): marked '$(tr '\n' ';' <"$tmp/$n.got")', want '$(tr '\n' ';' <"$tmp/$n.want")'"
    done
  done
  echo "ok: $n: windows $(tr '\n' ';' <"$tmp/$n.win") mark GCs $(tr '\n' ';' <"$tmp/$n.want") of $total (inside: $(tr '\n' ';' <"$tmp/$n.inside"))"
}

edit gap cut:channel0_1:2-2; check gap
edit discarded disc:channel0_2:1=7; check discarded
edit unknown disc:channel0_3:0=3; check unknown
edit late cut:channel0_3:0-1 disc:channel0_3:0=3; check late
# a GC that began and completed inside a window (left complete before)
cat "$tmp/gap.inside" "$tmp/discarded.inside" | grep -q . || fail "premise: no GC began and completed inside a window"
# the late window reaches back 2 s: the trace's first GC is in it
grep -qx "5747 1" "$tmp/late.want" || fail "late: premise: GC 1 of 5747 not in the window"

# What the reports say: events discarded (exact) and packets missing (gaps,
# events unknown), never one number of both; text and JSON, as import says.
edit both cut:channel0_1:2-2 disc:channel0_2:1=7
for n in gap discarded both; do
  case $n in
    gap) words='1 gap of missing packets (events unknown)'; ev=0; gaps=1 ;;
    discarded) words='7 events discarded by the tracer'; ev=7; gaps=0 ;;
    both) words='1 gap of missing packets (events unknown), 7 events discarded by the tracer'; ev=7; gaps=1 ;;
  esac
  db=$tmp/$n.words.db
  "$g" import -d "$db" "$tmp/$n" >"$tmp/imp.out" 2>&1 || fail "$n: import: $(head -1 "$tmp/imp.out")"
  grep -qxF "$tmp/$n: warning: $words: nearby GCs marked incomplete" "$tmp/imp.out" ||
    fail "$n: import says '$(grep warning "$tmp/imp.out")'"
  [ "$("$g" sql "$db" "SELECT discarded, packet_gaps FROM traces" --csv | tail -1)" = "$((ev + gaps)),$gaps" ] ||
    fail "$n: traces: $("$g" sql "$db" "SELECT discarded, packet_gaps FROM traces" --csv | tail -1)"
  [ "$("$g" sql "$db" "SELECT sum(count) FILTER (WHERE packets_missing = 0), count(*) FILTER (WHERE packets_missing = 1) FROM lost_events" --csv | tail -1)" = "$([ $ev = 0 ] && echo "" || echo $ev),$gaps" ] ||
    fail "$n: lost_events: $("$g" sql "$db" "SELECT * FROM lost_events" --csv)"
  "$g" stats "$db" --no-pager >"$tmp/$n.stats" 2>"$tmp/$n.stats.err" || fail "$n: stats: $(head -1 "$tmp/$n.stats.err")"
  # (the report's first line, on its output)
  want="warning: trace 1 ($tmp/$n): $words: nearby GCs incomplete, not in figures"
  [ "$(grep -c 'warning: trace' "$tmp/$n.stats")" = 1 ] && [ "$(head -1 "$tmp/$n.stats")" = "$want" ] ||
    fail "$n: stats says '$(grep warning "$tmp/$n.stats")'"
  # the process's line, in the same words (80 columns)
  grep -A3 "^  Lost in this process: " "$tmp/$n.stats" | tr -s ' \n' ' ' | grep -qF "Lost in this process: $words" ||
    fail "$n: stats: '$(grep -A3 "Lost in this process" "$tmp/$n.stats")'"
  awk 'NR > 1 && length > 80 { exit 1 }' "$tmp/$n.stats" || fail "$n: stats: a report line over 80 columns"
  "$g" stats "$db" --format json >"$tmp/$n.json" 2>/dev/null || fail "$n: stats --format json"
  python3 - "$tmp/$n.json" "trace 1 ($tmp/$n): $words" "$ev" "$gaps" <<'EOF' || fail "$n: stats JSON"
import json, sys
j = json.load(open(sys.argv[1]))
want, ev, gaps = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
assert j["warnings"] == [want], j["warnings"]
for p in j["processes"]:
    s = p["summary"]
    assert s["trace_discarded_events"] == ev and s["trace_packet_gaps"] == gaps, s
    assert s["lost_events"] == ev + gaps, s
EOF
  echo "ok: $n: import, stats and JSON say '$words'"
done
