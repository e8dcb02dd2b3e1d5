#!/usr/bin/env python3
"""views_bench.py GCSCOPE DB [--base GCSCOPE_BASE] [--rounds N] [--work DIR]

The views at scale (issue 27 item 4), each a process of its own on DB:
  events   `gcscope events DB | tail -1` (tail reads the whole print)
  heaps    `gcscope heaps DB`
  chrome   `gcscope export DB --format chrome-json -o FILE`
  top      `gcscope top DB` in a tmux pane (80x24): the time until its first
           frame is on the screen, and until its first complete frame (the
           GC table shown and no LOADING mark), read with `tmux capture-pane`
           every few ms; then `q`. The harness's own start-up (a pane that
           prints one line) is measured the same way and printed beside it,
           not subtracted.
With --base, a second gcscope (an older build) runs every command in the same
rounds, alternating with GCSCOPE (the order rotates each round), and the
ratios GCSCOPE / base are printed per round: median (lowest-highest).
Printed per view and build: the median wall time (lowest-highest) and the
median CPU time (user + sys of the process and its children: for events also
tail's). The load average is printed first and last: the machine is shared.
"""
import os, shutil, signal, statistics, subprocess, sys, tempfile, time

args = sys.argv[1:]


def opt(name, default):
    if name in args:
        i = args.index(name)
        v = args[i + 1]
        del args[i:i + 2]
        return v
    return default


base = opt("--base", None)
rounds = int(opt("--rounds", "7"))
work = opt("--work", None)
if len(args) != 2:
    sys.exit(__doc__)
gcscope, db = args
own_work = work is None
work = work or tempfile.mkdtemp(prefix="gcscope-views-")
builds = [("new", gcscope)] + ([("base", base)] if base else [])


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(argv, stdout=subprocess.DEVNULL):
    """wall, cpu (user+sys of the child and its reaped children) of argv."""
    t = time.monotonic()
    p = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if p.returncode != 0:
        sys.exit("views-bench: %s failed (%d): %s" % (" ".join(argv), p.returncode, err.strip()[:300]))
    return wall, ru.ru_utime + ru.ru_stime


class Pane:
    """A private tmux server (its own socket, no user config) running cmd."""

    def __init__(self, cmd):
        self.sock = "gcs-views-%d-%d" % (os.getpid(), int(time.monotonic() * 1000) % 1000000)
        self.env = dict(os.environ, LC_ALL="C.UTF-8", LANG="C.UTF-8", TERM="xterm-256color")
        self.env.pop("TMUX", None)
        self.t0 = time.monotonic()
        self.tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", "v", cmd + "; sleep 60")
        self.pid = int(self.tmux("display-message", "-p", "#{pid}").strip())

    def tmux(self, *a):
        return subprocess.run(["tmux", "-u", "-L", self.sock, "-f", "/dev/null"] + list(a), check=True,
                              capture_output=True, text=True, env=self.env).stdout

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "v")

    def close(self):
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        for _ in range(100):   # then its socket, which tmux leaves behind
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)
        sock = os.path.join(os.environ.get("TMUX_TMPDIR", "/tmp"), "tmux-%d" % os.getuid(), self.sock)
        if os.path.exists(sock):
            os.unlink(sock)


def pane_times(cmd, first, complete, timeout=60.0):
    """Seconds from the pane's creation until first(screen), then complete(screen)."""
    p = Pane(cmd)
    t_first = t_complete = None
    try:
        while time.monotonic() - p.t0 < timeout:
            s = p.screen()
            t = time.monotonic() - p.t0
            if t_first is None and first(s):
                t_first = t
            if t_first is not None and complete(s):
                t_complete = t
                break
            time.sleep(0.002)
        if t_complete is None:
            sys.exit("views-bench: %s: no complete frame within %.0f s; screen:\n%s" % (cmd, timeout, p.screen()))
        if "gcscope top" in cmd:
            p.tmux("send-keys", "-t", "v", "q")
    finally:
        p.close()
    return t_first, t_complete


def top_frames(g):
    return pane_times("exec %s top %s" % (g, db), lambda s: "gcscope top" in s,
                      lambda s: "GC#" in s and "LOADING" not in s and "loading:" not in s)


def harness():
    t, _ = pane_times("echo gcscope-views-ready", lambda s: "gcscope-views-ready" in s, lambda s: True)
    return t


out = os.path.join(work, "views.json")
views = {
    "events": lambda g: run(["bash", "-c", 'set -o pipefail; "$0" events "$1" | tail -1 >/dev/null', g, db]),
    "heaps": lambda g: run([g, "heaps", db]),
    "chrome": lambda g: run([g, "export", db, "--format", "chrome-json", "-o", out]),
    "top": lambda g: top_frames(g),
}
names = list(views)
res = {(v, b): [] for v in names for b, _ in builds}   # (wall, cpu) or (first, complete)
hv = []
print("views-bench: %s; load average %s; %d rounds%s" % (db, loadavg(), rounds,
                                                          ", alternating with %s" % base if base else ""))
sys.stdout.flush()
jobs = [(v, b, g) for v in names for b, g in builds]
for r in range(rounds):
    hv.append(harness())
    k = r % len(jobs)
    for v, b, g in jobs[k:] + jobs[:k]:
        res[(v, b)].append(views[v](g))
if os.path.exists(out):
    os.remove(out)


def med(xs):
    return "%.3f (%.3f-%.3f)" % (statistics.median(xs), min(xs), max(xs))


for v in names:
    for b, _ in builds:
        xs = res[(v, b)]
        if v == "top":
            print("%-7s %-4s first frame %s s, complete frame %s s" % (v, b, med([x[0] for x in xs]),
                                                                       med([x[1] for x in xs])))
        else:
            print("%-7s %-4s wall %s s, cpu %s s" % (v, b, med([x[0] for x in xs]), med([x[1] for x in xs])))
print("tmux harness start-up (a pane printing one line): %s s" % med(hv))
if base:
    for v in names:
        a, b = res[(v, "new")], res[(v, "base")]
        if v == "top":
            print("ratio %-6s new/base complete frame %s" % (v, med([x[1] / y[1] for x, y in zip(a, b)])))
        else:
            print("ratio %-6s new/base wall %s, cpu %s" % (v, med([x[0] / y[0] for x, y in zip(a, b)]),
                                                         med([x[1] / y[1] for x, y in zip(a, b)])))
print("load average at the end %s" % loadavg())
if own_work:
    shutil.rmtree(work, ignore_errors=True)
