#!/usr/bin/env python3
"""gputaskman.exe --host-stream under Wine with the pdh.dll test double:
   wine_host_stream.py GPUTASKMAN_EXE PDH_DLL GPU_CLIENT_EXE WSL_LINE_CHECK_EXE

The helper (docs/wsl.md, "What the Windows helper's --host-stream mode must
emit") runs beside the double (WINEDLLOVERRIDES=pdh=n) with its stdin a pipe;
copies of gpu_client.exe named vmwp.exe (two: another VM's worker too) and
"My Game.exe" stand for the processes PDH's instances name. The double's gate
releases one collect at a time:
  1. vmwp.exe's three contexts under one repeated instance name, in a known
     order, plus one on a second adapter; the game's memory on two adapters,
     one with a bad CStatus ('-', never 0); a PID no process has ('?');
     engines N/A after one sample (left out);
  2. a context appearing at the head, the other vmwp.exe now holding more
     (the one chosen stays chosen, the other becomes a P record), engine
     loads from Running Time deltas, busiest first;
  3. stdin closed: the helper exits within a second or so, exit 0.
Every line is parsed by the Linux side's parser (wsl_proto.c, cross-built as
wsl_line_check.exe). Also: Wine's own pdh.dll (no GPU counters: state=error
lines, still one per interval), a missing counter set (state=partial), and
Wine's loader log: --host-stream loads pdh.dll and no DXGI, NVML or ADL.
"""
import json
import os
import re
import select
import shutil
import subprocess
import sys

import time

from pdh_harness import Harness, wine_run
from wine_proc import run_captured

GIB = 1 << 30
MIB = 1 << 20
SEC = 10_000_000
L1 = "0x00000000_0x0000D1A5"
L2 = "0x00000000_0x000095CA"
NOBODY = 99991  # a PID PDH lists that Toolhelp does not

gtm_exe, pdh_dll, client_exe, check_exe = (os.path.abspath(a) for a in sys.argv[1:5])
h = Harness("gtm-wine-hoststream-")
tmp, scenario, children = h.tmp, h.scenario, h.children
gate = os.path.join(tmp, "gate")
check, env, write_scenario = h.check, h.env, h.write_scenario


def start(exe, *args):
    return h.start(exe, *args)[1]


def parse(lines):
    """The Linux parser's reading of each line."""
    r = subprocess.run(["sh", wine_run, check_exe], input="".join(lines).encode(), env=env(False),
                       capture_output=True, timeout=60)
    return [json.loads(l) for l in r.stdout.decode().splitlines()]


