#!/usr/bin/env python3
"""bad_input.py GCSCOPE TRACE TMP CTF — the brief's bad-input rule on the reports'
shared parts (core/gcdb, core/cli, the umbrella): one line, a non-zero exit,
never a silent exit 0 or a silently wrong figure.

- stdout on a full disk (/dev/full): stats, sql, triggers, allocs, heaps and
  advise exited 0 (or 1) with no line; now "gcscope CMD: write error on
  stdout..." and exit 1 (the umbrella checks stdout after every command).
- an unknown command or a bad value with an escape sequence: the line carries
  '?' for the control characters; a 100 KB argument is cut at 1024 bytes.
- --trace 9223372036854775808 (2^63, one past INT64_MAX) reported the whole
  database with exit 0; now exit 2 and the range, written in full.
- a database with gcs_base dropped: every report printed zeros with exit 0
  (the update of an "older" database made the table again, empty); now one
  line naming the view that does not read, and the database is unchanged.
  `sql` still opens it (to look), without making the table again.
- a GC row with text where a number belongs (pause_msec 'abc'): SQLite reads
  0, stats and diff printed the wrong pauses; now one line naming the GC and
  the column.
- `sql` on a query without end (a recursive CTE without LIMIT): its aligned
  table grew without bound; now it stops at 1,000,000 rows with one line.
- a process name with an escape sequence in the HTML report: the raw ESC
  byte went out (on a terminal it drives it); now &#xFFFD;.
- a trace's string (RuntimeDllPath) with an escape sequence: `events` printed
  it raw; now '?' for each control character.
- a database the user cannot read (mode 600, another user): it was taken for
  a trace and the error named ./gcscope.db; now "DB: permission denied".
"""
import os
import shutil
import sqlite3
import subprocess
import sys

GCSCOPE, TRACE, TMP, CTF = sys.argv[1:5]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

T = Checker(GCSCOPE)
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
db = os.path.join(TMP, "good.db")
rc, out, err = T.run("import", "-q", "-d", db, TRACE)
T.check(rc == 0, "import: %d %s" % (rc, err))
pid = sqlite3.connect(db).execute("SELECT pid FROM processes WHERE gc_event_count > 0").fetchone()[0]


def expect(args, code, line, **kw):
    rc, out, err = T.run(*args, **kw)
    T.check(rc == code and err == line + "\n", "%s: exit %d, stderr %r (want %d, %r)" % (args[:4], rc, err, code, line))
    return out


# stdout on a full disk
for cmd in (["stats", db], ["sql", db, "SELECT * FROM gcs"], ["triggers", db], ["allocs", db], ["heaps", db],
            ["advise", db]):
    with open("/dev/full", "wb") as full:
        p = subprocess.run([GCSCOPE] + cmd, stdout=full, stderr=subprocess.PIPE, timeout=120)
    err = p.stderr.decode(errors="replace")
    # (the cause when stdio still knows it: stats flushed, and failed, before)
    want = "gcscope %s: write error on stdout" % cmd[0]
    T.check(p.returncode == 1 and err in (want + "\n", want + ": No space left on device\n"),
            "%s >/dev/full: exit %d, %r" % (cmd[0], p.returncode, err))

# escape sequences and long arguments in the error line
expect(["\x1b[31mred"], 2, "gcscope: '?[31mred' is not a gcscope command (see gcscope help)")
expect(["stats", db, "--section", "\x1b]0;title\x07"], 2,
       "gcscope stats: --section: unknown section '?]0;title?' (--help lists them)")
long_arg = "a" * 100000
rc, out, err = T.run("sql", db, long_arg)   # SQLite's error quotes the 100 KB token
T.check(rc == 1 and err.startswith('gcscope sql: near "aaa') and err.endswith("aaa...\n")
        and len(err) == len("gcscope sql: ") + 1024 + len("...\n"),
        "a 100 KB query: exit %d, %d bytes of stderr" % (rc, len(err)))
rc, out, err = T.run(long_arg)
T.check(rc == 2 and err == "gcscope: '%s' is not a gcscope command (see gcscope help)\n" % ("a" * 100),
        "a 100 KB command name: exit %d, %d bytes of stderr" % (rc, len(err)))
expect(["sql", db, "SELECT \x1b[2J"], 1, 'gcscope sql: unrecognized token: "?"')

