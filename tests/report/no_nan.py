#!/usr/bin/env python3
"""no_nan.py GCSCOPE WORKDIR TRACE... -- where PerfView prints NaN or Infinity
(the mean of a kind with no GC, a per-ms ratio over 0 ms of GC CPU), text and
HTML print "-", and CSV/JSON null: on real traces (a .NET 10 nettrace with no
background GC, CoreCLR 3.1, CoreCLR 2017 with GCStart/GCEnd only) no report
says NaN or Infinity, and an empty kind's row reads "-" where its mean is."""
import json, os, re, shutil, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from gcs_check import check, failed  # noqa: E402

GCSCOPE, WORK, TRACES = sys.argv[1], sys.argv[2], sys.argv[3:]


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
BAD = re.compile(r"\b(nan|-?inf|-?infinity)\b", re.I)
for t in TRACES:
    db = os.path.join(WORK, os.path.basename(t) + ".db")
    subprocess.run([GCSCOPE, "import", "-d", db, t], check=True, capture_output=True)
    for args in (["stats"], ["stats", "--wide"], ["stats", "--format", "html"], ["impact"], ["heaps"],
                 ["advise"], ["triggers"], ["events"]):
        p = subprocess.run([GCSCOPE] + args[:1] + [db] + args[1:], capture_output=True, text=True)
        m = BAD.search((p.stdout + p.stderr).replace(WORK, "WORK"))
        check(m is None, "%s %s: %r" % (os.path.basename(t), " ".join(args), m and m.group(0)))
    js = subprocess.run([GCSCOPE, "stats", db, "--format", "json"], capture_output=True, text=True)
    check(js.returncode == 0 and BAD.search(js.stdout) is None, "%s json" % t)

# The .NET 10 fixture ran no background GC: its row has count 0, total 0.000
# and "-" for the mean, max and percentiles; the JSON has null there.
fixture = [t for t in TRACES if t.endswith(".nettrace")][0]
db = os.path.join(WORK, os.path.basename(fixture) + ".db")
txt = subprocess.run([GCSCOPE, "stats", db], capture_output=True, text=True).stdout
check(re.search(r"^gen2 background +0 +0\.000 +- +- +- +- +-$", txt, re.M) is not None,
      "empty kind row: %r" % [l for l in txt.splitlines() if l.startswith("gen2 background")])
js = json.loads(subprocess.run([GCSCOPE, "stats", db, "--format", "json"], capture_output=True, text=True).stdout)
bg = js["processes"][0]["summary"]["pause_percentiles"]["gen2 background"]
check(bg["count"] == 0 and bg["mean_msec"] is None and bg["max_msec"] is None, "json: null for the empty kind: %r" % bg)
if failed():
    print("%d failure(s)" % failed(), file=sys.stderr)
    sys.exit(1)
print("ok")
