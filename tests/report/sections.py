#!/usr/bin/env python3
"""sections.py GCSCOPE TRACE TMP — `stats --section`.

On the real .NET Core 3.0 trace: `--section pauses,rollup` prints the pause
statistics and the rollup and nothing else (no summary, histogram, GC lists or
condemned reasons); the gen0 row of the pause table counts the complete gen0
GCs `gcscope sql` counts; `--section all` prints what the default prints; an
unknown name is a usage error listing the sections; --section with
--format json is refused.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import Checker  # noqa: E402

GCSCOPE, TRACE, TMP = sys.argv[1:4]
T = Checker(GCSCOPE)
check, run = T.check, T.run
os.makedirs(TMP, exist_ok=True)
db = TMP + "/s.db"
if os.path.exists(db):
    os.unlink(db)



rc, out, err = run("import", "-q", "-d", db, TRACE)
check(rc == 0, "import")
rc, out, err = run("stats", db, "--no-pager", "--section", "pauses,rollup")
print(out)
check(rc == 0, "exit 0")
headings = [l for l in out.splitlines() if l and not l.startswith(" ") and not l[0].isdigit()]
for want in ("Pause statistics", "GC Rollup By Generation"):
    check(any(h.startswith(want) for h in headings), "%s shown" % want)
for absent in ("Pause histogram", "Pause > 200", "LOH Allocation", "Gen 2 GCs", "The 20 GCs", "Condemned"):
    check(not any(h.startswith(absent) for h in headings), "%s not shown" % absent)
check("Total Allocs" not in out and "CommandLine" not in out, "no summary")
rc2, q, _ = run("sql", db, "SELECT count(*) FROM gcs WHERE complete = 1 AND gen = 0 AND type <> 1", "--csv")
n = q.strip().splitlines()[1]
m = re.search(r"^\s*gen0\s+(\d+)\s", out, re.M)
check(m is not None and m.group(1) == n, "gen0 row counts %s complete gen0 GCs (%s)" % (n, m.group(1) if m else None))
rc, full, _ = run("stats", db, "--no-pager")
rc3, alls, _ = run("stats", db, "--no-pager", "--section", "all")
check(rc3 == 0 and alls == full, "--section all is the default report")
rc, out, err = run("stats", db, "--section", "pauses,nosuch")
check(rc == 2 and "--section: unknown section 'nosuch' (--help lists them)" in err and len(err.rstrip("\n")) <= 80,
      "unknown section: a one-line usage error (%s)" % err.strip())
rc, helptext, _ = run("stats", "--help")
names = ["summary", "pauses", "phases", "balance", "datas", "histogram", "rollup", "long", "loh", "gen2", "bgc",
         "gcs", "condemned", "firings"]
flat = " ".join(helptext.split())
check(all(re.search(r"\b%s\b" % n, flat[flat.index("--section"):]) for n in names),
      "stats --help lists every section: %r" % flat[flat.index("--section"):][:300])
rc, out, err = run("stats", db, "--section", "pauses", "--format", "json")
check(rc == 2 and "not of json" in err, "--section with json refused")
sys.exit(T.done())
