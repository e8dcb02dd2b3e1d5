#!/usr/bin/env python3
"""reader_vs_bt.py CTF_DUMP TRACES_DIR — the CTF reader against babeltrace2.

For every per-field (non-packed) GC event of the real traces, the time, vpid,
vtid, cpu and every numeric or string payload field the reader decoded must
equal what `babeltrace2 --clock-seconds` prints for the same event. Packed
events (__data__) are checked byte-decoded in import_test.c."""
import re
import subprocess
import sys

dump, traces = sys.argv[1], sys.argv[2]
dirs = [
    "coreclr/netcore31-perfcollect-default/lttngTrace/auto-20200317-170407/ust/uid/1000/64-bit",
    "coreclr/netcore2017-gcstart-gcend",
    "coreclr/netcore2017-allocationtick",
    "coreclr/netcore31-startup-small",
]
line_re = re.compile(r"^\[(\d+)\.(\d{9})\] \(\S+\) \S+ (\S+): \{ cpu_id = (\d+) \}, \{ vpid = (\d+), vtid = (\d+)[^}]*\}, \{ (.*) \}$")
fails = 0
checked_fields = 0
for d in dirs:
    path = f"{traces}/{d}"
    bt = subprocess.run(["babeltrace2", "--clock-seconds", path], capture_output=True, text=True, check=True).stdout
    ours = [l for l in subprocess.run([dump, path], capture_output=True, text=True, check=True).stdout.splitlines()
            if l and l[0].isdigit()]
    bt_events = {}
    for l in bt.splitlines():
        m = line_re.match(l)
        if not m:
            continue
        ts = int(m.group(1)) * 10**9 + int(m.group(2))
        name = m.group(3).rstrip(":")
        bt_events.setdefault((ts, name), []).append((m.group(4), m.group(5), m.group(6), m.group(7)))
    n = 0
    for l in ours:
        head, _, payload = l.partition(" | ")
        ts, pid, tid, cpu, name = head.split()[:5]
        cands = bt_events.get((int(ts), name))
        if not cands:
            print(f"{d}: no babeltrace2 event {name} at {ts}")
            fails += 1
            continue
        bcpu, bpid, btid, braw = cands[0]
        if (bcpu, bpid, btid) != (cpu, pid, tid):
            print(f"{d}: {name}@{ts}: cpu/pid/tid {cpu}/{pid}/{tid} != {bcpu}/{bpid}/{btid}")
            fails += 1
        if "__data__" in braw:
            continue
        bf = dict(re.findall(r'(\w+) = ("[^"]*"|-?\d+)', braw))
        n += 1
        for k, v in re.findall(r'(\w+)=("[^"]*"|0x[0-9a-f]+|-?\d+)', payload):
            if k not in bf:
                continue
            want = bf[k]
            got = str(int(v, 16)) if v.startswith("0x") else v
            checked_fields += 1
            if got != want:
                print(f"{d}: {name}@{ts}: {k} = {got}, babeltrace2 says {want}")
                fails += 1
    if n == 0:
        print(f"{d}: no per-field event compared")
        fails += 1
print(f"compared {checked_fields} fields, {fails} mismatches")
sys.exit(1 if fails or checked_fields < 1000 else 0)
