#!/usr/bin/env python3
"""progress.py GCSCOPE NETTRACE CTFDIR TMP — import's progress line.

On a terminal (script(1) gives the import a pseudo-terminal) the line is
rewritten in place on stderr ("\\rNAME: N events (R/s), G GCs, P % (about S s
left)"), with events and GCs never going backwards and G at most the trace's
GC count, and erased ("\\r\\033[K") before the summary line. A CTF trace shows
a percentage from its packet index. With -q, or when stderr is not a
terminal, nothing of it is printed. GCSCOPE_PROGRESS_MS=1 makes the short
test traces produce several lines.
"""
import os
import re
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, NT, CTF, TMP = sys.argv[1:5]
os.makedirs(TMP, exist_ok=True)


env = dict(os.environ, GCSCOPE_PROGRESS_MS="1")
LINE = re.compile(r"\r([^\r\n]+): (\d+) events \((\d+)/s\), (\d+) GCs(, (\d+) % \(about \d+ s left\))?\x1b\[K")

for label, trace, gcs in (("nettrace", NT, 478), ("ctf", CTF, 11)):
    db = "%s/%s.db" % (TMP, label)
    if os.path.exists(db):
        os.unlink(db)
    log = "%s/%s.log" % (TMP, label)
    subprocess.run(["script", "-qec", "%s import -d %s %s" % (GCSCOPE, db, trace), log], env=env,
                   stdout=subprocess.DEVNULL, check=False)
    text = open(log, "rb").read().decode("utf-8", "replace")
    lines = LINE.findall(text)
    print("%s: %d progress lines, last %s" % (label, len(lines), lines[-1] if lines else None))
    check(len(lines) >= (2 if label == "nettrace" else 1), "%s: progress lines on a terminal" % label)
    ev = [int(l[1]) for l in lines]
    g = [int(l[3]) for l in lines]
    check(ev == sorted(ev) and g == sorted(g) and (not g or g[-1] <= gcs), "%s: counts never go back" % label)
    check(label != "ctf" or any(l[5] for l in lines), "%s: a percentage from the packet index" % label)
    check(re.search(r"\r\x1b\[K[^\r\n]*: trace 1(, host [^\r\n]*)?\r?\n  \d+ events ", text) is not None, "%s: erased before the summary" % label)
    os.unlink(db)
    p = subprocess.run(["script", "-qec", "%s import -q -d %s %s" % (GCSCOPE, db, trace), log], env=env,
                       stdout=subprocess.DEVNULL)
    check("events (" not in open(log, "rb").read().decode("utf-8", "replace"), "%s: -q prints no progress" % label)
    os.unlink(db)
    p = subprocess.run([GCSCOPE, "import", "-d", db, trace], env=env, capture_output=True, text=True)
    check(p.returncode == 0 and "\r" not in p.stderr and "events (" not in p.stderr,
          "%s: no progress when stderr is not a terminal" % label)
print("%d failed" % failed())
sys.exit(1 if failed() else 0)
