#!/usr/bin/env python3
"""gputaskman(1) from the binary's own help: one source, so they cannot drift.

usage: gen-man.py GPUTASKMAN TUI_HELP_C CHANGELOG VERSION OUT

`gputaskman --help` gives SYNOPSIS, DESCRIPTION, OPTIONS, ENVIRONMENT,
EXAMPLES and EXIT STATUS; `gputaskman CMD --help` gives each command under
COMMANDS; the live view's key list (help_keys[] in src/views/tui/tui_help.c,
the ? screen's) gives LIVE VIEW KEYS and the marks. A block of --help this
script does not know is an error, so a new one cannot silently go missing.
The page's date is VERSION's in CHANGELOG.md ("## [VERSION] - YYYY-MM-DD"):
a version without its entry there is an error too.
"""
import re
import subprocess
import sys
import textwrap

COMMANDS = ["inspect", "diff", "record", "replay", "serve"]
# an option or key line of a help text: two spaces, the term, two or more spaces, its meaning
ITEM = re.compile(r"^  (\S.*?)\s{2,}(\S.*)$")


def run_help(binary, *args):
    out = subprocess.run([binary, *args, "--help"], capture_output=True, text=True, check=True)
    return out.stdout


def help_keys(path):
    """The entries of help_keys[] in tui_help.c: adjacent literals joined, one per comma."""
    src = open(path, encoding="utf-8").read()
    body = re.search(r"help_keys\[\]\s*=\s*\{(.*?)\n\};", src, re.S)
    if not body:
        sys.exit(f"gen-man.py: no help_keys[] in {path}")
    body = re.sub(r"/\*.*?\*/", "", body.group(1), flags=re.S)
    keys, cur = [], ""
    for tok in re.findall(r'"((?:[^"\\]|\\.)*)"|(,)', body):
        if tok[1]:
            keys.append(cur)
            cur = ""
        else:
            cur += tok[0].encode().decode("unicode_escape")
    if cur:
        keys.append(cur)
    return keys


