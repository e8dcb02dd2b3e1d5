#!/usr/bin/env python3
"""stacks_small.py GCSCOPE WORKDIR — stacks end to end on hand-built
.nettrace files (ntbuild.py), every expected value set by construction:

- three stacks in a StackBlock: [0x1010, 0x2020], [0x1010, 0x3030] and an
  empty one; six GCTriggered events: Induced with stack 1 twice, AllocSmall
  with stack 2, with the empty stack, with a stack id the file does not
  have (99) and with none; MethodLoadVerbose names 0x1000..0x10ff
  NS.Cls.Leaf, the rundown's MethodDCEndVerbose 0x2000..0x203f
  NS.Cls.Caller (0x2020 is a return address past nothing: found as is);
  0x3030 is in no method.
- So: stacks holds 2 rows, frames 3 (NS.Cls.Leaf, NS.Cls.Caller, 0x3030),
  stack_symbols 1 JIT method, 1 rundown method, 3 addresses, 1 unresolved;
  `stacks --event GCTriggered --format json` gives Induced: 2 samples, one
  stack [Leaf, Caller] x2; AllocSmall: 4 samples, [Leaf, 0x3030] x1 and
  3 without a stack; folded root first; the method events are not stored as
  events and not counted as GC events.
- Damaged StackBlocks (a count past the block, a stack past the block, a
  size not a multiple of the pointer size) are one clear error line and a
  non-zero exit, no crash, nothing imported.
- A trace without method events: every frame prints as its address and the
  text says why (no rundown: record with --stacks).
"""
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import ntbuild as nb  # noqa: E402
import pprof_read  # noqa: E402
from gcs_check import check, finish  # noqa: E402

GCSCOPE, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)


def run(*args):
    return subprocess.run([GCSCOPE] + list(args), capture_output=True, text=True)


def sql(db, q):
    p = run("sql", db, q, "--csv")
    return [l.split(",") for l in p.stdout.strip().splitlines()[1:]]


def build(with_methods=True, stack_raw=None, extra=()):
    f = nb.File()
    f.metadata([(1, nb.RUNTIME, 35, 0), (2, nb.RUNTIME, 143, 2), (3, nb.RUNDOWN, 144, 2)])
    f.stacks(1, [[0x1010, 0x2020], [0x1010, 0x3030], []], raw=stack_raw)
    evs = [(1, 1000, 1, nb.gc_triggered(1)), (1, 2000, 2, nb.gc_triggered(0)), (1, 3000, 1, nb.gc_triggered(1)),
           (1, 4000, 3, nb.gc_triggered(0)), (1, 5000, 99, nb.gc_triggered(0)), (1, 6000, 0, nb.gc_triggered(0))]
    evs += list(extra)
    if with_methods:
        evs += [(2, 500, 0, nb.method(0x1000, 0x100, "NS.Cls", "Leaf")),
                (3, 7000, 0, nb.method(0x2000, 0x40, "NS.Cls", "Caller", 2))]
    f.events(evs)
    f.sequence_point(8000)
    return f.close()


def write(name, data):
    p = os.path.join(WORK, name)
    with open(p, "wb") as fh:
        fh.write(data)
    return p


# ---- the good file -----------------------------------------------------------------
trace = write("small.nettrace", build())
db = os.path.join(WORK, "small.db")
if os.path.exists(db):
    os.remove(db)
p = run("import", "-q", "-d", db, trace)
check(p.returncode == 0, "import exits 0", p.stderr)
check(sql(db, "SELECT count(*) FROM stacks") == [["2"]], "2 distinct stacks stored", sql(db, "SELECT * FROM stacks"))
frames = sorted(r[0] for r in sql(db, "SELECT name FROM frames"))
check(frames == ["0x3030", "NS.Cls.Caller", "NS.Cls.Leaf"], "3 frames, each once", frames)
check(sql(db, "SELECT jit_methods, rundown_methods, addresses, unresolved FROM stack_symbols") == [["1", "1", "3", "1"]],
      "stack_symbols: 1 JIT method, 1 rundown method, 3 addresses, 1 unresolved")
