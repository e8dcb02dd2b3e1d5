#!/usr/bin/env python3
"""hostile_text.py GCSCOPE TRACE TMP — advise's stack sentence names frames
from the trace, bytes the traced program chose: printed through
gcs_text_printable. Every frame of the real EventPipe trace is renamed
"F<ESC>]0;t<BEL>" (an escape sequence that retitles the terminal); the text
report must carry "F?]0;t?" and no ESC byte (before: the raw sequence)."""
import os
import shutil
import sqlite3
import subprocess
import sys

GCSCOPE, TRACE, TMP = sys.argv[1:4]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, finish  # noqa: E402

shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
db = os.path.join(TMP, "h.db")
subprocess.run([GCSCOPE, "import", "-q", "-d", db, TRACE], check=True, capture_output=True)
c = sqlite3.connect(db)
n = c.execute("UPDATE frames SET name = 'F' || char(27) || ']0;t' || char(7)").rowcount
c.commit()
c.close()
check(n > 0, "the trace has frames to rename (%d)" % n)
p = subprocess.run([GCSCOPE, "advise", db], capture_output=True, timeout=120)
check(p.returncode == 0, "advise: exit %d %r" % (p.returncode, p.stderr))
check(b"\x1b" not in p.stdout and b"\x07" not in p.stdout, "no ESC or BEL byte in advise's text")
check(b"first frame outside System.*): F?]0;t?" in p.stdout, "the frame printed as F?]0;t?", p.stdout.decode(errors="replace"))
sys.exit(finish())
