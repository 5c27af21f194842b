#!/usr/bin/env python3
"""The Grafana dashboard and docs/exporter.md against what the exporter writes:
every gputaskman_* metric a panel queries is a family of the renderer's golden
output (so it is exported, with the labels the panel groups by), and every
family the renderer defines is documented in docs/exporter.md.
Args: dashboard.json golden.prom exporter.md renderer-source..."""
import json, re, sys

dash_path, golden_path, doc_path, sources = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
fails = 0


def bad(msg):
    global fails
    fails += 1
    print("FAIL " + msg)


golden = open(golden_path).read()
families = set(re.findall(r"^# TYPE (\S+) ", golden, re.M))
series = [l for l in golden.splitlines() if l and not l.startswith("#")]
defined = set()
for src in sources:
    defined |= set(re.findall(r'"(gputaskman_[a-z_]+)", "(?:gauge|counter)"', open(src).read()))
if not defined:
    bad("no families found in the renderer's sources")

dash = json.load(open(dash_path))
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
if not exprs:
    bad("the dashboard has no queries")
queried = set()
for e in exprs:
    for name in re.findall(r"\bgputaskman_[a-z_]+", e):
        queried.add(name)
        if name not in defined:
            bad("dashboard queries %s, which the renderer does not define" % name)
        elif name not in families:
            bad("dashboard queries %s, absent from the golden output" % name)
    # labels the panel groups by or selects on must exist on the queried metric
    for m in re.finditer(r"\b(gputaskman_[a-z_]+)\{([^}]*)\}", e):
        for label in re.findall(r'(\w+)\s*=~?"', m.group(2)):
            if label == "instance":
                continue  # added by Prometheus
            if not any(l.startswith(m.group(1) + "{") and (label + '="') in l for l in series):
                bad("dashboard selects %s on %s, which no golden series carries" % (label, m.group(1)))
print("ok   %d dashboard queries over %d metrics, all exported" % (len(exprs), len(queried)))
# a panel's title promises what its queries show: temperature needs a celsius query
for p in dash["panels"]:
    ex = " ".join(t["expr"] for t in p.get("targets", []))
    if "temperature" in p["title"].lower() and "_celsius" not in ex:
        bad("panel '%s' promises temperature and queries none" % p["title"])
if not any(re.search(r"by \([^)]*\bpod\b", t["expr"]) for p in dash["panels"] for t in p.get("targets", [])):
    bad("no panel shows a per-pod view (sum by pod)")

doc = open(doc_path).read()
for name in sorted(defined):
    if "`%s`" % name not in doc:
        bad("docs/exporter.md does not document %s" % name)
print("ok   %d families defined, each documented" % len(defined))
for q in ("VRAM by model", "KV cache per server", "spill"):
    if q.lower() not in doc.lower():
        bad("docs/exporter.md lacks the example PromQL '%s'" % q)
sys.exit(1 if fails else 0)
