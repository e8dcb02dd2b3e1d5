#!/usr/bin/env python3
"""collect_request_test.py GCSCOPE TMP — the exact EventPipe session request
(CollectTracing4: buffer, format, rundown keywords, stack walk, providers with
their keywords and levels) that `gcscope record --pid` sends for the gc
profile, alloc, --requests aspnet and --stacks, read from the bytes a fake
runtime (fake_runtime.py, FAKE_RUNTIME_LOG) received.

The expected messages are spelled out here from the diagnostics IPC format
(u32/u64 little-endian, strings as a u32 count of UTF-16 units with the NUL,
then the units) and the profile table of docs/dotnet.md; the gc profile's is
also compared with what dotnet-trace 10.0.750501 sent for `collect --profile
gc-collect` on this machine (captured with strace, below): the same buffer,
rundown keyword and providers, which gcscope asks without the stack walk.
"""
import os
import shutil
import struct
import subprocess
import sys
import time

GCSCOPE, TMP = sys.argv[1], os.path.join(sys.argv[2], "collect_request")
HERE = os.path.dirname(os.path.abspath(__file__))
RUNTIME, PRIVATE = "Microsoft-Windows-DotNETRuntime", "Microsoft-Windows-DotNETRuntimePrivate"

# dotnet-trace 10.0.750501 `collect --profile gc-collect`: the CollectTracing4 payload it sent (header removed).
DOTNET_TRACE_GC_COLLECT = bytes.fromhex(
    "00010000" "01000000" "0100000000000000" "01" "02000000"
    "0100000000000000" "04000000" "20000000" + RUNTIME.encode("utf-16le").hex() + "0000" "01000000" "0000"
    "0100000000000000" "04000000" "27000000" + PRIVATE.encode("utf-16le").hex() + "0000" "01000000" "0000")

fails = 0


def fail(msg):
    global fails
    print("FAIL: " + msg)
    fails += 1


def ipc_string(s):
    if s is None:
        return struct.pack("<I", 0)
    return struct.pack("<I", len(s) + 1) + s.encode("utf-16le") + b"\0\0"


def collect4(rundown, stacks, providers, buffer_mb=256):
    b = struct.pack("<IIQB", buffer_mb, 1, rundown, stacks) + struct.pack("<I", len(providers))
    for name, keywords, level in providers:
        b += struct.pack("<QI", keywords, level) + ipc_string(name) + ipc_string(None)
    return b


def decode(p):
    """CollectTracing4's payload: (buffer, format, rundown, stacks, [(name, keywords, level, filter)])"""
    buf, fmt, rundown, stacks, n = struct.unpack_from("<IIQBI", p, 0)
    o, provs = 21, []
    for _ in range(n):
        kw, level, cnt = struct.unpack_from("<QII", p, o)
        o += 16
        name = p[o:o + 2 * cnt].decode("utf-16le").rstrip("\0")
        o += 2 * cnt
        (cnt,) = struct.unpack_from("<I", p, o)
        o += 4
        filt = p[o:o + 2 * cnt].decode("utf-16le").rstrip("\0")
        o += 2 * cnt
        provs.append((name, kw, level, filt))
    if o != len(p):
        raise ValueError("%d bytes left over" % (len(p) - o))
    return buf, fmt, rundown, stacks, provs


RUNS = [0]


def request(args):
    """The EventPipe requests `gcscope record --pid FAKE ARGS` sent: [(command id, payload)]."""
    log, ready = os.path.join(TMP, "log"), os.path.join(TMP, "ready")
    for f in (log, ready):
        if os.path.exists(f):
            os.remove(f)
    env = dict(os.environ, TMPDIR=TMP, FAKE_RUNTIME_LOG=log)
    fake = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_runtime.py"), "empty", ready], env=env,
                            stdin=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if os.path.exists(ready):
                break
            time.sleep(0.05)
        pid = int(open(ready).read())
        RUNS[0] += 1   # a new -o directory for each run (record refuses one holding a recording)
        out = os.path.join(TMP, "out-%d" % RUNS[0])
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([GCSCOPE, "record", "--dotnet", "--pid", str(pid), "-o", out] + args, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    finally:
        fake.terminate()
        fake.wait()
    out = []
    for line in open(log) if os.path.exists(log) else []:
        set_, id_, hexbody = (line.split() + [""])[:3]
        if set_ == "02" and id_ != "01":   # EventPipe, not StopTracing
            out.append((int(id_, 16), bytes.fromhex(hexbody)))
    return out


def expect(name, args, payload):
    got = request(args)
    if len(got) != 1:
        fail("%s: %d EventPipe session requests (%s), expected 1" % (name, len(got), [g[0] for g in got]))
        return None
    if got[0][0] != 0x05:
        fail("%s: command 0x%02x, expected 0x05 (CollectTracing4)" % (name, got[0][0]))
    if got[0][1] != payload:
        fail("%s: payload\n  got      %s\n  expected %s" % (name, got[0][1].hex(), payload.hex()))
    return got[0][1]


def main():
    os.makedirs(TMP, exist_ok=True)
    gc = [(RUNTIME, 0x1, 4), (PRIVATE, 0x1, 4)]
    # gc profile: GC keyword at Informational on both providers, the GC settings' rundown (0x1), no stacks.
    p = expect("gc", [], collect4(0x1, 0, gc))
    if p is not None:
        mine, theirs = decode(p), decode(DOTNET_TRACE_GC_COLLECT)
        if mine[:3] != theirs[:3] or [x[:3] for x in mine[4]] != [x[:3] for x in theirs[4]]:
            fail("gc: not dotnet-trace gc-collect's buffer, rundown and providers: %s vs %s" % (mine, theirs))
        if (mine[3], theirs[3]) != (0, 1):
            fail("gc: stack walk %d (dotnet-trace gc-collect: %d), expected 0 and 1" % (mine[3], theirs[3]))
    # alloc: the runtime provider at Verbose (GCAllocationTick).
    expect("alloc", ["--profile", "alloc"], collect4(0x1, 0, [(RUNTIME, 0x1, 5), (PRIVATE, 0x1, 4)]))
    # --requests aspnet: ASP.NET Core's Hosting provider (every keyword) and TplEventSource's
    # TasksFlowActivityIds (0x80), both Informational.
    expect("requests", ["--requests", "aspnet"],
           collect4(0x1, 0, gc + [("Microsoft.AspNetCore.Hosting", 0xFFFFFFFFFFFFFFFF, 4),
                                  ("System.Threading.Tasks.TplEventSource", 0x80, 4)]))
    # --stacks: the stack walk, dotnet-trace's full rundown keywords 0x80020139 (0x1 among them),
    # JIT (0x10) and Loader (0x8) on the runtime provider.
    expect("stacks", ["--stacks"], collect4(0x80020139, 1, [(RUNTIME, 0x19, 4), (PRIVATE, 0x1, 4)]))
    print("collect_request: %d failure(s)" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
