"""tmux_top.py — drive `gcscope top` in a private tmux server and read its screen.

Used by the tests in this folder. Each Screen owns one tmux server on its own
socket (-L), started with -f /dev/null so no user config interferes, and kills
it by its PID when closed.
"""
import os
import signal
import subprocess
import time


class Screen:
    def __init__(self, command, width=80, height=24, env=None):
        self.sock = "gcs-tui-%d-%d" % (os.getpid(), int(time.time() * 1000) % 100000)
        self.env = dict(os.environ)
        self.env.update({"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "TERM": "xterm-256color"})
        if env:
            self.env.update(env)
        self.env.pop("TMUX", None)
        # The pane runs the command, then prints its exit status and waits, so
        # the test can read what was left on the terminal after it quit.
        shell = "%s; echo EXIT=$?; sleep 600" % command
        self._tmux("new-session", "-d", "-x", str(width), "-y", str(height), "-s", "t", shell)
        self.server_pid = int(self._tmux("display-message", "-p", "#{pid}").strip())

    def _tmux(self, *args):
        return subprocess.run(["tmux", "-u", "-L", self.sock, "-f", "/dev/null"] + list(args),
                              check=True, capture_output=True, text=True, env=self.env).stdout

    def text(self):
        return self._tmux("capture-pane", "-p", "-t", "t")

    def lines(self):
        return self.text().split("\n")

    def keys(self, *keys):
        self._tmux("send-keys", "-t", "t", *keys)

    def literal(self, s):
        self._tmux("send-keys", "-t", "t", "-l", s)

    def resize(self, width, height):
        self._tmux("resize-window", "-t", "t", "-x", str(width), "-y", str(height))

    def wait_for(self, needle, timeout=10.0, absent=False):
        """Wait until needle is (or, with absent, is no longer) on the screen."""
        deadline = time.time() + timeout
        while True:
            t = self.text()
            if (needle in t) != absent:
                # tmux may be captured in the middle of a frame that top is
                # still writing: wait until two captures 50 ms apart agree.
                for _ in range(20):
                    time.sleep(0.05)
                    u = self.text()
                    if u == t:
                        break
                    t = u
                if (needle in t) != absent:
                    return t
            if time.time() > deadline:
                raise AssertionError("%r %s on the screen after %.1f s; screen:\n%s" %
                                     (needle, "still" if absent else "not", timeout, t))
            time.sleep(0.05)

    def command_pid(self):
        """PID of the command the pane's shell runs (the shell's only child)."""
        shell = int(self._tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip())
        with open("/proc/%d/task/%d/children" % (shell, shell)) as f:
            kids = [int(x) for x in f.read().split()]
        return kids[0] if kids else None

    def wait_until(self, pred, what, timeout=10.0):
        """Wait until pred(screen lines) is true."""
        deadline = time.time() + timeout
        while True:
            t = self.text()
            if pred(t.split("\n")):
                return t
            if time.time() > deadline:
                raise AssertionError("%s: not reached after %.1f s; screen:\n%s" % (what, timeout, t))
            time.sleep(0.05)

    def close(self):
        try:
            os.kill(self.server_pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        sock = "/tmp/tmux-%d/%s" % (os.getuid(), self.sock)
        for _ in range(100):
            try:
                os.kill(self.server_pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)
        if os.path.exists(sock):
            os.unlink(sock)