check(sql(db, "SELECT gc_event_count FROM traces") == [["6"]], "the method events are not GC events",
      sql(db, "SELECT gc_event_count FROM traces"))
check(sql(db, "SELECT count(*) FROM events WHERE name LIKE 'Method%'") == [["0"]], "no method event is stored")
ids = sql(db, "SELECT u.stack_id IS NULL, count(*), count(DISTINCT u.stack_id) FROM event_blocks b, gcs_unpack(b.data) u "
              "GROUP BY 1 ORDER BY 1")
check(ids == [["0", "3", "2"], ["1", "3", "0"]], "3 events refer to 2 stacks, 3 have none", ids)

p = run("stacks", db, "--event", "GCTriggered", "--format", "json")
check(p.returncode == 0, "stacks --format json exits 0", p.stderr)
doc = json.loads(p.stdout)
want = {"processes": [{"pid": 4242, "name": None, "groups": [
    {"event": "GCTriggered", "key": "AllocSmall", "samples": 4, "bytes": 0,
     "stacks": [{"frames": ["NS.Cls.Leaf", "0x3030"], "samples": 1, "bytes": 0},
                {"frames": [], "samples": 3, "bytes": 0}]},
    {"event": "GCTriggered", "key": "Induced", "samples": 2, "bytes": 0,
     "stacks": [{"frames": ["NS.Cls.Leaf", "NS.Cls.Caller"], "samples": 2, "bytes": 0}]}]}]}
check(doc == want, "JSON is exactly the expected view", json.dumps(doc))
check("note: 1 of 3 frame addresses are outside every managed method" in p.stderr.replace("\n  ", " "),
      "json: the unresolved frame is explained on stderr", p.stderr)

p = run("stacks", db, "--event", "GCTriggered", "--format", "folded")
check(sorted(p.stdout.splitlines()) == ["AllocSmall;0x3030;NS.Cls.Leaf 1", "AllocSmall;[no stack] 3",
                                        "Induced;NS.Cls.Caller;NS.Cls.Leaf 2"], "folded, root first", p.stdout)

pp = os.path.join(WORK, "small.pb.gz")
p = run("stacks", db, "--event", "GCTriggered", "--format", "pprof", "-o", pp)
check(p.returncode == 0, "stacks --format pprof exits 0", p.stderr)
types, samples = pprof_read.read(pp)
check(types == [("samples", "count")], "pprof: one sample type, samples/count", types)
got = sorted((tuple(fr), tuple(vals), lab.get("key"), lab.get("pid")) for fr, vals, lab in samples)
check(got == [(("NS.Cls.Leaf", "0x3030", "AllocSmall"), (1,), "AllocSmall", 4242),
              (("NS.Cls.Leaf", "NS.Cls.Caller", "Induced"), (2,), "Induced", 4242),
              (("[no stack]", "AllocSmall"), (3,), "AllocSmall", 4242)],
      "pprof: the samples, leaf first under their group, with pid and key labels", got)

p = run("stacks", db, "--event", "GCTriggered", "--min-pct", "0")
check(p.returncode == 0 and "3 of 4 samples have no stack: recorded without one" in p.stdout, "text: stackless counted",
      p.stdout)
check("[native code]" in p.stdout and "NS.Cls.Caller" in p.stdout, "text: unresolved run shown as [native code]",
      p.stdout)
check(all(len(l) <= 80 for l in p.stdout.splitlines()), "text fits 80 columns", p.stdout)
# Induced's trees, by construction (stack [Leaf, Caller], leaf first, twice):
# top-down Caller then Leaf, bottom-up Leaf then Caller; excl counts the
# samples whose frame nearest the event is the node's: Leaf's, in both trees.
ind = p.stdout[p.stdout.index("== Induced:"):].splitlines()
check(ind[1:8] == ["   incl    excl  top-down (callers first)",
                   "      2       0  NS.Cls.Caller",
                   "      2       2   NS.Cls.Leaf",
                   "",
                   "   incl    excl  bottom-up (the frames nearest the event first)",
                   "      2       2  NS.Cls.Leaf",
                   "      2       0   NS.Cls.Caller"], "text: Induced's two trees, excl on the leaf", ind[:8])

