#!/usr/bin/env python3
"""advise_matrix_check.py SCENARIO ADVISE.json — what `gcscope advise` must say
about one gcsim scenario (advise_matrix.sh records it):

- top:      the first finding (the highest severity, causes before symptoms);
- need:     findings that must be present, with a minimum severity;
- never:    findings of a wrong kind, at any severity;
- metrics:  (rule, metric, low, high) bounds on evidence figures;
- server:   the process is (True) or is not (False) a Server GC process.

On every workstation-GC run no finding may mention Server GC (the advice to
use fewer GC heaps only applies to Server GC). Prints one line per scenario;
exits 1 on the first failed expectation with the findings seen."""
import json
import sys

SEV = {"info": 0, "warning": 1, "critical": 2}

# Scenario -> expectations. gcsim's workloads all allocate hard on 2 threads,
# so pause-time (a symptom, listed after the causes) and gen0-churn or
# mid-life-crisis may show up in several; they are not "wrong kinds" there.
EXPECT = {
    "alloc-heavy": dict(top="gen0-churn",
                        never=["heap-growth", "high-survival", "mid-life-crisis", "finalizers", "loh-churn",
                               "induced", "gen0-frag-pinning", "full-blocking-gen2"],
                        metrics=[("gen0-churn", "gen0_survival_median_pct", 0, 5)]),
    "high-survival": dict(top="high-survival", need=[("high-survival", "critical")],
                          never=["gen0-churn", "finalizers", "loh-churn", "induced", "gen0-frag-pinning",
                                 "full-blocking-gen2"],
                          metrics=[("high-survival", "gen0_survival_median_pct", 40, 60),
                                   ("high-survival", "gen1_promoted_median_mb", 5, 100)]),
    "loh-churn": dict(top="loh-churn", need=[("loh-churn", "critical")],
                      never=["heap-growth", "high-survival", "finalizers", "induced", "gen0-frag-pinning"],
                      metrics=[("loh-churn", "share_of_gen2_pct", 80, 100)]),
    "pinning": dict(top="gen0-frag-pinning", need=[("gen0-frag-pinning", "critical")],
                    never=["heap-growth", "finalizers", "loh-churn", "induced", "gen0-churn",
                           "full-blocking-gen2"],
                    metrics=[("gen0-frag-pinning", "share_pct", 50, 100)]),
    "finalizers": dict(top="finalizers", need=[("finalizers", "critical")],
                       never=["loh-churn", "gen0-frag-pinning", "high-survival"],
                       # gcsim collects twice after the run (GC.Collect-like): info at most.
                       # On a loaded machine the finalizer thread falls behind and the
                       # objects waiting for it grow the heap (+47 % in the last second,
                       # critical in another CI run, then listed first): a true finding
                       # there, so heap-growth may come first; finalizers stays critical.
                       top_or=["finalizers", "heap-growth"],
                       max_sev={"induced": "info"},
                       metrics=[("finalizers", "median_share_of_promoted_pct", 25, 100)]),
    "induced": dict(top="induced", need=[("induced", "warning")],
                    never=["heap-growth", "loh-churn", "finalizers", "gen0-frag-pinning", "high-survival",
                           "full-blocking-gen2"],
                    metrics=[("induced", "per_second", 5, 12)]),
    "slow-suspension": dict(top="long-suspension", need=[("long-suspension", "critical")],
                            never=["heap-growth", "loh-churn", "finalizers", "gen0-frag-pinning", "induced",
                                   "high-survival"],
                            metrics=[("long-suspension", "worst_suspend_ms", 150, 400)]),
    # bgc: long-suspension may come first on a loaded machine (see main()).
    "bgc": dict(top="high-survival", need=[("high-survival", "warning")],
                never=["heap-growth", "full-blocking-gen2", "induced", "loh-churn", "finalizers",
                       "gen0-frag-pinning"],
                metrics=[("high-survival", "gen1_survival_median_pct", 90, 100)]),
    # leak measures its heap with compacting GC.Collect calls (InducedCompacting)
    # whose pauses grow with the heap: past full_critical_ms (100 ms, as on a
    # loaded machine) the induced finding is critical and listed first, a true
    # finding; heap-growth must be there all the same.
    "leak": dict(top_or=["heap-growth", "induced"], need=[("heap-growth", "warning")],
                 never=["loh-churn", "finalizers", "gen0-frag-pinning", "full-blocking-gen2"],
                 metrics=[("heap-growth", "tail_growth_pct", 30, 1000)]),
    "server": dict(need=[("gen0-churn", "info")], server=True,
                   never=["heap-growth", "finalizers", "loh-churn", "gen0-frag-pinning", "induced",
                          "high-survival"]),
}


