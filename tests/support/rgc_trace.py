"""rgc_trace — record librgc programs under a real LTTng session for tests.

trace_runs(name, [argv, ...]) creates a session (all rgc:* events, vpid/vtid
contexts), runs each argv in turn, stops and destroys the session, and returns
(babeltrace2 text of the trace, [CompletedProcess, ...]). The session daemon
comes from the CTest fixture (tests/support/sessiond_fixture.sh)."""
import os, shutil, subprocess, sys, tempfile


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def lttng(*args, check=True):
    r = subprocess.run(["lttng", *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        fail("lttng %s failed: %s" % (" ".join(args), r.stderr.strip()))
    return r


def trace_runs(name, argvs, timeout=300):
    if lttng("list", check=False).returncode != 0:
        fail("no LTTng session daemon answers (the lttng_daemon CTest fixture starts one)")
    out = tempfile.mkdtemp(prefix=name + "-")
    session = "%s-%d" % (name, os.getpid())
    try:
        lttng("create", session, "--output=" + out)
        lttng("enable-event", "-u", "rgc:*", "-s", session)
        lttng("add-context", "-u", "-t", "vpid", "-t", "vtid", "-s", session)
        lttng("start", session)
        results = []
        for argv in argvs:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
            if r.returncode != 0:
                fail("%s failed (%d): %s %s" % (" ".join(argv), r.returncode, r.stdout, r.stderr))
            results.append(r)
        lttng("stop", session)
        lttng("destroy", session)
        text = subprocess.run(["babeltrace2", out], capture_output=True, text=True, check=True).stdout
        return text, results
    finally:
        lttng("destroy", session, check=False)
        shutil.rmtree(out, ignore_errors=True)
