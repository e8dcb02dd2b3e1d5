#!/usr/bin/env python3
"""trace_check.py SCENARIO GCSIM_REPORT BT_TEXT PID [LIMIT] — judge a gcsim scenario's
signature from babeltrace2's text output of its trace (run with
--clock-seconds), independently of gcsim's own figures except where a count
is compared with gcsim's report. Prints one line per fact; exits 1 with the
reason when the signature is not in the trace."""
import re
import statistics
import sys

LINE = re.compile(r'^\[(\d+\.\d+)\] \([^)]*\) \S+ rgc:(\w+): (.*)\{(.*)\}$')
VPID = re.compile(r'\bvpid = (\d+)')
FIELD = re.compile(r'(\w+) = ("[^"]*"|\[[^\]]*\]|[^,]+)')


def events(path, pid):
    out = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = LINE.match(line.rstrip('\n'))
            if not m:
                continue
            v = VPID.search(m.group(3))
            if not v or int(v.group(1)) != pid:
                continue
            fields = {}
            for k, v in FIELD.findall(m.group(4)):
                v = v.strip()
                fields[k] = int(v) if re.fullmatch(r'-?\d+', v) else v
            out.append((float(m.group(1)), m.group(2), fields))
    return out


def report(path):
    kv = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            if '=' in line:
                k, v = line.rstrip('\n').split('=', 1)
                kv[k] = v
    return kv


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def gcs(evs):
    """Per GC (by Count): start time, depth, reason, suspension and pause ms,
    and the heap stats that follow its GCEnd."""
    by = {}
    susp = {}
    current = None
    for ts, name, f in evs:
        if name == 'GCSuspendEEBegin_V1':
            susp = {'count': f['Count'], 'begin': ts}
        elif name == 'GCSuspendEEEnd_V1' and susp:
            susp['end'] = ts
        elif name == 'GCStart_V2':
            g = by.setdefault(f['Count'], {})
            g.update(start=ts, depth=f['Depth'], reason=f['Reason'])
            if susp.get('count') == f['Count']:
                g['susp_begin'] = susp.get('begin')
                g['susp_ms'] = (susp.get('end', ts) - susp['begin']) * 1e3
            current = f['Count']
        elif name == 'GCHeapStats_V2' and current in by:
            by[current]['stats'] = f
        elif name == 'GCRestartEEEnd_V1' and current in by and 'susp_begin' in by[current]:
            by[current]['pause_ms'] = (ts - by[current]['susp_begin']) * 1e3
    return by


