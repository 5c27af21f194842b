"""Issue 11's comparison: gputaskman beside `ps -e -o pid,comm,rss` and nvtop
over the same processes, in the same run, programs taking turns.

NPROC idle stand-ins (default 300), NCUDA of them (default 40) cuda_standin
processes that map the test libcuda.so.1 and are listed as CUDA compute
processes on 2 GPUs of the NVML test double.

usage: python3 bench/compare/compare.py BUILD [once|live|all|hold]
(hold: starts the stand-ins, writes their environment to HOLD_ENV and waits
for stdin to close, for strace or callgrind by hand)
environment: RUNS (one-shot rounds, default 15), LIVE_RUNS (default 3), NPROC, NCUDA, SECONDS (live window,
default 30), NVTOP (path of an nvtop binary; skipped when unset or absent),
GTM_ARGS (extra gputaskman arguments, default --no-probe), BEFORE (path of
another gputaskman binary, an earlier build, run in the same one-shot rounds
and live windows with the same arguments: before and after side by side), PROBE=1 (one more
process on GPU 0: the explain stand-in llama-server on loopback, which a run
without --no-probe queries over HTTP, loading libcurl: GTM_ARGS= PROBE=1).

once: wall (perf_counter around the run) and CPU (user + system from wait4) of
each program, median over RUNS rounds; the ratio is computed per round and its
median reported too. bench/compare/list_proc (built beside) takes its turn as
the floor: it only lists /proc, which gputaskman does to count the processes
and nvtop does not do, and, given an argument, does nothing (what a program's
start and end cost); (gputaskman - the listing's difference) / nvtop is
printed too.
live: gputaskman -i 1 and nvtop -d 10 (both 1 s) idle in tmux at 200x60 at the
same time; after a warm-up the CPU of every thread (schedstat, ns) over SECONDS
is divided by the refreshes in the window (one a second); RSS at the end."""
import os, statistics, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import standins  # noqa: E402  (bench/standins.py)

build = sys.argv[1]
what = sys.argv[2] if len(sys.argv) > 2 else "all"
RUNS = int(os.environ.get("RUNS", "15"))
NPROC = int(os.environ.get("NPROC", "300"))
NCUDA = int(os.environ.get("NCUDA", "40"))
SECONDS = float(os.environ.get("SECONDS", "30"))
LIVE_RUNS = int(os.environ.get("LIVE_RUNS", "3"))
NVTOP = os.environ.get("NVTOP", "")
PROBE = os.environ.get("PROBE", "") == "1"
GTM_ARGS = os.environ.get("GTM_ARGS", "--no-probe").split()
BEFORE = os.environ.get("BEFORE", "")
binary = os.path.abspath(os.path.join(build, "src", "gputaskman"))
fake = os.path.abspath(os.path.join(build, "tests", "fakes", "nvml"))
libcuda = os.path.abspath(os.path.join(build, "tests", "fakes", "cuda", "libcuda.so.1"))
standin = os.path.abspath(os.path.join(build, "tests", "fakes", "cuda", "cuda_standin"))
list_proc = os.path.abspath(os.path.join(build, "bench", "compare", "list_proc"))
for f in (binary, os.path.join(fake, "libnvidia-ml.so.1"), libcuda, standin):
    if not os.path.exists(f):
        sys.exit(f"bench: {f} is missing (a build configured with -Dtests=true)")
if NVTOP and not os.access(NVTOP, os.X_OK):
    print(f"NVTOP={NVTOP} is not an executable: nvtop skipped")
    NVTOP = ""


def nvtop_version():
    r = subprocess.run([NVTOP, "--version"], capture_output=True, text=True)
    return (r.stdout + r.stderr).strip()


