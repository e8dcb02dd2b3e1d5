#!/usr/bin/env python3
"""ctf_cut.py GCSCOPE TRACES_DIR TMP -- a CTF stream file cut short (a partial
copy, a full disk, a killed consumer) loses only what is missing.

The trace is netcore31-perfcollect-default's lttngTrace (four per-CPU stream
files, packets of up to 512 KiB). One stream file is cut: inside its first
packet (the audit's reproduction), inside a packet header, inside an event,
and exactly at a packet boundary (only the LTTng index, which lists the
packets after it, tells). Each time the import exits 0 with one warning line
naming the file, the byte and what was dropped, and keeps every whole packet
of the cut file and all of the other streams. The expected figures come from
elsewhere than gcscope:

- the packets (offset, packet and content size, timestamp_end) are read from
  the stream file's bytes here (LTTng's packet context: timestamp_begin at
  byte 32, timestamp_end 40, content_size 48, packet_size 56, in bits);
- the events and GCs imported are babeltrace2's on a copy cut at the last
  whole packet's end, without its index (babeltrace2 reads it as a whole
  trace): the events are its lines, the GCs its GCStart events (on the
  whole trace too: the GCs of the untruncated import are its GCStart count);
- the GCs still complete are those of the untruncated import that completed
  before the cut stream's last whole packet ended (the loss window begins
  there and runs to the trace's end: every later GC may miss events of that
  CPU), completion being the GC's last event among suspension end, GCEnd,
  restart end and heap stats.
"""
import os, re, shutil, sqlite3, struct, subprocess, sys

g, traces, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
src = os.path.join(traces, "coreclr/netcore31-perfcollect-default/lttngTrace")
sub = "auto-20200317-170407/ust/uid/1000/64-bit"
fails = []


def fail(msg):
    print("FAIL:", msg)
    fails.append(msg)


