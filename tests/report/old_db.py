#!/usr/bin/env python3
"""old_db.py GCSCOPE TRACE TMP — a database made by an older gcscope (without
the measured-allocation columns and the trigger_firings table, with its
events, alloc_ticks and gc_lifecycle as tables of rows instead of event_blocks,
gc_gens, gc_heaps and gc_heap_gens as rowid tables with an index by gc_id) still
works: the first report adds what is missing (empty until its traces are
imported again), keeps the old rows (legacy_events, legacy_alloc_ticks,
legacy_gc_lifecycle, shown by the views of the old names) and prints PerfView's figures and
the events as before. Its gcs and gc_gens are tables (before the compact GC
tables, gcs_base and gc_gens_base under views of those names): an import into
it is refused with one line and changes nothing; a trace imported into the
layout just before that (gcs a table, events packed) is checked by the
layout's own tests of that time. A read-only old database is one clear line
and exit 1, unchanged."""
import json
import os
import re
import shutil
import sqlite3
import stat
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

G, TRACE, TMP, TRACE_B = sys.argv[1:5]
T = Checker(G)
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
db = TMP + "/old.db"
rc, out, err = T.run("import", "-q", "-d", db, TRACE)
T.check(rc == 0, "import")
rc, new_json, err = T.run("stats", db, "--format", "json")
rc, new_events, err = T.run("events", db)
Q_TICKS = "SELECT trace_id, ts_ns, pid, tid, kind, amount, type_id, heap, object_size FROM alloc_ticks"
rc, new_ticks, err = T.run("sql", db, Q_TICKS)
rc, new_triggers, err = T.run("triggers", db, "--gc-over", "1", "--format", "json")
Q_GENS = ("SELECT * FROM gc_gens ORDER BY gc_id, gen", "SELECT * FROM gc_heaps ORDER BY gc_id, heap_slot",
          "SELECT * FROM gc_heap_gens ORDER BY gc_id, heap_slot, gen")
new_gens = [T.run("sql", db, q)[1] for q in Q_GENS]
Q_HH = ("SELECT g.id, (SELECT sum(h.free_list_before + h.free_obj_before) * 100.0 / sum(h.size_before) "
        "FROM gc_heap_gens h WHERE h.gc_id = g.id AND h.gen = 2), (SELECT group_concat(x.condemn_reasons1) "
        "FROM gc_heaps x WHERE x.gc_id = g.id), (SELECT sum(size_after_mb) FROM gc_gens n WHERE n.gc_id = g.id) "
        "FROM gcs g ORDER BY g.id")
rc, new_hh, err = T.run("sql", db, Q_HH)
# The older layout: events and alloc_ticks were tables (their rows as the views show them).
rc, out, err = T.run("sql", "--write", db,
                     "CREATE TABLE old_events AS SELECT id, trace_id, ts_ns, pid, tid, cpu, name, version, payload "
                     "FROM events; CREATE TABLE old_ticks AS " + Q_TICKS + "; CREATE TABLE old_lc AS SELECT trace_id, ts_ns, "
                     "pid, tid, name, version, count, depth, type, reason FROM gc_lifecycle ORDER BY id; "
                     "DROP VIEW events; DROP VIEW alloc_ticks; DROP VIEW gc_lifecycle; DROP VIEW event_stacks; DROP TABLE event_blocks; "
                     "DROP TABLE stacks; DROP TABLE frames; DROP TABLE stack_symbols")
T.check(rc == 0, "older layout made (%s)" % err.strip())
c = sqlite3.connect(db)
c.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, trace_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, "
          "pid INTEGER NOT NULL, tid INTEGER NOT NULL, cpu INTEGER NOT NULL, name TEXT NOT NULL, "
          "version INTEGER NOT NULL, payload TEXT NOT NULL)")
c.execute("INSERT INTO events SELECT * FROM old_events")
c.execute("CREATE INDEX events_by_time ON events(trace_id, ts_ns)")
c.execute("CREATE TABLE alloc_ticks (trace_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, pid INTEGER NOT NULL, "
          "tid INTEGER NOT NULL, kind INTEGER NOT NULL, amount INTEGER NOT NULL, type_id INTEGER, heap INTEGER, "
          "object_size INTEGER)")
c.execute("INSERT INTO alloc_ticks SELECT * FROM old_ticks")
c.execute("CREATE TABLE gc_lifecycle (trace_id INTEGER NOT NULL, ts_ns INTEGER NOT NULL, pid INTEGER NOT NULL, "
          "tid INTEGER NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, count INTEGER, depth INTEGER, "
          "type INTEGER, reason INTEGER)")