def run_timed(cmd, env):
    """(wall ms, CPU ms) of one run, its output thrown away."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = (time.perf_counter() - t0) * 1000
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, (ru.ru_utime + ru.ru_stime) * 1000


def med(v):
    return statistics.median(v)


def once(env):
    cmds = {"gtm": [binary, "--once", "--json", *GTM_ARGS], "ps": ["ps", "-e", "-o", "pid,comm,rss"]}
    if BEFORE:
        cmds["before"] = [os.path.abspath(BEFORE), "--once", "--json", *GTM_ARGS]
    if NVTOP:
        cmds["nvtop"] = [NVTOP, "-s"]
    if os.path.exists(list_proc):  # the floor: a listing of /proc and nothing else, and an empty run
        cmds["list"] = [list_proc]
        cmds["empty"] = [list_proc, "none"]
    res = {k: [] for k in cmds}
    for cmd in cmds.values():
        run_timed(cmd, env)
    for _ in range(RUNS):
        for k, cmd in cmds.items():
            res[k].append(run_timed(cmd, env))
    print(f"one-shot, {RUNS} rounds (median; min - max):")
    for k, cmd in cmds.items():
        w = [r[0] for r in res[k]]
        c = [r[1] for r in res[k]]
        print(f"  {'(before) ' if k == 'before' else ''}{'(floor) ' if k in ('list', 'empty') else ''}{' '.join(os.path.basename(x) if i == 0 else x for i, x in enumerate(cmd)):44s} "
              f"wall {med(w):6.1f} ms ({min(w):.1f} - {max(w):.1f})  CPU {med(c):6.1f} ms "
              f"({min(c):.1f} - {max(c):.1f})")
    rw = [a[0] / b[0] for a, b in zip(res["gtm"], res["ps"])]
    rc = [a[1] / max(b[1], 0.001) for a, b in zip(res["gtm"], res["ps"])]
    print(f"  gputaskman / ps, per round: wall {med(rw):.2f}x ({min(rw):.2f} - {max(rw):.2f}), "
          f"CPU {med(rc):.2f}x ({min(rc):.2f} - {max(rc):.2f})   (targets <= 0.8x wall, <= 1.0x CPU)")
    if NVTOP:
        for k in ("before", "gtm") if BEFORE else ("gtm",):
            rn = [a[1] / max(b[1], 0.001) for a, b in zip(res[k], res["nvtop"])]
            print(f"  gputaskman{' (before)' if k == 'before' else ''} / nvtop -s, CPU per round: {med(rn):.2f}x "
                  f"({min(rn):.2f} - {max(rn):.2f})   (target <= 1.0x)")
    if NVTOP and "list" in res:
        # what gputaskman costs beyond listing /proc, which nvtop does not do
        ls = [l[1] - e[1] for l, e in zip(res["list"], res["empty"])]
        rl = [(a[1] - s) / max(b[1], 0.001) for a, b, s in zip(res["gtm"], res["nvtop"], ls)]
        print(f"  listing /proc alone (list_proc - an empty run), CPU: {med(ls):.1f} ms ({min(ls):.1f} - {max(ls):.1f})")
        print(f"  (gputaskman - that listing) / nvtop -s, CPU per round: {med(rl):.2f}x ({min(rl):.2f} - {max(rl):.2f})")
    if BEFORE:
        rb = [a[1] / max(b[1], 0.001) for a, b in zip(res["gtm"], res["before"])]
        print(f"  gputaskman / before, CPU per round: {med(rb):.2f}x ({min(rb):.2f} - {max(rb):.2f})")


def task_ns(pid):
    """CPU of every live thread of pid, in ns (schedstat's first field)."""
    total = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
            except OSError:
                pass
    except OSError:
        return None
    return total


def ticks_ns(pid):
    """utime + stime of the whole process (exited threads included), in ns."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000000000 // os.sysconf("SC_CLK_TCK")


def status_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def live(env, tmp):
    sock = f"gtm-bench-compare-{os.getpid()}"
    tm = ["tmux", "-L", sock, "-f", "/dev/null"]
    # GPUTASKMAN_PROBE_HTTP=libcurl, when set, probes through libcurl (src/explain/probe_posix.c)
    envs = " ".join(f"{k}='{env[k]}'" for k in ("LD_LIBRARY_PATH", "GTM_FAKE_NVML_SCENARIO", "GPUTASKMAN_PROBE_HTTP")
                    if k in env)
    progs = {"gputaskman -i 1 " + " ".join(GTM_ARGS): f"{binary} -i 1 {' '.join(GTM_ARGS)}"}
    if BEFORE:
        progs["(before) gputaskman -i 1 " + " ".join(GTM_ARGS)] = f"{os.path.abspath(BEFORE)} -i 1 {' '.join(GTM_ARGS)}"
    if NVTOP:
        progs["nvtop -d 10"] = f"{NVTOP} -d 10"
    rows = {k: [] for k in progs}
    try:
        for r in range(LIVE_RUNS):
            pids = {}
            for i, (k, cmd) in enumerate(progs.items()):
                subprocess.run(
                    tm + ["new-session", "-d", "-s", f"s{i}", "-x", "200", "-y", "60",
                          f"exec env HOME='{tmp}' {envs} LANG=C.UTF-8 TERM=xterm-256color {cmd} 2>>{tmp}/stderr-{i}"],
                    check=True)
            time.sleep(5)  # warm-up: first scans, caches filled
            for i, k in enumerate(progs):
                pids[k] = int(subprocess.run(tm + ["list-panes", "-t", f"s{i}", "-F", "#{pane_pid}"],
                                             capture_output=True, text=True).stdout.split()[0])
            a = {k: (task_ns(p), ticks_ns(p)) for k, p in pids.items()}
            time.sleep(SECONDS)
            b = {k: (task_ns(p), ticks_ns(p)) for k, p in pids.items()}
            for k, p in pids.items():
                rows[k].append(((b[k][0] - a[k][0]) / 1e6 / SECONDS, (b[k][1] - a[k][1]) / 1e6 / SECONDS,
                                status_kib(p, "VmRSS"), status_kib(p, "VmHWM")))
            subprocess.run(tm + ["kill-server"], stderr=subprocess.DEVNULL)
            time.sleep(0.5)
    finally:
        subprocess.run(tm + ["kill-server"], stderr=subprocess.DEVNULL)
    print(f"live view, 1 refresh/s, {len(rows[next(iter(rows))])} runs of {SECONDS:.0f} s side by side (median):")
    for k, v in rows.items():
        print(f"  {k:34s} CPU per refresh {med([x[0] for x in v]):5.2f} ms (threads alive; "
              f"{med([x[1] for x in v]):.1f} ms from clock ticks)  RSS {med([x[2] for x in v]) / 1024:.1f} MiB "
              f"(peak {med([x[3] for x in v]) / 1024:.1f})")
    if NVTOP:
        g, n = rows[next(iter(rows))], rows["nvtop -d 10"]
        print(f"  gputaskman / nvtop CPU per refresh: {med([x[0] for x in g]) / med([x[0] for x in n]):.2f}x "
              f"(target <= 0.6x); RSS targets <= 6 MiB without probes, <= 12 MiB probing")
        if BEFORE:
            b = rows[list(rows)[1]]
            print(f"  (before) gputaskman / nvtop CPU per refresh: {med([x[0] for x in b]) / med([x[0] for x in n]):.2f}x")
    if BEFORE:
        g, b = rows[next(iter(rows))], rows[list(rows)[1]]
        print(f"  gputaskman / before CPU per refresh: {med([x[0] for x in g]) / med([x[0] for x in b]):.2f}x")


def start_server(tmp):
    """The explain stand-in llama-server on a generated GGUF; returns once it listens."""
    build_abs = os.path.abspath(build)
    model, ready = os.path.join(tmp, "tiny.gguf"), os.path.join(tmp, "ready")
    subprocess.run([os.path.join(build_abs, "tests", "e2e", "identify", "llama-server"), "--write-gguf", model],
                   check=True)
    p = subprocess.Popen([os.path.join(build_abs, "tests", "e2e", "explain", "llama-server"), "-m", model,
                          "-c", "4096", "--ready", ready], cwd=tmp, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline and not (os.path.exists(ready) and os.path.getsize(ready) > 0):
        time.sleep(0.01)
    return p


def main():
    tmp = tempfile.mkdtemp(prefix="gtm-bench-compare-")
    procs, cudas = [], []
    try:
        for _ in range(NCUDA):
            cudas.append(subprocess.Popen([standin, libcuda], stdin=subprocess.PIPE, stdout=subprocess.PIPE))
        for _ in range(NPROC - NCUDA):
            procs.append(subprocess.Popen(["sleep", "3600"]))
        for c in cudas:
            c.stdout.readline()
        server = start_server(tmp) if PROBE else None
        scn = os.path.join(tmp, "scenario.txt")
        with open(scn, "w") as f:
            for d in range(2):
                f.write(f'device name="NVIDIA H200" uuid=GPU-{d} bus=00000000:{d + 1}A:00.0 mem_total=150754820096 '
                        'mem_used=21474836480 util_gpu=50 util_mem=20 temp=60 power_mw=300000 '
                        'power_limit_mw=700000 clock_sm=1980 clock_mem=2619 pcie_gen=5 pcie_width=16\n')
            for i, c in enumerate(cudas):
                f.write(f"process dev={i % 2} pid={c.pid} list=compute mem={(i + 1) * 104857600} sm={i % 100}\n")
            if server:
                f.write(f"process dev=0 pid={server.pid} list=compute mem=1073741824 sm=5\n")
        env = dict(os.environ, LD_LIBRARY_PATH=fake, GTM_FAKE_NVML_SCENARIO=scn, HOME=tmp)
        standins.wait_exec(procs)
        nproc = len([d for d in os.listdir("/proc") if d.isdigit()])
        print(f"{NPROC} stand-ins ({NCUDA} CUDA on 2 GPUs{', a probed llama-server' if PROBE else ''}), {nproc} processes in /proc, "
              f"load average {os.getloadavg()[0]:.2f}, {len(os.sched_getaffinity(0))} CPUs; "
              f"nvtop: {nvtop_version() if NVTOP else 'not given (NVTOP=path)'}")
        if what in ("once", "all"):
            once(env)
        if what in ("live", "all"):
            live(env, tmp)
        if what == "hold":  # for strace, callgrind, perf by hand: source the file, then press Enter
            with open(os.environ.get("HOLD_ENV", "/tmp/gtm-bench-compare.env"), "w") as f:
                f.write(f"export LD_LIBRARY_PATH='{fake}' GTM_FAKE_NVML_SCENARIO='{scn}'\n")
            print("stand-ins held; environment in", os.environ.get("HOLD_ENV", "/tmp/gtm-bench-compare.env"), flush=True)
            sys.stdin.read()
    finally:
        for p in procs:
            p.kill()
        for c in cudas:
            c.kill()
        if server:
            procs.append(server)
            server.kill()
        for p in procs + cudas:
            p.wait()
        subprocess.run(["rm", "-rf", tmp])


main()
