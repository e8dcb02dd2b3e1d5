#!/usr/bin/env python3
"""hostile.py GCSCOPE TRACE TMP — issue 25's hostile SQL and option values.

- `sql` refuses fts3_tokenizer() in both forms: the one-argument form
  returned a memory address, the two-argument one (with --write) registered
  a tokenizer at an attacker's address and CREATE VIRTUAL TABLE ... fts3
  then crashed (SIGSEGV). Now: exit 1 and SQLite's authorizer line; the
  fts3 table names an unknown tokenizer.
- SQLITE_DBCONFIG_DEFENSIVE: writable_schema cannot rewrite sqlite_master.
- `events --from nan`, `1e400` (overflows to inf) and `inf` exit 2 with one line.
- A reader that meets an import's write lock says busy after the 5 s wait.
- A report given a bad trace (an empty directory) prints one line and leaves
  no ./gcscope.db; a database with a damaged header is a corrupt database.
The database is byte-for-byte unchanged by all of it.
"""
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import time

GCSCOPE, TRACE, TMP = sys.argv[1:4]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

T = Checker(GCSCOPE)
os.makedirs(TMP, exist_ok=True)
db = TMP + "/h.db"
if os.path.exists(db):
    os.unlink(db)
rc, out, err = T.run("import", "-q", "-d", db, TRACE)
T.check(rc == 0, "import: %d %s" % (rc, err))


def digest():
    with open(db, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


before = digest()


def expect(args, code, line):
    rc, out, err = T.run(*args)
    T.check(rc == code and err == line + "\n", "%s: exit %d, stderr %r (want %d, %r)" % (args, rc, err, code, line))


denied = "gcscope sql: not authorized to use function: fts3_tokenizer"
expect(["sql", db, "SELECT hex(fts3_tokenizer('simple'))"], 1, denied)
expect(["sql", db, "--write", "SELECT fts3_tokenizer('evil', x'4141414141414141')"], 1, denied)
# An error while the rows come: the table is not printed (only rows 1 and 2
# exist when abs() overflows on row 3), just the error line.
rc, out, err = T.run("sql", db, "WITH r(v) AS (VALUES (1), (2), (3)) "
                     "SELECT abs(CASE WHEN v = 3 THEN -9223372036854775807 - 1 ELSE v END) AS a FROM r")
T.check(rc == 1 and out == "" and err == "gcscope sql: integer overflow\n",
        "an error after two rows: no half table (%d, %r, %r)" % (rc, out, err))
rc, out, err = T.run("sql", db, "SELECT hex(fts3_tokenizer('simple'))")
T.check(out == "", "a refused function prints no table header: %r" % out)
expect(["sql", db, "--write", "CREATE VIRTUAL TABLE t USING fts3(a, tokenize=evil)"], 1,
       "gcscope sql: unknown tokenizer: evil")
expect(["sql", db, "--write", "PRAGMA writable_schema=1; UPDATE sqlite_master SET sql='x' WHERE name='traces'"], 1,
       "gcscope sql: table sqlite_master may not be modified")
# The views that call gcs_unpack still work with trusted_schema off.
rc, out, err = T.run("sql", db, "SELECT count(*) > 0 FROM events", "--csv")
T.check(rc == 0 and out.splitlines()[-1] == "1", "events view: %d %r %r" % (rc, out, err))

for v in ("nan", "1e400", "inf"):
    expect(["events", db, "--from", v], 2, "gcscope events: bad --from '%s' (expected a finite number of ms)" % v)
expect(["events", db, "--to", "-nan"], 2, "gcscope events: bad --to '-nan' (expected a finite number of ms)")
expect(["events", db, "--from", "5", "--to", "1"], 2, "gcscope events: --to 1 is before --from 5")

# An import holding the write lock: the reader waits GCS_INPUT_BUSY_MS (5 s), then says busy.
c = sqlite3.connect(db, isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
t0 = time.monotonic()
p = subprocess.run([GCSCOPE, "stats", db], capture_output=True, text=True, timeout=60)
took = time.monotonic() - t0
c.execute("ROLLBACK")
c.close()
T.check(p.returncode == 1 and p.stderr == "gcscope stats: %s: busy: an import is writing; retry or wait\n" % db,
        "busy: %d %r" % (p.returncode, p.stderr))
T.check(4.5 <= took < 30, "busy: waited %.1f s" % took)

# A report given a bad trace: one line, exit 1, and no ./gcscope.db left behind (a 426 KB empty
# database was); the same for every report command.
work = os.path.join(TMP, "cwd")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "e"))
for cmd in ("stats", "events", "advise", "export", "heaps"):
    p = subprocess.run([GCSCOPE, cmd, "e"], capture_output=True, text=True, cwd=work, timeout=60)
    T.check(p.returncode == 1 and p.stderr == "gcscope %s: e: no trace found (no LTTng/CTF `metadata` file under it, no .nettrace file in it)\n"
            % cmd, "%s e: %d %r" % (cmd, p.returncode, p.stderr))
    T.check(sorted(os.listdir(work)) == ["e"], "%s e: left %s" % (cmd, os.listdir(work)))

# A database whose first 16 bytes are damaged is a corrupt database, not "not a trace".
bad = os.path.join(work, "damaged.db")
with open(db, "rb") as f:
    data = bytearray(f.read())
data[0:16] = bytes(16)
with open(bad, "wb") as f:
    f.write(data)
p = subprocess.run([GCSCOPE, "stats", "damaged.db"], capture_output=True, text=True, cwd=work, timeout=60)
T.check(p.returncode == 1 and p.stderr ==
        "gcscope stats: damaged.db: corrupt database (its SQLite header is damaged or missing)\n",
        "damaged header: %d %r" % (p.returncode, p.stderr))
T.check(not os.path.exists(os.path.join(work, "gcscope.db")), "damaged header: gcscope.db created")

T.check(digest() == before, "the database changed")
sys.exit(T.done())
