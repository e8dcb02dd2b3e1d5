#!/usr/bin/env python3
"""csv_escape.py GCSCOPE WORK FIXTURES — every `--format csv` (and `sql --csv`)
writes text fields as RFC 4180 fields (rpt_csv_field): a process name, a type
name and a rule name holding a comma, a double quote, a CR or a LF read back,
through Python's csv module, as exactly that text, in a row of as many fields
as the header.

Two databases of the same two fixtures (webapp-requests: requests, for
impact; gcprog-culprits-dotnet-trace: allocation ticks and pins, for allocs
and heaps): orig.db as imported, odd.db with the processes' names and one
type's name changed (plain SQL on the tables). Each command's CSV of odd.db
must equal its CSV of orig.db field by field, but for the name fields, which
must be the new names exactly (per trace_id); plus counts from the database
itself: stats has a row per GC of the gcs view, impact's requests column
counts the trace's requests rows, allocs' ticks the type's alloc_ticks rows.
"""
import csv
import io
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402

GCSCOPE, WORK, FIX = sys.argv[1:4]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
ORIG, ODD = WORK + "/orig.db", WORK + "/odd.db"

PROC = {1: 'web,app "one"\nsecond line', 2: 'gc"prog",\r\nend'}
TYPE_OLD = "System.Byte[]"
TYPE_NEW = 'System.Collections.Generic.Dictionary<System.String, System.Int32>,"x"\nnext'
TYPES = {TYPE_OLD: TYPE_NEW, "System.Int64[]": "System.Int64\r[]"}   # a CR alone needs quotes too
RULE = 'slow,"gc"'


def run(*args):
    p = subprocess.run([GCSCOPE] + list(args), capture_output=True, cwd=WORK, timeout=300,
                       stdin=subprocess.DEVNULL, env=dict(os.environ, COLUMNS="80"))
    # bytes: a text-mode pipe would turn the CR inside a quoted field into LF
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8", "replace")


def rows(out):
    return list(csv.reader(io.StringIO(out, newline=""), strict=True))


rc, _, err = run("import", "-q", "-d", ORIG, FIX + "/webapp-requests.nettrace",
                 FIX + "/gcprog-culprits-dotnet-trace.nettrace.gz")
check(rc == 0, "import", err)
shutil.copy(ORIG, ODD)
db = sqlite3.connect(ODD)
for t, name in PROC.items():
    check(db.execute("UPDATE processes SET name = ? WHERE trace_id = ?", (name, t)).rowcount == 1,
          "one process in trace %d" % t)
for old, new in TYPES.items():
    check(db.execute("UPDATE types SET name = ? WHERE name = ?", (new, old)).rowcount == 1, "type %s renamed" % old)
db.commit()
db.close()


def count(sql, *params):
    """A count through `gcscope sql` (the packed tables' views need its gcs_unpack)."""
    for v in params:
        sql = sql.replace("?", "'" + v.replace("'", "''") + "'", 1)
    rc, out, err = run("sql", ODD, sql, "--csv")
    check(rc == 0, "sql %s" % sql, err)
    return int(rows(out)[1][0])


n_gcs = count("SELECT count(*) FROM gcs")
n_req = count("SELECT count(*) FROM requests WHERE trace_id = 1")
n_ticks = count("SELECT count(*) FROM alloc_ticks a JOIN types t ON t.id = a.type_id WHERE t.name = ?", TYPE_NEW)
check(n_gcs > 0 and n_req > 0 and n_ticks > 0, "the fixtures have GCs, requests and ticks: %d %d %d"
      % (n_gcs, n_req, n_ticks))

with open(WORK + "/rules", "w") as f:
    f.write(RULE + ": pair=gc-over over=2\n")


