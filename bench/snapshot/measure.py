"""Snapshot benchmark: starts 500 stand-in processes, lists them on 2 GPUs in
a scenario for the fake libnvidia-ml.so.1, and measures gputaskman beside ps.
Every figure is the median of RUNS runs, all in this one run."""
import os, resource, statistics, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import standins  # noqa: E402  (bench/standins.py)

build = sys.argv[1]
RUNS = int(os.environ.get("RUNS", "15"))
NPROC = int(os.environ.get("NPROC", "500"))
binary = os.path.join(build, "src", "gputaskman")
bench_refresh = os.path.join(build, "bench", "snapshot", "bench_refresh")
fake = os.path.join(build, "tests", "fakes", "nvml")
if not os.path.exists(os.path.join(fake, "libnvidia-ml.so.1")):
    sys.exit("bench: the NVML test double is not built (configure with -Dtests=true)")

procs = [subprocess.Popen(["sleep", "600"]) for _ in range(NPROC)]
try:
    tmp = tempfile.mkdtemp(prefix="gtm-bench-")
    scn = os.path.join(tmp, "scenario.txt")
    with open(scn, "w") as f:
        f.write('device name="NVIDIA H200" uuid=GPU-0 bus=00000000:1A:00.0 mem_total=150754820096 '
                'mem_used=21474836480 util_gpu=50 util_mem=20 temp=60 power_mw=300000 power_limit_mw=700000 '
                'clock_sm=1980 clock_mem=2619 pcie_gen=5 pcie_width=16 pcie_tx_kbs=100 pcie_rx_kbs=100\n')
        f.write('device name="NVIDIA H200" uuid=GPU-1 bus=00000000:2A:00.0 mem_total=150754820096 '
                'mem_used=21474836480 util_gpu=50\n')
        for i, p in enumerate(procs):
            f.write(f"process dev={i % 2} pid={p.pid} list=compute mem={(i + 1) * 1048576} sm={i % 100}\n")
    env = dict(os.environ, LD_LIBRARY_PATH=fake, GTM_FAKE_NVML_SCENARIO=scn)

    standins.wait_exec(procs)
    # one warm-up of each, then the programs take turns run by run, so that
    # a change in the machine's load hits all of them alike
    cmds = {"json": [binary, "--once", "--json", "--no-probe"], "text": [binary, "--once", "--no-probe"],
            "json1": ["env", "GPUTASKMAN_THREADS=1", binary, "--once", "--json", "--no-probe"],
            "ps": ["ps", "-e", "-o", "pid,comm,rss"]}
    walls = {k: [] for k in cmds}
    rss = {k: [] for k in cmds}
    for k, cmd in cmds.items():
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL)
    for _ in range(RUNS):
        for k, cmd in cmds.items():
            t0 = time.perf_counter()
            r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            walls[k].append((time.perf_counter() - t0) * 1000)
            rss[k].append(int(r.stderr.strip().splitlines()[-1]))

    def timed(k):
        return statistics.median(walls[k]), max(rss[k])

    gtm_wall, gtm_rss = timed("json")
    gtm_text_wall, _ = timed("text")
    gtm_one_wall, _ = timed("json1")
    ps_wall, ps_rss = timed("ps")
    out = subprocess.run([bench_refresh, "100"], env=env, capture_output=True, text=True).stdout.strip()
    fields = dict(kv.split("=") for kv in out.split())
    print(f"processes started: {NPROC}, runs per figure: {RUNS} (median)")
    print(f"steady refresh: {fields['cpu_median_ms']} ms CPU (p90 {fields['cpu_p90_ms']} ms), "
          f"{fields['wall_median_ms']} ms wall; {fields['devices']} GPUs, {fields['gpu_rows']} GPU rows, "
          f"{fields['processes']} processes; peak RSS {int(fields['peak_rss_kib']) / 1024:.1f} MiB  (target < 2 ms CPU)")
    print(f"gputaskman --once --json: {gtm_wall:.1f} ms wall, peak RSS {gtm_rss / 1024:.1f} MiB  (targets < 30 ms, < 16 MiB)")
    print(f"gputaskman --once:        {gtm_text_wall:.1f} ms wall")
    print(f"--once --json, one thread (GPUTASKMAN_THREADS=1): {gtm_one_wall:.1f} ms wall")
    print(f"ps -e -o pid,comm,rss:    {ps_wall:.1f} ms wall, peak RSS {ps_rss / 1024:.1f} MiB")
    print(f"ratio gputaskman --json / ps: {gtm_wall / ps_wall:.2f}x wall, {gtm_rss / ps_rss:.2f}x RSS")
    cpus = len(os.sched_getaffinity(0))
    print(f"CPUs usable: {cpus}; load average {os.getloadavg()[0]:.2f}; "
          f"--json wall spread {min(walls['json']):.1f} - {max(walls['json']):.1f} ms")
finally:
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()
