#!/usr/bin/env python3
"""sessiond_hang_test.py GCSCOPE WORKDIR — every command that talks to the
LTTng session daemon through tracer/session (`record`, `serve --lttng`,
`top -- COMMAND`) against a session daemon that accepts connections and never
answers (fake_sessiond.py: what a deadlocked lttng-sessiond looks like to a
client). Each gives exactly one line naming the daemon by its pid (the fake's,
known here) and the wait, exits 1 within that wait plus 4 s, and leaves
nothing: no process of the user it ran as, no -o directory, no file in
TMPDIR, the COMMAND never ran, and the daemon got exactly one request, the
probe's LTTNG_LIST_SESSIONS (13 in lttng-tools 2.13's enum
lttcomm_sessiond_command, src/common/sessiond-comm/sessiond-comm.h): no session
was asked for.

The real session daemon other tests share is not touched: gcscope runs as an
unused uid (setpriv, no supplementary group, so not in "tracing"), whose
liblttng-ctl client socket is $LTTNG_HOME/.lttng/client-lttng-sessiond
(lttng-ctl.c, set_session_daemon_path: root and members of "tracing" use
/var/run/lttng/, any other user its home), and the fake listens there.
Needs root (setpriv); skipped visibly (exit 77) otherwise.
"""
import grp
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time

GCSCOPE, WORK = os.path.abspath(sys.argv[1]), os.path.join(sys.argv[2], "sessiond_hang")
HERE = os.path.dirname(os.path.abspath(__file__))
LIST_SESSIONS = 13
SLACK = 4.0
# lttng-tools 2.13's command types (sessiond-comm.h) of the later requests
ENABLE_CHANNEL, DESTROY_SESSION, START_TRACE, STOP_TRACE, CREATE_SESSION_EXT = 5, 9, 16, 17, 49
# a later request: the setup before it (a relayd started, the requests
# answered) and the cleanup after it come on top of the wait
LATER_SLACK = 15.0

if os.geteuid() != 0 or not shutil.which("setpriv"):
    print("SKIPPED: needs root and setpriv (gcscope runs as another user)")
    sys.exit(77)

fails = []


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    fails.append(msg)


def uids_of_processes():
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/status" % d) as f:
                for line in f:
                    if line.startswith("Uid:"):
                        for u in line.split()[1:]:
                            out.setdefault(int(u), []).append(int(d))
                        break
        except OSError:
            pass
    return out


def free_uid():
    used = uids_of_processes()
    for u in range(61000, 62000):
        try:
            pwd.getpwuid(u)
            continue
        except KeyError:
            pass
        try:
            grp.getgrgid(u)
            continue
        except KeyError:
            pass
        if u not in used:
            return u
    sys.exit("no free uid in 61000-61999")


UID = free_uid()
shutil.rmtree(WORK, ignore_errors=True)
HOME = os.path.join(WORK, "home")
TMP = os.path.join(HOME, "tmp")
LTTNG = os.path.join(HOME, ".lttng")
for d in (WORK, HOME, TMP, LTTNG):
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o755)
for d in (HOME, TMP, LTTNG):
    os.chown(d, UID, UID)
SOCK = os.path.join(LTTNG, "client-lttng-sessiond")
READY = os.path.join(WORK, "ready")
LOG = os.path.join(WORK, "requests")
MARK = os.path.join(HOME, "command-ran")
OUT = os.path.join(HOME, "out")

fake = None


def start_fake(hang_at=None):
    global fake
    for p in (READY, LOG, MARK):
        if os.path.exists(p):
            os.unlink(p)
    extra = [str(hang_at)] if hang_at is not None else []
    fake = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_sessiond.py"), SOCK, READY, LOG] + extra,
                            stdin=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(READY):
            break
        time.sleep(0.025)
    with open(READY) as f:
        return int(f.read())


def stop_fake():
    global fake
    if fake is not None:
        os.kill(fake.pid, signal.SIGTERM)
        fake.wait(timeout=10)
        fake = None


def requests():
    if not os.path.exists(LOG):
        return []
    with open(LOG) as f:
        return [int(line.split()[1]) for line in f if line.strip()]


