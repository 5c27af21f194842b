#!/usr/bin/env python3
"""Writes the PDH double's scenario for bench/wddm: N processes (default 200)
with GPU counters on 2 adapters (a discrete one with 8 engines, an
integrated one with 5), every GPU Process Memory counter, the adapter sets.
PIDs are those of PIDS_FILE (one a line, as bench_procs.exe prints the
Windows PIDs of its live idle processes), else invented from 100000 on (no
Wine process has them: their rows are H: rows, and each start-time lookup
is a failed OpenProcess). No time line: the double stamps the system clock,
so every refresh takes real deltas.
   gen_scenario.py OUT [N [PIDS_FILE]]"""
import sys

out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200
pids = [100000 + 4 * i for i in range(n)]
if len(sys.argv) > 3:
    pids = [int(w) for w in open(sys.argv[3]).read().split() if w.isdigit()]
    if len(pids) < n:
        sys.exit(f"gen_scenario.py: {sys.argv[3]} has {len(pids)} PIDs, {n} wanted")
adapters = {
    "0x00000000_0x0000A18D": ["3D", "Copy", "Copy", "VideoDecode", "VideoEncode", "Compute_0", "Compute_1", "Security"],
    "0x00000000_0x000095CA": ["3D", "Copy", "VideoDecode", "VideoProcessing", "Compute"],
}
lines = []
for luid in adapters:
    lines.append(f"GPU Local Adapter Memory\tLocal Usage\tluid_{luid}_phys_0_part_0\t{6 << 30}")
    lines.append(f"GPU Non Local Adapter Memory\tNon Local Usage\tluid_{luid}_phys_0_part_0\t{1 << 29}")
    lines.append(f"GPU Adapter Memory\tDedicated Usage\tluid_{luid}_phys_0\t{6 << 30}")
    lines.append(f"GPU Adapter Memory\tShared Usage\tluid_{luid}_phys_0\t{1 << 29}")
for i in range(n):
    pid = pids[i]
    for luid, engines in adapters.items():
        for e, typ in enumerate(engines):
            lines.append(f"GPU Engine\tRunning Time\tpid_{pid}_luid_{luid}_phys_0_eng_{e}_engtype_{typ}\t{i * 1000 + e}")
        for k, counter in enumerate(["Local Usage", "Non Local Usage", "Total Committed", "Dedicated Usage", "Shared Usage"]):
            lines.append(f"GPU Process Memory\t{counter}\tpid_{pid}_luid_{luid}_phys_0\t{(i + 1) * (k + 1) << 20}")
open(out, "w").write("\n".join(lines) + "\n")
