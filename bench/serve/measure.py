"""serve benchmark: 500 stand-in processes listed on 2 GPUs by the fake
libnvidia-ml.so.1; gputaskman serve -i 1 scraped over loopback. Figures:
scrape latency seen by the client (an upper bound of the server's time),
the collection thread's CPU per interval against the live view's refresh
(bench/snapshot's bench_refresh), serve's RSS, and the libraries --once maps.
Then the CPU a scrape costs the server (/proc/PID/schedstat, ns), plain and
with Accept-Encoding: gzip as Prometheus sends it, over 2000 scrapes each,
the idle CPU of as long subtracted; with a second build folder (BASE), the
same for its binary in the same run, side by side. node_exporter (Debian's
prometheus-node-exporter, NODE_EXPORTER= another path) is scraped the same way
in the same run, its default collectors, so the ratio is measured, not quoted.
  measure.py BUILD [BASE]"""
import os, socket, statistics, subprocess, sys, tempfile, time

build = sys.argv[1]
base = sys.argv[2] if len(sys.argv) > 2 else None
NPROC = int(os.environ.get("NPROC", "500"))
binary = os.path.join(build, "src", "gputaskman")
fake = os.path.join(build, "tests", "fakes", "nvml")
if not os.path.exists(os.path.join(fake, "libnvidia-ml.so.1")):
    sys.exit("bench: the NVML test double is not built (configure with -Dtests=true)")


def status(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])


