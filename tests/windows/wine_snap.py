"""Reading gputaskman --json snapshots and ending Wine children, for the Wine
end-to-end tests (wine_wddm.py, wine_e2e.py)."""
import os
import signal


def row(snap, pid):
    """The process row of PID, or None."""
    rows = [p for p in snap["processes"] if p["pid"] == pid]
    return rows[0] if rows else None


def use_on(p, index):
    """A row's use of device index, or None."""
    us = [u for u in (p or {}).get("gpus", []) if u["index"] == index]
    return us[0] if us else None


def engine(u, name):
    """A use's engine of that type, or None."""
    es = [e for e in (u or {}).get("engines", []) if e["name"] == name]
    return es[0] if es else None


def near(v, want):
    return v is not None and abs(v - want) < 0.01


def stop(p):
    """Ends a child started in a session of its own (Wine's loader and the program)."""
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    p.wait(timeout=20)
