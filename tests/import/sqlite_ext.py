#!/usr/bin/env python3
"""sqlite_ext.py GCSCOPE EXTENSION NETTRACE TMP — the loadable extension
(build/lib/gcscope.so) gives the sqlite3 shell the functions behind the
events, alloc_ticks and gc_lifecycle views: every row of each view, read by
`sqlite3 -csv` after `.load`, equals the row `gcscope sql --csv` prints
(35,458 allocation ticks in the real .nettrace); without the extension the
shell fails naming gcs_unpack (what docs/import.md tells sqlite3 users)."""
import csv
import io
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402

GCSCOPE, EXT, TRACE, TMP = sys.argv[1:5]
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
db = os.path.join(TMP, "ext.db")
p = subprocess.run([GCSCOPE, "import", "-q", "-d", db, TRACE], capture_output=True, text=True)
check(p.returncode == 0, "import: %s" % p.stderr.strip())


EXT_BASE = os.path.splitext(EXT)[0]


def rows(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, list(csv.reader(io.StringIO(p.stdout)))[1:], p.stderr.strip()


for view, want in (("events", None), ("alloc_ticks", 35458), ("gc_lifecycle", None)):
    q = "SELECT * FROM %s ORDER BY 1, 2, 3" % view
    rc1, mine, err1 = rows(["sqlite3", "-csv", "-header", db, "-cmd", ".load " + EXT_BASE, q])
    rc2, theirs, err2 = rows([GCSCOPE, "sql", db, q, "--csv"])
    check(rc1 == 0 and rc2 == 0, "%s: sqlite3 exit %d (%s), gcscope sql exit %d (%s)" % (view, rc1, err1, rc2, err2))
    check(len(mine) >= 100 and (want is None or len(mine) == want),
          "%s: %d rows through the extension%s" % (view, len(mine), "" if want is None else ", expected %d" % want))
    check(mine == theirs, "%s: every row as gcscope sql prints it (%d vs %d rows; first difference %r)" % (
        view, len(mine), len(theirs), next(((a, b) for a, b in zip(mine, theirs) if a != b), None)))
p = subprocess.run(["sqlite3", db, "SELECT count(*) FROM alloc_ticks"], capture_output=True, text=True)
check(p.returncode != 0 and "gcs_unpack" in p.stderr, "sqlite3 shell without .load names gcs_unpack: %r" % p.stderr)
sys.exit(finish())
