#!/usr/bin/env python3
"""fields_vs_bt.py GCSCOPE GCSIM TMP — nothing recorded is lost in the
database: a librgc recording (`gcscope record --profile verbose -- gcsim
--scenario bgc`, every rgc event kind of a background-GC run, AllocationTick
included) is imported, and every event's time, pid, tid, cpu and every
payload field (arrays element by element, strings, ClrInstanceID) read back
through the events and alloc_ticks views (their `fields` JSON) must equal
what babeltrace2 prints for it; no event may be missing or extra."""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

G, GCSIM, TMP = sys.argv[1:4]
T = Checker(G)
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
trace, db = TMP + "/trace", TMP + "/t.db"
rc, out, err = T.run("record", "-q", "-o", trace, "--profile", "verbose", "--", GCSIM, "--scenario", "bgc",
                     "--seconds", "1")
if rc != 0:
    print("record failed:", err.strip())
    sys.exit(1)
rc, out, err = T.run("import", "-q", "-d", db, trace)
T.check(rc == 0, "import (%s)" % err.strip())

# A trace `gcscope record` writes has per-process buffers: babeltrace2 names the
# process in the line's prefix (HOST:NAME:(PID)) and the context holds vtid
# alone; per-user buffers (flight recorder) carry vpid in the context.
line_re = re.compile(r"^\[(\d+)\.(\d{9})\] \(\S+\) \S*?(?::\((\d+)\))? rgc:(\w+): \{ cpu_id = (\d+) \}, "
                     r"\{ (?:vpid = (\d+), )?vtid = (\d+)[^}]*\}, \{ (.*) \}$")
field_re = re.compile(r'(\w+) = (\[(?: \[\d+\] = -?\d+,?)* \]|"(?:[^"\\]|\\.)*"|-?\d+)')


def bt_value(v):
    if v.startswith("["):
        return [int(x) for x in re.findall(r"\[\d+\] = (-?\d+)", v)]
    if v.startswith('"'):
        return v[1:-1]
    return int(v)


bt = subprocess.run(["babeltrace2", "--clock-seconds", trace], capture_output=True, text=True, check=True).stdout
want = collections.defaultdict(list)
nbt = 0
for l in bt.splitlines():
    m = line_re.match(l)
    if not m:
        continue
    pid = m.group(6) or m.group(3)
    if pid is None:
        continue
    nbt += 1
    name = re.sub(r"_V\d+$", "", m.group(4))
    fields = {k: bt_value(v) for k, v in field_re.findall(m.group(8)) if not k.startswith("_")}
    # librgc's call stack (schemas: GCS_STACK_FIELD) is stored as a stack
    # (stack_id), not a field: checked by stacks.rgc; empty without --stacks.
    if "stack" in fields:
        T.check(fields.pop("stack") == [], "%s: no stack without record --stacks" % m.group(4))
    key = (int(m.group(1)) * 10**9 + int(m.group(2)), name)
    want[key].append((int(m.group(5)), int(pid), int(m.group(7)), fields))

rc, out, err = T.run("sql", db, "SELECT ts_ns, name, cpu, pid, tid, fields FROM events UNION ALL "
                     "SELECT ts_ns, 'GCAllocationTick', NULL, pid, tid, fields FROM alloc_ticks", "--json")
T.check(rc == 0, "sql (%s)" % err.strip())
rows = json.loads(out) if rc == 0 else []
T.check(nbt > 1000 and len(rows) == nbt, "every event stored: %d rows, babeltrace2 %d events" % (len(rows), nbt))
nfields = bad = 0
for r in rows:
    cands = want.get((r["ts_ns"], r["name"]))
    if not cands:
        T.check(False, "%s at %d: not in babeltrace2's output" % (r["name"], r["ts_ns"]))
        continue
    cpu, pid, tid, fields = cands.pop(0)
    got = json.loads(r["fields"])
    ok = (r["cpu"] is None or r["cpu"] == cpu) and r["pid"] == pid and r["tid"] == tid and got == fields
    nfields += len(fields)
    if not ok and bad < 10:
        T.check(False, "%s at %d: %r, babeltrace2 says cpu %d pid %d tid %d %r" %
                (r["name"], r["ts_ns"], r, cpu, pid, tid, fields))
    bad += not ok
T.check(bad == 0, "%d events differ" % bad)
print("%d events, %d fields equal to babeltrace2's" % (len(rows), nfields))
sys.exit(T.done())
