# Sourced by the WSL e2e scripts: ok/bad lines (fail=1 on a bad one), a
# pattern expected in a file, a python expression over a --json snapshot.
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
expect() { # name, pattern, file
	if grep -q -- "$2" "$3"; then ok "$1"; else bad "$1: no '$2' in:"; cat "$3"; fi
}
jq_ok() { # name, python expression over the snapshot j, file
	if python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$3"; then ok "$1"
	else bad "$1: $2 is false for:"; cat "$3"; fi
}