def run(name, argv, secs, expect, max_secs=None, want_requests=(LIST_SESSIONS,), hang_at=None, want_out="",
        command_runs=False):
    pid = start_fake(hang_at)
    env = dict(os.environ, HOME=HOME, LTTNG_HOME=HOME, TMPDIR=TMP, LC_ALL="C")
    env.pop("GCSCOPE_SESSIOND_TIMEOUT", None)
    if secs is not None:
        env["GCSCOPE_SESSIOND_TIMEOUT"] = secs
    cmd = ["setpriv", "--reuid=%d" % UID, "--regid=%d" % UID, "--clear-groups", GCSCOPE] + argv
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=HOME, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=60)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "hung (killed after 60 s)", e.stdout, e.stderr
    elapsed = time.monotonic() - t0
    want = expect.format(pid=pid)
    if rc != 1:
        fail("%s: exit %s, wanted 1 (stderr %r)" % (name, rc, err))
    if err != want + "\n":
        fail("%s: stderr %r, wanted %r" % (name, err, want + "\n"))
    if out != want_out:
        fail("%s: stdout %r, wanted %r" % (name, out, want_out))
    lo = float(secs or 10) if want_requests else 0.0
    hi = max_secs if max_secs is not None else lo + (LATER_SLACK if hang_at is not None else SLACK)
    if not lo <= elapsed <= hi:
        fail("%s: took %.2f s, wanted %.1f to %.1f s" % (name, elapsed, lo, hi))
    time.sleep(0.2)
    left = uids_of_processes().get(UID, [])
    if left:
        fail("%s: processes of uid %d left: %s" % (name, UID, left))
        for q in left:
            os.kill(q, signal.SIGKILL)
    got = requests()
    if callable(want_requests):
        why = want_requests(got)
        if why:
            fail("%s: the daemon got requests %s: %s" % (name, got, why))
    elif got != list(want_requests):
        fail("%s: the daemon got requests %s, wanted %s" % (name, got, list(want_requests)))
    if os.path.exists(MARK) != command_runs:
        fail("%s: the COMMAND %s" % (name, "ran" if not command_runs else "did not run"))
    if os.path.exists(OUT):
        fail("%s: %s was left" % (name, OUT))
    if os.listdir(TMP):
        fail("%s: left in TMPDIR: %s" % (name, os.listdir(TMP)))
    stop_fake()
    print("%s: exit %s in %.2f s: %s" % (name, rc, elapsed, err.strip()))


touch = ["--", "sh", "-c", "touch " + MARK]
try:
    # The default wait, 10 s.
    run("record", ["record", "-o", OUT] + touch, None,
        "gcscope record: lttng-sessiond (pid {pid}) does not answer within 10 s; restart it")
    run("record (default directory)", ["record"] + touch, "2",
        "gcscope record: lttng-sessiond (pid {pid}) does not answer within 2 s; restart it")
    if [e for e in os.listdir(HOME) if e.startswith("gcscope-record-")]:
        fail("record (default directory): left %s" % os.listdir(HOME))
    run("serve --lttng", ["serve", "--lttng", "--listen", "127.0.0.1:0"], "3",
        "gcscope serve: --lttng: lttng-sessiond (pid {pid}) does not answer within 3 s; restart it")
    run("top -- COMMAND", ["top"] + touch, "3",
        "gcscope top: lttng-sessiond (pid {pid}) does not answer within 3 s; restart it")
    # A wait that is not a number of seconds: refused before any request.
    for bad in ("0", "3601", "2s", "-1"):
        run("GCSCOPE_SESSIOND_TIMEOUT=" + bad, ["record", "-o", OUT] + touch, bad,
            "gcscope record: GCSCOPE_SESSIOND_TIMEOUT='%s' is not a number of seconds from 1 to 3600" % bad,
            max_secs=SLACK, want_requests=())

    # A daemon that answers the session list, then hangs on a later request:
    # each command says which request, once, and leaves nothing; a hung daemon
    # is asked nothing more (no stop, no destroy after the hang).
    def upto(last):
        def check(got):
            if got[:2] != [LIST_SESSIONS, CREATE_SESSION_EXT][:len(got[:2])] or got[-1:] != [last]:
                return "wanted %d, %d, ... ending with %d" % (LIST_SESSIONS, CREATE_SESSION_EXT, last)
            if got.count(last) != 1:
                return "%d asked more than once" % last
            return None
        return check
    hung = 'does not answer "{req}" within 3 s; restart it'
    for req, code in (("create session", CREATE_SESSION_EXT), ("start tracing", START_TRACE)):
        line = "lttng-sessiond (pid {pid}) " + hung.format(req=req)
        run("record, hangs at %s" % req, ["record", "-o", OUT] + touch, "3", "gcscope record: " + line,
            hang_at=code, want_requests=upto(code))
        run("serve --lttng, hangs at %s" % req, ["serve", "--lttng", "--listen", "127.0.0.1:0"], "3",
            "gcscope serve: --lttng: " + line, hang_at=code, want_requests=upto(code))
        run("top -- COMMAND, hangs at %s" % req, ["top"] + touch, "3", "gcscope top: " + line,
            hang_at=code, want_requests=upto(code))
    # the command ran and exited; the daemon hangs at the stop: no trace was
    # written (the fake keeps none), so the -o directory gcscope made goes too
    run("record, hangs at stop tracing", ["record", "-o", OUT] + touch, "3",
        "gcscope record: lttng-sessiond (pid {pid}) " + hung.format(req="stop tracing"), hang_at=STOP_TRACE,
        want_requests=upto(STOP_TRACE), want_out="gcscope record: recording to %s\n" % OUT, command_runs=True)
finally:
    stop_fake()

if fails:
    print("%d failure(s)" % len(fails), file=sys.stderr)
    sys.exit(1)
print("OK")