def main():
    scenario, rep_path, bt_path, pid = sys.argv[1:5]
    evs = events(bt_path, int(pid))
    rep = report(rep_path)
    by = gcs(evs)
    if not by:
        fail('no GCStart_V2 in the trace')
    print(f'gcs_in_trace={len(by)}')
    if scenario == 'loh-churn':
        gen2 = [g for g in by.values() if g.get('depth') == 2]
        large = [g for g in gen2 if g['reason'] == 4]
        print(f'gen2={len(gen2)} alloc_large={len(large)}')
        if len(gen2) < 3 or 2 * len(large) <= len(gen2):
            fail(f'{len(large)} of {len(gen2)} gen2 GCs have reason AllocLarge (want most, >= 3 gen2)')
    elif scenario == 'slow-suspension':
        limit = float(sys.argv[5])
        longest = max(g.get('susp_ms', 0.0) for g in by.values())
        print(f'longest_suspension_ms={longest:.1f}')
        if longest <= limit:
            fail(f'longest suspension {longest:.1f} ms, want > {limit} ms')
    elif scenario == 'induced':
        induced = [g for g in by.values() if g.get('reason') == 1]
        print(f'induced_in_trace={len(induced)} gcsim_induced={rep.get("induced_gcs")}')
        if len(induced) < 3 or str(len(induced)) != rep.get('induced_gcs'):
            fail('induced GCs in the trace do not match gcsim\'s count (or fewer than 3)')
        if any(g['depth'] != 2 for g in induced):
            fail('an induced GC is not gen2')
    elif scenario == 'finalizers':
        promoted = sum(g['stats']['FinalizationPromotedCount'] for g in by.values() if 'stats' in g)
        print(f'finalization_promoted_count={promoted}')
        if promoted == 0:
            fail('no GC kept a dead finalizable object alive for finalization')
    elif scenario == 'leak':
        sizes = []
        for c in sorted(by):
            g = by[c]
            if g.get('depth') == 2 and g.get('reason') in (1, 10) and 'stats' in g:  # Induced, InducedCompacting
                s = g['stats']
                sizes.append(sum(s[f'GenerationSize{i}'] for i in (1, 2, 3, 4)))
        print('heap_after_induced_full_gcs=' + ','.join(map(str, sizes)))
        if len(sizes) < 3 or any(b <= a for a, b in zip(sizes, sizes[1:])):
            fail('heap after induced full GCs does not keep growing (or fewer than 3)')
    elif scenario == 'alloc-heavy':
        # Tiny pauses because almost nothing survives: each gen0 GC promotes
        # at most 5% of the gen0 budget, and the GCs do not dominate the run
        # (the median pause is shorter than the median interval between GCs).
        gen0 = [g for g in by.values() if g.get('depth') == 0 and 'pause_ms' in g and 'stats' in g]
        starts = sorted(g['start'] for g in by.values() if 'start' in g)
        gaps = [(b - a) * 1e3 for a, b in zip(starts, starts[1:])]
        budget = max((f['FinalYoungestDesired'] for _, n, f in evs if n == 'GCGlobalHeapHistory_V4'), default=0)
        if len(gen0) < 10 or not gaps or not budget:
            fail(f'only {len(gen0)} complete gen0 GCs (want >= 10) or no gen0 budget in the trace')
        promoted = statistics.median(g['stats']['TotalPromotedSize0'] for g in gen0)
        p = statistics.median(g['pause_ms'] for g in gen0)
        gap = statistics.median(gaps)
        print(f'gen0={len(gen0)} median_gen0_promoted={promoted} gen0_budget={budget} '
              f'median_gen0_pause_ms={p:.3f} median_gc_interval_ms={gap:.3f}')
        if promoted * 20 > budget:
            fail('gen0 GCs promote more than 5% of the gen0 budget')
        if p >= gap:
            fail('gen0 pauses are not tiny: the median pause is not shorter than the median GC interval')
    elif scenario == 'bgc':
        # A background GC (Type 1) with a foreground GC (Type 2) starting
        # before its GCEnd, and two pauses: SuspendEEBegin SuspendForGC (1)
        # and SuspendForGCPrep (6) both with the BGC's Count.
        found = total = 0
        open_bgc = {}
        for ts, name, f in evs:
            if name == 'GCStart_V2' and f['Type'] == 1:
                open_bgc[f['Count']] = {'fg': False}
                total += 1
            elif name == 'GCStart_V2' and f['Type'] == 2:
                for b in open_bgc.values():
                    b['fg'] = True
            elif name == 'GCSuspendEEBegin_V1' and f['Count'] in open_bgc:
                open_bgc[f['Count']].setdefault('reasons', set()).add(f['Reason'])
            elif name == 'GCEnd_V1' and f['Count'] in open_bgc:
                b = open_bgc.pop(f['Count'])
                if b['fg'] and 6 in b.get('reasons', set()):
                    found += 1
        susp_first = {f['Count'] for _, n, f in evs if n == 'GCSuspendEEBegin_V1' and f['Reason'] == 1}
        print(f'background_gcs={total} with_foreground_and_second_pause={found}')
        if found == 0 or not susp_first:
            fail('no background GC with a foreground GC inside and two pauses')
    elif scenario == 'requests':
        starts = [f['Id'] for _, n, f in evs if n == 'RequestStart']
        stops = [f['Id'] for _, n, f in evs if n == 'RequestStop']
        print(f'request_start={len(starts)} request_stop={len(stops)} gcsim_requests={rep.get("requests")}')
        if not stops or sorted(starts) != sorted(stops) or len(set(starts)) != len(starts):
            fail('RequestStart/RequestStop Ids do not pair up one to one')
        if str(len(stops)) != rep.get('requests'):
            fail('RequestStop count differs from gcsim\'s request count')
    else:
        fail('unknown scenario ' + scenario)
    print('trace_signature=met')


if __name__ == '__main__':
    main()
