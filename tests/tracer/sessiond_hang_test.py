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
Then the other ways a daemon holds a client (fake_sessiond.py's modes): a
listen queue that is full from the start or fills at a later request (the
line names the socket, "accepts no connection"), "data pending" for ever
(GCSCOPE_FLUSH_TIMEOUT: what was written is kept), and part of a notification
or a message of no known type on the notification channel of triggers.

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
DATA_PENDING = 24
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
    extra = [str(hang_at)] if hang_at is not None else []   # a command type, or a mode
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
        return [int(line.split()[1]) for line in f if line.strip() and not line.startswith("n")]


def notif_messages():
    """The types of the messages the fake read on the notification channel."""
    if not os.path.exists(LOG):
        return []
    with open(LOG) as f:
        return [int(line.split()[1]) for line in f if line.startswith("n")]


def run(name, argv, secs, expect, max_secs=None, want_requests=(LIST_SESSIONS,), hang_at=None, want_out="",
        command_runs=False, min_secs=None, flush_secs=None, out_kept=None):
    pid = start_fake(hang_at)
    env = dict(os.environ, HOME=HOME, LTTNG_HOME=HOME, TMPDIR=TMP, LC_ALL="C")
    env.pop("GCSCOPE_SESSIOND_TIMEOUT", None)
    env.pop("GCSCOPE_FLUSH_TIMEOUT", None)
    if secs is not None:
        env["GCSCOPE_SESSIOND_TIMEOUT"] = secs
    if flush_secs is not None:
        env["GCSCOPE_FLUSH_TIMEOUT"] = flush_secs
    cmd = ["setpriv", "--reuid=%d" % UID, "--regid=%d" % UID, "--clear-groups", GCSCOPE] + argv
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=HOME, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=60)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "hung (killed after 60 s)", e.stdout or "", e.stderr or ""
        out, err = [x.decode() if isinstance(x, bytes) else x for x in (out, err)]
    elapsed = time.monotonic() - t0
    want = expect.format(pid=pid, sock=SOCK, out=OUT)
    if rc != 1:
        fail("%s: exit %s, wanted 1 (stderr %r)" % (name, rc, err))
    if err != want + "\n":
        fail("%s: stderr %r, wanted %r" % (name, err, want + "\n"))
    if out != want_out:
        fail("%s: stdout %r, wanted %r" % (name, out, want_out))
    lo = min_secs if min_secs is not None else float(secs or 10) if want_requests else 0.0
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
    if out_kept is not None:
        kept = sorted(os.listdir(OUT)) if os.path.isdir(OUT) else None
        if kept != sorted(out_kept):
            fail("%s: %s holds %s, wanted %s" % (name, OUT, kept, sorted(out_kept)))
        shutil.rmtree(OUT, ignore_errors=True)
    elif os.path.exists(OUT):
        fail("%s: %s was left" % (name, OUT))
        shutil.rmtree(OUT, ignore_errors=True)
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

    # A daemon whose listen queue is full: liblttng-ctl's connect() waits for
    # it to accept (neither the probe's child nor a request's connection
    # gets through); the same wait bounds it, and the line names its socket
    # (no connection, so no SO_PEERCRED pid).
    full = "lttng-sessiond ({sock}) accepts no connection within 3 s (its listen queue is full); restart it"
    for cmd, argv, prefix in (("record", ["record", "-o", OUT] + touch, "gcscope record: "),
                              ("serve --lttng", ["serve", "--lttng", "--listen", "127.0.0.1:0"],
                               "gcscope serve: --lttng: "),
                              ("top -- COMMAND", ["top"] + touch, "gcscope top: ")):
        run("%s, full listen queue" % cmd, argv, "3", prefix + full, hang_at="full", want_requests=(),
            min_secs=3.0, max_secs=3.0 + SLACK)
    # The queue fills once the session exists: the next request's connect()
    # waits; the command, forked and waiting to start, is stopped unstarted.
    full_at = ('lttng-sessiond ({sock}) accepts no connection for "%s" within 3 s (its listen queue is full); '
               "restart it")
    run("record, full listen queue at enable channel", ["record", "-o", OUT] + touch, "3",
        "gcscope record: " + full_at % "enable channel gcscope", hang_at="full-after=%d" % CREATE_SESSION_EXT,
        want_requests=upto(CREATE_SESSION_EXT), min_secs=3.0)
    # The queue fills once tracing started; the COMMAND runs and ignores the
    # SIGTERM --duration 1 sends it: the stop's connect() waits 3 s, then the
    # COMMAND is stopped by PID (SIGTERM, then SIGKILL 2 s later:
    # trc_child_stop) and nothing of this uid is left.
    stubborn = ["--duration", "1", "--", "sh", "-c", "trap '' TERM; touch %s; exec sleep 30" % MARK]
    run("record, full listen queue at stop, COMMAND running", ["record", "-o", OUT] + stubborn, "3",
        "gcscope record: " + full_at % "stop tracing", hang_at="full-after=%d" % START_TRACE,
        want_requests=upto(START_TRACE), min_secs=1.0 + 3.0, max_secs=1.0 + 3.0 + 2.0 + SLACK,
        want_out="gcscope record: recording to %s\n" % OUT, command_runs=True)

    # A daemon answering "data pending" for ever (a consumer that never
    # finishes writing): the stop waits GCSCOPE_FLUSH_TIMEOUT, says so in one
    # line, keeps what is in the output directory (a file the COMMAND wrote
    # there stands for the consumer's), destroys the session without waiting
    # and exits 1.
    def pending(got):
        if got[:2] != [LIST_SESSIONS, CREATE_SESSION_EXT] or STOP_TRACE not in got:
            return "wanted %d, %d, ..., %d, ..." % (LIST_SESSIONS, CREATE_SESSION_EXT, STOP_TRACE)
        after = got[got.index(STOP_TRACE) + 1:]
        # 3 s of questions 100 ms apart (DATA_PENDING_POLL_MS), then the destroy
        if after[-1:] != [DESTROY_SESSION] or set(after[:-1]) != {DATA_PENDING} or len(after) - 1 < 10:
            return "wanted %d, then %d asked 10 times or more, then %d" % (STOP_TRACE, DATA_PENDING, DESTROY_SESSION)
        return None
    partial = ["--", "sh", "-c", "touch %s; echo x > %s/partial" % (MARK, OUT)]
    run("record, data pending for ever", ["record", "-o", OUT] + partial, None,
        "gcscope record: the LTTng consumer did not finish writing the trace within 3 s "
        "(GCSCOPE_FLUSH_TIMEOUT); what it wrote is kept in {out}", hang_at="pending", flush_secs="3",
        want_requests=pending, min_secs=3.0, want_out="gcscope record: recording to %s\n" % OUT,
        command_runs=True, out_kept=["partial"])
    # refused before any request, as GCSCOPE_SESSIOND_TIMEOUT is
    for bad in ("0", "86401", "5m"):
        run("GCSCOPE_FLUSH_TIMEOUT=" + bad, ["record", "-o", OUT] + touch, None,
            "gcscope record: GCSCOPE_FLUSH_TIMEOUT='%s' is not a number of seconds from 1 to 86400" % bad,
            hang_at="pending", flush_secs=bad, want_requests=(), max_secs=SLACK)

    # The notification channel of triggers (record --rules): the fake sends,
    # once the 6 triggers are subscribed, part of a notification and nothing
    # more, or a message of no known type. One line each, naming the daemon;
    # the session is stopped and destroyed, the triggers unregistered (no
    # unsubscribe: nothing more is read from that channel), exit 1. The
    # partial message is waited for GCSCOPE_SESSIOND_TIMEOUT (3 s).
    REGISTER_TRIGGER, UNREGISTER_TRIGGER, SUBSCRIBE = 43, 44, 1
    rules = os.path.join(HOME, "rules.txt")
    with open(rules, "w") as f:
        f.write("lg: start=GCStart stop=GCEnd key=count over=0 max=2 action=log\n")
    os.chmod(rules, 0o644)

    def notif_requests(got):
        if got[:2] != [LIST_SESSIONS, CREATE_SESSION_EXT] or got.count(REGISTER_TRIGGER) != 6:
            return "wanted %d, %d, ..., %d six times" % (LIST_SESSIONS, CREATE_SESSION_EXT, REGISTER_TRIGGER)
        if START_TRACE not in got or DESTROY_SESSION not in got or got[-6:] != [UNREGISTER_TRIGGER] * 6:
            return "wanted %d, ..., %d, ..., then %d six times" % (START_TRACE, DESTROY_SESSION, UNREGISTER_TRIGGER)
        if notif_messages() != [0] + [SUBSCRIBE] * 6:
            return "the channel read %s, wanted the handshake and 6 subscribes" % notif_messages()
        return None
    watching = "gcscope record: watching for long pauses (flight recorder in memory, captures in %s)\n" % OUT
    # the COMMAND runs on (sleep 10) until it is stopped by PID
    sleeper = ["--", "sh", "-c", "touch %s; exec sleep 10" % MARK]
    run("record --rules, part of a notification", ["record", "-o", OUT, "--rules", rules] + sleeper, "3",
        "gcscope record: lttng-sessiond (pid {pid}) sent 19 of the 109 bytes of a notification and nothing more "
        "within 3 s; restart it", hang_at="notif-partial", want_requests=notif_requests, min_secs=3.0,
        max_secs=3.0 + SLACK + 2.0, want_out=watching, command_runs=True)
    run("record --rules, a message of no known type", ["record", "-o", OUT, "--rules", rules] + sleeper, "3",
        "gcscope record: lttng-sessiond (pid {pid}) sent a malformed notification (type 7, 4 bytes, "
        "0 file descriptors); restart it", hang_at="notif-garbage", want_requests=notif_requests, min_secs=0.0,
        max_secs=SLACK + 2.0, want_out=watching, command_runs=True)
finally:
    stop_fake()

if fails:
    print("%d failure(s)" % len(fails), file=sys.stderr)
    sys.exit(1)
print("OK")