def cpu_ns(pid):
    """CPU time of every thread of pid, ns (the HTTP thread is not the main one)."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def start_serve(binary, env, tmp, name):
    err = open(os.path.join(tmp, name + ".err"), "w+")
    p = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "-i", "1", "--no-probe"], env=env, stderr=err)
    for _ in range(100):
        err.seek(0)
        t = err.read()
        if "/metrics" in t:
            return p, int(t.split("127.0.0.1:")[1].split("/")[0])
        time.sleep(0.05)
    p.kill()
    sys.exit("bench: %s serve did not start: %s" % (binary, t))


def get(port, gzip):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
              (b"Accept-Encoding: gzip\r\n" if gzip else b"") + b"\r\n")
    n = 0
    while True:
        b = s.recv(1 << 20)
        if not b:
            break
        n += len(b)
    s.close()
    return n


def scrape_cost(binary, env, tmp, name, n=2000):
    """Server CPU per scrape in µs, plain and gzip: (plain, gzip, plain bytes, gzip bytes)."""
    p, port = start_serve(binary, env, tmp, name)
    try:
        for _ in range(100):
            if get(port, False) > 1000:
                break
            time.sleep(0.1)
        out = []
        for gz in (False, True):
            c0, t0 = cpu_ns(p.pid), time.monotonic()
            size = 0
            for _ in range(n):
                size = get(port, gz)
            busy, secs = cpu_ns(p.pid) - c0, time.monotonic() - t0
            c1 = cpu_ns(p.pid)
            time.sleep(secs)
            idle = cpu_ns(p.pid) - c1
            out.append(((busy - idle) / n / 1e3, size))
        return out[0][0], out[1][0], out[0][1], out[1][1]
    finally:
        p.kill()
        p.wait()


def node_exporter_cost(tmp, n=2000):
    """node_exporter's CPU per scrape in us (plain, gzip) and its RSS in KiB, or None when absent."""
    exe = os.environ.get("NODE_EXPORTER", "/usr/bin/prometheus-node-exporter")
    if not os.access(exe, os.X_OK):
        return None
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    p = subprocess.Popen([exe, "--web.listen-address=127.0.0.1:%d" % port],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                if get(port, False) > 1000:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        out = []
        for gz in (False, True):
            c0, t0 = cpu_ns(p.pid), time.monotonic()
            for _ in range(n):
                get(port, gz)
            busy, secs = cpu_ns(p.pid) - c0, time.monotonic() - t0
            c1 = cpu_ns(p.pid)
            time.sleep(min(secs, 10))
            idle = (cpu_ns(p.pid) - c1) * secs / min(secs, 10)
            out.append((busy - idle) / n / 1e3)
        return out[0], out[1], status(p.pid, "VmRSS")
    finally:
        p.kill()
        p.wait()


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


procs = [subprocess.Popen(["sleep", "600"]) for _ in range(NPROC)]
srv = None
try:
    tmp = tempfile.mkdtemp(prefix="gtm-bench-serve-")
    scn = os.path.join(tmp, "scenario.txt")
    with open(scn, "w") as f:
        for g in range(2):
            f.write('device name="NVIDIA H200" uuid=GPU-%d bus=00000000:%d0:00.0 mem_total=150754820096 '
                    'mem_used=21474836480 util_gpu=50 util_mem=20 temp=60 power_mw=300000 clock_sm=1980\n' % (g, g + 1))
        for i, p in enumerate(procs):
            f.write("process dev=%d pid=%d list=compute mem=%d sm=%d\n" % (i % 2, p.pid, (i + 1) * 1048576, i % 100))
    env = dict(os.environ, LD_LIBRARY_PATH=fake, GTM_FAKE_NVML_SCENARIO=scn)
    time.sleep(1)
    err = open(os.path.join(tmp, "err"), "w+")
    srv = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "-i", "1", "--no-probe"], env=env, stderr=err)
    port = None
    for _ in range(100):
        err.seek(0)
        t = err.read()
        if "/metrics" in t:
            port = int(t.split("127.0.0.1:")[1].split("/")[0])
            break
        time.sleep(0.05)
    def scrape():
        """One GET on a new connection, read to its end: (seconds, head, body)."""
        t0 = time.perf_counter()
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            b = s.recv(1 << 20)
            if not b:
                break
            data += b
        s.close()
        head, _, body = data.partition(b"\r\n\r\n")
        return time.perf_counter() - t0, head, body

    for _ in range(50):
        _, head, body = scrape()
        if head.startswith(b"HTTP/1.1 200"):
            break
        time.sleep(0.1)
    time.sleep(2)
    c0, t0 = cpu_s(srv.pid), time.monotonic()
    time.sleep(10)
    idle_cpu = (cpu_s(srv.pid) - c0) / (time.monotonic() - t0) * 1e3
    c0, t0 = cpu_s(srv.pid), time.monotonic()
    lat = []
    for _ in range(10):
        for _ in range(20):
            lat.append(scrape()[0] * 1e3)
        time.sleep(1)
    intervals = time.monotonic() - t0
    cpu_per_interval = (cpu_s(srv.pid) - c0) / intervals * 1e3
    _, _, body = scrape()
    lat.sort()
    print("scrape (client-side, new connection each): median %.3f ms, p99 %.3f ms, %d bytes, %d series" % (
        statistics.median(lat), lat[int(len(lat) * 0.99) - 1], len(body),
        sum(1 for l in body.split(b"\n") if l and not l.startswith(b"#"))))
    print("serve CPU per 1 s interval: %.2f ms unscraped (collection + render), %.2f ms with 20 scrapes a second"
          % (idle_cpu, cpu_per_interval))
    print("serve RSS %d KiB, peak %d KiB" % (status(srv.pid, "VmRSS"), status(srv.pid, "VmHWM")))
    srv.terminate()
    srv.wait(5)
    srv = None
    r = subprocess.run([os.path.join(build, "bench", "serve", "bench_render"), "30"], env=env,
                       capture_output=True, text=True)
    print("collection thread per interval (CPU, median of 30):", r.stdout.strip())
    r = subprocess.run([os.path.join(build, "bench", "snapshot", "bench_refresh"), "30"], env=env,
                       capture_output=True, text=True)
    print("live view's refresh (bench_refresh):", r.stdout.strip().replace("\n", "; "))
    for b, label in ((binary, build),) + (((os.path.join(base, "src", "gputaskman"), base),) if base else ()):
        costs = [scrape_cost(b, env, tmp, "cost%d" % k) for k in range(3)]
        med = lambda i: statistics.median(c[i] for c in costs)
        print("%s: server CPU per scrape (median of 3 x 2000): plain %.1f us (%d bytes), gzip %.1f us (%d bytes%s)" % (
            label, med(0), costs[0][2], med(1), costs[0][3],
            "" if costs[0][3] < costs[0][2] else ": not compressed"))
    ours = [scrape_cost(binary, env, tmp, "vs%d" % k) for k in range(3)]
    nodes = [node_exporter_cost(tmp) for _ in range(3)]
    if nodes[0] is None:
        print("node_exporter: not installed (apt-get install prometheus-node-exporter): no ratio")
    else:
        o = lambda i: statistics.median(c[i] for c in ours)
        m = lambda i: statistics.median(c[i] for c in nodes)
        print("beside node_exporter, same run (median of 3 x 2000 each): plain %.1f us vs %.1f us = %.2fx; "
              "gzip %.1f us vs %.1f us = %.2fx; node_exporter RSS %d KiB" % (
                  o(0), m(0), o(0) / m(0), o(1), m(1), o(1) / m(1), m(2)))
    libs = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    print("--once maps %d shared objects (ldd); libmicrohttpd among them: %s" % (
        len(libs.strip().splitlines()), "yes" if "microhttpd" in libs else "no"))
finally:
    if srv:
        srv.kill()
    for p in procs:
        p.kill()
        p.wait()
