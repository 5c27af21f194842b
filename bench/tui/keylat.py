#!/usr/bin/env python3
"""Key-press latency of the live view: runs gputaskman in a pseudo-terminal
(COLSxROWS), waits for the first frame, then N times cycles the sort with 's' (timing
each change of the status bar), sends '?' and times the help page's first
bytes, sends Escape and times the table's return (Escape includes ncurses'
25 ms ESCDELAY, the wait that tells a lone Escape from a key sequence). Prints
one line per measure: name median max (milliseconds).

usage: keylat.py BIN COLS ROWS N [env KEY=VALUE ...]"""
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import sys
import termios
import time

binary, cols, rows, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
for kv in sys.argv[5:]:
    k, _, v = kv.partition("=")
    env[k] = v

pid, fd = pty.fork()
if pid == 0:
    os.execve(binary, [binary, "-i", "1"], env)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
os.kill(pid, signal.SIGWINCH)

buf = b""


def wait_for(needle, timeout=10.0):
    """Reads the pty until needle appears in what arrived since the call."""
    global buf
    buf = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                buf += os.read(fd, 65536)
            except OSError:
                return False
            if needle in buf:
                return True
    return False


def drain(quiet=0.3):
    while select.select([fd], [], [], quiet)[0]:
        try:
            os.read(fd, 65536)
        except OSError:
            return


if not wait_for(b"WHAT'S INSIDE", 20):
    sys.exit("the live view did not draw its table")
drain(1.5)
opened, closed, sorted_ = [], [], []
for _ in range(n):
    for needle in (b"GPU %", b"spill", b"paged", b"name", b"VRAM"):
        t0 = time.monotonic()
        os.write(fd, b"s")
        if not wait_for(needle):
            sys.exit("sort did not change")
        sorted_.append((time.monotonic() - t0) * 1000)
        drain(0.05)
    t0 = time.monotonic()
    os.write(fd, b"?")
    if not wait_for(b"known about"):
        sys.exit("help did not open")
    opened.append((time.monotonic() - t0) * 1000)
    drain(0.05)
    t0 = time.monotonic()
    os.write(fd, b"\x1b")
    if not wait_for(b"WHAT'S INSIDE"):
        sys.exit("help did not close")
    closed.append((time.monotonic() - t0) * 1000)
    drain(0.05)
os.write(fd, b"q")
t0 = time.monotonic()
_, status = os.waitpid(pid, 0)
quit_ms = (time.monotonic() - t0) * 1000
for name, v in (("sort_key", sorted_), ("open_help", opened), ("close_help_escape", closed)):
    print(f"{name} {statistics.median(v):.1f} {max(v):.1f}")
print(f"quit {quit_ms:.1f} {quit_ms:.1f}")
