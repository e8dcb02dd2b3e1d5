"""gcs_check.py — what the Python end-to-end tests share: a failure list with
check(), running gcscope, and a query through `gcscope sql --csv`.

    import sys, os; sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
    from gcs_check import Checker
    t = Checker(GCSCOPE)
    t.check(cond, "what")
    rc, out, err = t.run("stats", db)
    sys.exit(t.done())
"""
import subprocess
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree


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
