"""Runs a Windows program under Wine and captures its output through files,
not pipes: a Wine process can make Wine start explorer.exe /desktop (the
builtin dxgi.dll does, through wined3d), which inherits the program's
standard handles and outlives it, so a pipe's end never comes and a test
waiting for it times out. Waiting for the program itself is what is meant."""
import os
import signal
import subprocess
import tempfile


def run_captured(cmd, env=None, cwd=None, timeout=60, input=None):
    """subprocess.run(cmd, capture_output=True, timeout=...) without pipes:
    stdout and stderr as bytes; TimeoutExpired (after killing the program's
    process group) as subprocess.run raises it."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as inp:
        if input is not None:
            inp.write(input if isinstance(input, bytes) else input.encode())
            inp.seek(0)
        p = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=inp if input is not None else subprocess.DEVNULL,
                             stdout=out, stderr=err, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()
            raise
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(cmd, rc, out.read(), err.read())


def winpath(p):
    """A Linux path as Wine's Z: drive names it."""
    return "Z:" + p.replace("/", "\\")