p = run("stacks", db)
check(p.returncode == 1 and p.stderr.count("\n") == 1 and "no AllocationTick events" in p.stderr,
      "no AllocationTick: one line, exit 1", p.stderr)
p = run("stacks", db, "--event", "Nope")
check(p.returncode == 2 and "unknown event 'Nope'" in p.stderr, "unknown --event: usage error", p.stderr)
p = run("stacks", db, "--event", "GCTriggered", "--by", "type")
check(p.returncode == 2 and "--by type" in p.stderr, "--by type on GCTriggered: usage error", p.stderr)
p = run("stacks", db, "--event", "GCTriggered", "--from", "0.0035", "--format", "json")
doc = json.loads(p.stdout) if p.returncode == 0 else {"processes": []}
n = sum(g["samples"] for pr in doc["processes"] for g in pr["groups"])
check(n == 3, "--from 0.0035 ms keeps the 3 events at 4, 5 and 6 us (%d)" % n, p.stdout + p.stderr)

# ---- diff --stacks: the same file plus two Induced events on stack 1 and one stackless -----
trace3 = write("more.nettrace", build(extra=[(1, 6500, 1, nb.gc_triggered(1)), (1, 6600, 1, nb.gc_triggered(1)),
                                             (1, 6700, 0, nb.gc_triggered(0))]))
db3 = os.path.join(WORK, "more.db")
if os.path.exists(db3):
    os.remove(db3)
p = run("import", "-q", "-d", db3, trace3)
p = run("diff", db, db3, "--stacks", "--event", "GCTriggered", "--format", "json")
check(p.returncode == 0, "diff --stacks --format json exits 0", p.stderr)
d = json.loads(p.stdout) if p.returncode == 0 else {}
rows = sorted((s["key"], tuple(s["frames"]), s["base_samples"], s["candidate_samples"]) for s in d.get("stacks", []))
check(rows == [("AllocSmall", (), 3, 4), ("AllocSmall", ("NS.Cls.Leaf", "0x3030"), 1, 1),
               ("Induced", ("NS.Cls.Leaf", "NS.Cls.Caller"), 2, 4)], "diff --stacks: stack by stack", rows)
check(d.get("base") == {"samples": 6, "bytes": 0} and d.get("candidate") == {"samples": 9, "bytes": 0},
      "diff --stacks: the totals", d)
p = run("diff", db, db3, "--stacks", "--event", "GCTriggered")
lines = p.stdout.splitlines()
check(p.returncode == 0 and len(lines) >= 7 and lines[6].split()[:3] == ["+2", "2", "4"]
      and "Induced: NS.Cls.Leaf <- NS.Cls.Caller" in lines[6], "diff --stacks text: the largest change first", p.stdout)
check(all(len(l) <= 80 for l in lines), "diff --stacks text fits 80 columns", p.stdout)

# ---- no method events: addresses and why ---------------------------------------------
trace2 = write("nomethods.nettrace", build(with_methods=False))
db2 = os.path.join(WORK, "nomethods.db")
if os.path.exists(db2):
    os.remove(db2)
p = run("stacks", "-d", db2, trace2, "--event", "GCTriggered")
check(p.returncode == 0, "stacks TRACE imports and shows", p.stderr)
check("no rundown" in p.stdout and "record with gcscope record --dotnet --stacks" in p.stdout.replace("\n  ", " "),
      "text says why frames did not resolve", p.stdout)
p = run("stacks", db2, "--event", "GCTriggered", "--format", "json")
frames = sorted({f for pr in json.loads(p.stdout)["processes"] for g in pr["groups"] for s in g["stacks"]
                 for f in s["frames"]})
