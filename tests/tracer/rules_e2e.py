#!/usr/bin/env python3
"""rules_e2e.py GCSCOPE GCSIM TMP — record --rules end to end (LTTng, label
lttng) on gcsim high-survival (about 80 gen1 GCs a second):

  g1: pair=gc-over over=0 gen=1 action=stop run=...   fires on the first gen1
      GC: one capture, verified by the trace, its command run with the
      capture and the GC in its environment, and the recording stops there;
  lg: start=GCStart stop=GCEnd key=count over=0 max=2 action=log
      logs its first two pairs (max=2) without a capture.

firings.tsv names each firing; `gcscope triggers CAPTURE --rules FILE`
finds g1's GC in the capture; import stores the firings (trigger_firings)
and stats lists them; a bad rules file is one line and exit 2."""
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "support"))
from gcs_check import Checker  # noqa: E402

G, SIM, TMP = sys.argv[1:4]
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
c = Checker(G)
rules = os.path.join(TMP, "rules.txt")
env_out = os.path.join(TMP, "env.txt")
with open(rules, "w") as f:
    f.write("# first gen1 GC: capture and stop\n"
            "g1: pair=gc-over over=0 gen=1 action=stop run=env | grep ^GCSCOPE_ | sort > %s\n"
            "lg: start=GCStart stop=GCEnd key=count over=0 max=2 action=log\n" % env_out)
out = os.path.join(TMP, "rec")
p = subprocess.run([G, "record", "-o", out, "--rules", rules, "--delay-after-trigger", "0.2", "--",
                    SIM, "--scenario", "high-survival", "--seconds", "2"], capture_output=True, text=True, timeout=120)
print(p.stdout[-3000:], p.stderr[-2000:])
c.check(p.returncode == 0, "record exits 0 (%d)" % p.returncode)
c.check(re.search(r"rule g1 \(gc-over > 0 ms, gen 1\): pid \d+ GC #\d+ gen1 \w+: [0-9.]+ ms -> %s/capture-1$"
                  % re.escape(out), p.stdout, re.M) is not None, "g1's capture is announced")
c.check("rule g1 stops the recording (action=stop)" in p.stdout, "action=stop is said")
c.check(len(re.findall(r"rule lg .*fired .*; logged", p.stdout)) == 2, "lg logged twice (max=2)")
c.check(os.path.isdir(out + "/capture-1") and not os.path.exists(out + "/capture-2"), "one capture")
rows = [l.rstrip("\n").split("\t") for l in open(out + "/firings.tsv")][1:] if os.path.exists(out + "/firings.tsv") else []
g1 = [r for r in rows if r[0] == "g1"]
lg = [r for r in rows if r[0] == "lg"]
c.check(len(g1) == 1 and g1[0][8] == "capture-1" and g1[0][9] == "verified", "firings.tsv: g1 verified in capture-1 (%s)" % g1)
c.check(len(lg) == 2 and all(r[9].startswith("logged") and r[8] == "-" for r in lg), "firings.tsv: two lg lines (%s)" % lg)
for _ in range(50):   # the command runs detached
    if os.path.exists(env_out) and os.path.getsize(env_out) > 0:
        break
    time.sleep(0.1)
env = dict(l.strip().split("=", 1) for l in open(env_out)) if os.path.exists(env_out) else {}
c.check(env.get("GCSCOPE_RULE") == "g1", "run=: GCSCOPE_RULE (%s)" % env)
c.check(bool(g1) and env.get("GCSCOPE_GC") == g1[0][3], "run=: GCSCOPE_GC is the GC that fired")
c.check(env.get("GCSCOPE_CAPTURE") == out + "/capture-1", "run=: GCSCOPE_CAPTURE")
# offline, the same rule finds the same GC in the capture
rc, o, e = c.run("triggers", "-d", TMP + "/t.db", out + "/capture-1", "--rules", rules)
print(o, e)
c.check(rc == 0 and bool(g1) and re.search(r"g1 \(gc-over > 0 ms, gen 1\): \d+ firings?\n\s+pid \d+ tid \d+ GC #%s " % g1[0][3], o)
        is not None, "triggers --rules: g1 fires on GC #%s in the capture" % (g1[0][3] if g1 else "?"))
# import keeps the firings: trigger_firings, stats' section and JSON
rc, o, e = c.run("import", "-d", TMP + "/r.db", out)
c.check(rc == 0 and re.search(r"\d+ stop-rule firings? from record's firings.tsv", o) is not None, "import reads firings.tsv")
rows_db = c.rows(TMP + "/r.db", "SELECT rule, gc_index, verdict, capture FROM trigger_firings WHERE rule = 'g1'")
c.check(bool(g1) and rows_db == [["g1", g1[0][3], "verified", "capture-1"]], "trigger_firings holds g1 (%s)" % rows_db)
rc, o, e = c.run("stats", TMP + "/r.db", "--section", "firings")
c.check(bool(g1) and re.search(r"^%s\s+g1\s+gc-over\s+[0-9.]+ ms\s+capture-1\s+verified$" % g1[0][3], o, re.M) is not None,
        "stats --section firings lists g1 (%s)" % o)
# export: the firings are instants on their own track, in both formats
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "export"))
import pb_decode  # noqa: E402
import tef_check  # noqa: E402
rc, o, e = c.run("export", TMP + "/r.db", "--format", "chrome-json", "-o", TMP + "/t.json")
doc = tef_check.read(TMP + "/t.json")
c.check(rc == 0 and not tef_check.check(doc), "chrome-json valid (%s)" % tef_check.check(doc)[:3])
inst = [ev for ev in (doc["traceEvents"] if isinstance(doc, dict) else doc) if ev.get("ph") == "i"]
c.check(bool(g1) and any(ev["name"] == "g1 fired (GC#%s)" % g1[0][3] and ev["args"].get("verified") is True
                         for ev in inst), "chrome-json: g1's firing is an instant (%s)" % inst[:3])
rc, o, e = c.run("export", TMP + "/r.db", "--format", "perfetto", "-o", TMP + "/t.pftrace")
tl = pb_decode.decode(open(TMP + "/t.pftrace", "rb").read())
fire = [sl for t in tl.tracks.values() if t.name == "Stop-rule firings" for sl in t.slices]
c.check(bool(g1) and any(sl[0] == "g1 fired (GC#%s)" % g1[0][3] and sl[1] == sl[2] for sl in fire),
        "perfetto: g1's firing is a TYPE_INSTANT on the Stop-rule firings track (%s)" % fire[:3])
with open(TMP + "/bad.txt", "w") as f:
    f.write("ok: pair=gc-over over=1\nbroken: pair=gc-over over=1 colour=red\n")
r = subprocess.run([G, "record", "--rules", TMP + "/bad.txt", "--", "true"], capture_output=True, text=True)
c.check(r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "bad.txt:2: unknown key 'colour'" in r.stderr,
        "a bad rules file: one line, exit 2 (%d %r)" % (r.returncode, r.stderr))
sys.exit(c.done())
