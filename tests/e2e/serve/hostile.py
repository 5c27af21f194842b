#!/usr/bin/env python3
"""gputaskman serve under hostile clients, on loopback (the attackers from
other 127.0.0.0/8 addresses than the honest scraper's 127.0.0.1): 500 idle
connections, a client sending one byte per second, a 1 MiB request line,
random bytes. Meanwhile every normal scrape answers while the attackers are
still held (before the request deadline, GTM_SERVE_TIMEOUT_S=20 here, cuts
any of them), the slow client is cut off before its request is whole, the
exporter keeps serving, and its RSS grows by a bounded amount. Then a
slowloris of 2,000 connections from one address gets its share (32) and no
more, while 33 honest scrapes all answer; 40 addresses holding their share
each leave the reserve to a new client (a second server: 256 connections,
a 60 s timeout); pipelined requests get an answer and
a close, never silence; 300 query parameters get 400, a query too large for a
connection's memory a close; and a client's slots are freed when it closes
them, not at the timeout.
No check depends on the machine's speed: what the server has seen is learnt
from its answers (it accepts in arrival order, so an answered scrape means
every connection opened before it was accepted or refused), every wait is for
a condition with a bound far above a loaded machine's, and a scrape that
fails (a timeout, a reset) on the way to a condition is "not yet". Every
server this test starts is killed on every way out, so a failure is a FAIL
with its message, never a hang.
Args: gputaskman fake-nvml-dir"""
import os, random, resource, select, signal, socket, subprocess, sys, tempfile, threading, time, traceback

fails = 0
servers = []  # every serve started: killed on the way out, whatever the way
# the first server's idle and request deadline: far above what a loaded
# machine takes for the scrapes made while the attackers are held
DEADLINE_S = 20


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


def connect_from(src, port, timeout=5):
    """A connection to the server from the loopback address src."""
    return socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(src, 0))


def refused(s, wait=30.0):
    """Whether the server closed s without a word (within wait seconds, far
    below the 60 s timeout that would close it anyway)."""
    r, _, _ = select.select([s], [], [], wait)
    if not r:
        return False
    try:
        return s.recv(1) == b""
    except OSError:
        return True


def read_all(s, wait=5.0):
    """Everything until EOF, or None when the server stays silent for wait seconds."""
    data = b""
    s.settimeout(wait)
    try:
        while True:
            b = s.recv(65536)
            if not b:
                return data
            data += b
    except socket.timeout:
        return None
    except OSError:
        return data


def scrape(port, timeout=30.0, src="127.0.0.1"):
    """One GET /metrics on a new connection: (status line, body bytes, seconds).
    Raises OSError (a timeout, a reset, a refused connect)."""
    t0 = time.monotonic()
    s = connect_from(src, port, timeout)
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(errors="replace"), body, time.monotonic() - t0


def try_scrape(port, src="127.0.0.1", timeout=30.0):
    """scrape, with a failure as an empty answer and its reason as the body."""
    try:
        return scrape(port, timeout, src)
    except OSError as e:
        return "", ("%s: %s" % (type(e).__name__, e)).encode(), 0.0


def scrape_until_ok(port, src="127.0.0.1", bound_s=60.0):
    """Scrapes until one answers 200 (a failed one is "not yet") or bound_s
    passes: (whether one did, the last answer)."""
    end = time.monotonic() + bound_s
    while True:
        got = try_scrape(port, src)
        if got[0].endswith("200 OK"):
            return True, got
        if time.monotonic() > end:
            return False, got
        time.sleep(0.1)


def start(gtm, env, tmp, name):
    """serve on a free loopback port: (process, port, stderr file)."""
    err = open(os.path.join(tmp, name + ".err"), "w+")
    srv = subprocess.Popen([gtm, "serve", "--listen", "127.0.0.1:0", "-i", "0.5", "--no-probe"], env=env,
                           stdout=subprocess.DEVNULL, stderr=err)
    servers.append(srv)
    text = ""
    end = time.monotonic() + 120  # ASan on a loaded machine: a bound, not an expectation
    while time.monotonic() < end and srv.poll() is None:
        err.seek(0)
        text = err.read()
        if "/metrics" in text:
            return srv, int(text.split("http://127.0.0.1:")[1].split("/")[0]), err
        time.sleep(0.05)
    err.seek(0)
    print("FAIL serve did not start (exit %s):" % srv.poll(), err.read(), flush=True)
    stop(srv)
    return None, None, err


def stop(srv, sig=signal.SIGKILL, wait=30):
    """Ends srv with sig (SIGKILL if it outlives wait seconds): its exit status,
    or "still running" when sig did not end it."""
    if srv.poll() is not None:
        return srv.returncode
    srv.send_signal(sig)
    try:
        return srv.wait(wait)
    except subprocess.TimeoutExpired:
        srv.kill()
        srv.wait()
        return "still running"


def drop_closed(held, wait):
    """Removes from held (and closes) what the server closed; waits up to wait
    seconds for the first such."""
    r, _, _ = select.select(held, [], [], wait) if held else ([], [], [])
    for s in r:
        try:
            gone = s.recv(1) == b""
        except OSError:
            gone = True
        if gone:
            held.remove(s)
            s.close()