def fresh(name):
    d = os.path.join(tmp, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(src, d)
    for root, dirs, files in os.walk(d):
        for f in dirs + files:
            os.chmod(os.path.join(root, f), 0o755 if f in dirs else 0o644)
    return d


def bt_lines(d):
    r = subprocess.run(["babeltrace2", d], capture_output=True, text=True)
    if r.returncode != 0:
        fail("babeltrace2 %s: %s" % (d, r.stderr.strip()[:300]))
    return r.stdout.splitlines()


def packets(path):
    b = open(path, "rb").read()
    off, out = 0, []
    while off < len(b):
        tb, te, cs, ps = struct.unpack_from("<QQQQ", b, off + 32)
        out.append((off, ps // 8, cs // 8, tb, te))
        off += ps // 8
    return out


shutil.rmtree(tmp, ignore_errors=True)
os.makedirs(tmp)
full = fresh("full")
meta = subprocess.run(["babeltrace2", "--output-format=ctf-metadata", os.path.join(full, sub)],
                      capture_output=True, text=True, check=True).stdout
clock = meta[meta.index("clock {"):]
clock = clock[:clock.index("};")]
freq = int(re.search(r"freq = (\d+);", clock).group(1))
m = re.search(r"offset_s = (-?\d+);", clock)
offset_s = int(m.group(1)) if m else 0
offset = int(re.search(r"\toffset = (\d+);", clock).group(1))
assert freq == 1000000000, freq


def ns(cycles):
    return offset_s * 1000000000 + offset + cycles


fdb = os.path.join(tmp, "full.db")
subprocess.run([g, "import", "-q", "-d", fdb, full], check=True)
con = sqlite3.connect(fdb)
full_gcs = con.execute("SELECT complete, max(coalesce(suspend_end_ns, 0), coalesce(end_ns, 0), "
                       "coalesce(restart_end_ns, 0), coalesce(heap_stats_ns, 0)) FROM gcs").fetchall()
con.close()
bt_full_starts = sum(1 for l in bt_lines(full) if "DotNETRuntime:GCStart" in l)
if len(full_gcs) != bt_full_starts:
    fail("untruncated: %d GCs imported, babeltrace2 has %d GCStart" % (len(full_gcs), bt_full_starts))

# (name, stream file, cut size, whole packets kept, what the line says of the cut)
p1 = packets(os.path.join(full, sub, "channel0_1"))
b2 = p1[2][0]
more = p1[2:]
cases = [
    ("first-packet", "channel0_0", 1000, 0,
     "inside a packet that starts at byte 0 (1000 bytes of its 524288, dropped)"),
    ("packet-header", "channel0_1", b2 + 20, 2,
     "inside the header of a packet that starts at byte %d (20 bytes of it, dropped)" % b2),
    ("mid-event", "channel0_1", b2 + 300001, 2,
     "inside a packet that starts at byte %d (300001 bytes of its %d, dropped)" % (b2, p1[2][1])),
    ("boundary", "channel0_1", b2, 2,
     "after a whole packet (its index lists %d packets more, %d bytes, missing)" % (len(more), sum(p[1] for p in more))),
]
for name, stream, size, k, how in cases:
    t = fresh(name)
    f = os.path.join(t, sub, stream)
    pk = packets(f)
    os.truncate(f, size)
    db = os.path.join(tmp, name + ".db")
    r = subprocess.run([g, "import", "-d", db, t], capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: exit %d: %s" % (name, r.returncode, r.stderr.strip()))
        continue
    if r.stderr:
        fail("%s: stderr %r" % (name, r.stderr))
    absf = os.path.realpath(f)
    want = ("warning: %s: cut at byte %d %s; the events of the %d whole packet%s before it are kept, the stream's "
            "later events are missing" % (absf, size, how, k, "" if k == 1 else "s"))
    lines = r.stdout.splitlines()
    warns = [l for l in lines if "warning" in l]
    if warns != [want]:
        fail("%s: warnings %r, want [%r]" % (name, warns, want))
    # babeltrace2 on the whole packets: the file cut at the k-th packet's start, no index
    b = fresh(name + "-bt")
    fb = os.path.join(b, sub, stream)
    os.truncate(fb, pk[k][0] if k < len(pk) else os.path.getsize(fb))
    shutil.rmtree(os.path.join(b, sub, "index"))
    bl = bt_lines(b)
    want_events = len(bl)
    want_gcs = sum(1 for l in bl if "DotNETRuntime:GCStart" in l)
    m = re.match(r"  (\d+) events \(\d+ GC events\), \d+ process(?:es)?, (\d+) GCs, 0 discarded$", lines[1])
    if not m or (int(m.group(1)), int(m.group(2))) != (want_events, want_gcs):
        fail("%s: summary %r, want %d events, %d GCs" % (name, lines[1], want_events, want_gcs))
    begin = ns(pk[k - 1][4]) if k else 0
    want_complete = sum(1 for c, done in full_gcs if c and k and done < begin)
    con = sqlite3.connect(db)
    got = con.execute("SELECT count(*), coalesce(sum(complete), 0) FROM gcs").fetchone()
    if got != (want_gcs, want_complete):
        fail("%s: %d GCs, %d complete; want %d, %d (the window begins at %d)" % (name, got[0], got[1], want_gcs,
                                                                             want_complete, begin))
    lost = con.execute("SELECT stream, ts_ns, count, begin_ns, packets_missing FROM lost_events").fetchall()
    want_lost = [(os.path.realpath(os.path.join(t, sub, stream)), None, 0, begin or None, 1)]
    if lost != want_lost:
        fail("%s: lost_events %r, want %r" % (name, lost, want_lost))
    cut = con.execute("SELECT truncated_at, truncated_file, discarded FROM traces").fetchone()
    if cut != (size, absf, 0):
        fail("%s: traces (truncated_at, truncated_file, discarded) %r, want (%d, %r, 0)" % (name, cut, size, absf))
    con.close()
    # every report repeats it, naming the stream file the byte is in
    want = "warning: trace 1: %s: cut at byte %d, open GCs incomplete" % (absf, size)
    for cmd, prefix in (("stats", ""), ("advise", "gcscope advise: ")):
        r = subprocess.run([g, cmd, db] + (["--no-pager"] if cmd == "stats" else []), capture_output=True, text=True)
        if r.returncode != 0 or prefix + want not in (r.stdout + r.stderr).splitlines():
            fail("%s: %s exit %d, want the line %r in %r" % (name, cmd, r.returncode, prefix + want,
                                                              (r.stdout + r.stderr)[:600]))
    print("%s: cut at %d: %d events, %d GCs, %d complete" % (name, size, want_events, want_gcs, want_complete))

if fails:
    sys.exit(1)
print("ctf_cut: ok")
