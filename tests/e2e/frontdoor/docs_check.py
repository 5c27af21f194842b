#!/usr/bin/env python3
"""The documents speak to a user of this repository, and are installed:
  - no doc (README.md, CHANGELOG.md, docs/*.md) cites a file outside the
    repository (../shared/..., a notes file only the developers have, /work/),
    an internal issue number or a development branch;
  - every docs/*.md the README links is installed beside the README
    (docs/meson.build), so the installed README's links resolve.
Args: SOURCE_ROOT"""
import glob
import os
import re
import sys

src = sys.argv[1]
docs = [os.path.join(src, "README.md"), os.path.join(src, "CHANGELOG.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
FORBIDDEN = [
    (re.compile(r"\.\./shared\b"), "a path outside the repository"),
    (re.compile(r"(?<![\w/])/work/"), "a path on the developers' machine"),
    (re.compile(r"\b(llm-memory|platforms|research-next|design)\.md\b"), "a notes file outside the repository"),
    (re.compile(r"\b[Ii]ssues? \d+\b|\([Ii]ssue \d"), "an internal issue number"),
    (re.compile(r"\b[Bb]ranch(?:es)? [a-z]+\d*-[a-z0-9-]+|\b[a-z]\d?-[a-z0-9]+ branch\b|\bthis branch\b|\b[Bb]ranch\)"),
     "a development branch"),
]
fails = 0
for path in docs:
    rel = os.path.relpath(path, src)
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        for rx, what in FORBIDDEN:
            m = rx.search(line)
            if m:
                print(f"FAIL {rel}:{n}: {what}: '{m.group(0)}' in: {line.strip()[:160]}")
                fails += 1
print(f"{'ok  ' if not fails else 'FAIL'} {len(docs)} documents read for references a user cannot follow")

meson = open(os.path.join(src, "docs", "meson.build"), encoding="utf-8").read()
installed = set(re.findall(r"'([\w.-]+\.md)'", meson))
readme = open(docs[0], encoding="utf-8").read()
linked = set(re.findall(r"\]\(docs/([\w.-]+\.md)\)", readme))
missing = sorted(linked - installed)
if missing:
    print(f"FAIL the README links docs that are not installed: {missing}")
    fails += 1
else:
    print(f"ok   every doc the README links is installed ({', '.join(sorted(linked))})")
sys.exit(1 if fails else 0)