def compare(what, args, names):
    """args on orig.db and odd.db; names: column -> f(row of orig, header) -> the odd.db value."""
    out = {}
    for path in (ORIG, ODD):
        rc, o, err = run(*[a if a != "DB" else path for a in args])
        check(rc == 0, "%s on %s: exit %d" % (what, os.path.basename(path), rc), err)
        out[path] = rows(o)
    a, b = out[ORIG], out[ODD]
    if not check(len(a) > 1 and len(a) == len(b), "%s: %d rows in orig.db, %d in odd.db" % (what, len(a), len(b))):
        return b
    head = b[0]
    check(a[0] == head, "%s: header %s vs %s" % (what, a[0], head))
    for c in names:
        check(c in head, "%s: no column %s in %s" % (what, c, head))
    for i, (ra, rb) in enumerate(zip(a, b)):
        check(len(rb) == len(head), "%s row %d: %d fields, header has %d: %r" % (what, i, len(rb), len(head), rb))
        if i == 0 or len(rb) != len(head):
            continue
        row = dict(zip(head, ra))
        for j, c in enumerate(head):
            want = names[c](row) if c in names else ra[j]
            check(rb[j] == want, "%s row %d column %s: %r, want %r" % (what, i, c, rb[j], want))
    return b


by_trace = lambda row: PROC[int(row["trace_id"])]  # noqa: E731
s = compare("stats --format csv", ["stats", "DB", "--format", "csv"], {"process_name": by_trace})
check(len(s) - 1 == n_gcs, "stats: %d rows, the gcs view has %d" % (len(s) - 1, n_gcs))

s = compare("impact --format csv", ["impact", "DB", "--format", "csv"], {"process": by_trace})
mine = [r for r in s[1:] if r[0] == "1"]
check(len(mine) == 1 and mine[0][2] == PROC[1] and mine[0][3] == str(n_req),
      "impact: trace 1's row %r, want process %r and %d requests" % (mine, PROC[1], n_req))

s = compare("allocs --format csv", ["allocs", "DB", "--format", "csv"],
            {"type": lambda row: TYPES.get(row["type"], row["type"])})
hit = [r for r in s[1:] if r[s[0].index("type")] == TYPE_NEW]
check(len(hit) == 1 and hit[0][s[0].index("ticks")] == str(n_ticks),
      "allocs: the renamed type's row %r, want %d ticks" % (hit, n_ticks))

compare("heaps --format csv", ["heaps", "DB", "--format", "csv"], {})

s = compare("triggers --rules --format csv", ["triggers", "DB", "--rules", WORK + "/rules", "--format", "csv"], {})
fired = [r for r in s[1:] if r[1] == RULE]
check(fired and len(fired) == len(s) - 1 and all(float(r[7]) > 2 for r in fired),
      "triggers: every row names the rule %r (%d of %d rows)" % (RULE, len(fired), len(s) - 1))

rc, out, err = run("sql", ODD, "SELECT trace_id, name FROM processes ORDER BY trace_id", "--csv")
check(rc == 0 and rows(out) == [["trace_id", "name"], ["1", PROC[1]], ["2", PROC[2]]],
      "sql --csv: %r" % rows(out), err)

# Text is not CSV: there the same names are shown with '?' for each control
# character (gcs_text_printable), so a CR, LF or ESC in a trace's names can
# neither split a report's line nor drive the terminal. A third copy names
# trace 1's process with ESC "[2J" (clear the screen) and BEL.
EVIL = WORK + "/evil.db"
shutil.copy(ODD, EVIL)
e = sqlite3.connect(EVIL)
e.execute("UPDATE processes SET name = ? WHERE trace_id = 1", ("web\x1b[2J\x07app",))
e.commit()
e.close()
SHOWN = {ODD: ['web,app "one"?second line', 'gc"prog",??end'], EVIL: ["web?[2J?app"]}
for dbp, names in SHOWN.items():
    seen = ""
    for args in (["stats", "--no-pager"], ["advise"], ["impact"], ["impact", "-w"], ["allocs"], ["allocs", "-w"],
                 ["heaps"], ["handles"], ["stacks", "-w"], ["triggers", "--gc-over", "1"]):
        rc, out, err = run(args[0], dbp, *args[1:])
        check(not any(c in out + err for c in "\r\x1b\x07"), "%s %s: no CR, ESC or BEL in text" %
              (" ".join(args), os.path.basename(dbp)), repr((out + err)[:300]))
        seen += out
    for n in names:
        check(n in seen, "%s: %r shown in text" % (os.path.basename(dbp), n))

sys.exit(finish())
