#!/usr/bin/env python3
"""gputaskman.exe end to end under Wine with every Windows double at once:
   wine_e2e.py GPUTASKMAN_EXE DOUBLES_DIR PDH_DLL GPU_CLIENT_EXE LLAMA_SERVER_EXE

A Wine prefix of its own (hard links to the run's, as wine_adapters.sh
makes one: this test writes into System32) with the doubles where Windows
has them: dxgi.dll in System32 (WINEDLLOVERRIDES dxgi=n), nvml.dll and
atiadlxx.dll in System32; pdh.dll beside the exe (pdh=n); D3DKMT's entry
points from d3dkmt_double.dll, named by GTM_D3DKMT_DLL (Wine 8's gdi32 has
no D3DKMTQueryAdapterInfo); GetExtendedTcpTable from iphlpapi_double.dll,
named by GTM_IPHLPAPI_DLL (Wine's gives every listener PID 0). The machine it
describes:
  - DXGI lists, in this order, an Intel UHD 770 iGPU, an AMD Radeon RX 7800
    XT, a GeForce RTX 4070 and Microsoft Basic Render (software): --gpu order
    is NVIDIA, AMD (16 GiB), Intel (128 MiB), the software one left out;
  - D3DKMT places them at 00:02.0, 03:00.0 and 01:00.0; NVML has the 4070
    at 01:00.0 (WDDM driver model; the stand-in's process memory N/A, as
    under WDDM) and a second card at 02:00.0 that no adapter is at; ADL has
    the AMD card at 03:00.0 with Overdrive8 sensors;
  - PDH: the stand-in llama-server.exe (ggml-cuda.dll, a mapped GGUF, a
    llama.cpp log with -lv 4 buffer lines) with VRAM, spill, paged and
    3D/Compute Running Time on the 4070; dwm.exe's shared surfaces on the
    4070 and the iGPU;
  - the stand-in serves the local API (/props, /slots, /metrics, /v1/models)
    on a loopback port, a second stand-in answers bytes that are not HTTP on
    a wildcard listener, and the TCP table also lists a listener of dwm.exe,
    one of PID 0 (what Wine's own table says) and one on an interface's
    address; the table grows by a row between a size query and its fill.
Then a driver restart while `record` runs: DXGI and PDH give the 4070 a
new LUID, and PDH names one more LUID that DXGI never lists.
Checked: the ports joined to their own PIDs only, the API's figures
(reported) in --json, --once and inspect, the garbage reply as N/A with the
endpoint's state while the rest goes on, and --list-gpus, --gpu N, --once, --json (docs/json-schema.md fields,
provenance notes), two collects through `record` (engine loads), the live
view in tmux, inspect PID (the LLM breakdown from the log), and diff of two
Windows snapshots. Deterministic: the pdh double's gate releases one
collect at a time."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from wine_proc import run_captured, winpath
from wine_screen import Screen
from wine_snap import near, row, stop, use_on

GIB = 1 << 30
MIB = 1 << 20
SEC = 10_000_000  # 100 ns ticks
LUID_N = "0x00000000_0x0000A18D"
LUID_A = "0x00000000_0x0000B3F1"
LUID_I = "0x00000000_0x000095CA"
LUID_N2 = "0x00000000_0x0001F00D"  # the 4070 after a driver restart
LUID_X = "0x00000000_0x0002BEEF"   # an adapter DXGI never lists

gtm_src, doubles, pdh_dll, client_exe, llama_exe = (os.path.abspath(a) for a in sys.argv[1:6])
here = os.path.dirname(os.path.abspath(__file__))
wine_run = os.path.join(here, "..", "..", "scripts", "wine-run.sh")
tmp = tempfile.mkdtemp(prefix="gtm-wine-e2e-")
prefix = os.path.join(tmp, "prefix")
work = os.path.join(tmp, "work")
gtm = os.path.join(work, "gputaskman.exe")
files = {k: os.path.join(tmp, k + ".txt") for k in ("dxgi", "kmt", "nvml", "adl", "pdh", "tcp")}
failures = []
children = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def env():
    return dict(os.environ, LC_ALL="C.UTF-8", WINEPREFIX=prefix, GTM_WINEDLLOVERRIDES="dxgi=n;pdh=n",
                GTM_FAKE_DXGI_SCENARIO=winpath(files["dxgi"]), GTM_FAKE_D3DKMT_SCENARIO=winpath(files["kmt"]),
                GTM_FAKE_NVML_SCENARIO=winpath(files["nvml"]), GTM_FAKE_ADL_SCENARIO=winpath(files["adl"]),
                GTM_FAKE_PDH_SCENARIO=files["pdh"], GTM_FAKE_PDH_LOG=os.path.join(tmp, "pdh.log"),
                GTM_D3DKMT_DLL=winpath(os.path.join(work, "d3dkmt_double.dll")),
                GTM_FAKE_DXGI_LOG=winpath(os.path.join(tmp, "dxgi.log")),
                GTM_IPHLPAPI_DLL=winpath(os.path.join(work, "iphlpapi_double.dll")),
                GTM_FAKE_TCP_SCENARIO=winpath(files["tcp"]), GTM_FAKE_TCP_LOG=winpath(os.path.join(tmp, "tcp.log")),
                # a loaded 2-CPU machine: Wine's first WinHTTP request can pass 250 ms
                GTM_PROBE_TIMEOUT_MS="3000", GTM_PROBE_BUDGET_MS="8000")


def run(*args, timeout=60):
    r = run_captured(["sh", wine_run, gtm, *args], env=env(), cwd=work, timeout=timeout)
    return r.returncode, r.stdout.decode("utf-8", errors="replace"), r.stderr.decode("utf-8", errors="replace")


def write(name, text):
    with open(files[name] + ".new", "w") as f:
        f.write(text)
    os.replace(files[name] + ".new", files[name])  # a double never reads half a file


def make_prefix():
    base = os.environ.get("WINEPREFIX") or os.environ.get("GTM_WINEPREFIX") or os.path.expanduser("~/.wine-gputaskman")
    if os.path.isfile(os.path.join(base, "system.reg")):
        if subprocess.run(["cp", "-al", base, prefix], capture_output=True).returncode != 0:
            shutil.copytree(base, prefix, symlinks=True)
        for f in ("system.reg", "user.reg", "userdef.reg", ".update-timestamp"):
            if os.path.exists(os.path.join(base, f)):
                os.unlink(os.path.join(prefix, f))
                shutil.copy2(os.path.join(base, f), os.path.join(prefix, f))
    else:
        subprocess.run(["sh", wine_run, "wineboot", "--init"], env=dict(env(), GTM_WINE_TIMEOUT="120"),
                       capture_output=True)
    sys32 = os.path.join(prefix, "drive_c", "windows", "system32")
    for dll in ("dxgi.dll", "nvml.dll", "atiadlxx.dll"):
        if os.path.exists(os.path.join(sys32, dll)):
            os.unlink(os.path.join(sys32, dll))  # a hard link to the run's prefix: never written through
        shutil.copy(os.path.join(doubles, dll), sys32)


DXGI = f"""adapter name="Intel(R) UHD Graphics 770" vendor=0x8086 device=0x4680 dedicated=134217728 shared=17179869184 luid={LUID_I}
adapter name="AMD Radeon RX 7800 XT" vendor=0x1002 device=0x747e dedicated=17163091968 shared=17179869184 luid={LUID_A}
adapter name="NVIDIA GeForce RTX 4070" vendor=0x10de device=0x2786 dedicated=12878610432 shared=17179869184 luid={LUID_N}
adapter name="Microsoft Basic Render Driver" vendor=0x1414 device=0x8c software luid=0x00000000_0x0000C0DE
"""
KMT = f"""adapter luid={LUID_N} bus=1 dev=0 fn=0
adapter luid={LUID_A} bus=3 dev=0 fn=0
adapter luid={LUID_I} bus=0 dev=2 fn=0
"""
ADL = """adapter index=0 bus=3 dev=0 fn=0 name="AMD Radeon RX 7800 XT" pmlog=1
adapter index=1 bus=3 dev=0 fn=0 name="AMD Radeon RX 7800 XT" pmlog=1
sensor adapter=0 id=1 value=2124
sensor adapter=0 id=2 value=2425
sensor adapter=0 id=8 value=55
sensor adapter=0 id=15 value=30
sensor adapter=0 id=19 value=12
sensor adapter=0 id=73 value=210
sensor adapter=0 id=41 value=16
"""


def nvml(llama):
    return f"""driver 551.23
