#!/usr/bin/env python3
"""archive_cut.py GCSCOPE TRACES_DIR TMP -- a trace cut short inside an
archive is named by what the user has: the archive and the member in it.

The byte offset of a cut counts the uncompressed bytes of the stream it is
in; the file gcscope read was a temporary extraction (removed after the
import) or a gzip stream. Three archives are made here from the real traces:

- t.nettrace.gz: the .NET Core 3.0 .nettrace cut in the middle, gzip'ed;
- n.nettrace.zip: the same cut stream as the member 'run/cut.nettrace';
- c.trace.zip: netcore31-perfcollect-default's lttngTrace with the stream
  file channel0_0 cut at byte 1000, zipped as perfcollect does (members
  under 'lttngTrace/').

Each imports with exit 0; traces.truncated_file is exactly "ARCHIVE:
member 'MEMBER' (uncompressed)" ("ARCHIVE (uncompressed)" for the .gz) and
traces.truncated_at the offset in that member computed here (the .nettrace's
last whole object, walked from its bytes; the CTF file's cut size); import's
warning line and every report's line name the same place:
"warning: trace 1: PLACE: cut at byte N, open GCs incomplete".
"""
import gzip
import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker, fresh_dir, nettrace_last_whole  # noqa: E402

GCSCOPE, TRACES, TMP = sys.argv[1:4]
T = Checker(GCSCOPE)
check, run = T.check, T.run
fresh_dir(TMP)


def column(db):
    con = sqlite3.connect(db)
    row = con.execute("SELECT truncated_file, truncated_at FROM traces").fetchall()
    con.close()
    return row


def expect(name, archive, place, at, import_says):
    """archive imports with the cut at byte `at` of `place`: the column, the
    import's warning, the reports' line."""
    db = os.path.join(TMP, name + ".db")
    rc, out, err = run("import", "-d", db, archive)
    print(out + err)
    check(rc == 0 and not err, "%s: import exits 0, nothing on stderr (%d, %r)" % (name, rc, err))
    warns = [l for l in out.splitlines() if l.startswith("warning")]
    want = "warning: %s: %s" % (place, import_says)
    check(len(warns) == 1 and warns[0].startswith(want), "%s: import says %r, want it to begin %r" % (name, warns, want))
    got = column(db)
    check(got == [(place, at)], "%s: traces (truncated_file, truncated_at) %r, want %r" % (name, got, [(place, at)]))
    line = "warning: trace 1: %s: cut at byte %d, open GCs incomplete" % (place, at)
    for cmd, prefix, extra in (("stats", "", ["--no-pager"]), ("advise", "gcscope advise: ", [])):
        rc, out, err = run(cmd, db, *extra)
        check(rc == 0 and prefix + line in (out + err).splitlines(),
              "%s: %s exit %d, want the line %r in %r" % (name, cmd, rc, prefix + line, (out + err)[:600]))
    rc, out, err = run("stats", db, "--format", "json")
    check(rc == 0 and ('"trace 1: %s was cut short: imported up to byte %d"' % (place, at)) in out,
          "%s: stats JSON warns of %s at byte %d" % (name, place, at))


# ---- .nettrace, gzip'ed and zipped ----
data = open(os.path.join(TRACES, "nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace"), "rb").read()
half = len(data) // 2
keep = nettrace_last_whole(data, half)
assert 32 < keep < half, keep
cut = data[:half]
nt_why = "truncated at byte %d inside an EventBlock that starts at byte %d" % (half, keep)

gz = os.path.join(TMP, "t.nettrace.gz")
with gzip.open(gz, "wb") as f:
    f.write(cut)
expect("gz", gz, "%s (uncompressed)" % gz, keep, nt_why)

nz = os.path.join(TMP, "n.nettrace.zip")
with zipfile.ZipFile(nz, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("run/cut.nettrace", cut)
expect("nettrace-zip", nz, "%s: member 'run/cut.nettrace' (uncompressed)" % nz, keep, nt_why)

# ---- perfcollect's .trace.zip with a CTF stream file cut ----
src = os.path.join(TRACES, "coreclr/netcore31-perfcollect-default/lttngTrace")
sub = "auto-20200317-170407/ust/uid/1000/64-bit"
t = os.path.join(TMP, "lttngTrace")
shutil.copytree(src, t)
member = "lttngTrace/%s/channel0_0" % sub
os.chmod(os.path.join(TMP, member), 0o644)
os.truncate(os.path.join(TMP, member), 1000)
cz = os.path.join(TMP, "c.trace.zip")
with zipfile.ZipFile(cz, "w", zipfile.ZIP_DEFLATED) as z:
    for root, dirs, files in os.walk(t):
        dirs.sort()
        for fn in sorted(files):
            p = os.path.join(root, fn)
            z.write(p, os.path.relpath(p, TMP))
expect("ctf-zip", cz, "%s: member '%s' (uncompressed)" % (cz, member), 1000,
       "cut at byte 1000 inside a packet that starts at byte 0 (1000 bytes of its 524288, dropped); the events "
       "of the 0 whole packets before it are kept")
# The cut's lost record (from the end of the last whole packet) names the
# stream as the archive's member too: the extraction directory is gone.
con = sqlite3.connect(os.path.join(TMP, "ctf-zip.db"))
lost = con.execute("SELECT stream FROM lost_events").fetchall()
con.close()
check(lost == [("%s: member '%s' (uncompressed)" % (cz, member),)],
      "ctf-zip: lost_events.stream names the member: %r" % lost)
sys.exit(T.done())