def read_line(p, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if select.select([p.stdout], [], [], max(0.0, end - time.time()))[0]:
            return p.stdout.readline().decode("utf-8", errors="replace")
    return None


def mem(pid, luid, counter, value, status=None):
    line = ["GPU Process Memory", counter, f"pid_{pid}_luid_{luid}_phys_0", value]
    return line + ([status] if status else [])


def ctx(pid, luid, local, nonloc, committed):
    return [mem(pid, luid, "Local Usage", local), mem(pid, luid, "Non Local Usage", nonloc),
            mem(pid, luid, "Total Committed", committed)]


def eng(pid, n, typ, ticks):
    return ["GPU Engine", "Running Time", f"pid_{pid}_luid_{L1}_phys_0_eng_{n}_engtype_{typ}", ticks]


def adapters():
    return [["GPU Adapter Memory", "Dedicated Usage", f"luid_{L1}_phys_0", 6 * GIB],
            ["GPU Adapter Memory", "Shared Usage", f"luid_{L1}_phys_0", 512 * MIB],
            ["GPU Adapter Memory", "Total Committed", f"luid_{L1}_phys_0", 7 * GIB],
            ["GPU Adapter Memory", "Dedicated Usage", f"luid_{L2}_phys_0", 300 * MIB]]


def scenario_1(vm, game):
    # PDH lists each counter's instances in one order: the three contexts of
    # vm share one name, newest first, interleaved with the game's.
    rows = []
    for counter, k in (("Local Usage", 0), ("Non Local Usage", 1), ("Total Committed", 2)):
        vals = {0: [0, 1 * GIB, 2 * GIB], 1: [0, 1 * MIB, 2 * MIB], 2: [0, GIB + GIB // 2, 2 * GIB + GIB // 2]}[k]
        rows += [mem(vm, L1, counter, vals[0]), mem(game, L1, counter, [3 * GIB, 64 * MIB, 3 * GIB + GIB // 2][k]),
                 mem(vm, L1, counter, vals[1]), mem(vm, L1, counter, vals[2])]
    return adapters() + rows + ctx(vm, L2, 4 * MIB, 0, 4 * MIB) + [
        mem(game, L2, "Local Usage", 77, "C0000BBA"), mem(game, L2, "Non Local Usage", 5),
        mem(NOBODY, L1, "Local Usage", 7),
        ["time", 100 * SEC], eng(game, 0, "3D", 0), eng(game, 1, "Copy", 0), eng(game, 2, "High Priority 3D", 0)]


def scenario_2(vm, other, game):
    head = ctx(vm, L1, 256 * MIB, 0, 256 * MIB)  # a context that appeared: PDH puts it first
    s1 = [r for r in scenario_1(vm, game) if r[0] != "time" and r[0] != "GPU Engine"]
    return head + s1 + ctx(other, L1, 8 * GIB, 0, 8 * GIB) + [
        ["time", 101 * SEC], eng(game, 0, "3D", SEC // 4), eng(game, 1, "Copy", SEC // 2),
        eng(game, 2, "High Priority 3D", SEC // 10)]


def stream_case(vm, other, game):
    write_scenario([["gate", gate]] + scenario_1(vm, game))
    open(gate, "w").close()
    p = subprocess.Popen(["sh", wine_run, os.path.join(tmp, "gputaskman.exe"), "--host-stream", "--interval-ms", "200"],
                         env=env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    children.append(p)
    first = read_line(p, 30)
    check(first is not None and first.startswith("GTMH1 seq=1 "), f"the first line ({first!r})")
    if first is None:
        return
    write_scenario(scenario_2(vm, other, game))  # no gate: the collects run on
    open(gate, "w").close()
    second = read_line(p, 10)
    third = read_line(p, 10)
    check(second is not None and third is not None, "one line per interval")
    t0 = time.time()
    p.stdin.close()
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        rc = None
    took = time.time() - t0
    check(rc == 0 and took < 3, f"stdin's EOF ends the helper: exit {rc} after {took:.2f} s")
    rest = p.stdout.read().decode("utf-8", errors="replace")
    err = p.stderr.read().decode("utf-8", errors="replace")
    lines = [first, second or "", third or ""] + rest.splitlines(keepends=True)
    check(all(re.match(r"GTMH1 seq=\d+ ", l) and l.endswith("\n") and "\r" not in l for l in lines),
          f"stdout holds host-stream lines only, '\\n'-ended ({[l[:40] for l in lines]})")
    check(err.strip() == "", f"nothing on stderr ({err[:200]!r})")
    check("name=My%20Game.exe" in first and " local=-" in first, "percent-encoded name, '-' for a bad CStatus")
    parsed = parse(lines)
    check(len(parsed) == len(lines) and all(x["ok"] for x in parsed),
          f"the Linux parser reads every line ({[x.get('err') for x in parsed]})")
    if len(parsed) < 2 or not all(x["ok"] for x in parsed[:2]):
        return
    a, b = parsed[0], parsed[1]
    check([x["seq"] for x in parsed] == list(range(1, len(parsed) + 1)), "seq counts from 1")
    check(a["vmwp"] == vm and a["vms"] == 2 and a["state"] == "ok", f"header: vmwp {vm}, two vmwp.exe ({a['vmwp']}, {a['vms']})")
    ad = {x["luid"]: x for x in a["adapters"]}
    check(ad.get(L1.lower(), {}).get("ded") == 6 * GIB and ad[L1.lower()]["shared"] == 512 * MIB
          and ad[L1.lower()]["committed"] == 7 * GIB, f"A: the adapter's totals ({ad.get(L1.lower())})")
    check(L2.lower() in ad and ad[L2.lower()]["ded"] == 300 * MIB and ad[L2.lower()]["shared"] is None,
          "A: a second adapter, a total PDH does not list is null, not 0")
    check(ad[L1.lower()]["vm"] == [[0, 0, 0], [GIB, MIB, GIB + GIB // 2], [2 * GIB, 2 * MIB, 2 * GIB + GIB // 2]],
          f"V: vmwp.exe's contexts in PDH order, each counter's same index ({ad[L1.lower()]['vm']})")
    check(ad[L2.lower()]["vm"] == [[4 * MIB, 0, 4 * MIB]], "V: its context on the second adapter")
    procs = {(x["pid"], x["luid"]): x for x in a["procs"]}
    g1, g2 = procs.get((game, L1.lower())), procs.get((game, L2.lower()))
    check(g1 is not None and g1["name"] == "My Game.exe" and g1["local"] == 3 * GIB and g1["nonlocal"] == 64 * MIB
          and g1["committed"] == 3 * GIB + GIB // 2, f"P: the game's memory ({g1})")
    check(g1 is not None and g1["eng"] == [], "P: engines left out after one sample (N/A, never 0)")
    check(g2 is not None and g2["local"] is None and g2["nonlocal"] == 5 and g2["committed"] is None,
          f"P: a bad CStatus is null, a counter not listed null, a measured value kept ({g2})")
    nb = procs.get((NOBODY, L1.lower()))
    check(nb is not None and nb["name"] == "?" and nb["local"] == 7, f"P: a PID no process has is named '?' ({nb})")
    check(not any(x["pid"] == vm for x in a["procs"]), "vmwp.exe's contexts are no P record")
    check(b["vmwp"] == vm and b["adapters"][0]["vm"][0] == [256 * MIB, 0, 256 * MIB] and len(b["adapters"][0]["vm"]) == 4,
          f"a context that appeared is first; the chosen vmwp.exe stays chosen ({b['vmwp']}, {b['adapters'][0]['vm']})")
    o = [x for x in b["procs"] if x["pid"] == other]
    check(len(o) == 1 and o[0]["name"] == "vmwp.exe" and o[0]["local"] == 8 * GIB,
          "the other VM's worker is a P record")
    g = [x for x in b["procs"] if x["pid"] == game and x["luid"] == L1.lower()]
    check(g and [(t, round(v, 1)) for t, v in g[0]["eng"]] == [("Copy", 50.0), ("3D", 25.0), ("High Priority 3D", 10.0)],
          f"P: engine loads from Running Time, busiest first ({g and g[0]['eng']})")
    check([x["pid"] for x in b["procs"]][:1] == [other], "P: the largest first (the reader keeps the first 128)")


def wine_pdh_case():
    """Wine's own pdh.dll: no GPU counters; a line per interval all the same."""
    alone = os.path.join(tmp, "alone")
    os.mkdir(alone)
    shutil.copy(gtm_exe, alone)
    p = subprocess.run(["sh", wine_run, os.path.join(alone, "gputaskman.exe"), "--host-stream", "--interval-ms", "100"],
                       input=b"", env=env(False), capture_output=True, timeout=60)
    out = p.stdout.decode("utf-8", errors="replace")
    parsed = parse([out]) if out else []
    # one line, or more where a loaded machine let an interval pass before
    # the helper saw stdin's EOF: each the same error
    check(p.returncode == 0 and len(parsed) >= 1 and all(
          x["ok"] and x["state"] == "error" and "no GPU counters" in x["why"] and x["vmwp"] == 0 for x in parsed),
          f"Wine's own pdh.dll: a state=error line saying why, then EOF ends it (exit {p.returncode}, "
          f"{len(parsed)} lines: {out[:200]!r})")


def partial_case(vm):
    write_scenario([["missing", "GPU Engine"]] + ctx(vm, L1, GIB, 0, GIB))
    p = subprocess.run(["sh", wine_run, os.path.join(tmp, "gputaskman.exe"), "--host-stream"], input=b"", env=env(),
                       capture_output=True, timeout=60)
    parsed = parse([p.stdout.decode()])
    check(len(parsed) == 1 and parsed[0]["ok"] and parsed[0]["state"] == "partial"
          and "GPU Engine" in parsed[0]["why"] and parsed[0]["adapters"][0]["vm"] == [[GIB, 0, GIB]],
          f"a counter set missing: state=partial, the rest still read ({parsed})")


def loaded_dlls(*args):
    """The DLLs Wine's loader reports for one run (wine-run.sh silences it: Wine directly, its prefix)."""
    e = h.env()
    e.update(WINEDEBUG="+loaddll", WINEDLLOVERRIDES="mscoree,mshtml=;pdh=n",
             WINEPREFIX=os.environ.get("WINEPREFIX") or os.environ.get("GTM_WINEPREFIX")
             or os.path.join(os.environ["HOME"], ".wine-gputaskman"))
    # files, not pipes: --once loads Wine's dxgi.dll, which may start explorer.exe /desktop,
    # and that inherits pipes and outlives the program (wine_proc.run_captured)
    r = run_captured([os.environ.get("GTM_WINE", "/usr/lib/wine/wine64"), os.path.join(tmp, "gputaskman.exe"), *args],
                     input=b"", env=e, timeout=120)
    return {m.lower() for m in re.findall(r'Loaded L"[^"]*\\\\([^"\\]+)"', r.stderr.decode(errors="replace"))}


def no_vendor_libraries_case():
    """--host-stream loads pdh.dll and no DXGI, NVML or ADL (--once does load dxgi.dll: the log shows it)."""
    write_scenario(adapters())
    stream, once = loaded_dlls("--host-stream"), loaded_dlls("--once")
    vendor = {"dxgi.dll", "nvml.dll", "atiadlxx.dll", "atiadlxy.dll"}
    check("pdh.dll" in stream and not stream & vendor and "dxgi.dll" in once,
          f"--host-stream loads pdh.dll, none of {sorted(vendor)} (--once: {sorted(once & vendor)}; "
          f"--host-stream: {sorted(stream & (vendor | {'pdh.dll'}))})")


def main():
    for f in (gtm_exe, pdh_dll):
        shutil.copy(f, tmp)
    for name in ("vmwp.exe", "My Game.exe"):
        shutil.copy(client_exe, os.path.join(tmp, name))
    vm = start(os.path.join(tmp, "vmwp.exe"), "600")
    other = start(os.path.join(tmp, "vmwp.exe"), "600")
    game = start(os.path.join(tmp, "My Game.exe"), "600")
    stream_case(vm, other, game)
    wine_pdh_case()
    partial_case(vm)
    no_vendor_libraries_case()


try:
    main()
finally:
    h.cleanup()
h.finish("not run: a real Windows PDH, a real vmwp.exe (these lines are the double's)")
