#!/bin/bash
# bench/suite-stress.sh [RUNS] [REV] — the suite under load, the way issue 23 asks it to be
# shown: RUNS (default 3) fresh clones of this repository checked out at one commit (REV,
# default HEAD), each running CI's command (`bash .ci/run`) one after the other, while
# `stress-ng --cpu N` keeps every CPU busy. Prints a line per run (its result line, minutes,
# load average) and the total time; stops at the first failing run (CONTINUE=1 goes on).
# Each run's log is kept in the temp dir when it fails (KEEP=1: always). Run as root: .ci/run
# installs packages and boots a systemd container. It takes RUNS times a CI run under load
# (~41 min each on 2 CPUs).
set -u

RUNS=${1:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REV=$(git -C "$ROOT" rev-parse --verify "${2:-HEAD}^{commit}") || exit 2
NCPU=$(nproc)
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "suite-stress: RUNS must be a positive integer, got '$RUNS'" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "suite-stress: run as root (.ci/run installs packages)" >&2; exit 2; }
command -v stress-ng >/dev/null || { apt-get update -qq && apt-get install -y -qq stress-ng >/dev/null; } ||
	{ echo "suite-stress: cannot install stress-ng" >&2; exit 2; }

# Minutes since the epoch second $1, one decimal.
minutes() { awk -v s="$1" -v n="$(date +%s)" 'BEGIN { printf "%.1f min", (n - s) / 60 }'; }

T=$(mktemp -d /tmp/suite-stress.XXXXXX)
stress-ng --cpu "$NCPU" --timeout 0 >"$T/stress-ng.log" 2>&1 &
HOG=$!
cleanup() {
	kill "$HOG" 2>/dev/null
	wait "$HOG" 2>/dev/null
	if [ -n "${KEEP:-}" ] || [ -n "$(ls "$T"/run*.log 2>/dev/null)" ]; then echo "logs: $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

echo "suite-stress: $RUNS runs of .ci/run at $(git -C "$ROOT" log -1 --format='%h %s' "$REV"), beside stress-ng --cpu $NCPU"
start=$(date +%s)
failed=0
for i in $(seq "$RUNS"); do
	d="$T/run$i"
	{ git clone -q "$ROOT" "$d" && git -C "$d" checkout -q "$REV"; } || { echo "run $i: cannot clone" >&2; exit 2; }
	s=$(date +%s)
	(cd "$d" && bash .ci/run) >"$T/run$i.out" 2>&1
	rc=$?
	line=$(tail -1 "$T/run$i.out")
	echo "run $i: rc $rc, $line, $(minutes "$s"), load $(cut -d' ' -f1-3 /proc/loadavg)"
	if [ "$rc" = 0 ] && [ -z "${KEEP:-}" ]; then
		rm -f "$T/run$i.out"
	else
		mv "$T/run$i.out" "$T/run$i.log"
	fi
	rm -rf "$d"
	if [ "$rc" != 0 ]; then
		failed=$((failed + 1))
		grep -E '^ *(build-san: )?FAIL' "$T/run$i.log" | head -5
		[ -n "${CONTINUE:-}" ] || break
	fi
done
echo "total: $(minutes "$start"), $failed of the runs failed"
[ "$failed" = 0 ]