c.execute("INSERT INTO gc_lifecycle SELECT * FROM old_lc")
c.execute("DROP TABLE old_lc")
c.execute("DROP TABLE old_events")
c.execute("DROP TABLE old_ticks")
# gcs and gc_gens as tables of the declared types (REAL ms and MB), as the
# views show them, with gcs' indexes on gcs (before the compact tables).
def old_table(view, base):
    types = {r[1]: (r[2], r[3]) for r in c.execute("PRAGMA table_info(%s)" % base)}
    cols = []
    for r in c.execute("PRAGMA table_info(%s)" % view):
        name = r[1]
        # gc_gens' and gc_heap_gens' per-generation columns are stored five times (g0_NAME ...);
        # trace_id, pid, gc_index (and gen) are not stored
        typ, notnull = types.get(name, types.get("g0_" + name, ("INTEGER", 1)))
        typ = typ or "REAL"                               # a figure stored as 10^-6 integers
        key = " PRIMARY KEY" if name == "id" else ""
        cols.append("%s %s%s%s" % (name, typ, key, " NOT NULL" if notnull and not key else ""))
    return cols


c.execute("PRAGMA legacy_alter_table = ON")   # gc_pauses and the others name gcs, dropped for a moment
for view, extra in (("gc_gens", ", PRIMARY KEY (gc_id, gen)) WITHOUT ROWID"),
                    ("gc_heaps", ", PRIMARY KEY (gc_id, heap_slot)) WITHOUT ROWID"),
                    ("gc_heap_gens", ", PRIMARY KEY (gc_id, gen, heap_slot)) WITHOUT ROWID"), ("gcs", ")")):
    cols = old_table(view, view + "_base")
    c.execute("CREATE TABLE old_%s (%s%s" % (view, ", ".join(cols), extra))
    c.execute("INSERT INTO old_%s SELECT * FROM %s" % (view, view))
    c.execute("DROP VIEW %s" % view)
    c.execute("ALTER TABLE old_%s RENAME TO %s" % (view, view))
c.execute("DROP TABLE gc_gens_base")
c.execute("DROP TABLE gc_heaps_base")
c.execute("DROP TABLE gc_heap_gens_base")
c.execute("DROP TABLE gcs_base")
for idx, cols in (("gcs_by_proc", "trace_id, pid, list_index"), ("gcs_by_start", "trace_id, pid, start_ns"),
                  ("gcs_by_type_start", "trace_id, pid, type, start_ns")):
    c.execute("CREATE INDEX %s ON gcs(%s)" % (idx, cols))
for col in ("soh_alloc_measured_mb", "loh_alloc_measured_mb", "poh_alloc_measured_mb", "alloc_measured_mb"):
    c.execute("ALTER TABLE gcs DROP COLUMN %s" % col)