cuda 12.4
device name="NVIDIA GeForce RTX 4070" uuid=GPU-4070 bus=00000000:01:00.0 pci_device_id=0x278610de mem_total=12878610432 mem_used=6442450944 util_gpu=47 temp=58 power_mw=180000 power_limit_mw=200000 fan=40 clock_sm=2475 clock_mem=10501 pcie_gen=4 pcie_width=16 driver_model=0
device name="NVIDIA RTX A2000" uuid=GPU-A2000 bus=00000000:02:00.0 pci_device_id=0x253110de temp=99 power_mw=70000
process dev=0 pid={llama} list=compute mem=na
"""


junk_pid = [0]  # the stand-in that answers garbage, once started: 1 GiB on the 4070


def pdh(llama, dwm, t, llama_3d, llama_compute, vram=4 * GIB, gate=None):
    rows = [["time", t * SEC]] + ([["gate", gate]] if gate else [])
    if junk_pid[0]:
        rows.append(["GPU Process Memory", "Local Usage", f"pid_{junk_pid[0]}_luid_{LUID_N}_phys_0", GIB])
    rows += [
        ["GPU Local Adapter Memory", "Local Usage", f"luid_{LUID_N}_phys_0_part_0", 6 * GIB],
        ["GPU Non Local Adapter Memory", "Non Local Usage", f"luid_{LUID_N}_phys_0_part_0", 512 * MIB],
        ["GPU Adapter Memory", "Dedicated Usage", f"luid_{LUID_A}_phys_0", 0],
        ["GPU Adapter Memory", "Dedicated Usage", f"luid_{LUID_I}_phys_0", 20 * MIB],
        ["GPU Adapter Memory", "Shared Usage", f"luid_{LUID_I}_phys_0", 300 * MIB],
    ]
    for counter, v in (("Local Usage", vram), ("Non Local Usage", 256 * MIB), ("Total Committed", vram + 512 * MIB)):
        rows.append(["GPU Process Memory", counter, f"pid_{llama}_luid_{LUID_N}_phys_0", v])
    rows += [["GPU Process Memory", "Local Usage", f"pid_{dwm}_luid_{LUID_N}_phys_0", 3 * GIB],
             ["GPU Process Memory", "Local Usage", f"pid_{dwm}_luid_{LUID_I}_phys_0", 20 * MIB],
             ["GPU Engine", "Running Time", f"pid_{llama}_luid_{LUID_N}_phys_0_eng_0_engtype_3D", llama_3d],
             ["GPU Engine", "Running Time", f"pid_{llama}_luid_{LUID_N}_phys_0_eng_1_engtype_Compute_0", llama_compute]]
    write("pdh", "\n".join("\t".join(str(x) for x in r) for r in rows) + "\n")


LLAMA_LOG = """0.00.002.443 I cmn  common_param: common_params_print_info: verbosity = 4 (adjust with the `-lv N` CLI arg)
0.00.004.073 I srv    load_model: loading model '@MODEL@'
0.00.010.000 I llama_prepare_model_devices: using device CUDA0 (NVIDIA GeForce RTX 4070) (0000:01:00.0) - 11000 MiB free
0.00.138.300 I load_tensors:        CUDA0 model buffer size =    13.78 MiB
0.00.139.131 I llama_context:  CUDA_Host  output buffer size =     0.77 MiB
0.00.139.177 I llama_kv_cache:      CUDA0 KV buffer size =     8.00 MiB
0.00.143.437 I llama_kv_cache: size =    8.00 MiB (  4096 cells,   4 layers,  4/1 seqs), K (f16):    4.00 MiB, V (f16):    4.00 MiB
0.00.144.182 I sched_reserve:      CUDA0 compute buffer size =     6.26 MiB
0.00.147.271 I srv    load_model: initializing, n_slots = 4, n_ctx_slot = 4096, kv_unified = 'true'
0.00.150.300 I srv  llama_server: model loaded
"""


def start(exe, *args, cwd=None):
    """A stand-in that lives until this test ends it: wine-run.sh's limit
    past the test's own timeout (360 s), and stdin a pipe whose end, when
    this script dies, ends llama-server.exe too."""
    p = subprocess.Popen(["sh", wine_run, exe, *args], env=dict(env(), GTM_WINE_TIMEOUT="900"), cwd=cwd or work,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    children.append(p)
    line = p.stdout.readline()
    if not line.startswith("ready"):
        sys.exit(f"FAIL: {exe} did not start: {line!r}")
    nums = [int(x) for x in line.split()[1:]]  # "ready PID [PORT]"
    return p, nums[0] if nums else None


def snapshot(*extra):
    rc, out, err = run("--json", *extra)
    check(rc == 0, f"--json {' '.join(extra)} exits 0 (got {rc}: {err.strip()[:300]})")
    return json.loads(out)


def start_llama(models):
    """The stand-in, then its log written (after its start: a log older than
    its process is history, not its current run); its PID from --json --all."""
    mark = f"gtm-e2e-{os.getpid()}"
    p, _ = start(llama_exe, "-m", "tiny.gguf", "-c", "4096", "--log-file", "server.log", "-lv", "4", "--alias", mark,
                 "--ready", "ready.txt", cwd=models)
    model = subprocess.run(["sh", wine_run, "winepath", "-w", os.path.join(models, "tiny.gguf")], env=env(),
                           capture_output=True, text=True).stdout.strip()
    with open(os.path.join(models, "server.log"), "w") as f:
        f.write(LLAMA_LOG.replace("@MODEL@", model))
    snap = snapshot("--all")
    pids = [q["pid"] for q in snap["processes"] if mark in (q.get("cmdline") or [])]
    if len(pids) != 1:
        sys.exit(f"FAIL: the stand-in is not listed once: {pids}")
    return pids[0], model


def served(folder, name):
    """(PID, port) a serving stand-in wrote to its --ready file."""
    with open(os.path.join(folder, name)) as f:
        pid, port = (int(x) for x in f.read().split())
    return pid, port


def tcp_table(llama, port, garbage, garbage_port, dwm):
    """The listening table the iphlpapi double serves: the stand-ins' ports
    (IPv4 and IPv6, one a wildcard), and listeners no stand-in owns; dwm.exe
    on 127.0.0.1:5004, which shadows the garbage stand-in's 0.0.0.0:5004 (a
    connection to 127.0.0.1:5004 reaches dwm.exe on Windows)."""
    write("tcp", f"""grow 1
