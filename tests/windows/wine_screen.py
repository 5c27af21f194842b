"""The live view of gputaskman.exe in a tmux pane, for the Wine end-to-end
tests (wine_wddm.py, wine_e2e.py): one private tmux server, the pane's text
polled until a pattern shows or a time limit passes."""
import re
import subprocess
import time


class Screen:
    def __init__(self, name, cmd, check, width=200, height=90):
        """Starts cmd (a shell line) in a new pane; check(ok, what) records."""
        self.tmux = ["tmux", "-L", name]
        self.check = check
        subprocess.run(self.tmux + ["-f", "/dev/null", "new-session", "-d", "-s", "gtm", "-x", str(width), "-y",
                                    str(height), cmd], check=True)

    def text(self):
        return subprocess.run(self.tmux + ["capture-pane", "-p", "-t", "gtm"], capture_output=True, text=True).stdout

    def keys(self, *keys):
        subprocess.run(self.tmux + ["send-keys", "-t", "gtm", *keys])

    def wait_for(self, what, pattern, secs=30):
        end = time.time() + secs
        while time.time() < end:
            if re.search(pattern, self.text()):
                self.check(True, what)
                return True
            time.sleep(0.2)
        self.check(False, what + ": screen:\n" + self.text())
        return False

    def close(self):
        self.keys("q")
        time.sleep(1)
        subprocess.run(self.tmux + ["kill-server"], capture_output=True)