def slowloris(port, src, n):
    """n connections from src, each left silent: how many the server kept.
    An answered scrape after them means the server has accepted or refused
    each (it accepts in arrival order, a refusal closes at once), so what it
    refused is closed by then."""
    held = []
    for i in range(n):
        try:
            held.append(connect_from(src, port, 30))
        except OSError:
            continue
        if i % 100 == 99:  # drop the ones the server closed, to bound our descriptors
            drop_closed(held, 0.05)
    ok, got = scrape_until_ok(port)
    if not ok:
        print("     (no scrape answered after the slowloris from %s: %s %s)" % (src, got[0], got[1][:200]))
    drop_closed(held, 0)  # the server's closes reach us at once on loopback
    drop_closed(held, 0.1)
    return held


def fleet_attacks(port):
    """The per-client cap, the reserve, pipelining and big queries."""
    held = slowloris(port, "127.0.0.99", 2000)
    check(len(held) == 32, "a slowloris of 2000 connections from one address holds %d (its share: 32)" % len(held))
    answers = [try_scrape(port) for _ in range(33)]
    ok = sum(a[0].endswith("200 OK") for a in answers)
    check(ok == 33, "%d of 33 honest scrapes answered during the slowloris%s" %
          (ok, "" if ok == 33 else " (%s)" % [a[0] or a[1][:80] for a in answers if not a[0].endswith("200 OK")]))
    many = []
    for a in range(1, 11):
        many += slowloris(port, "127.0.1.%d" % a, 32)
    total = len(held) + len(many)
    # 256 slots, 32 of them a reserve: past 224, an address takes one only while it holds none
    check(total <= 224 + 10, "10 more addresses at their share: %d connections, the reserve kept" % total)
    ok = sum(try_scrape(port)[0].endswith("200 OK") for _ in range(5))
    check(ok == 5, "a new client gets the reserve: %d of 5 scrapes answered" % ok)
    for s in held + many:
        s.close()
    # pipelined: one answer, then the server closes (the client resends the rest), never silence
    s = connect_from("127.0.0.1", port, 30)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * 3)
    data = read_all(s, 30)
    s.close()
    check(data is not None and data.startswith(b"HTTP/1.1 200") and b"\r\nConnection: close\r\n" in data,
          "pipelined requests: answered, then closed (%s)" % ("silence" if data is None else "%d bytes" % len(data)))
    q = "&".join("p%d=%d" % (i, i) for i in range(300))
    s = connect_from("127.0.0.1", port, 30)
    s.sendall(("GET /metrics?%s HTTP/1.1\r\nHost: x\r\n\r\n" % q).encode())
    data = read_all(s, 30)
    s.close()
    check(data is not None and data.startswith(b"HTTP/1.1 400"), "300 query parameters: %s" %
          ("silence" if data is None else data.split(b"\r\n")[0].decode(errors="replace")))
    q = "&".join("a=%d" % i for i in range(3000))
    s = connect_from("127.0.0.1", port, 30)
    s.sendall(("GET /metrics?%s HTTP/1.1\r\nHost: x\r\n\r\n" % q).encode())
    data = read_all(s, 30)
    s.close()
    check(data is not None, "a query beyond a connection's memory: closed, not silence")


def slots_freed_on_close(gtm, env, tmp):
    """With a 60 s timeout and 256 connections: the fleet's attacks; a client
    at its share, refused one more, closes its connections and is served
    again long before the timeout."""
    srv, port, err = start(gtm, dict(env, GTM_SERVE_TIMEOUT_S="60", GTM_SERVE_MAX_CONNECTIONS="256"), tmp, "serve60")
    if srv is None:
        check(False, "the second server started")
        return
    up, got = scrape_until_ok(port)
    check(up, "the second server answers (%s)" % (got[0] or got[1][:200].decode(errors="replace")))
    fleet_attacks(port)
    t0 = time.monotonic()
    mine = [connect_from("127.0.0.200", port, 30) for _ in range(32)]
    # the server has taken all 32 once a later scrape is answered (arrival order)
    scrape_until_ok(port)
    extra = connect_from("127.0.0.200", port, 30)
    check(refused(extra), "one connection past the share is refused at once")
    extra.close()
    for s in mine:
        s.close()
    # a failed scrape (reset, timeout) is "not yet"; the bound stays under the
    # 60 s that would free the slots anyway
    served, got = scrape_until_ok(port, "127.0.0.200", 50 - (time.monotonic() - t0))
    check(served, "its slots are free once it closes them (not at the 60 s timeout)%s" %
          ("" if served else ": %s %s" % (got[0], got[1][:200].decode(errors="replace"))))
    stop(srv, signal.SIGTERM)


