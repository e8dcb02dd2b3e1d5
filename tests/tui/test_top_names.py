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

pid 5151's name is made "a" and 28 wide (two-column) characters: top cuts
it to 24 columns at a character boundary ("a" and 11 of them) in the header
and the chooser, where it pads it so the next field starts in the same
column on every line (bytes would cut inside a character and misalign).
"""
import os
import sqlite3
import subprocess
import sys
import unicodedata

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tmux_top import Screen  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402

GCSCOPE, MKDB, FIXTURE, WORK = sys.argv[1:5]
DB = os.path.join(WORK, "top-names.db")
NAME = "ev\x1b[31m\u202eil\x07"
WIDE = "a" + "\u540d\u524d" * 14      # "a" and 28 wide characters: 57 columns, 85 bytes
PAYLOAD = "Reason=\x1b]0;pwned\x07\u202ex"

os.makedirs(WORK, exist_ok=True)
if os.path.exists(DB):
    os.unlink(DB)
subprocess.run([MKDB, DB, FIXTURE], check=True)
con = sqlite3.connect(DB)
con.execute("UPDATE processes SET name = ? WHERE pid = 4242", (NAME,))
con.execute("UPDATE processes SET name = ? WHERE pid = 5151", (WIDE,))
n = con.execute("UPDATE events SET payload = ? WHERE pid = 4242 AND ts_ns = 1000000300000000 "
                "AND name = 'GCSuspendEEBegin'", (PAYLOAD,)).rowcount
con.commit()
con.close()
check(n == 1, "the crafted payload is in the database (%d rows)" % n)


def cols(text):
    """Terminal columns of text as tmux shows it: wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


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
    t = s.wait_for("PID 5151")
    check("PID 4242    ev?[31m?il?" in t, "process chooser", t)
    clean(t, "process chooser")
    # widths are columns: the wide name is cut to 24 columns at a character
    # ("a" and 11 wide characters, 23 columns, then one space of padding),
    # so the flavour starts in the same column on both lines
    rows = [ln for ln in t.split("\n") if "PID 4242" in ln or "PID 5151" in ln]
    check(len(rows) == 2, "process chooser: two lines", t)
    check("PID 5151    " + WIDE[:12] + "  Server 4 heaps" in t, "process chooser: the wide name cut to 24 columns", t)
    check(rows and [cols(r[:r.find(f)]) for r, f in zip(rows, ("Workstation", "Server"))] == [40, 40],
          "process chooser: the flavours start in column 40", t)
    check(all(cols(r) == 80 for r in rows), "process chooser: lines of 80 columns", t)
    s.keys("Down", "Enter")
    t = s.wait_for("PID 5151 a")
    check(t.split("\n")[1].startswith("PID 5151 " + WIDE[:12] + " (Server 4 heaps"), "header: the wide name cut", t)
    s.keys("p")
    s.wait_for("Choose a process")
    s.keys("Up", "Enter")
    s.wait_for("PID 4242 ev")
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

# Outside a UTF-8 locale each non-ASCII character is one '?' (ncurses would
# draw its bytes as M-x forms, several columns each). top keeps 63 bytes of
# a name, cut before a character that does not fit whole: "a" and 20 wide
# characters of 3 bytes (61 bytes), so 20 '?', not 22 (two for the bytes of
# a 21st character cut in the middle).
s = Screen("%s top %s" % (GCSCOPE, DB), env={"LC_ALL": "C", "LANG": "C"})
try:
    s.wait_for("PID 4242")
    s.keys("p")
    t = s.wait_for("PID 5151")
    check("PID 5151    a" + "?" * 20 + "    Server 4 heaps" in t, "C locale: one '?' a character", t)
    s.keys("Escape", "q")
    s.wait_for("EXIT=0")
finally:
    s.close()

sys.exit(finish())
