#!/usr/bin/env python3
"""stacks_hostile.py GCSCOPE WORKDIR — frame names holding the characters a
folded line gives a meaning to (';' between frames, a line end between
stacks, CR, which splits a line for most readers) and other control bytes.

The hand-built .nettrace of stacks_small.py (ntbuild.py: GCTriggered
Induced x2 with the stack [Leaf, Caller], AllocSmall with [Leaf, 0x3030]
and 3 without a stack), its two methods named
  Leaf   "N\\nS;x\\ry\\x1b" "." "Le af 9"
  Caller "C\\r\\nD" "." "Ca;ll\\ter"
`stacks --format json` gives the names back exactly; `--format folded`
writes each control character as '?' and ';' as ':' (docs/stacks.md), so
its output is exactly three lines, one per stack, each with its count
(before: the raw CR and ESC were written, and LF as a blank)."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import ntbuild as nb  # noqa: E402
from gcs_check import check, finish  # noqa: E402

GCSCOPE, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
LEAF_NS, LEAF = "N\nS;x\ry\x1b", "Le af 9"
CALLER_NS, CALLER = "C\r\nD", "Ca;ll\ter"


def run(*args):
    return subprocess.run([GCSCOPE] + list(args), capture_output=True)


f = nb.File()
f.metadata([(1, nb.RUNTIME, 35, 0), (2, nb.RUNTIME, 143, 2), (3, nb.RUNDOWN, 144, 2)])
f.stacks(1, [[0x1010, 0x2020], [0x1010, 0x3030], []])
f.events([(1, 1000, 1, nb.gc_triggered(1)), (1, 2000, 2, nb.gc_triggered(0)), (1, 3000, 1, nb.gc_triggered(1)),
          (1, 4000, 3, nb.gc_triggered(0)), (1, 5000, 99, nb.gc_triggered(0)), (1, 6000, 0, nb.gc_triggered(0)),
          (2, 500, 0, nb.method(0x1000, 0x100, LEAF_NS, LEAF)),
          (3, 7000, 0, nb.method(0x2000, 0x40, CALLER_NS, CALLER, 2))])
f.sequence_point(8000)
trace = os.path.join(WORK, "hostile.nettrace")
with open(trace, "wb") as fh:
    fh.write(f.close())
db = os.path.join(WORK, "hostile.db")
if os.path.exists(db):
    os.remove(db)
p = run("import", "-q", "-d", db, trace)
check(p.returncode == 0, "import exits 0", p.stderr)

leaf, caller = LEAF_NS + "." + LEAF, CALLER_NS + "." + CALLER
p = run("stacks", db, "--event", "GCTriggered", "--format", "json")
check(p.returncode == 0, "stacks --format json exits 0", p.stderr)
doc = json.loads(p.stdout)
got = sorted((g["key"], tuple(s["frames"]), s["samples"]) for pr in doc["processes"] for g in pr["groups"]
             for s in g["stacks"])
check(got == [("AllocSmall", (), 3), ("AllocSmall", (leaf, "0x3030"), 1), ("Induced", (leaf, caller), 2)],
      "json: the names exactly as recorded", got)

p = run("stacks", db, "--event", "GCTriggered", "--format", "folded")
check(p.returncode == 0, "stacks --format folded exits 0", p.stderr)
out = p.stdout
check(out.endswith(b"\n"), "folded ends with a line end", out)
lines = out[:-1].split(b"\n")
want = [b"AllocSmall;0x3030;N?S:x?y?.Le af 9 1",
        b"AllocSmall;[no stack] 3",
        b"Induced;C??D.Ca:ll?er;N?S:x?y?.Le af 9 2"]
check(sorted(lines) == want, "folded: one line per stack, control characters '?', ';' ':'", out)
check(all(c >= 0x20 and c != 0x7F for c in out.replace(b"\n", b"")), "no control byte but the line ends", out)
# As a flame graph reader splits it: frames at ';', the count after the last blank.
parsed = sorted((tuple(l.rsplit(b" ", 1)[0].split(b";")), int(l.rsplit(b" ", 1)[1])) for l in lines)
check([len(fr) for fr, _ in parsed] == [3, 2, 3] and [n for _, n in parsed] == [1, 3, 2],
      "each line: its group and frames, and its exact count", parsed)
check(sum(n for _, n in parsed) == 6, "the counts add up to the 6 events", parsed)
sys.exit(finish())
