#!/bin/bash
# fork-churn.sh — issue 24 item 4 end to end: does a process with many executable mappings
# that forks often cost the samples of other processes? For each build tree (RP_BUILD and,
# side by side, BASE_BUILD when given) two system-wide recordings with callchains
# (record -a -g -e cpu-clock -F 499 -d SECS) while one rp-workload spins: alone, and beside
# bench/fork-churn.c (MAPPINGS executable mappings, FORKS forks a second). Prints the
# recorder's samples and lost samples, rp-workload's samples and the recording's wall time.
#
# Usage: bash bench/fork-churn.sh [SECS]     (as root, after the build; default 10)
# Environment: MAPPINGS (default 60000), FORKS (default 40), RP_BUILD, BASE_BUILD.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-10}
MAPPINGS=${MAPPINGS:-60000}
FORKS=${FORKS:-40}
RP_BUILD=${RP_BUILD:-$ROOT/build}
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$T"' EXIT
[ "$(id -u)" = 0 ] || { echo "fork-churn: needs root (record -a)" >&2; exit 2; }
cc -std=gnu11 -O2 -o "$T/fork-churn" "$ROOT/bench/fork-churn.c"
WL=$RP_BUILD/tests/workload/rp-workload

# one TREE LABEL CHURN(0|1): a recording with that tree's ringprof; prints one line.
one() {
	local b=$1 label=$2 churn=$3 out=$T/$2-$3 st
	"$WL" -d $((SECS + 4)) -q &
	PIDS+=($!)
	if [ "$churn" = 1 ]; then
		"$T/fork-churn" "$WL" "$MAPPINGS" "$FORKS" $((SECS + 4)) >"$out.churn" &
		PIDS+=($!)
		sleep 2 # its mappings are in place before recording starts
	fi
	st=$(date +%s%N)
	"$b/ringprof" record -a -g -e cpu-clock -F 499 -d "$SECS" -o "$out.data" >/dev/null 2>"$out.err" || true
	st=$(awk -v a="$st" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	kill "${PIDS[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
	PIDS=()
	printf '%-6s %-12s %s | rp-workload %s samples | wall %s s\n' "$label" \
		"$([ "$churn" = 1 ] && echo "with churn" || echo alone)" \
		"$(sed -n 's/^\[ ringprof record: \([0-9]* samples, [0-9]* lost ([0-9.]*%)\).*/\1/p' "$out.err")" \
		"$("$b/ringprof" report -i "$out.data" --comm rp-workload 2>/dev/null | sed -n 's/^# samples: \([0-9]*\).*/\1/p')" \
		"$st"
}

for c in 0 1; do
	one "$RP_BUILD" this "$c"
	[ -z "${BASE_BUILD:-}" ] || one "$BASE_BUILD" base "$c"
done
