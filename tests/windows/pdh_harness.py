"""Shared by the Wine tests that run gputaskman.exe with the pdh.dll test
double (wine_wddm.py, wine_host_stream.py): a scratch folder with the
double's scenario file, Wine through scripts/wine-run.sh (the prefix it
picks), stand-in processes that print "ready <pid>", ok/FAIL lines, and the
clean-up of every process a test started (by its own process group)."""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
wine_run = os.path.join(here, "..", "..", "scripts", "wine-run.sh")


class Harness:
    def __init__(self, prefix, log=False):
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        self.scenario = os.path.join(self.tmp, "scenario.txt")
        self.pdh_log = os.path.join(self.tmp, "pdh.log") if log else None
        self.failures = []
        self.children = []

    def check(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.failures.append(what)

    def env(self, double=True):
        """The environment of a Wine run; double: the pdh.dll beside the exe, reading the scenario."""
        e = dict(os.environ, LC_ALL="C.UTF-8")
        if double:
            e.update(GTM_WINEDLLOVERRIDES="pdh=n", GTM_FAKE_PDH_SCENARIO=self.scenario)
            if self.pdh_log:
                e.update(GTM_FAKE_PDH_LOG=self.pdh_log)
        return e

    def start(self, exe, *args, cwd=None):
        """Starts a stand-in under Wine; returns it and the Windows PID it printed."""
        p = subprocess.Popen(["sh", wine_run, exe, *args], env=self.env(False), cwd=cwd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.children.append(p)
        line = p.stdout.readline()
        m = re.match(r"ready (\d+)", line)
        if not m:
            sys.exit(f"FAIL: {exe} did not start: {line!r}")
        return p, int(m.group(1))

    def stop(self, p):
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        p.wait(timeout=20)

    def write_scenario(self, lines):
        with open(self.scenario + ".new", "w") as f:
            f.write("\n".join("\t".join(str(x) for x in line) for line in lines) + "\n")
        os.replace(self.scenario + ".new", self.scenario)  # the double never reads half a file

    def cleanup(self):
        for c in self.children:
            if c.poll() is None:
                try:
                    os.killpg(c.pid, signal.SIGTERM)
                    c.wait(timeout=20)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    pass
        shutil.rmtree(self.tmp, ignore_errors=True)

    def finish(self, note):
        if self.failures:
            sys.exit(f"{len(self.failures)} failed: " + "; ".join(self.failures))
        print(note)
