#!/bin/bash
# top-dir-bench.sh — what a refresh of `ringprof top --dir` costs on a large active file:
# ringprofd's NAME.data.partial, which top reads as it grows.
#
# Usage: bash bench/top-dir-bench.sh [SECONDS]      (as root, after the build)
#
# Records SECONDS (default 30) system-wide with callchains (-a -g fp, 999 Hz) while one
# rp-workload per CPU runs, then for each top binary (this build's ringprof-top, and OLD_TOP if
# set, e.g. a ringprof-top built before incremental reading):
#   static:  the recording as DIR/rp-0001.data.partial, unchanged: top --dir DIR --stdio -d 1
#            -n REFRESHES (default 10)
#   growing: the same file written into DIR in 20 slices, one every 0.5 s, while top runs
# each under /usr/bin/time; prints the file's size and frames, and per case the CPU time
# (user + system) divided by the refreshes, and the peak RSS. perf has no counterpart (perf
# top samples itself; it cannot follow another recorder's file).
# Environment: OLD_TOP, REFRESHES, RP_BUILD (build dir, default build/), KEEP=1 keeps the temp dir.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-30}
N=${REFRESHES:-10}
BENCH=top-dir-bench
die() { echo "$BENCH: $*" >&2; exit 1; }

B=${RP_BUILD:-$ROOT/build}
[ -x "$B/ringprof-top" ] || die "$B/ringprof-top missing: build first"
[ -x /usr/bin/time ] || die "/usr/bin/time is not installed (Debian: time)"
[ "$(id -u)" = 0 ] || die "needs root (system-wide recording)"
[[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -ge 1 ] || die "SECONDS must be a positive integer"
T=$(mktemp -d /tmp/top-dir-bench.XXXXXX)
trap '[ -n "${KEEP:-}" ] && echo "kept: $T" || rm -rf "$T"' EXIT

pids=()
for _ in $(seq "$(nproc)"); do "$B/tests/workload/rp-workload" -d 100000 -q & pids+=($!); done
"$B/ringprof" record -q -a -e cpu-clock -F 999 --call-graph fp -o "$T/r.data" -- sleep "$SECS"
kill "${pids[@]}" 2>/dev/null || true
wait "${pids[@]}" 2>/dev/null || true
size=$(stat -c %s "$T/r.data")
frames=$("$B/ringprof" report -i "$T/r.data" --stats 2>/dev/null | sed -n 's/^ *frames *\([0-9]*\) read.*/\1/p')
samples=$("$B/ringprof" report -i "$T/r.data" 2>/dev/null | sed -n 's/^# samples: \([0-9]*\).*/\1/p')
echo "active file: $((size / 1024)) KiB, $frames frames, $samples samples; $N refreshes of 1 s"
printf '%-10s %-8s %12s %12s %10s\n' binary case "CPU s total" "CPU ms/refr" "peak RSS"

# run NAME BINARY CASE
run() {
	local dir="$T/d-$1-$3" slice
	mkdir "$dir"
	if [ "$3" = static ]; then
		cp "$T/r.data" "$dir/rp-0001.data.partial"
	else
		: >"$dir/rp-0001.data.partial"
		slice=$(((size + 19) / 20))
		(for i in $(seq 0 19); do
			dd if="$T/r.data" bs="$slice" skip="$i" count=1 status=none >>"$dir/rp-0001.data.partial"
			sleep 0.5
		done) &
	fi
	/usr/bin/time -o "$T/time" -f "%U %S %M" "$2" --dir "$dir" --stdio -d 1 -n "$N" >"$T/out" 2>&1 ||
		die "$2 --dir failed: $(tail -2 "$T/out")"
	wait
	read -r u s m <"$T/time"
	awk -v n="$1" -v c="$3" -v u="$u" -v s="$s" -v m="$m" -v r="$N" \
		'BEGIN { printf "%-10s %-8s %12.2f %12.1f %7.1f MB\n", n, c, u + s, 1000 * (u + s) / r, m / 1024 }'
}
for c in static growing; do
	run this "$B/ringprof-top" "$c"
	[ -z "${OLD_TOP:-}" ] || run old "$OLD_TOP" "$c"
done
