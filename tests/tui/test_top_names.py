"""test_top_names.py — names a trace supplies, drawn by `gcscope top`, show
control characters and bidirectional overrides as '?' (gcs_text_printable's
rule, as every text report prints them).

usage: test_top_names.py GCSCOPE TUI_MKDB FIXTURE.sql WORKDIR

fixture.sql's database, with pid 4242's process name made
"ev" ESC "[31m" U+202E "il" BEL and the payload of the first event of its
background GC #3 (GCSuspendEEBegin at 300.000 ms) made
"Reason=" ESC "]0;pwned" BEL U+202E "x". ncurses alone shows ESC as "^[" and
BEL as "^G" and passes U+202E (RIGHT-TO-LEFT OVERRIDE) to the terminal; top
shows each as one '?': "ev?[31m?il?" in the header (line 2: "PID 4242 NAME
(Workstation concurrent)") and in the process chooser (p), and
"Reason=?]0;pwned??x" in the GC detail (Enter on #3, the 4th row).
"""
import os
import sqlite3
import subprocess
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tmux_top import Screen  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402

GCSCOPE, MKDB, FIXTURE, WORK = sys.argv[1:5]
DB = os.path.join(WORK, "top-names.db")
NAME = "ev\x1b[31m\u202eil\x07"
PAYLOAD = "Reason=\x1b]0;pwned\x07\u202ex"

os.makedirs(WORK, exist_ok=True)
if os.path.exists(DB):
    os.unlink(DB)
subprocess.run([MKDB, DB, FIXTURE], check=True)
con = sqlite3.connect(DB)
con.execute("UPDATE processes SET name = ? WHERE pid = 4242", (NAME,))
n = con.execute("UPDATE events SET payload = ? WHERE pid = 4242 AND ts_ns = 1000000300000000 "
                "AND name = 'GCSuspendEEBegin'", (PAYLOAD,)).rowcount
con.commit()
con.close()
check(n == 1, "the crafted payload is in the database (%d rows)" % n)


def clean(t, what):
    check("\u202e" not in t and "\x1b" not in t and "\x07" not in t, what + ": no override or control character", t)
    check("^[" not in t and "^G" not in t, what + ": no ^X form", t)


s = Screen("%s top %s" % (GCSCOPE, DB))
try:
    t = s.wait_for("PID 4242")
    lines = t.split("\n")
    check(lines[1].startswith("PID 4242 ev?[31m?il? (Workstation concurrent)  up 1.2 s"), "header", t)
    clean(t, "main screen")
    s.keys("p")
    t = s.wait_for("other-app")
    check("PID 4242    ev?[31m?il?" in t, "process chooser", t)
    clean(t, "process chooser")
    s.keys("Escape")
    s.wait_for("other-app", absent=True)
    s.keys("Down", "Down", "Down", "Enter")
    t = s.wait_for("GC detail")
    check("GC #3  Gen 2B" in t, "detail of #3", t)
    check("GCSuspendEEBegin       Reason=?]0;pwned??x" in t, "detail: the crafted payload", t)
    clean(t, "detail")
    s.keys("Escape")
    s.wait_for("GC detail", absent=True)
    s.keys("q")
    t = s.wait_for("EXIT=0")
finally:
    s.close()

sys.exit(finish())
