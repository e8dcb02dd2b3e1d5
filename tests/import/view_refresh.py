#!/usr/bin/env python3
"""view_refresh.py GCSCOPE RGC_TRACE NETTRACE TMP -- an import into a database
an older gcscope made brings the GC views' INSTEAD OF triggers (and the
views) up to today's, so a value written by hand through them is stored as
today's triggers store it; the rows stay as they were.

The database: RGC_TRACE (tests/import/data/rgc-server-verbose) imported,
then gcs_update replaced by what the older triggers did to pause_msec (it
stored NEW.pause_msec * 1.0: `UPDATE gcs SET pause_msec = 5` left the REAL
5.0 in gcs_base where the writer stores the integer count of ns, 5000000).
After an import of NETTRACE into it: the views' and triggers' SQL equal a
new database's, `UPDATE gcs SET pause_msec = 5` stores the integer 5000000
(the view gives the REAL 5.0), and every row of gcs_base that was there
is unchanged (each value's type and bits)."""
import os
import shutil
import sqlite3
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402

GCSCOPE, RGC, NETTRACE, TMP = sys.argv[1:5]
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
OBJECTS = ("SELECT type, name, sql FROM sqlite_master WHERE name IN ('gcs', 'gc_gens', 'gc_heaps', 'gc_heap_gens') "
           "OR (type = 'trigger' AND tbl_name IN ('gcs', 'gc_gens', 'gc_heaps', 'gc_heap_gens')) ORDER BY name")


def imp(db, trace):
    p = subprocess.run([GCSCOPE, "import", "-q", "-d", db, trace], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "import %s: %s" % (trace, p.stderr.strip()))


def base_rows(c, trace_id):
    return [tuple((type(v).__name__, v.hex() if isinstance(v, float) else v) for v in r)
            for r in c.execute("SELECT * FROM gcs_base WHERE trace_id = ? ORDER BY id", (trace_id,))]


db = os.path.join(TMP, "old.db")
imp(db, RGC)
c = sqlite3.connect(db)
c.execute("DROP TRIGGER gcs_update")
c.execute("CREATE TRIGGER gcs_update INSTEAD OF UPDATE ON gcs BEGIN "
          "UPDATE gcs_base SET pause_msec = NEW.pause_msec * 1.0 WHERE id = OLD.id; END")
gid = c.execute("SELECT min(id) FROM gcs").fetchone()[0]
c.execute("UPDATE gcs SET pause_msec = 5 WHERE id = ?", (gid,))
check(c.execute("SELECT typeof(pause_msec) FROM gcs_base WHERE id = ?", (gid,)).fetchone() == ("real",),
      "the older trigger stores a REAL")
c.execute("UPDATE gcs_base SET pause_msec = 400000 WHERE id = ?", (gid,))
c.commit()
before = base_rows(c, 1)
c.close()

imp(db, NETTRACE)
fresh = os.path.join(TMP, "new.db")
imp(fresh, NETTRACE)
c, f = sqlite3.connect(db), sqlite3.connect(fresh)
got, want = c.execute(OBJECTS).fetchall(), f.execute(OBJECTS).fetchall()
check(len(want) == 16, "a new database: %d views and triggers, expected 16" % len(want))
check(got == want, "the views and triggers after the import differ from a new database's: %r" %
      sorted(set(r[1] for r in got) ^ set(r[1] for r in want) or [r[1] for r, w in zip(got, want) if r != w]))
check(base_rows(c, 1) == before, "the first trace's gcs_base rows changed")
c.execute("UPDATE gcs SET pause_msec = 5 WHERE id = ?", (gid,))
b = c.execute("SELECT typeof(pause_msec), pause_msec FROM gcs_base WHERE id = ?", (gid,)).fetchone()
v = c.execute("SELECT typeof(pause_msec), pause_msec FROM gcs WHERE id = ?", (gid,)).fetchone()
check(b == ("integer", 5000000), "UPDATE gcs SET pause_msec = 5 stored %r, expected the integer 5000000" % (b,))
check(v == ("real", 5.0), "UPDATE gcs SET pause_msec = 5 reads back %r, expected 5.0" % (v,))
c.close()
f.close()
print("an import brought the views and triggers up to date; the rows unchanged")
sys.exit(finish())
