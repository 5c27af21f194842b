"""Helpers the Python benchmarks share (bench/*/...py import it)."""
import time


def wait_exec(procs, comm="sleep", timeout_s=10):
    """Waits until every stand-in has exec'd `comm`: the first timed runs
    would otherwise pay for hundreds of process start-ups going on beside them."""
    deadline = time.time() + timeout_s
    for p in procs:
        while time.time() < deadline:
            try:
                with open(f"/proc/{p.pid}/comm") as f:
                    if f.read().strip() == comm:
                        break
            except OSError:
                break
            time.sleep(0.001)
