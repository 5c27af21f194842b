# Shared by the serve e2e scripts (sourced): $t is a temp folder, $fake the
# fake libnvidia-ml.so.1's folder, $bin gputaskman.
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
need() { command -v "$1" >/dev/null 2>&1 || { echo "SKIP: $1 is not installed ($2)"; exit 77; }; }
# scenario TEXT: replaces the NVML scenario atomically.
scenario() { printf '%s\n' "$1" >"$t/scenario.tmp" && mv "$t/scenario.tmp" "$t/scenario"; }
# free_port: a loopback port nothing listens on now.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# Every wait below is for a condition, bounded far above a loaded machine's
# time (it returns as soon as the condition holds); no child writes to the
# test's own output, so none can keep meson waiting after the test ends.
# start_serve ARGS...: gputaskman serve on a free loopback port; sets $serve (PID) and $port.
start_serve() {
	GTM_FAKE_NVML_SCENARIO="$t/scenario" LD_LIBRARY_PATH="$fake" "$bin" serve --listen 127.0.0.1:0 "$@" \
		>"$t/serve.out" 2>"$t/serve.err" &
	serve=$!
	port=
	for _ in $(seq 1200); do
		port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$t/serve.err")
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || { echo "FAIL serve did not start:"; cat "$t/serve.err"; exit 1; }
}
# stop_serve: SIGTERM; it must leave with status 0 (30 s at most).
stop_serve() {
	kill -TERM "$serve"
	for _ in $(seq 300); do kill -0 "$serve" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$serve" 2>/dev/null; then bad "serve still running 30 s after SIGTERM"; kill -KILL "$serve"; fi
	wait "$serve"
	rc=$?
	if [ $rc -eq 0 ]; then ok "SIGTERM stops serve cleanly (exit 0)"; else bad "serve exit $rc after SIGTERM:"; cat "$t/serve.err"; fi
}
# scrape_until PATTERN: polls /metrics (bounded, 60 s) until a line matches.
scrape_until() {
	for _ in $(seq 600); do
		curl -sf "http://127.0.0.1:$port/metrics" >"$t/m" 2>/dev/null && grep -q -- "$1" "$t/m" && return 0
		sleep 0.1
	done
	return 1
}
# start_prometheus PORT: a real Prometheus on loopback scraping 127.0.0.1:PORT
# every second (never the system service); sets $prom (PID) and $pport.
start_prometheus() {
	pport=$(free_port)
	cat >"$t/prometheus.yml" <<YML
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: gputaskman
    static_configs: [{targets: ['127.0.0.1:$1']}]
YML
	promtool check config "$t/prometheus.yml" >/dev/null 2>&1 || { bad "promtool check config"; exit 1; }
	prometheus --config.file="$t/prometheus.yml" --storage.tsdb.path="$t/tsdb" --web.listen-address="127.0.0.1:$pport" \
		--log.level=warn >"$t/prom.log" 2>&1 &
	prom=$!
}
# query PROMQL: prints "labels value" per series of the instant query's result
query() {
	python3 - "$pport" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?%s" % (sys.argv[1], urllib.parse.urlencode({"query": sys.argv[2]}))
try:
    d = json.load(urllib.request.urlopen(url, timeout=2))
except Exception:
    sys.exit(1)
for r in d["data"]["result"]:
    print(json.dumps(r["metric"], sort_keys=True), r["value"][1])
PY
}
# expect NAME PROMQL VALUE: polls (bounded, 120 s) until the query gives one series of VALUE
expect() {
	for _ in $(seq 240); do
		out=$(query "$2")
		if [ "$(printf '%s\n' "$out" | grep -c .)" = 1 ] && [ "${out##* }" = "$3" ]; then ok "$1 ($out)"; return; fi
		sleep 0.5
	done
	bad "$1: $2 gave '${out:-nothing}', expected one series of $3"
	cat "$t/prom.log"
}
# expect_none NAME PROMQL: polls (bounded, 120 s) until the query answers with no series
expect_none() {
	for _ in $(seq 240); do
		out=$(query "$2") && [ -z "$out" ] && { ok "$1"; return; }
		sleep 0.5
	done
	bad "$1: $2 gave '$out', expected nothing"
}