c.execute("ALTER TABLE gc_process_summary DROP COLUMN total_alloc_measured_mb")
c.execute("ALTER TABLE traces DROP COLUMN time_ordered")
c.execute("DROP TABLE trigger_firings")
# The per-generation and per-heap tables as rowid tables (rows in the order the
# older import wrote them) with their indexes by gc_id.
for t, order, idx, key in (("gc_gens", "gc_id, gen", "gc_gens_by_gc", "gc_id"),
                           ("gc_heaps", "gc_id, heap_slot", "gc_heaps_by_gc", "gc_id"),
                           ("gc_heap_gens", "gc_id, heap_slot, gen", "gc_heap_gens_by_gc", "gc_id, gen")):
    sql = c.execute("SELECT sql FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0]
    T.check("WITHOUT ROWID" in sql, "%s is a WITHOUT ROWID table in a new database" % t)
    c.execute("ALTER TABLE %s RENAME TO keyed_%s" % (t, t))
    c.execute(re.sub(r",\s*PRIMARY KEY \([^)]*\)\s*\)\s*WITHOUT ROWID", "\n)", sql))
    c.execute("INSERT INTO %s SELECT * FROM keyed_%s ORDER BY %s" % (t, t, order))
    c.execute("DROP TABLE keyed_%s" % t)
    c.execute("CREATE INDEX %s ON %s(%s)" % (idx, t, key))
c.execute("PRAGMA user_version = 0")   # made before schema versions
c.commit()
c.close()
ro = TMP + "/old-ro.db"
shutil.copy(db, ro)
rc, out, err = T.run("stats", db, "--format", "json")
T.check(rc == 0, "stats on the old database (%s)" % err.strip())
if rc == 0:
    a, b = json.loads(new_json)["processes"][0]["summary"], json.loads(out)["processes"][0]["summary"]
    T.check(b["total_alloc_measured_mb"] is None and a["total_alloc_measured_mb"] is not None,
            "the new figure is empty until a re-import")
    T.check(all(a[k] == b[k] for k in ("gc_count", "total_pause_msec", "total_alloc_mb", "max_heap_mb")),
            "PerfView's figures unchanged")
cols = [r[1] for r in sqlite3.connect(db).execute("PRAGMA table_info(gcs)")]
T.check("alloc_measured_mb" in cols, "the column was added")
T.check(T.rows(db, "SELECT id, time_ordered FROM traces") == [["1", ""]],
        "traces.time_ordered added, NULL for the old trace (its events sorted)")
rc, out, err = T.run("events", db)
T.check(rc == 0 and out == new_events and out.count("\n") > 100, "the old events rows, as before")
T.check([T.run("sql", db, q)[1] for q in Q_GENS] == new_gens and new_gens[2].count("\n") > 10,
        "the rowid gc_gens, gc_heaps, gc_heap_gens rows, as before")
rc, out, err = T.run("sql", db, Q_HH)
T.check(rc == 0 and out == new_hh and out.count("\n") > 10,
        "per GC, the per-heap and per-generation figures the reports read (by gc_id, through the old indexes)")
rc, out, err = T.run("sql", db, Q_TICKS)
T.check(rc == 0 and out == new_ticks, "the old alloc_ticks rows, as before")
rc, out, err = T.run("triggers", db, "--gc-over", "1", "--format", "json")
T.check(rc == 0 and out == new_triggers, "the old gc_lifecycle rows, as before")
kinds = dict(sqlite3.connect(db).execute("SELECT name, type FROM sqlite_master WHERE name IN "
                                         "('events', 'legacy_events', 'alloc_ticks', 'legacy_alloc_ticks', 'gc_lifecycle', "
                                         "'legacy_gc_lifecycle')"))
T.check(kinds == {"events": "view", "legacy_events": "table", "alloc_ticks": "view", "legacy_alloc_ticks": "table",
                  "gc_lifecycle": "view", "legacy_gc_lifecycle": "table"},
        "the old tables renamed, the views over them (%r)" % kinds)
# An import into the old database: refused, one line, nothing written.
size = os.path.getsize(db)
body = open(db, "rb").read()
rc, out, err = T.run("import", "-q", "-d", db, TRACE_B)
T.check(rc == 1 and err.count("\n") == 1 and "made by an older gcscope" in err and "-d NEW.db" in err,
        "import into the old database: refused in one line (%r)" % err)
T.check(open(db, "rb").read() == body and os.path.getsize(db) == size, "the refused import wrote nothing")
kinds = dict(sqlite3.connect(db).execute("SELECT name, type FROM sqlite_master WHERE name IN "
                                         "('gcs', 'gc_gens', 'gcs_base', 'gc_gens_base', 'gc_heaps_base', 'gc_heap_gens_base')"))
T.check(kinds == {"gcs": "table", "gc_gens": "table"}, "its gcs and gc_gens tables, no compact tables (%r)" % kinds)
kinds = dict(sqlite3.connect(db).execute("SELECT name, sql LIKE '%WITHOUT ROWID%' FROM sqlite_master "
                                         "WHERE name IN ('gc_gens', 'gc_heaps', 'gc_heap_gens', 'gc_gens_by_gc', "
                                         "'gc_heaps_by_gc', 'gc_heap_gens_by_gc')"))
T.check(kinds == {"gc_gens": 0, "gc_heaps": 0, "gc_heap_gens": 0, "gc_gens_by_gc": 0, "gc_heaps_by_gc": 0,
                  "gc_heap_gens_by_gc": 0}, "the old rowid tables and their indexes kept (%r)" % kinds)
rc, out, err = T.run("events", db, "--trace", "1")
T.check(rc == 0 and out == new_events, "the old trace's events unchanged")
rc, out, err = T.run("stats", db, "--format", "json")
T.check(rc == 0 and json.loads(out)["processes"][0]["summary"]["gc_count"] ==
        json.loads(new_json)["processes"][0]["summary"]["gc_count"], "stats still reads it")
rc, out, err = T.run("stats", db, "--section", "firings")
T.check(rc == 0, "the firings section reads the added table")
# read-only: nothing can be added; one line, the file unchanged
os.chmod(ro, stat.S_IRUSR)
os.chmod(TMP, stat.S_IRUSR | stat.S_IXUSR)
before = open(ro, "rb").read()
rc, out, err = T.run("stats", ro)
os.chmod(TMP, stat.S_IRWXU)
if os.geteuid() != 0:   # root may write anyway
    T.check(rc == 1 and err.count("\n") == 1 and "made by an older gcscope" in err, "read-only: one line (%r)" % err)
    T.check(open(ro, "rb").read() == before, "read-only: unchanged")
else:
    print("read-only case not checked as root (root writes anyway)")
sys.exit(T.done())