check(frames == ["0x1010", "0x2020", "0x3030"], "unresolved frames print as their address", frames)

# ---- names that would drive a terminal ---------------------------------------------------
# A crafted trace: the method at 0x1000 is named with ESC "[2J" (clear the
# screen) and BEL, an AllocationTick_V4's type name with ESC "]0;" (set the
# window title) and a right-to-left override (U+202E). Every text report
# prints them with '?' in place of each (gcs_text_printable); CSV and JSON
# keep them as the trace has them.
ESC, BEL, RLO = "\x1b", "\x07", "\u202e"
evil_method = "Evil" + ESC + "[2J" + BEL
evil_type = "T" + ESC + "]0;pwned" + BEL + RLO + "x"
tick = (struct.pack("<IIHQQ", 100000, 0, 1, 100000, 0x5000) + nb.u16z(evil_type) + struct.pack("<IQQ", 0, 0x9000, 24))
f = nb.File()
f.metadata([(1, nb.RUNTIME, 10, 4), (2, nb.RUNTIME, 143, 2)])
f.stacks(1, [[0x1010]])
f.events([(2, 500, 0, nb.method(0x1000, 0x100, "NS", evil_method)), (1, 1000, 1, tick), (1, 2000, 1, tick)])
f.sequence_point(8000)
edb = os.path.join(WORK, "evil.db")
if os.path.exists(edb):
    os.remove(edb)
p = run("import", "-q", "-d", edb, write("evil.nettrace", f.close()))
check(p.returncode == 0, "evil: import exits 0", p.stderr)
safe_method, safe_type = "NS.Evil?[2J?", "T?]0;pwned??x"
for args in (["stacks", edb], ["stacks", edb, "-w"], ["stacks", edb, "--by", "none"], ["allocs", edb],
             ["allocs", edb, "-w"], ["allocs", edb, "--stacks"]):
    p = run(*args)
    out = p.stdout + p.stderr
    check(p.returncode == 0 and not any(c in out for c in (ESC, BEL, RLO)),
          "%s: no ESC, BEL or U+202E on the terminal" % " ".join(args[:1] + args[2:]), repr(out[:300]))
for args, want in ((["stacks", edb, "-w"], [safe_method, safe_type]), (["allocs", edb, "-w"], [safe_type])):
    p = run(*args)
    check(all(w in p.stdout for w in want), "%s: the names with '?' in place (%s)" % (" ".join(args[:1] + args[2:]), want),
          p.stdout)
p = run("stacks", edb, "--format", "json")
j = json.loads(p.stdout)
check([g["key"] for g in j["processes"][0]["groups"]] == [evil_type] and
      j["processes"][0]["groups"][0]["stacks"][0]["frames"] == ["NS." + evil_method],
      "evil: JSON keeps the names as recorded", p.stdout[:300])

# ---- damaged StackBlocks -----------------------------------------------------------------
bad = {
    "count past the block": struct.pack("<ii", 1, 1000000),
    "stack past the block": struct.pack("<iii", 1, 1, 64) + b"\0" * 8,
    "size not a multiple of the pointer": struct.pack("<iii", 1, 1, 12) + b"\0" * 12,
}
for what, raw in bad.items():
    t = write("bad.nettrace", build(stack_raw=raw))
    bdb = os.path.join(WORK, "bad.db")
    if os.path.exists(bdb):
        os.remove(bdb)
    p = run("import", "-q", "-d", bdb, t)
    print("%s: %s" % (what, p.stderr.strip()))
    check(p.returncode != 0 and p.stderr.count("\n") == 1 and ("StackBlock" in p.stderr or "pointer size" in p.stderr),
          "%s: one error line, non-zero exit" % what, p.stderr)
    check(not os.path.exists(bdb) or sql(bdb, "SELECT count(*) FROM traces") in ([["0"]], []),
          "%s: nothing imported" % what)
    check(p.returncode in (1, 2), "%s: an exit status, not a crash (%d)" % (what, p.returncode))

sys.exit(finish())
