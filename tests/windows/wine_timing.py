#!/usr/bin/env python3
"""gputaskman.exe's timing under Wine (mingw's winpthreads ships in the exe,
so what Wine shows here is what real Windows runs):
   wine_timing.py GPUTASKMAN_EXE

  - `record -i 1` makes 10 +- 1 snapshots in 10 s, and 12 of them take at
    least 11 s;
  - the live view at `-i 1` (its refreshes recorded with --record) refreshes
    1 +- 0.1 times a second;
  - a paused replay view uses under 1 % of a CPU.

None of it can fail on a loaded machine: refreshes are counted by their own
time stamps over a window that starts after the second snapshot (a cold
first refresh may be slow; a wait that ends too early is what is looked
for, and a busy machine only makes waits longer), the view's CPU is its
process's user + system time (what it spends, not how long the machine
takes), and every deadline here is for the program to start, not to be
fast. The recording's time stamps (taken_at) are whole seconds: the counts
allow the one of rounding."""
import calendar
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from wine_proc import run_captured, winpath
from wine_screen import Screen

gtm_exe = os.path.abspath(sys.argv[1])
here = os.path.dirname(os.path.abspath(__file__))
wine_run = os.path.join(here, "..", "..", "scripts", "wine-run.sh")
wine = os.environ.get("GTM_WINE", "/usr/lib/wine/wine64")
tmp = tempfile.mkdtemp(prefix="gtm-wine-timing-")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def taken_seconds(rec):
    """The taken_at of every snapshot of a recording, as Unix seconds."""
    if not shutil.which("zstdcat"):
        print("SKIP: zstdcat (the zstd package) is needed to read the recording")
        sys.exit(77)
    out = subprocess.run(["zstdcat", rec], capture_output=True).stdout.decode()
    return [calendar.timegm(time.strptime(json.loads(l)["taken_at"], "%Y-%m-%dT%H:%M:%SZ"))
            for l in out.splitlines() if l.strip()]


def count_in_window(ts, secs):
    """Snapshots in the secs seconds from the second one's (the first may be
    a slow cold start); None when the recording does not span the window."""
    if len(ts) < 3 or ts[-1] < ts[1] + secs:
        return None
    return sum(1 for t in ts if ts[1] <= t < ts[1] + secs)


def record_check():
    rec = os.path.join(tmp, "record.rec")
    start = time.monotonic()
    r = run_captured([wine_run, gtm_exe, "record", "-i", "1", "--count", "13", "-o", winpath(rec)],
                     timeout=120)
    took = time.monotonic() - start
    check(r.returncode == 0, "record -i 1 --count 13 exits 0 (%d: %s)" % (r.returncode, r.stderr.decode()[-300:]))
    ts = taken_seconds(rec)
    check(len(ts) == 13, "the recording has 13 snapshots (%d)" % len(ts))
    # 12 intervals of 1 s between 13 snapshots: never less, however fast or slow the machine
    check(took >= 12, "13 snapshots at -i 1 take at least 12 s (%.1f s)" % took)
    n = count_in_window(ts, 10)
    check(n is not None and 9 <= n <= 11, "record -i 1: 10 +- 1 snapshots in 10 s (%s; stamps %s)" % (n, ts))


def live_check():
    rec = os.path.join(tmp, "live.rec")
    rc = os.path.join(tmp, "live-rc")
    env = "WINEPREFIX='%s' WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml='" % os.environ.get("WINEPREFIX", "")
    s = Screen("gtm-wine-timing-%d" % os.getpid(),
               "env -u TERM %s timeout --foreground 120 '%s' '%s' -i 1 --record '%s'; echo $? >'%s'; sleep 60"
               % (env, wine, gtm_exe, winpath(rec), rc), check, width=120, height=30)
    try:
        if not s.wait_for("the live view is drawn", r"gputaskman .*\?:help", 60):
            return
        # 14 s of refreshes at -i 1, then quit (the recording is closed on the way out)
        time.sleep(14)
        s.keys("q")
        end = time.time() + 30
        while time.time() < end and not (os.path.exists(rc) and open(rc).read().strip()):
            time.sleep(0.2)
        check(os.path.exists(rc) and open(rc).read().strip() == "0", "the live view quits with status 0")
    finally:
        s.close()
    ts = taken_seconds(rec)
    n = count_in_window(ts, 10)
    # 1 +- 0.1 a second over 10 s, and the second of rounding of the stamps
    check(n is not None and 9 <= n <= 11, "the live view at -i 1: 10 +- 1 refreshes in 10 s (%s; stamps %s)" % (n, ts))


def cpu_seconds(pid):
    """User + system time of a Linux process (a Wine process is one)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def find_view_pid():
    """The Linux process that runs gputaskman.exe replay: Wine makes the exe's
    Windows path its argv[0] (timeout(1) and env(1) above it name it later)."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            cmd = open("/proc/%s/cmdline" % d, "rb").read().split(b"\0")
        except OSError:
            continue
        if cmd[0].lower().endswith(b"gputaskman.exe") and b"replay" in cmd:
            return int(d)
    return None


def replay_check():
    rec = os.path.join(tmp, "record.rec")
    if not os.path.exists(rec):
        check(False, "a recording to replay")
        return
    env = "WINEPREFIX='%s' WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml='" % os.environ.get("WINEPREFIX", "")
    s = Screen("gtm-wine-replay-%d" % os.getpid(),
               "env -u TERM %s timeout --foreground 120 '%s' '%s' replay '%s'; sleep 60"
               % (env, wine, gtm_exe, winpath(rec)), check, width=120, height=30)
    try:
        # a replay opens paused at the first snapshot
        if not s.wait_for("the replay view is drawn, paused", r"paused", 60):
            return
        pid = find_view_pid()
        check(pid is not None, "the replay view's process is found")
        if pid is None:
            return
        time.sleep(2)  # the first draw done
        c0, w0 = cpu_seconds(pid), time.monotonic()
        time.sleep(10)
        c1, w1 = cpu_seconds(pid), time.monotonic()
        # CPU time over the window: a spinning wait costs it whatever the machine's load
        check(c1 - c0 < 0.01 * (w1 - w0), "a paused replay uses < 1 %% of a CPU (%.2f s in %.1f s)"
              % (c1 - c0, w1 - w0))
        s.wait_for("the replay is still paused", r"paused", 5)
    finally:
        s.close()


try:
    if not shutil.which("tmux"):
        print("SKIP: tmux is not installed")
        sys.exit(77)
    record_check()
    live_check()
    replay_check()
finally:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failures else 0)