def attacked(gtm, env, tmp):
    """The first server (its deadline DEADLINE_S) under 500 idle connections,
    a slow client, a huge request line and garbage."""
    srv, port, err = start(gtm, env, tmp, "serve")
    if srv is None:
        return None
    up, (status, body, _) = scrape_until_ok(port)
    check(up and b"gputaskman_gpu_memory_used_bytes" in body, "a normal scrape before the clients%s" %
          ("" if up else ": %s %s" % (status, body[:200].decode(errors="replace"))))
    rss0 = rss_kib(srv.pid)

    idle = []
    for i in range(500):  # from 16 addresses: each holds at most its share
        idle.append(connect_from("127.0.0.%d" % (2 + i % 16), port, 30))
    # partial requests on a tenth of them: a request line without its end
    for s in idle[::10]:
        try:
            s.sendall(b"GET /metr")
        except OSError:
            pass  # one past its address's share, closed at once
    # those the server took (it has decided on each once a later scrape is answered)
    scrape_until_ok(port)
    r, _, _ = select.select(idle, [], [], 0)
    early = set(s for s in r if peek_closed(s))
    kept = [s for s in idle if s not in early]

    # a request that takes ~110 s at a byte a second: only the deadline ends it
    slow_state = {"cut_after": None, "whole": False}

    def slow_client():
        s = connect_from("127.0.0.30", port, 30)
        t0 = time.monotonic()
        msg = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 64 + b"\r\n\r\n"
        try:
            for c in msg:
                s.sendall(bytes([c]))
                time.sleep(1.0)
            slow_state["whole"] = True
        except OSError:
            pass
        slow_state["cut_after"] = time.monotonic() - t0
        s.close()

    def big_line():
        s = connect_from("127.0.0.31", port, 30)
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
            s = connect_from("127.0.0.32", port, 30)
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
    bad = []
    for _ in range(30):
        status, body, secs = try_scrape(port)
        times.append(secs)
        if not (status.endswith("200 OK") and body.endswith(b"\n") and b"gputaskman_gpu_info" in body):
            bad.append(status or body[:80].decode(errors="replace"))
        time.sleep(0.1)
    check(not bad, "30 scrapes answered 200 with metrics during the attack%s" % (" (not: %s)" % bad if bad else ""))
    # Served beside the attackers, not after them: a scrape that waited behind
    # them would be answered only once the deadline cut them. So: the slow
    # client is still connected and the server closed none of the idle ones.
    # (The deadline is far above the few seconds the scrapes take here.)
    r, _, _ = select.select(kept, [], [], 0)
    held_on = slow_state["cut_after"] is None and kept and not any(peek_closed(s) for s in r)
    check(held_on, "the scrapes were answered while the attackers were held (%d idle connections; worst %.1f ms, "
          "the deadline %d s)" % (len(kept), max(times) * 1e3, DEADLINE_S))
    threads[1].join(60)
    threads[2].join(60)
    # the slow client: cut at its deadline (the sweep runs every second), long
    # before its request is whole
    threads[0].join(DEADLINE_S + 90)
    cut = slow_state["cut_after"]
    check(cut is not None and not slow_state["whole"], "the one-byte-per-second client was cut off after %s s" %
          ("%.1f" % cut if cut is not None else "never"))
    # the idle connections were timed out too: the server closes each
    open_ = list(idle)
    end = time.monotonic() + 60
    while open_ and time.monotonic() < end:
        drop_closed(open_, 1.0)
    check(not open_, "%d of %d idle connections closed by the server" % (len(idle) - len(open_), len(idle)))
    for s in open_:
        s.close()
    rss1 = rss_kib(srv.pid)
    check(rss1 - rss0 < 24 * 1024, "RSS %d KiB before, %d KiB after (bounded: under 24 MiB growth)" % (rss0, rss1))
    status, body, secs = try_scrape(port)
    check(status.endswith("200 OK"), "still serving afterwards (%s)" % (status or body[:200].decode(errors="replace")))
    rc = stop(srv, signal.SIGTERM)
    check(rc == 0, "SIGTERM: exit %s" % rc)
    return err


def peek_closed(s):
    """Whether the readable socket s was closed by the server (EOF or reset)."""
    try:
        return s.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    gtm, fake = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="gtm-e2e-hostile-")
    scn = os.path.join(tmp, "scenario")
    with open(scn, "w") as f:
        f.write('device name="Fake GPU" uuid=GPU-hostile mem_total=8589934592 mem_used=1073741824\n')
    env = dict(os.environ, GTM_FAKE_NVML_SCENARIO=scn, LD_LIBRARY_PATH=fake, GTM_SERVE_TIMEOUT_S=str(DEADLINE_S))
    # under ASan, freed memory sits in a quarantine (256 MiB by default) and counts as RSS
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=4"
    try:
        err = attacked(gtm, env, tmp)
        if err is None:
            return 1
        slots_freed_on_close(gtm, env, tmp)
    except Exception:  # a FAIL with its reason, and the servers stopped below
        check(False, "the test itself failed:\n" + traceback.format_exc())
        err = None
    finally:
        for srv in servers:
            stop(srv)
    if fails:
        for name in ("serve", "serve60"):
            path = os.path.join(tmp, name + ".err")
            if os.path.exists(path):
                print("--- %s's stderr:" % name)
                print(open(path, errors="replace").read()[-4000:])
    subprocess.run(["rm", "-rf", tmp])
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
