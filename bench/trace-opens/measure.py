#!/usr/bin/env python3
"""--trace-opens' cost: gputaskman --once --trace-opens --trace-wait W traces
for W seconds after its first refresh; over that window its CPU (all its
threads, from /proc/PID/task/*/stat utime+stime in clock ticks and
/proc/PID/task/*/schedstat's run time in ns) is read while a workload opens
and closes RATE distinct unrelated files a second on the mount the tracer
marks (HOME's), against the same window with no workload. Median of RUNS of
each, interleaved. Usage: measure.py BUILD [RUNS] [WINDOW_S] [RATE]."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
window = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
rate = int(sys.argv[4]) if len(sys.argv) > 4 else 10000
binary = os.path.join(build, "src", "gputaskman")
tick = os.sysconf("SC_CLK_TCK")


def cpu(pid):
    """(ticks, ns, user ticks) of every thread of pid."""
    ticks = ns = user = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
            user += int(fields[11])
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns += int(f.read().split()[0])
        except FileNotFoundError:
            pass
    return ticks, ns, user


def workload(folder, stop_at):
    """Opens and closes rate distinct files a second, 1/100 s at a time; returns opens done."""
    names = [os.path.join(folder, "f%05d.dat" % i) for i in range(rate)]
    per_slot, slot, done, i = rate // 100, 0.01, 0, 0
    nxt = time.monotonic()
    while time.monotonic() < stop_at:
        for _ in range(per_slot):
            os.close(os.open(names[i], os.O_RDONLY))
            i = (i + 1) % len(names)
        done += per_slot
        nxt += slot
        d = nxt - time.monotonic()
        if d > 0:
            time.sleep(d)
    return done


def one(home, folder, with_opens):
    env = dict(os.environ, HOME=home)
    env.pop("GPUTASKMAN_ROOT", None)
    p = subprocess.Popen([binary, "--once", "--trace-opens", "--trace-wait", str(window + 2), "--no-probe"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    if "tracing model file opens" not in line:
        p.kill()
        sys.exit("the tracer did not start: " + line + p.stderr.read())
    time.sleep(0.5)  # past the first refresh's tail
    t0, c0 = time.monotonic(), cpu(p.pid)
    opens = workload(folder, t0 + window) if with_opens else time.sleep(window) or 0
    t1, c1 = time.monotonic(), cpu(p.pid)
    p.wait()
    secs = t1 - t0
    return ((c1[0] - c0[0]) * 1000.0 / tick / secs, (c1[1] - c0[1]) / 1e6 / secs, opens / secs,
            (c1[2] - c0[2]) * 1000.0 / tick / secs)


def main():
    if os.geteuid() != 0:
        sys.exit("bench/trace-opens needs root (fanotify's mount marks)")
    with tempfile.TemporaryDirectory(prefix="gtm-bench-trace-") as d:
        home, folder = os.path.join(d, "home"), os.path.join(d, "unrelated")
        os.makedirs(home)
        os.makedirs(folder)
        for i in range(rate):
            open(os.path.join(folder, "f%05d.dat" % i), "w").close()
        res = {True: [], False: []}
        for r in range(runs):
            for w in (True, False):
                res[w].append(one(home, folder, w))
                print("run %d %-9s stat %.2f ms/s, schedstat %.3f ms/s, %.0f opens/s, user %.2f ms/s" %
                      ((r + 1, "opens" if w else "idle") + res[w][-1]), flush=True)
        for w in (True, False):
            st = statistics.median(x[0] for x in res[w])
            ns = statistics.median(x[1] for x in res[w])
            rt = statistics.median(x[2] for x in res[w])
            us = statistics.median(x[3] for x in res[w])
            print("median %-9s CPU %.3f ms/s (schedstat), %.2f ms/s (stat ticks; user %.2f), %.0f opens/s over %g s x %d" %
                  ("opens" if w else "idle", ns, st, us, rt, window, runs))


main()
