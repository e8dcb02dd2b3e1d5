#!/usr/bin/env python3
"""gc_delete.py GCSCOPE RGC_TRACE NETTRACE TMP -- `DELETE FROM gcs WHERE id = N`
(the view's INSTEAD OF DELETE trigger) removes GC N's rows from every table
keyed by gc_id, and from nothing else; a database an older gcscope made gets
that trigger at its next import.

RGC_TRACE (tests/import/data/rgc-server-verbose: a server GC, rows in gc_gens,
gc_heaps, gc_heap_gens and gc_mark_times) imported; the per-GC tables it
leaves empty (gc_loh_waits, gc_loh_compact, gc_fit_buckets, the DATAS tables)
get a row by hand for the GC deleted and for another one. Expected: every
table with a gc_id column (the set checked by name) holds exactly its rows
before but GC N's, and the views gc_gens, gc_heaps and gc_heap_gens none of
GC N (before: all of them stayed, and reports counted them). Then the same on
a database whose gcs_delete trigger is the older one (DELETE FROM gcs_base
only), after an import of NETTRACE into it."""
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
PER_GC = {"gc_gens_base", "gc_heaps_base", "gc_heap_gens_base", "gc_loh_waits", "gc_mark_times", "gc_loh_compact",
          "gc_fit_buckets", "gc_datas_samples", "gc_datas_tunings", "gc_datas_gen2_tunings", "gc_datas_hc_samples",
          "gc_datas_hc_tunings"}
OLD_DELETE = "CREATE TRIGGER gcs_delete INSTEAD OF DELETE ON gcs BEGIN DELETE FROM gcs_base WHERE id = OLD.id; END"


def imp(db, trace):
    p = subprocess.run([GCSCOPE, "import", "-q", "-d", db, trace], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "import %s: %s" % (trace, p.stderr.strip()))


def gc_tables(c):
    return sorted(r[0] for r in c.execute(
        "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND "
        "EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'gc_id')"))


def rows(c, t):
    return sorted(c.execute("SELECT * FROM %s" % t).fetchall(), key=repr)


def fill(c, gone, kept):
    """A row by hand for both GCs in each per-GC table the trace left empty."""
    for t in gc_tables(c):
        if c.execute("SELECT count(*) FROM %s" % t).fetchone()[0]:
            continue
        cols = [r[1] for r in c.execute("SELECT * FROM pragma_table_info(?)", (t,)) if r[3] and r[1] != "gc_id"]
        for g in (gone, kept):
            c.execute("INSERT INTO %s (gc_id%s) VALUES (?%s)" % (t, "".join(", " + x for x in cols), ", 0" * len(cols)),
                      (g,))


def delete_and_check(db, what):
    c = sqlite3.connect(db)
    tables = gc_tables(c)
    check(set(tables) == PER_GC, "%s: the tables keyed by gc_id: %r" % (what, tables))
    gone, kept = c.execute("SELECT min(id), max(id) FROM gcs WHERE trace_id = 1").fetchone()
    fill(c, gone, kept)
    c.commit()
    before = {t: rows(c, t) for t in tables}
    for t in tables:
        check(any(r for r in c.execute("SELECT 1 FROM %s WHERE gc_id = ?" % t, (gone,))),
              "%s: %s has rows of GC %d before" % (what, t, gone))
    ngcs = c.execute("SELECT count(*) FROM gcs").fetchone()[0]
    c.execute("DELETE FROM gcs WHERE id = ?", (gone,))
    c.commit()
    check(c.execute("SELECT count(*) FROM gcs").fetchone()[0] == ngcs - 1, "%s: one GC deleted" % what)
    for t in tables:
        after = rows(c, t)
        gi = [r[1] for r in c.execute("SELECT * FROM pragma_table_info(?)", (t,))].index("gc_id")
        want = [r for r in before[t] if r[gi] != gone]
        check(after == want, "%s: %s after the delete: %d rows, expected %d (GC %d's gone, the others as they were)"
              % (what, t, len(after), len(want), gone))
        check(any(r[gi] == kept for r in after), "%s: %s keeps GC %d's rows" % (what, t, kept))
    for v in ("gc_gens", "gc_heaps", "gc_heap_gens"):
        n = c.execute("SELECT count(*) FROM %s WHERE gc_id = ?" % v, (gone,)).fetchone()[0]
        check(n == 0, "%s: the view %s shows %d rows of the deleted GC" % (what, v, n))
    c.close()


db = os.path.join(TMP, "new.db")
imp(db, RGC)
delete_and_check(db, "a new database")

old = os.path.join(TMP, "old.db")
imp(old, RGC)
c = sqlite3.connect(old)
c.execute("DROP TRIGGER gcs_delete")
c.execute(OLD_DELETE)
c.commit()
c.close()
imp(old, NETTRACE)
c = sqlite3.connect(old)
sql = c.execute("SELECT sql FROM sqlite_master WHERE name = 'gcs_delete'").fetchone()[0]
c.close()
check(sql != OLD_DELETE, "the import replaced the older gcs_delete trigger")
delete_and_check(old, "an older database after an import")
sys.exit(finish())