def main():
    scen, path = sys.argv[1], sys.argv[2]
    exp = EXPECT[scen]
    with open(path) as f:
        doc = json.load(f)
    procs = [p for p in doc["processes"] if p["process"].startswith("gcsim")] or doc["processes"]
    errs = []
    if len(procs) != 1:
        errs.append(f"{len(procs)} gcsim processes, expected 1")
    p = procs[0]
    fs = p["findings"]
    rules = {f["rule"]: f for f in fs}
    seen = ", ".join(f"{f['rule']}({f['severity']})" for f in fs) or "none"
    if "cannot_judge" in p:
        errs.append(f"cannot judge: {p['cannot_judge']}")
    server = exp.get("server", False)
    if p["server_gc"] != server:
        errs.append(f"server_gc {p['server_gc']}, expected {server}")
    tops = exp.get("top_or", [exp["top"]] if "top" in exp else [])
    # On a loaded machine (CI beside other builds) suspending gcsim's threads
    # can take long enough for a long-suspension finding, a true cause that
    # advise lists first (seen for bgc and loh-churn). Only gcsim's
    # slow-suspension scenario makes it on purpose; elsewhere it may come
    # first, and the scenario's own top finding must then come next.
    ranked = fs
    if tops and fs and fs[0]["rule"] == "long-suspension" and "long-suspension" not in tops:
        ranked = fs[1:]
    if tops and (not ranked or ranked[0]["rule"] not in tops):
        errs.append(f"top finding {ranked[0]['rule'] if ranked else 'none'}, expected {' or '.join(tops)}")
    for rule, sev in exp.get("need", []):
        if rule not in rules:
            errs.append(f"no {rule} finding")
        elif SEV[rules[rule]["severity"]] < SEV[sev]:
            errs.append(f"{rule} is {rules[rule]['severity']}, expected {sev} or worse")
    for rule in exp.get("never", []):
        if rule in rules:
            errs.append(f"wrong kind of finding: {rule}: {rules[rule]['title']}")
    for rule, sev in exp.get("max_sev", {}).items():
        if rule in rules and SEV[rules[rule]["severity"]] > SEV[sev]:
            errs.append(f"{rule} is {rules[rule]['severity']}, expected {sev} at most")
    for rule, name, lo, hi in exp.get("metrics", []):
        if rule not in rules:
            if rule != exp.get("top") and all(rule != r for r, _ in exp.get("need", [])):
                continue
            errs.append(f"no {rule} finding for {name}")
            continue
        v = rules[rule]["metrics"].get(name)
        if v is None or not lo <= v <= hi:
            errs.append(f"{rule}.{name} = {v}, expected {lo}..{hi}")
    if not server:
        for f in fs:
            text = f["title"] + " " + f["evidence"] + " " + f["next"]
            if "Server" in text or "GC heaps" in text:
                errs.append(f"server advice on a workstation-GC run: {f['rule']}: {f['next']}")
    if errs:
        print(f"FAIL {scen}: " + "; ".join(errs) + f" (findings: {seen})")
        return 1
    print(f"ok {scen}: {seen}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