# sql's aligned table is held whole: bounded (a recursive query grew without end)
expect(["sql", db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"], 1,
       "gcscope sql: over 1000000 rows: the aligned table is held whole, so it stops here "
       "(--csv and --json stream any number; or LIMIT)")

# integer options beyond INT64_MAX
expect(["stats", db, "--trace", "9223372036854775808"], 2,
       "gcscope stats: --trace: expected a number from 0 to 9223372036854775807, got '9223372036854775808'")
expect(["stats", db, "--trace", "abc"], 2,
       "gcscope stats: --trace: expected a number from 0 to 9223372036854775807, got 'abc'")


def copy_with(name, *sql):
    path = os.path.join(TMP, name)
    shutil.copy(db, path)
    c = sqlite3.connect(path)
    for s in sql:
        c.execute(s)
    c.commit()
    c.close()
    return path


def digest(path):
    with open(path, "rb") as f:
        return hash(f.read())


# a table dropped: the views over it do not read
dropped = copy_with("dropped.db", "DROP TABLE gcs_base")
before = digest(dropped)
line = ("%s: damaged database: view gc_bgc_pauses does not read (no such table: main.gcs_base)" % dropped)
for cmd in ("stats", "events", "advise", "export", "triggers"):
    expect([cmd, dropped], 1, "gcscope %s: %s" % (cmd, line))
expect(["diff", dropped, db], 1, "gcscope diff: %s" % line)
rc, out, err = T.run("sql", dropped, "SELECT count(*) FROM traces", "--csv")
T.check(rc == 0 and out == "count(*)\n1\n", "sql opens a damaged database: %d %r %r" % (rc, out, err))
T.check(digest(dropped) == before, "the damaged database is unchanged (no table made again)")
dropped2 = copy_with("dropped2.db", "DROP TABLE event_blocks")
expect(["stats", dropped2], 1, "gcscope stats: %s: damaged database: view alloc_by_type does not read "
       "(no such table: main.event_blocks)" % dropped2)

# text where a number belongs
typed = copy_with("typed.db", "UPDATE gcs_base SET pause_msec = 'abc' WHERE gc_index = 7")
bad = "damaged database: GC #7 of pid %d: pause_msec holds text, not a number" % pid
expect(["stats", typed], 1, "gcscope stats: " + bad)
expect(["stats", typed, "--format", "json"], 1, "gcscope stats: " + bad)
expect(["advise", typed], 1, "gcscope advise: " + bad)
expect(["diff", typed, db], 1, "gcscope diff: %s: %s" % (typed, bad))
blob = copy_with("blob.db", "UPDATE gcs_base SET start_msec = x'00ff' WHERE gc_index = 5")
expect(["export", blob, "--format", "chrome-json"], 1,
       "gcscope export: damaged database: GC #5 of pid %d: start_msec holds a blob, not a number" % pid)

# a process name with an escape sequence, in the HTML report: U+FFFD, no raw byte
named = copy_with("named.db", "UPDATE processes SET name = 'app' || char(27) || '[2J'")
rc, out, err = T.run("stats", named, "--format", "html")
T.check(rc == 0 and "\x1b" not in out and "GC Stats for Process %d: app&#xFFFD;[2J</h3>" % pid in out,
        "html: the process name's ESC as &#xFFFD; (%d)" % rc)

# a trace's string with an escape sequence, in `events`: printed as '?'. The
# CoreCLR CTF trace's RuntimeInformationStart carries RuntimeDllPath in UTF-16;
# "libcoreclr.so" becomes "lib<ESC>]0;t<BEL>x.so" (same length) in its streams.
ctf = os.path.join(TMP, "ctf")
shutil.copytree(CTF, ctf)
old_s, new_s = "libcoreclr.so".encode("utf-16le"), "lib\x1b]0;t\x07x.so".encode("utf-16le")
replaced = 0
for root, _, files in os.walk(ctf):
    for f in files:
        path = os.path.join(root, f)
        os.chmod(path, 0o644)
        with open(path, "rb") as fh:
            data = fh.read()
        if f.startswith("channel") and old_s in data:
            replaced += data.count(old_s)
            with open(path, "wb") as fh:
                fh.write(data.replace(old_s, new_s))
T.check(replaced == 4, "RuntimeDllPath in 4 events of the CTF trace (%d)" % replaced)
cdb = os.path.join(TMP, "ctf.db")
rc, out, err = T.run("import", "-q", "-d", cdb, ctf)
rc, out, err = T.run("events", cdb, "--filter", "RuntimeInformation")
T.check(rc == 0 and "\x1b" not in out and "\x07" not in out
        and out.count('RuntimeDllPath="/usr/share/dotnet/shared/Microsoft.NETCore.App/3.1.1/lib?]0;t?x.so"') == 3,
        "events: the path's ESC and BEL as '?' (%d)" % rc, )

# a database the user cannot read (as nobody; root reads every file)
setpriv = shutil.which("setpriv")
if os.geteuid() == 0 and setpriv:
    private = os.path.join(TMP, "private")
    os.makedirs(private)
    os.chmod(TMP, 0o755)
    os.chmod(private, 0o755)
    mine = os.path.join(private, "mine.db")
    shutil.copy(db, mine)
    os.chmod(mine, 0o600)
    nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", os.path.abspath(GCSCOPE)]
    for cmd in ("stats", "sql", "export"):
        p = subprocess.run(nobody + [cmd, mine], cwd="/", capture_output=True, timeout=60)
        want = "gcscope %s: %s: permission denied\n" % (cmd, mine)
        T.check(p.returncode == 1 and p.stderr.decode() == want,
                "%s on an unreadable database: exit %d %r (want %r)" % (cmd, p.returncode, p.stderr, want))
else:
    print("SKIP: unreadable database (needs root and setpriv to run as nobody)")

sys.exit(T.done())