listener pid={llama} addr=127.0.0.1 port={port}
listener pid={llama} addr=::1 port={port}
listener pid={llama} addr=10.1.2.3 port=9
listener pid={garbage} addr=0.0.0.0 port={garbage_port}
listener pid={garbage} addr=0.0.0.0 port=5004
listener pid={dwm} addr=127.0.0.1 port=5001
listener pid={dwm} addr=127.0.0.1 port=5004
listener pid=0 addr=127.0.0.1 port=5002
listener pid=0 addr=::1 port=5003
""")


def case_devices(snap):
    names = [g["name"] for g in snap["gpus"]]
    check(names == ["NVIDIA GeForce RTX 4070", "AMD Radeon RX 7800 XT", "Intel(R) UHD Graphics 770"],
          f"--gpu order: NVIDIA first, then by dedicated memory; the software adapter left out ({names})")
    if len(snap["gpus"]) != 3:
        return False
    n, a, i = snap["gpus"]
    check(n["luid"] == LUID_N and n["pci_bus_id"] == "0000:01:00.0" and i["pci_bus_id"] == "0000:00:02.0",
          f"LUIDs from DXGI, PCI locations from D3DKMT ({n['luid']} {n['pci_bus_id']}, {i['pci_bus_id']})")
    check(n["temperature_c"] == 58 and n["power_w"] == 180 and n["power_limit_w"] == 200 and n["fan_pct"] == 40
          and n["clocks_mhz"]["sm"] == 2475 and n["clocks_mhz"]["memory"] == 10501 and n["pcie"]["generation"] == 4,
          f"NVIDIA: NVML's temperature, power, fan, clocks, PCIe joined by PCI location ({n})")
    check(n["driver_version"] == "551.23" and n["cuda_version"] == "12.4" and n["driver"] == "WDDM"
          and n["uuid"] == "GPU-4070", f"NVIDIA: driver/CUDA versions and driver model WDDM ({n['driver']})")
    check(n["memory"]["total_bytes"] == 12878610432 and n["memory"]["used_bytes"] == 6 * GIB
          and n["memory"]["shared_used_bytes"] == 512 * MIB,
          "NVIDIA: total from DXGI, use from PDH's adapter sets (not NVML's 6 GiB mem_used alone)")
    check(a["temperature_c"] == 55 and a["clocks_mhz"]["sm"] == 2124 and a["clocks_mhz"]["memory"] == 2425
          and a["power_w"] == 210 and a["fan_pct"] == 30 and a["pcie"]["width"] == 16 and a["vendor"] == "amd",
          f"AMD: ADL's Overdrive8 sensors ({a})")
    check(all(i[k] is None for k in ("temperature_c", "power_w", "fan_pct")) and i["clocks_mhz"]["sm"] is None,
          "Intel: no provider, every reading null: never the A2000's 99 C at 02:00.0")
    check(i["memory"]["used_bytes"] == 20 * MIB and i["memory"]["total_bytes"] == 134217728,
          "Intel: its own memory (PDH Dedicated Usage, DXGI's total)")
    notes = "\n".join(snap["notes"])
    check("GPU 0 NVIDIA GeForce RTX 4070: nvml: matched by PCI location" in notes
          and "GPU 1 AMD Radeon RX 7800 XT: adl: matched by PCI location" in notes,
          f"the notes say where each adapter's telemetry came from ({snap['notes']})")
    src = [s for s in snap["sources"] if s["name"] == "wddm"][0]
    check(src["available"] and "3 adapters from DXGI" in src["message"] and "\n" not in src["message"],
          f"the sources line: adapters from DXGI, one line ({src['message']!r})")
    return True


def case_processes(snap, llama, dwm, model):
    p = row(snap, llama)
    u = use_on(p, 0)
    check(u is not None and u["vram_bytes"] == 4 * GIB and u["vram_na_reason"] is None,
          f"stand-in: VRAM from PDH's Local Usage where NVML says N/A (WDDM) ({u})")
    check(u is not None and u["spill_bytes"] == 256 * MIB and u["paged_bytes"] == 512 * MIB - 256 * MIB
          and u["paged_provenance"] == "estimated", "stand-in: spill = Non Local, paged estimated")
    check(u is not None and [e["name"] for e in u["engines"]] == ["3D", "Compute_0"],
          f"stand-in: its engines listed ({u and u['engines']})")
    rts = {r["id"] for r in (p or {}).get("runtimes", [])}
    models = [m for m in (p or {}).get("models", []) if (m.get("path") or "").lower() == model.lower()]
    check("ggml-cuda" in rts and models and "mapped" in models[0]["evidence"],
          f"stand-in: the CUDA runtime and its mapped model ({rts})")
    d = row(snap, dwm)
    check(d is not None and d["category"] == "compositor" and use_on(d, 0)["vram_bytes"] == 3 * GIB
          and use_on(d, 2) and use_on(d, 2)["vram_bytes"] == 20 * MIB,
          "dwm.exe: a compositor with shared surfaces on the 4070 and the iGPU")


# What docs/json-schema.md lists for a process's per-device use ("Fields are
# never omitted"); the Windows source fills spill, paged and engines.
USE_FIELDS = ("index", "source_pid", "compute", "graphics", "vram_bytes", "vram_na_reason", "spill_bytes",
              "paged_bytes", "sm_pct", "encoder_pct", "decoder_pct", "graphics_pct", "copy_pct", "video_pct",
              "gpu_pct", "engines", "paged_provenance", "memory_note")


def undocumented(doc, obj, where):
    """The keys of obj (a device's nested objects' too: `memory.used_bytes`) the doc never names."""
    def named(n):
        return f"`{n}`" in doc or f"`{n}[]" in doc

    out = []
    for k, v in obj.items():
        if isinstance(v, dict) and k not in ("exited_owner", "host_stream", "explain"):  # explain: explain.md
            out += [f"{where}{k}.{n}" for n in v if f"`{k}.{n}`" not in doc and not named(n)]
        elif not named(k):
            out.append(where + k)
    return out


def case_schema(snap, llama):
    doc = open(os.path.join(here, "..", "..", "docs", "json-schema.md"), encoding="utf-8").read()
    p = row(snap, llama)
    u = use_on(p, 0) or {}
    bad = (undocumented(doc, snap, "") + undocumented(doc, snap["gpus"][0], "gpus[].")
           + undocumented(doc, {k: v for k, v in p.items() if k != "llm"}, "processes[].")
           + undocumented(doc, u, "processes[].gpus[]."))
    check(not bad, f"--json: the top level, a device, a row and its use name only what docs/json-schema.md does ({bad})")
    missing = [f for f in USE_FIELDS if f not in u]
    check(not missing and u.get("spill_bytes") is not None and u.get("paged_bytes") is not None and u.get("engines"),
          f"--json: a row's use has every documented field, spill, paged and engines filled (missing {missing})")


def case_text(llama):
    rc, out, _ = run("--list-gpus")
    lines = out.strip().splitlines()
    check(rc == 0 and len(lines) == 3 and lines[0].startswith("0  nvidia") and f"LUID {LUID_N}" in lines[0]
          and lines[1].startswith("1  amd") and lines[2].startswith("2  intel") and f"LUID {LUID_I}" in lines[2],
          f"--list-gpus: the order and each LUID:\n{out}")
    rc, out, _ = run("--once")
    check(rc == 0 and "driver 551.23  CUDA 12.4" in out and "58 C" in out and "55 C" in out
          and "llama-server.exe" in out and "4.00 GiB" in out, f"--once: telemetry and the stand-in's row:\n{out}")
    rc, out, _ = run("--once", "--gpu", "1")
    shown = "\n".join(l for l in out.splitlines() if not l.startswith("note:"))
    check(rc == 0 and "GPU 1  AMD Radeon RX 7800 XT" in shown and "GeForce" not in shown and "UHD" not in shown,
          f"--gpu 1: the AMD card alone:\n{out[:1500]}")


def case_live(llama, dwm):
    """Two collects through record, each released by the pdh double's gate:
    3D 25 % and Compute 50 % over one second of the double's clock."""
    gate = os.path.join(tmp, "gate")
    pdh(llama, dwm, 100, 0, 0, gate=gate)
    open(gate, "w").close()
    rec = os.path.join(tmp, "live.rec")
    r = subprocess.Popen(["sh", wine_run, gtm, "record", "-i", "0.5", "-o", rec], env=env(), cwd=work,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    children.append(r)
    log = os.path.join(tmp, "pdh.log")

    def collects(n):
        end = time.time() + 30
        while time.time() < end:
            if os.path.exists(log) and sum(l.startswith("collect items") for l in open(log)) >= n:
                return True
            time.sleep(0.05)
        return False

    open(log, "w").close()
    check(collects(1), "live: the first collect")
    pdh(llama, dwm, 101, SEC // 4, SEC // 2, gate=gate)
    open(gate, "w").close()
    check(collects(2), "live: the second collect")
    end = time.time() + 30  # the third waits at the gate: the second's snapshot is written
    while time.time() < end and sum(l.startswith("collect begins") for l in open(log)) < 3:
        time.sleep(0.05)
    stop(r)
    snap = json.loads(subprocess.run(["sh", wine_run, gtm, "replay", rec, "--json"], env=env(), cwd=work,
                                     capture_output=True, text=True).stdout)
    u = use_on(row(snap, llama), 0)
    eng = {e["name"]: e["busy_pct"] for e in (u or {}).get("engines", [])}
    check(u is not None and near(eng.get("3D"), 25) and near(eng.get("Compute_0"), 50) and near(u["gpu_pct"], 50)
          and near(u["sm_pct"], 50) and near(u["graphics_pct"], 25),
          f"live: the stand-in's 3D/Compute load from PDH's Running Time ({u})")
    n = snap["gpus"][0]
    check(n["temperature_c"] == 58 and any(e["name"] == "3D" and e["busy_pct"] == 25 for e in n["engines"]),
          f"live: the 4070 keeps NVML's telemetry next to PDH's engine loads ({n['engines']})")


def case_tui(llama, dwm):
    if not shutil.which("tmux"):
        print("not checked: the live view (tmux is not installed)")
        return
    pdh(llama, dwm, 100, 0, 0)
    e = env()
    keep = " ".join(f"{k}='{e[k]}'" for k in e if k.startswith("GTM_") or k == "WINEPREFIX")
    # Wine itself, not wine-run.sh: the console needs timeout --foreground
    cmd = (f"cd '{work}' && env -u TERM {keep} WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml=;dxgi=n;pdh=n' "
           f"timeout --foreground 90 '{os.environ.get('GTM_WINE', '/usr/lib/wine/wine64')}' '{gtm}' -i 0.5; sleep 60")
    scr = Screen(f"gtm-wine-e2e-{os.getpid()}", cmd, check, height=60)
    try:
        if scr.wait_for("live view: the 4070 by its DXGI name", r"GPU0 NVIDIA GeForce RTX 4070", 60):
            scr.wait_for("live view: the AMD card and the iGPU", r"(?s)GPU1 AMD Radeon RX 7800 XT.*GPU2 Intel")
            scr.wait_for("live view: NVML's temperature and power", r"58 ?C.*180")
            scr.wait_for("live view: the stand-in's row", r"llama-server\.exe")
    finally:
        scr.close()


def case_inspect(llama, models):
    log = os.path.join(models, "server.log")
    now = time.time()
    os.utime(log, (now - 3600, now - 3600))
    rc, out, _ = run("inspect", str(llama))
    check(rc == 0 and "[history-only]" in out and "last written before this process started" in out,
          "inspect: a log last written an hour before the process started is history, not its run")
    os.utime(log, (now, now))
    rc, out, _ = run("inspect", str(llama))
    check(rc == 0 and "vram 4.00 GiB (measured)" in out, f"inspect: the stand-in's VRAM from PDH:\n{out[:1200]}")
    check(re.search(r"log \(llama\.cpp\): .*server\.log \[current\]", out) is not None,
          "inspect: the stand-in's llama.cpp log is its current run (a Windows start time against the log's)")
    check(re.search(r"weights +GPU 0 CUDA0 +13\.78 MiB", out) and re.search(r"kv_cache +GPU 0 CUDA0 +8\.00 MiB", out)
          and "measured minus reported" in out, "inspect: the LLM breakdown from the log against PDH's VRAM")
    check(re.search(r"api :\d+ llama-server model .*tiny\.gguf.*; slots 1 busy of 4; ctx/slot 4096; "
                    r"generation 2000\.0 tok/s avg, as of the last finished request \(reported; the running one counts when it ends\)",
                    out) is not None,
          "inspect: the local API's slots, context and speed (reported; a slot busy: as of the last finished request)")


def case_api(llama, port, garbage, garbage_port, dwm):
    """The ports from the iphlpapi double's table, joined to their own PIDs,
    and what the stand-ins' local APIs answered gputaskman's probe."""
    open(os.path.join(tmp, "tcp.log"), "w").close()
    snap = snapshot("--all")
    ports = {q["pid"]: q["listening_ports"] for q in snap["processes"] if q["pid"] in (llama, garbage, dwm)}
    check(ports == {llama: [port], garbage: [garbage_port], dwm: [5001, 5004]},
          f"ports: each listener joined to its own PID, IPv4 and IPv6 once, a wildcard one kept unless 127.0.0.1 "
          f"is another's, an interface's address and PID 0's rows to none ({ports}; want {llama}:[{port}] "
          f"{garbage}:[{garbage_port}] {dwm}:[5001, 5004])")
    calls = open(os.path.join(tmp, "tcp.log")).read()
    check("af=2 size=0 rc=122" in calls and "af=23 size=0 rc=122" in calls and calls.count("rc=0") >= 2
          and calls.count("rc=122") >= 3,
          f"the size protocol for AF_INET and AF_INET6, asked again when the table grew:\n{calls}")
    p = row(snap, llama)
    x = (p or {}).get("explain") or {}
    srv = (x.get("servers") or [{}])[0]
    eps = {e["path"]: e["state"] for e in srv.get("endpoints", [])}
    check(srv.get("port") == port and srv.get("kind") == "llama-server" and srv.get("reachable")
          and all(eps.get(k) == "ok" for k in ("/props", "/slots", "/metrics", "/v1/models")),
          f"the stand-in's local API probed on its port ({srv.get('port')}, {eps})")
    check(srv.get("slots_total") == 4 and srv.get("slots_busy") == 1 and srv.get("n_ctx_per_slot") == 4096
          and near(srv.get("generation_tokens_per_s_avg"), 2000), f"--json: the API's figures ({srv})")
    m = [m for m in (p or {}).get("models", []) if m.get("path", "").lower().endswith("tiny.gguf")]
    check(m and m[0]["evidence"][:3] == ["api", "mapped", "cmdline"],
          f"the model: the API says it is loaded, besides mapped and cmdline ({m and m[0]['evidence']})")
    check(any(s["segment"] == "weights" and s["source"] == "log" for s in x.get("breakdown", [])),
          "the breakdown from the log beside the API's facts")
    g = row(snap, garbage)
    gs = (((g or {}).get("explain") or {}).get("servers") or [{}])[0]
    geps = {e["path"]: e["state"] for e in gs.get("endpoints", [])}
    check(gs.get("port") == garbage_port and geps.get("/props") == "garbage" and gs.get("slots_total") is None
          and gs.get("n_ctx_per_slot") is None and gs.get("generation_tokens_per_s_avg") is None,
          f"a peer that is not HTTP: its endpoints 'garbage', every figure null ({gs})")
    note = f"local API :{garbage_port}: 5 answers not understood (/props and others: not HTTP), their figures are N/A"
    check(note in ((g or {}).get("explain") or {}).get("notes", []), f"--json: the garbage port's note ({g and g.get('explain')})")
    rc, out, err = run("--once")
    check(rc == 0 and re.search(rf"api :{port} llama-server model .*; slots 1 busy of 4", out) is not None
          and re.search(rf"api :{garbage_port} unknown \(answers not HTTP\); /props garbage", out) is not None
          and note in out and "dwm.exe" in out,
          f"--once: both servers' lines, the garbage one's state and note, the other rows go on:\n{out}")
    rc, out, err = run("inspect", str(garbage))
    check(rc == 0 and re.search(rf":{garbage_port} /props +garbage", out) is not None and note in out
          and "GPU 0" in out, f"inspect of the garbage server: exit 0, its endpoints' states, its note, its VRAM:\n{out[-2500:]}")


def case_ports_unread(llama, port, garbage, garbage_port, dwm):
    """A listening table that cannot be read (every call fails, or the table
    grows at every call so the reader's 4 tries run out): every row's ports
    are null, not [], with one note, and no API is probed."""
    note = "ports: the listening TCP table (GetExtendedTcpTable) cannot be read"
    for mode in ("fail", "grow every"):
        tcp_table(llama, port, garbage, garbage_port, dwm)
        with open(files["tcp"]) as f:
            write("tcp", f"{mode}\n" + "".join(l for l in f if not l.startswith("grow")))
        open(os.path.join(tmp, "tcp.log"), "w").close()
        snap = snapshot("--all")
        ports = {q["pid"]: q["listening_ports"] for q in snap["processes"] if q["pid"] in (llama, garbage, dwm)}
        unread = [q["pid"] for q in snap["processes"] if q["listening_ports"] is not None]
        check(len(ports) == 3 and not unread, f"{mode}: every row's listening_ports null, not [] ({ports}, read: {unread})")
        check(sum(note in n for n in snap["notes"]) == 1, f"{mode}: one note says the table is unread ({snap['notes']})")
        x = (row(snap, llama) or {}).get("explain") or {}
        check(not x.get("servers"), f"{mode}: no port, no probe ({x.get('servers')})")
        calls = open(os.path.join(tmp, "tcp.log")).read().splitlines()
        if mode == "grow every":
            check(len(calls) == 4 and all("af=2 " in c and c.endswith("rc=122") for c in calls),
                  f"grow every: 4 tries for AF_INET, each too small, then AF_INET6 not asked:\n{calls}")
    tcp_table(llama, port, garbage, garbage_port, dwm)


def case_relist(llama, dwm):
    """A driver restart while gputaskman runs: the 4070's LUID changes in
    DXGI, D3DKMT and PDH at once. DXGI is asked again (once: its log counts
    CreateDXGIFactory1), the 4070 keeps GPU 0 with NVML's telemetry and the
    stand-in's row; then a LUID DXGI never lists: left out with a note, and
    DXGI not asked again at every refresh (10 s at most)."""
    pdh(llama, dwm, 100, 0, 0)
    dlog, plog, rec = (os.path.join(tmp, n) for n in ("dxgi.log", "pdh.log", "relist.rec"))
    open(dlog, "w").close()
    open(plog, "w").close()
    r = subprocess.Popen(["sh", wine_run, gtm, "record", "-i", "0.5", "-o", rec], env=env(), cwd=work,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    children.append(r)

    def collects():
        return sum(l.startswith("collect items") for l in open(plog))

    def wait_collects(n):
        end = time.time() + 30
        while time.time() < end and collects() < n:
            time.sleep(0.05)
        return collects() >= n

    def creates():
        return [int(m) for m in re.findall(r"^create ms=(\d+)$", open(dlog).read(), re.M)]

    check(wait_collects(2), "relist: two collects before the restart")
    base = len(creates())
    write("dxgi", DXGI.replace(LUID_N, LUID_N2))
    write("kmt", KMT.replace(LUID_N, LUID_N2))
    pdh(llama, dwm, 101, 0, 0)
    with open(files["pdh"]) as f:
        text = f.read().replace(LUID_N, LUID_N2)
    write("pdh", text)
    n = collects()
    check(wait_collects(n + 3), "relist: three collects after the restart")
    check(len(creates()) > base, f"relist: DXGI asked again for the new LUID ({base} then {len(creates())} listings)")
    write("pdh", text + f"GPU Adapter Memory\tDedicated Usage\tluid_{LUID_X}_phys_0\t{MIB}\n")
    n = collects()
    check(wait_collects(n + 6), "relist: six collects with a LUID DXGI does not list")
    stop(r)
    # how many listings fit depends on how fast the collects run (a loaded
    # 2-CPU machine): the rule is the time between two, from the double's
    # clock; 9.5 s, as the gap between the 10 s checks may shrink by the time
    # one listing took longer than the next to reach CreateDXGIFactory1
    at = creates()[base:]
    gaps = [b - a for a, b in zip(at, at[1:])]
    check(at and all(g >= 9500 for g in gaps),
          f"relist: DXGI listed again at least once, never twice within 10 s (gaps {gaps} ms)")
    rc = run_captured(["sh", wine_run, gtm, "replay", rec, "--json"], env=env(), cwd=work)
    check(b"\r" not in rc.stdout, "replay --json: the recorded bytes, LF line ends (binary stdout)")
    snap = json.loads(rc.stdout.decode("utf-8", errors="replace"))
    g = snap["gpus"][0] if snap["gpus"] else {}
    check(g.get("luid") == LUID_N2 and g.get("name") == "NVIDIA GeForce RTX 4070" and g.get("temperature_c") == 58
          and g.get("pci_bus_id") == "0000:01:00.0" and len(snap["gpus"]) == 3,
          f"relist: the 4070 under its new LUID, GPU 0, NVML's telemetry joined by PCI location ({g})")
    u = use_on(row(snap, llama), 0)
    check(u is not None and u["vram_bytes"] == 4 * GIB, f"relist: the stand-in's VRAM on it ({u})")
    check(any(f"the counters of {LUID_X} are left out" in n and "at most every 10 s" in n for n in snap["notes"]),
          f"relist: the LUID DXGI does not list is left out with a note ({snap['notes']})")
    write("dxgi", DXGI)
    write("kmt", KMT)


def case_diff(llama, dwm):
    a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
    pdh(llama, dwm, 100, 0, 0)
    open(a, "w").write(run("--json")[1])
    pdh(llama, dwm, 100, 0, 0, vram=5 * GIB)
    open(b, "w").write(run("--json")[1])
    rc, out, err = run("diff", winpath(a), winpath(b), "--json")
    try:
        d = json.loads(out)
    except ValueError:
        d = None
    check(rc == 0 and d is not None, f"diff of two Windows snapshots ({rc}: {err[:300]})")
    text = json.dumps(d)
    check(d is not None and str(llama) in text and str(GIB) in text,
          f"diff: the stand-in's VRAM grew by 1 GiB ({text[:1500]})")


def main():
    os.mkdir(work)
    for f in (gtm_src, pdh_dll, os.path.join(doubles, "d3dkmt_double.dll"), os.path.join(doubles, "iphlpapi_double.dll")):
        shutil.copy(f, work)
    for name in ("dwm.exe",):
        shutil.copy(client_exe, os.path.join(work, name))
    make_prefix()
    for name, text in (("dxgi", DXGI), ("kmt", KMT), ("adl", ADL)):
        write(name, text)
    models = os.path.join(tmp, "models")
    os.mkdir(models)
    for f in os.listdir(os.path.dirname(llama_exe)):
        if f.endswith(".dll"):
            shutil.copy(os.path.join(os.path.dirname(llama_exe), f), models)
    subprocess.run(["sh", wine_run, llama_exe, "--write-gguf", os.path.join(models, "tiny.gguf")], env=env(),
                   capture_output=True, check=True)
    write("nvml", nvml(0))
    pdh(0, 0, 100, 0, 0)
    write("tcp", "")
    _, dwm = start(os.path.join(work, "dwm.exe"), "600")
    started = time.time()
    llama, model = start_llama(models)
    _, port = served(models, "ready.txt")
    _, junk = start(llama_exe, "-m", "tiny.gguf", "--alias", f"gtm-e2e-junk-{os.getpid()}", "--ready", "junk.txt",
                    "--garbage", cwd=models)
    standins = list(children)
    wrote_pid, junk_port = served(models, "junk.txt")
    check(wrote_pid == junk, f"the stand-in wrote the PID it printed ({wrote_pid}, {junk})")
    tcp_table(llama, port, junk, junk_port, dwm)
    junk_pid[0] = junk
    write("nvml", nvml(llama))
    pdh(llama, dwm, 100, 0, 0)
    snap = snapshot()
    if case_devices(snap):
        case_processes(snap, llama, dwm, model)
        case_schema(snap, llama)
        case_text(llama)
        case_tui(llama, dwm)
        case_inspect(llama, models)
        case_api(llama, port, junk, junk_port, dwm)
        case_ports_unread(llama, port, junk, junk_port, dwm)
        case_diff(llama, dwm)
        case_live(llama, dwm)
        case_relist(llama, dwm)
        check(all(c.poll() is None for c in standins),
              f"the stand-ins lived through every case ({time.time() - started:.0f} s)")


try:
    main()
finally:
    for c in children:
        if c.poll() is None:
            try:
                os.killpg(c.pid, signal.SIGTERM)
                c.wait(timeout=20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
    subprocess.run(["timeout", "30", "wineserver", "-k"], env=dict(os.environ, WINEPREFIX=prefix, WINEDEBUG="-all"),
                   capture_output=True)
    shutil.rmtree(tmp, ignore_errors=True)
if failures:
    sys.exit(f"{len(failures)} failed: " + "; ".join(failures))
print("not run: a real Windows (these numbers are the doubles')")
