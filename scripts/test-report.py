#!/usr/bin/env python3
"""scripts/run-tests.sh's console: what meson's runs say, from its own files.

  suites DIR             the suites of DIR's tests, one a line, in the order
                         the tests are defined; nothing when a test has none
                         or several (the dir then runs in one go)
  count DIR [SUITE]      how many tests DIR has (in SUITE)
  progress DIR DONE ALL  reads meson test's console on stdin and prints one
                         line per finished test: "[k/ALL] suite / name RESULT
                         time", k counting on from DONE
  details DIR LOG        after a run, from its testlog JSON: each SKIP with
                         the reason the test printed, each failure with its
                         result and the last lines of its output
  total SKIPS LOG...     "N passed, N failed, N skipped"; exit 1 on a failure

Meson's JSON test log (one object a line: name, result, returncode, stdout,
stderr) is read rather than its console text, whose layout changes between
meson releases; the console is only parsed for progress, and a line this
does not recognise is passed through unchanged.
"""
import json
import os
import re
import subprocess
import sys

PASSED = ("OK", "EXPECTEDFAIL")
TAIL = int(os.environ.get("GTM_TEST_TAIL", "30") or 30)


def tests_of(d):
    out = subprocess.run(["meson", "introspect", d, "--tests"], capture_output=True, text=True)
    try:
        return json.loads(out.stdout) if out.returncode == 0 else []
    except ValueError:
        return []


def short_suite(s):
    return s.split(":", 1)[1] if ":" in s else s


def cmd_suites(d):
    tests = tests_of(d)
    if not tests or any(len(t.get("suite", [])) != 1 for t in tests):
        return 0
    seen = []
    for t in tests:
        s = short_suite(t["suite"][0])
        if s not in seen:
            seen.append(s)
    print("\n".join(seen))
    return 0


def cmd_count(d, suite=None):
    tests = tests_of(d)
    if suite:
        tests = [t for t in tests if suite in (short_suite(s) for s in t.get("suite", []))]
    print(len(tests))
    return 0


# meson 1.0's "  3/57 gputaskman:e2e / explain-standin   OK   2.31s   ..."
RESULT = re.compile(r"^\s*\d+/\d+\s+(?:[^ :/]+:)?(\S.*?)\s+"
                    r"(OK|FAIL|SKIP|TIMEOUT|ERROR|EXPECTEDFAIL|UNEXPECTEDPASS|INTERRUPT)\s+([0-9.]+s)(.*)$")
NOISE = re.compile(r"^(ninja: |Ok:|Expected Fail:|Fail:|Unexpected Pass:|Skipped:|Timeout:|Full log written|"
                   r"Summary of Failures:|\s*$)")


def cmd_progress(d, done, total):
    k = int(done)
    summary = False
    for line in sys.stdin:
        line = line.rstrip("\n")
        m = RESULT.match(line)
        if m and not summary:
            k += 1
            name, res, secs, rest = m.groups()
            extra = rest.strip()
            print(f"[{k}/{total}] {name} {res} {secs}" + (f" ({extra})" if extra and res not in PASSED + ("SKIP",) else ""),
                  flush=True)
        elif line.startswith("Summary of Failures:"):
            summary = True  # the failures again: details prints them with their output
        elif not m and not NOISE.match(line) and not line.startswith(">>> ") and "time out (After" not in line:
            print(f"{d}: {line}", flush=True)
    return 0


def records(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    yield json.loads(line)
                except ValueError:
                    continue


def skip_reason(r):
    text = (r.get("stdout") or "") + "\n" + (r.get("stderr") or "")
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    for x in lines:
        if "SKIP" in x:
            return re.sub(r"^.*?SKIP:?\s*", "", x) or x
    return lines[-1] if lines else "(the test printed no reason)"


def cmd_details(d, log):
    for r in records(log):
        res, name = r.get("result"), short_suite(r.get("name", "?"))
        if res == "SKIP":
            print(f"SKIP {name}: {skip_reason(r)}")
        elif res not in PASSED:
            print(f"FAILED {name}: {res}, exit status {r.get('returncode')}")
            for stream in ("stdout", "stderr"):
                lines = (r.get(stream) or "").rstrip("\n").splitlines()
                if lines:
                    print(f"  --- last {min(TAIL, len(lines))} of {len(lines)} lines of its {stream}:")
                    for x in lines[-TAIL:]:
                        print("  | " + x)
            base = os.path.splitext(log)[0]
            print(f"  --- all of it: {base}.txt")
    sys.stdout.flush()
    return 0


def cmd_total(skips, *logs):
    ok = fail = 0
    skip = int(skips)
    failed = []
    for path in logs:
        for r in records(path):
            res = r.get("result")
            if res in PASSED:
                ok += 1
            elif res == "SKIP":
                skip += 1
            else:
                fail += 1
                failed.append(f"{short_suite(r.get('name', '?'))} ({res})")
    for f in failed:
        print(f"FAILED {f}")
    print(f"{ok} passed, {fail} failed, {skip} skipped")
    return 1 if fail else 0


COMMANDS = {"suites": cmd_suites, "count": cmd_count, "progress": cmd_progress, "details": cmd_details,
            "total": cmd_total}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit("usage: test-report.py suites|count|progress|details|total ...")
    sys.exit(COMMANDS[sys.argv[1]](*sys.argv[2:]))
