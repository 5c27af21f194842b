#!/usr/bin/env python3
"""gputaskman serve under hostile clients, on loopback: 500 idle connections,
a client sending one byte per second, a 1 MiB request line, random bytes.
Meanwhile a normal scrape answers in under 100 ms, the slow client is cut off
at its request deadline (GTM_SERVE_TIMEOUT_S=3 here), the exporter keeps
serving, and its RSS grows by a bounded amount.
Args: gputaskman fake-nvml-dir"""
import os, random, signal, socket, subprocess, sys, tempfile, threading, time

fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    fails += 0 if ok else 1


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def scrape(port, timeout=2.0):
    """One GET /metrics on a new connection: (status line, body bytes, seconds)."""
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(errors="replace"), body, time.monotonic() - t0


def main():
    gtm, fake = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="gtm-e2e-hostile-")
    scn = os.path.join(tmp, "scenario")
    with open(scn, "w") as f:
        f.write('device name="Fake GPU" uuid=GPU-hostile mem_total=8589934592 mem_used=1073741824\n')
    env = dict(os.environ, GTM_FAKE_NVML_SCENARIO=scn, LD_LIBRARY_PATH=fake, GTM_SERVE_TIMEOUT_S="3")
    # under ASan, freed memory sits in a quarantine (256 MiB by default) and counts as RSS
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=4"
    err = open(os.path.join(tmp, "serve.err"), "w+")
    srv = subprocess.Popen([gtm, "serve", "--listen", "127.0.0.1:0", "-i", "0.5", "--no-probe"], env=env,
                           stderr=err)
    port = None
    for _ in range(200):
        err.seek(0)
        text = err.read()
        if "/metrics" in text:
            port = int(text.split("http://127.0.0.1:")[1].split("/")[0])
            break
        time.sleep(0.05)
    if port is None:
        print("FAIL serve did not start:", text)
        srv.kill()
        return 1
    for _ in range(100):
        status, body, _ = scrape(port)
        if status.endswith("200 OK"):
            break
        time.sleep(0.05)
    check(b"gputaskman_gpu_memory_used_bytes" in body, "a normal scrape before the clients")
    rss0 = rss_kib(srv.pid)

    idle = []
    for _ in range(500):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        idle.append(s)
    # partial requests on a tenth of them: a request line without its end
    for s in idle[::10]:
        s.sendall(b"GET /metr")

    slow_state = {"cut_after": None}

    def slow_client():
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        t0 = time.monotonic()
        msg = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 64
        try:
            for c in msg:
                s.sendall(bytes([c]))
                time.sleep(1.0)
        except OSError:
            pass
        slow_state["cut_after"] = time.monotonic() - t0
        s.close()

    def big_line():
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            s.sendall(b"GET /" + b"a" * (1 << 20) + b" HTTP/1.1\r\n\r\n")
        except OSError:
            pass
        try:
            s.recv(4096)
        except OSError:
            pass
        s.close()

    def garbage():
        rnd = random.Random(15)
        for _ in range(20):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            try:
                s.sendall(bytes(rnd.getrandbits(8) for _ in range(8192)))
                s.recv(4096)
            except OSError:
                pass
            s.close()

    threads = [threading.Thread(target=f, daemon=True) for f in (slow_client, big_line, garbage)]
    for th in threads:
        th.start()
    times = []
    ok_all = True
    for _ in range(30):
        status, body, secs = scrape(port)
        times.append(secs)
        ok_all &= status.endswith("200 OK") and body.endswith(b"\n") and b"gputaskman_gpu_info" in body
        time.sleep(0.1)
    check(ok_all, "30 scrapes answered 200 with metrics during the attack")
    worst = max(times)
    check(worst < 0.1, "worst scrape %.1f ms (under 100 ms) with 500 idle connections open" % (worst * 1e3))
    threads[1].join(10)
    threads[2].join(20)
    # the slow client: cut at its 3 s deadline (the sweep runs every second)
    threads[0].join(12)
    cut = slow_state["cut_after"]
    check(cut is not None and cut < 8, "the one-byte-per-second client was cut off after %s s" %
          ("%.1f" % cut if cut is not None else "never"))
    # the idle connections were timed out too: the server closed them
    closed = 0
    for s in idle:
        s.settimeout(0.01)
        try:
            closed += s.recv(1) == b""
        except ConnectionResetError:
            closed += 1
        except OSError:
            pass
        s.close()
    check(closed == len(idle), "%d of %d idle connections closed by the server" % (closed, len(idle)))
    rss1 = rss_kib(srv.pid)
    check(rss1 - rss0 < 24 * 1024, "RSS %d KiB before, %d KiB after (bounded: under 24 MiB growth)" % (rss0, rss1))
    status, body, secs = scrape(port)
    check(status.endswith("200 OK"), "still serving afterwards (%.1f ms)" % (secs * 1e3))
    srv.send_signal(signal.SIGTERM)
    try:
        rc = srv.wait(5)
    except subprocess.TimeoutExpired:
        srv.kill()
        rc = "still running"
    check(rc == 0, "SIGTERM: exit %s" % rc)
    err.seek(0)
    if fails:
        print(err.read())
    subprocess.run(["rm", "-rf", tmp])
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
