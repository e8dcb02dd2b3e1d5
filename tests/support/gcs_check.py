"""gcs_check.py — what the Python end-to-end tests share: a failure list with
check(), running gcscope, and a query through `gcscope sql --csv`.

A test script either uses the module's own list:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    from gcs_check import check, failed, finish
    check(cond, "what", context)      # context (a screen, an output) printed under the FAIL line
    sys.exit(finish())                # "N failed" and 1, or "ok" and 0

or a Checker that also runs gcscope:

    from gcs_check import Checker
    t = Checker(GCSCOPE)
    t.check(cond, "what")
    rc, out, err = t.run("stats", db)
    sys.exit(t.done())
"""
import os
import runpy
import shutil
import struct
import subprocess
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree

_FAILS = []


def check(cond, what, context=""):
    """Records a failed expectation: one FAIL line, then its context if any."""
    if not cond:
        _FAILS.append(what)
        print("FAIL:", what, file=sys.stderr)
        if context:
            print(context, file=sys.stderr)
    return bool(cond)


def nettrace_with_string(data, old, new, path):
    """Writes to path a copy of the .nettrace bytes data in which the UTF-16
    string old (an event's last field, found exactly once) is replaced by new,
    padded with NULs after its terminator so that the payload keeps its size."""
    a = old.encode("utf-16le")
    b = new.encode("utf-16le").ljust(len(a), b"\0")
    assert data.count(a) == 1 and len(b) == len(a), (old, new)
    with open(path, "wb") as f:
        f.write(data.replace(a, b))
    return path


def nettrace_last_whole(b, cut):
    """The end of the last whole object of the .nettrace bytes b within its
    first cut bytes (where a reader cut there stops), found by walking the
    objects' framing: a begin-object tag (5), the type's name, then a Trace
    object's fixed 48 bytes or a block's size and 4-aligned payload, and an
    end tag."""
    p = end = 32
    while p + 15 <= cut and b[p] == 5:
        n = struct.unpack_from("<I", b, p + 11)[0]
        q = p + 15 + n + 1
        if b[p + 15:p + 15 + n] == b"Trace":
            q += 48
        else:
            if q + 4 > cut:
                break
            size = struct.unpack_from("<I", b, q)[0]
            q = ((q + 4 + 3) & ~3) + size
        q += 1
        if q > cut:
            break
        p = end = q
    return end


def fresh_dir(path):
    """An empty directory at path (whatever was there is removed)."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def corpus_writer(maker, tmp):
    """tests/nettrace/tools/make_corpus.py (its path: maker) loaded as a
    module, for its .nettrace Writer and record helpers (a dict of its
    names); loading it writes its corpus into tmp."""
    saved = sys.argv
    sys.argv = ["make_corpus", tmp]
    try:
        return runpy.run_path(maker, run_name="make_corpus")
    finally:
        sys.argv = saved


def failed():
    """How many checks failed so far."""
    return len(_FAILS)


def finish():
    """The exit status: 1 after "N failed" if a check failed, else 0 after "ok"."""
    if _FAILS:
        print("%d failed" % len(_FAILS), file=sys.stderr)
        return 1
    print("ok")
    return 0


class Checker:
    def __init__(self, gcscope):
        self.gcscope = gcscope
        self.fails = []

    def check(self, cond, what):
        if not cond:
            self.fails.append(what)
            print("FAIL:", what)

    def run(self, *args, env=None):
        p = subprocess.run([self.gcscope] + list(args), capture_output=True, text=True, env=env)
        return p.returncode, p.stdout, p.stderr

    def rows(self, db, query):
        rc, out, err = self.run("sql", db, query, "--csv")
        return [l.split(",") for l in out.strip().splitlines()[1:]]

    def done(self):
        print("%d failed" % len(self.fails))
        return 1 if self.fails else 0
