#!/usr/bin/env python3
"""contrib/kubernetes's DaemonSet: hostPID, the two capabilities and no other,
the scrape annotations on the port serve listens on; then its container's
command line runs here on the NVML test double and answers /metrics. The one
change: --listen's address is a free loopback port (the manifest's
0.0.0.0:19847 is the pod's own network namespace). SKIP without PyYAML.
Args: manifest gputaskman fake-nvml-dir"""
import os, socket, subprocess, sys, tempfile, time, urllib.request

try:
    import yaml
except ImportError:
    print("SKIP: python3-yaml is not installed")
    sys.exit(77)

fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    fails += 0 if ok else 1


manifest, gtm, fake = sys.argv[1], os.path.realpath(sys.argv[2]), os.path.realpath(sys.argv[3])
docs = [d for d in yaml.safe_load_all(open(manifest)) if d]
ds = [d for d in docs if d.get("kind") == "DaemonSet"]
check(len(ds) == 1, "one DaemonSet")
pod = ds[0]["spec"]["template"]
spec = pod["spec"]
c = spec["containers"][0]
check(spec.get("hostPID") is True, "hostPID: the node's PIDs")
caps = c["securityContext"]["capabilities"]
check(caps.get("drop") == ["ALL"] and sorted(caps.get("add", [])) == ["DAC_READ_SEARCH", "SYS_PTRACE"],
      "capabilities: all dropped, SYS_PTRACE and DAC_READ_SEARCH added")
check(c["securityContext"].get("allowPrivilegeEscalation") is False and not c["securityContext"].get("privileged"),
      "not privileged, no escalation")
args = c["args"]
listen = args[args.index("--listen") + 1]
port = listen.rsplit(":", 1)[1]
ann = pod["metadata"]["annotations"]
check(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/port") == port and
      ann.get("prometheus.io/path") == "/metrics", "scrape annotations on the port serve listens on (%s)" % port)
check(any(p["containerPort"] == int(port) for p in c["ports"]), "containerPort %s" % port)
for m in c.get("volumeMounts", []):
    check(m.get("readOnly") is True, "volume %s read-only" % m["name"])

tmp = tempfile.mkdtemp(prefix="gtm-e2e-ds-")
scn = os.path.join(tmp, "scenario")
with open(scn, "w") as f:
    f.write('device name="Fake GPU" uuid=GPU-ds mem_total=8589934592 mem_used=1073741824\n')
s = socket.socket()
s.bind(("127.0.0.1", 0))
free = s.getsockname()[1]
s.close()
cmd = [gtm] + [a if a != listen else "127.0.0.1:%d" % free for a in args]
env = dict(os.environ, GTM_FAKE_NVML_SCENARIO=scn, LD_LIBRARY_PATH=fake)
for e in c.get("env", []):
    env[e["name"]] = e["value"]
# (its output goes to a file, and it is killed on every way out: a server left
# running would hold the test's output and keep meson waiting)
err = open(os.path.join(tmp, "serve.err"), "w+")
srv = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err)
try:
    body = b""
    end = time.monotonic() + 120  # a bound for a loaded machine: it returns on the first answer
    while time.monotonic() < end:
        try:
            body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % free, timeout=10).read()
            if b"gputaskman_gpu_info" in body:
                break
        except Exception:
            pass
        if srv.poll() is not None:
            break
        time.sleep(0.1)
    check(b'uuid="GPU-ds"' in body, "the manifest's command line serves /metrics: %s" % " ".join(cmd[1:]))
    srv.terminate()
    try:
        rc = srv.wait(30)
    except subprocess.TimeoutExpired:
        rc = "still running"
    check(rc == 0, "it stops on SIGTERM (exit %s)" % rc)
finally:
    if srv.poll() is None:
        srv.kill()
        srv.wait()
if fails:
    err.seek(0)
    print(err.read()[-4000:])
subprocess.run(["rm", "-rf", tmp])
sys.exit(1 if fails else 0)
