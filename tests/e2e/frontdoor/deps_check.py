#!/usr/bin/env python3
"""What make check and make deb/dist-linux install (scripts/deps.sh), run
without installing anything: --list, and GTM_DEPS_DRY_RUN=1 for the commands
a root install would run as if no package were there.
  - make check installs no packaging tool and adds no dpkg architecture;
    make deb / make dist-linux (--release) do.
  - prometheus is installed with service starts forbidden and its unit masked,
    and the forbidding policy-rc.d is removed again.
  - the README's "What `make check` installs" table names exactly the
    packages --check installs.
Args: SOURCE_ROOT"""
import os
import re
import subprocess
import sys

src = sys.argv[1]
deps = os.path.join(src, "scripts", "deps.sh")
fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1


def listing(*flags):
    out = subprocess.run(["sh", deps, "--list", *flags], capture_output=True, text=True, check=True).stdout
    groups = {}
    for line in out.splitlines():
        key, _, rest = line.partition(": ")
        groups[key.split(" ")[0]] = rest.split()
    return groups


def dry_run(*flags):
    env = dict(os.environ, GTM_DEPS_DRY_RUN="1")
    r = subprocess.run(["sh", deps, *flags], capture_output=True, text=True, env=env)
    return [x[2:] for x in r.stdout.splitlines() if x.startswith("+ ")]


packaging = {"debhelper", "lintian", "bubblewrap", "gcc-aarch64-linux-gnu", "qemu-user-static"}
chk = listing("--check")
installed = set(chk["build"]) | set(chk.get("optional", []))
check(not packaging & installed, f"make check installs no packaging tool ({sorted(packaging & installed)})")
check("arm64" not in chk and not any(p.endswith(":arm64") for p in installed), "make check installs no arm64 library")
check("prometheus" in installed, "make check installs prometheus")
check(any("prometheus.service" in x for x in chk.get("masked", [])), "--list says prometheus.service is masked")
rel = listing("--release")
check(packaging <= set(rel.get("optional", [])), "make deb / dist-linux install the packaging tools")
check("arm64" in rel, "make deb / dist-linux install the arm64 libraries")

cmds = dry_run("--check")
check(cmds and not any("add-architecture" in c for c in cmds), "make check's install adds no dpkg architecture")
inst = [i for i, c in enumerate(cmds) if c.startswith("apt-get install") and " prometheus" in c]
policy = [i for i, c in enumerate(cmds) if c.startswith("write /usr/sbin/policy-rc.d") and "exit 101" in c]
mask = [i for i, c in enumerate(cmds) if "mask" in c and "prometheus.service" in c]
unpolicy = [i for i, c in enumerate(cmds) if c == "rm -f /usr/sbin/policy-rc.d"]
check(len(inst) == 1, "one apt-get install names prometheus")
check(inst and policy and policy[0] < inst[0], "service starts are forbidden before prometheus is installed")
check(inst and mask and mask[0] > inst[0], "prometheus.service is masked after it is installed")
check(inst and unpolicy and unpolicy[0] > inst[0], "the policy-rc.d written for the install is removed after it")
rcmds = dry_run("--release")
check(any("dpkg --add-architecture arm64" in c for c in rcmds), "make deb / dist-linux add the arm64 architecture")

readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
m = re.search(r"^### What `make check` installs\n(.*?)(?=^#)", readme, re.S | re.M)
check(m is not None, "the README has a section: What `make check` installs")
listed = set()
if m:
    for line in m.group(1).splitlines():
        if line.startswith("| `"):
            listed |= set(re.findall(r"`([^`]+)`", line.split("|")[1]))
check(listed == installed, "the README's table names exactly what make check installs"
      + ("" if listed == installed else f": missing {sorted(installed - listed)}, extra {sorted(listed - installed)}"))
sys.exit(1 if fails else 0)