def esc(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def items(lines):
    """Help lines to roff: a line at two spaces is an item (.TP: the term, then its
    meaning after two or more spaces), deeper lines continue what came before,
    a blank line starts a paragraph and the rest is text."""
    out, in_item = [], False
    for line in lines:
        if line.startswith("   ") and out:
            out.append(esc(line.strip()))
        elif line.startswith("  "):
            m = ITEM.match(line)
            term, meaning = (m.group(1), m.group(2)) if m else (line.strip(), None)
            out += [".TP", f".B {esc(term)}" if term.startswith("-") else esc(term)]
            out += [esc(meaning)] if meaning else []
            in_item = True
        elif not line.strip():
            out.append(".PP")
            in_item = False
        else:
            if in_item:
                out.append(".PP")
            out.append(esc(line))
            in_item = False
    return out


def usage(lines):
    """Usage lines (the first and those under it) as a no-fill block; returns (roff, rest)."""
    n = 1
    syn = [re.sub(r"^(Usage|usage): ", "", lines[0]).strip()]
    # a usage line, or the rest of one wrapped under it ("   [--record PATH]")
    while n < len(lines) and (lines[n].startswith("       gputaskman") or re.match(r"^ {8,}\[", lines[n])):
        if lines[n].startswith("       gputaskman"):
            syn.append(lines[n].strip())
        else:
            syn[-1] += " " + lines[n].strip()
        n += 1
    return [".nf"] + [esc(s) for s in syn] + [".fi"], lines[n:]


def release_date(changelog, version):
    m = re.search(r"^## \[" + re.escape(version) + r"\] - (\d{4}-\d\d-\d\d)$", open(changelog, encoding="utf-8").read(), re.M)
    if not m:
        sys.exit(f"gen-man.py: {changelog} has no '## [{version}] - YYYY-MM-DD' entry")
    return m.group(1)


def tidy(page):
    """No paragraph macro next to a heading, an item or another one; text lines
    outside no-fill blocks wrapped under 80 columns, none starting with a
    control character."""
    out, nofill = [], False
    for i, line in enumerate(page):
        nofill = line == ".nf" or (nofill and line != ".fi")
        after = page[i + 1] if i + 1 < len(page) else ".SH"
        if line == ".PP" and (after.startswith((".PP", ".TP", ".SH", ".SS")) or out[-1].startswith((".SH", ".SS"))):
            continue
        if line.startswith(".") or len(line) < 80 or nofill:
            out.append(line)
            continue
        for part in textwrap.wrap(line, 79, break_on_hyphens=False, break_long_words=False):
            out.append("\\&" + part if part[:1] in (".", "'") else part)
    return out


def blocks(text):
    return [b.split("\n") for b in text.strip("\n").split("\n\n")]


def main():
    binary, tui_help_c, changelog, version, out_path = sys.argv[1:6]
    date = release_date(changelog, version)
    main_help = blocks(run_help(binary))
    sections = {}
    synopsis, rest = usage(main_help[0])
    if rest:
        sys.exit("gen-man.py: text after the usage lines of --help")
    description = main_help[1]
    titles = {"Options:": "OPTIONS", "Environment:": "ENVIRONMENT", "Examples:": "EXAMPLES"}
    prose = {"Live view keys:": "LIVE VIEW KEYS", "Readings are marked": "MARKS", "Exit status:": "EXIT STATUS"}
    for b in main_help[2:]:
        if b[0] in titles:
            sections[titles[b[0]]] = items(b[1:])
        elif any(b[0].startswith(p) for p in prose):
            name = next(v for p, v in prose.items() if b[0].startswith(p))
            text = " ".join(b)
            sections[name] = [esc(text[len("Exit status: "):] if name == "EXIT STATUS" else text)]
        else:
            sys.exit(f"gen-man.py: a block of --help with no man page section: {b[0]!r}")
    for name in list(titles.values()) + list(prose.values()):
        if name not in sections:
            sys.exit(f"gen-man.py: --help has no block for {name}")

    keys = help_keys(tui_help_c)
    marks = [k for k in keys if k.startswith("Markers:")]
    sections["LIVE VIEW KEYS"] += [".PP", "In the live view, \\fB?\\fP shows these keys:"]
    sections["LIVE VIEW KEYS"] += items(["  " + k for k in keys if not k.startswith("Markers:")])
    sections["MARKS"] += [".PP"] + [esc(m) for m in marks]

    commands = []
    for cmd in COMMANDS:
        syn, rest = usage(run_help(binary, cmd).rstrip("\n").split("\n"))
        commands += [".SS " + cmd] + syn + [".PP"] + items(rest)

    first = " ".join(description).split(". ")[0]
    page = [
        f'.TH GPUTASKMAN 1 {date} "gputaskman {version}" "User Commands"',
        ".\\\" Generated by scripts/gen-man.py from gputaskman --help: edit the help texts, not this file.",
        ".SH NAME", f"gputaskman, gtm \\- {esc(first[0].lower() + first[1:])}",
        ".SH SYNOPSIS"] + synopsis + [
        ".SH DESCRIPTION", esc(" ".join(description)),
        ".PP", "\\fBgtm\\fP is the same program under a shorter name.",
        ".SH OPTIONS"] + sections["OPTIONS"] + [
        ".SH COMMANDS"] + commands + [
        ".SH LIVE VIEW KEYS"] + sections["LIVE VIEW KEYS"] + [
        ".SH MARKS"] + sections["MARKS"] + [
        ".SH ENVIRONMENT"] + sections["ENVIRONMENT"] + [
        ".SH EXIT STATUS"] + sections["EXIT STATUS"] + [
        ".SH EXAMPLES"] + sections["EXAMPLES"] + [
        ".SH SEE ALSO",
        "The documents in /usr/share/doc/gputaskman (or the installation's share/doc/gputaskman):",
        "json\\-schema.md, diff.md, recording.md, exporter.md, explain.md.",
    ]
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(tidy(page)) + "\n")


if __name__ == "__main__":
    main()
