#!/usr/bin/env python3
"""gputaskman(1) against --help: every flag and environment variable of each
command's --help is in the man page and every flag of the man page is in some
--help; the marks are explained; the page is the one scripts/gen-man.py makes
from this binary now; groff renders it without a warning.
usage: man.py GPUTASKMAN MAN_PAGE GEN_MAN TUI_HELP_C CHANGELOG VERSION"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

binary, man_path, gen_man, tui_help_c, changelog, version = sys.argv[1:7]
fails = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)


FLAG = re.compile(r"(?<![\w/@:.-])(--?[a-zA-Z][\w-]*)")


def flags(text):
    return set(FLAG.findall(text))


helps = {"": subprocess.run([binary, "--help"], capture_output=True, text=True).stdout}
for cmd in ["inspect", "diff", "record", "replay", "serve"]:
    helps[cmd] = subprocess.run([binary, cmd, "--help"], capture_output=True, text=True).stdout
roff = open(man_path, encoding="utf-8").read()
text = roff.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")
man_flags = flags(text)
help_flags = set().union(*(flags(h) for h in helps.values()))

for cmd, h in helps.items():
    missing = sorted(flags(h) - man_flags)
    check(h.strip() and not missing, f"every flag of `gputaskman {cmd} --help` is in the man page {missing or ''}")
extra = sorted(man_flags - help_flags)
check(not extra, f"every flag of the man page is in some --help {extra or ''}")

env_block = helps[""].split("\nEnvironment:\n")[1].split("\n\n")[0]
env = re.findall(r"^  ([A-Z][A-Z_]+)", env_block, re.M)
man_env = text.split(".SH ENVIRONMENT")[1].split(".SH ")[0]
check(len(env) >= 5 and all(e in man_env for e in env), f"ENVIRONMENT names {env}")
for s in ["OPTIONS", "COMMANDS", "LIVE VIEW KEYS", "MARKS", "ENVIRONMENT", "EXIT STATUS", "EXAMPLES"]:
    check(f".SH {s}\n" in roff, f"section {s}")
for mark in ["*PID", "?PID", "*xPID", "H:PID", "W:PID", "N/A"]:
    check(mark in text.split(".SH MARKS")[1].split(".SH ")[0], f"MARKS explains {mark}")
for key in ["Home/End", "PgUp/PgDn", "Space, p", "Left/Right"]:
    check(key in text, f"the keys include {key}")

tmp = tempfile.mkdtemp()
try:
    again = os.path.join(tmp, "gputaskman.1")
    subprocess.run([sys.executable, gen_man, binary, tui_help_c, changelog, version, again], check=True)
    check(open(again, encoding="utf-8").read() == roff, "the man page is what gen-man.py makes from this --help")
finally:
    shutil.rmtree(tmp)

if shutil.which("groff"):
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", man_path], capture_output=True, text=True)
    check(r.returncode == 0 and not r.stderr, f"groff -man -ww renders it without a warning {r.stderr.strip()}")
else:
    print("skip groff: not installed")
if shutil.which("mandoc"):
    r = subprocess.run(["mandoc", "-Tlint", "-W", "style", man_path], capture_output=True, text=True)
    msg = (r.stdout + r.stderr).strip()
    check(r.returncode == 0 and not msg, f"mandoc -Tlint finds nothing {msg}")
else:
    print("skip mandoc -Tlint: not installed")
sys.exit(1 if fails else 0)
