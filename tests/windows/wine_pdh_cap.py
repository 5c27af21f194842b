#!/usr/bin/env python3
"""PDH listing more instances than the reader keeps, under Wine with the
pdh.dll test double: wine_pdh_cap.py GPUTASKMAN_EXE PDH_DLL GPU_CLIENT_EXE

The double serves 17,000 GPU Process Memory instances past the reader's cap
of 16,384 a counter (src/sources/wddm/wddm_item.h): two of them name live
stand-in processes, one with the largest Local Usage, one with the smallest;
the rest name PIDs no process has. gputaskman.exe --json and --once must exit
0, say that the list was cut and by how much, and keep the largest: the big
stand-in's row shows its VRAM, the small one's shows none."""
import json
import os
import re
import shutil
import sys

from pdh_harness import Harness, wine_run
from wine_proc import run_captured
from wine_snap import row, use_on

GIB = 1 << 30
MIB = 1 << 20
LUID = "0x00000000_0x0000A18D"
CAP = 16384
N_FAKE = 17000

gtm_exe, pdh_dll, client_exe = (os.path.abspath(a) for a in sys.argv[1:4])
h = Harness("gtm-wine-pdh-cap-")
check = h.check


def run(*args):
    return run_captured(["sh", wine_run, os.path.join(h.tmp, "gputaskman.exe"), *args], env=h.env(True),
                        timeout=240)


def scenario(big, small):
    lines = [["GPU Adapter Memory", "Dedicated Usage", f"luid_{LUID}_phys_0", 8 * GIB]]
    for i in range(N_FAKE):  # PIDs no process has (Windows PIDs are multiples of 4)
        lines.append(["GPU Process Memory", "Local Usage", f"pid_{400000 + 4 * i}_luid_{LUID}_phys_0",
                      (1 + i % 4000) * MIB])
    lines.append(["GPU Process Memory", "Local Usage", f"pid_{big}_luid_{LUID}_phys_0", 64 * GIB])
    lines.append(["GPU Process Memory", "Local Usage", f"pid_{small}_luid_{LUID}_phys_0", 1])
    return lines


def main():
    for f in (gtm_exe, pdh_dll):
        shutil.copy(f, h.tmp)
    _, big = h.start(client_exe, "600")
    _, small = h.start(client_exe, "600")
    h.write_scenario(scenario(big, small))
    listed, cut = N_FAKE + 3, N_FAKE + 2 - CAP  # every counter's instances: the adapter's one too
    note = re.compile(r"the process list was cut: PDH listed (\d+) counter instances, the (\d+) smallest left out")

    r = run("--json")
    check(r.returncode == 0, f"--json past the cap exits 0 (got {r.returncode}: "
          f"{r.stderr.decode(errors='replace').strip()[:300]})")
    if r.returncode == 0:
        snap = json.loads(r.stdout.decode("utf-8"))
        said = [m.groups() for m in map(note.search, snap["notes"]) if m]
        check(said == [(str(listed), str(cut))], f"--json: the cut is said ({listed} listed, {cut} left out): {said}")
        d = [g for g in snap["gpus"] if g.get("luid") == LUID]
        u = use_on(row(snap, big), d[0]["index"]) if d else None
        check(u is not None and u["vram_bytes"] == 64 * GIB, f"the largest instance is kept ({u})")
        u = use_on(row(snap, small), d[0]["index"]) if d else None
        check(u is None or u["vram_bytes"] is None, f"the smallest is left out, not shown as a size ({u})")

    r = run("--once")
    out = r.stdout.decode("utf-8", errors="replace")
    check(r.returncode == 0 and note.search(out) is not None, f"--once past the cap exits 0 and says the cut "
          f"(rc {r.returncode})")


try:
    main()
finally:
    h.cleanup()
h.finish("not run on Windows: a real PDH with that many instances (the double's numbers)")
