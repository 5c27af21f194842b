#!/usr/bin/env python3
"""gputaskman.exe --host-stream under Wine with the pdh.dll double:
   host_stream.py WIN_BUILD_DIR [PROCESSES]   (bench/wddm/host_stream.sh runs it)

1. Time to the first line: the helper started with stdin at EOF (it prints
   one line and exits), from spawn to the line's arrival, 9 runs, the
   wineserver already up; beside it --version's (Wine's start alone).
2. CPU per interval: the helper at --interval-ms 100 for 150 lines over
   PROCESSES processes (default 200) on 2 adapters (gen_scenario.py) plus a
   vmwp.exe's 8 contexts; utime+stime of its process (/proc) per line, 3
   runs. The double's own work (it re-reads the scenario file at every
   collect, and fills every array) is inside that figure; bench/wddm/run.sh
   measures it alone for the same scenario. Benchmarks measure; nothing
   fails on a number."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

b = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
here = os.path.dirname(os.path.abspath(__file__))
wine = os.environ.get("GTM_WINE", "/usr/lib/wine/wine64")
tmp = tempfile.mkdtemp(prefix="gtm-bench-hoststream-")
scenario = os.path.join(tmp, "scenario.txt")
for f in ("src/gputaskman.exe", "bench/wddm/pdh.dll"):
    subprocess.run(["cp", os.path.join(b, f), tmp], check=True)
subprocess.run([sys.executable, os.path.join(here, "gen_scenario.py"), scenario, str(n)], check=True)
with open(scenario, "a") as f:  # a vmwp.exe (PID 4 stands in) with 8 contexts: V records
    for k in range(8):
        for c in ("Local Usage", "Non Local Usage", "Total Committed"):
            f.write(f"GPU Process Memory\t{c}\tpid_4_luid_0x00000000_0x0000A18D_phys_0\t{k << 28}\n")
env = dict(os.environ, WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=;pdh=n", GTM_FAKE_PDH_SCENARIO=scenario)
env.setdefault("WINEPREFIX", os.environ.get("GTM_WINEPREFIX") or os.path.join(os.environ["HOME"], ".wine-gputaskman"))
exe = os.path.join(tmp, "gputaskman.exe")
keep = subprocess.Popen([wine, exe, "--host-stream", "--interval-ms", "3600000"], env=env, stdin=subprocess.PIPE,
                        stdout=subprocess.DEVNULL)  # keeps the wineserver up, as on a desktop running Wine


def first_line_ms(*args, stdin=subprocess.DEVNULL):
    t0 = time.monotonic()
    p = subprocess.Popen([wine, exe, *args], env=env, stdin=stdin, stdout=subprocess.PIPE)
    line = p.stdout.readline()
    t1 = time.monotonic()
    p.wait()
    return (t1 - t0) * 1000, line


def median_of(label, runs):
    v = sorted(runs)
    print(f"{label}: median {statistics.median(v):.0f} ms (min {v[0]:.0f}, max {v[-1]:.0f}; {len(v)} runs)")


try:
    time.sleep(2)
    median_of("--version (Wine's start alone)", [first_line_ms("--version")[0] for _ in range(9)])
    runs = [first_line_ms("--host-stream") for _ in range(9)]
    median_of(f"--host-stream, first line ({len(runs[0][1])} bytes)", [r[0] for r in runs])
    tick = os.sysconf("SC_CLK_TCK")
    for _ in range(3):
        p = subprocess.Popen([wine, exe, "--host-stream", "--interval-ms", "100"], env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
        p.stdout.readline()
        p.stdout.readline()  # past the start and the first, engine-less sample

        def cpu():
            f = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
            return (int(f[11]) + int(f[12])) / tick

        c0, t0, lines = cpu(), time.monotonic(), 150
        for _ in range(lines):
            p.stdout.readline()
        c1, t1 = cpu(), time.monotonic()
        p.stdin.close()
        p.wait()
        print(f"--host-stream, {n} processes on 2 adapters: {(c1 - c0) / lines * 1000:.2f} ms CPU per line "
              f"({lines} lines in {t1 - t0:.1f} s)")
finally:
    keep.stdin.close()
    keep.wait()
    subprocess.run(["rm", "-rf", tmp])
