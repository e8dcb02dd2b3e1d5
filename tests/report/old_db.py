#!/usr/bin/env python3
"""old_db.py GCSCOPE TRACE TMP — a database made by an older gcscope (without
the measured-allocation columns and the trigger_firings table) still works:
the first report adds what is missing (empty until its traces are imported
again) and prints PerfView's figures as before; a read-only old database is
one clear line and exit 1, unchanged."""
import json
import os
import shutil
import sqlite3
import stat
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

G, TRACE, TMP = sys.argv[1:4]
T = Checker(G)
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
db = TMP + "/old.db"
rc, out, err = T.run("import", "-q", "-d", db, TRACE)
T.check(rc == 0, "import")
rc, new_json, err = T.run("stats", db, "--format", "json")
c = sqlite3.connect(db)
for col in ("soh_alloc_measured_mb", "loh_alloc_measured_mb", "poh_alloc_measured_mb", "alloc_measured_mb"):
    c.execute("ALTER TABLE gcs DROP COLUMN %s" % col)
c.execute("ALTER TABLE gc_process_summary DROP COLUMN total_alloc_measured_mb")
c.execute("DROP TABLE trigger_firings")
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
