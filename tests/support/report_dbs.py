"""report_dbs.py — the databases the report-wide checks (report.width80,
report.unknown) run every report on: the .NET fixtures and the real CoreCLR
traces, each imported into WORK/NAME.db, and a runner of gcscope in WORK
with COLUMNS=80 and no pager."""
import os
import shutil
import subprocess

from gcs_check import check


def inputs(fix, traces):
    """NAME -> trace path of every input, fixtures first."""
    return {
        "web": fix + "/webapp-requests.nettrace",
        "dt": fix + "/gcprog-culprits-dotnet-trace.nettrace.gz",
        "stk": fix + "/gcprog-culprits-stacks.nettrace.gz",
        "alloc": fix + "/gcprog-alloc.nettrace",
        "sweep": fix + "/gcprog-bgc-sweep.nettrace",
        "phh": fix + "/gcprog-bgc-late-phh.nettrace",
        "datas": fix + "/gcprog-datas.nettrace",
        "net8": fix + "/net8-datas.nettrace.gz",
        "tick": traces + "/coreclr/netcore2017-allocationtick",
        "clr": traces + "/coreclr/netcore31-perfcollect-default",
        "startup": traces + "/coreclr/netcore31-startup-small",
        "gcend": traces + "/coreclr/netcore2017-gcstart-gcend",
        "obj4": traces + "/nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace",
    }


def runner(gcscope, work):
    """A fresh WORK and run(*args) -> (rc, stdout, stderr) of gcscope there."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, COLUMNS="80")
    env.pop("GCSCOPE_PAGER", None)

    def run(*args):
        p = subprocess.run([gcscope] + list(args), capture_output=True, text=True, env=env, cwd=work, timeout=300,
                           stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr
    return run


def import_all(run, named):
    """Import every NAME -> path of named into NAME.db (a check each)."""
    for name, path in named.items():
        rc, _, err = run("import", "-q", "-d", name + ".db", path)
        check(rc == 0, "import %s" % path, err)
