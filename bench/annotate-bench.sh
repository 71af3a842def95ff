#!/bin/bash
# annotate-bench.sh — time and peak RSS of `ringprof annotate` vs `perf annotate --stdio` on
# recordings of the same program (tests/workload/rp-annotate: a hot loop, an inlined function
# in two callers), each profiler recording its own run of SECONDS (default 10).
#
# Usage: bash bench/annotate-bench.sh [SECONDS]      (as root, after the build)
#
# Two cases, each run RUNS times (default 3) under /usr/bin/time and RUNS times under perf
# stat; the table gives the median wall time, the median CPU time (task-clock, children
# included: perf's objdump), the largest peak RSS and the ratios ringprof/perf:
#   one:  the hottest function, hot_loop       (ringprof annotate hot_loop, perf annotate hot_loop)
#   all:  every function with samples          (ringprof annotate -n 1000, perf annotate)
#   all, no debug cache: "all" with --no-debug-cache (libc6-dbg's compressed DWARF inflated
#         at each run, as before the cache)
# ringprof's cache of inflated debug files is one of its own in the temp dir; the first run of
# "all", which writes it, is timed apart (cold) before the rows.
# Environment: RUNS, RP_BUILD (build dir, default build/), KEEP=1 keeps the temp dir.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-3}
SECS=${1:-10}
BENCH=annotate-bench
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh" # die, cpu_median

B=${RP_BUILD:-$ROOT/build}
W=$B/tests/workload/rp-annotate
[ -x "$B/ringprof-annotate" ] || die "$B/ringprof-annotate missing: build first"
[ -x "$W" ] || die "$W missing: make check builds it (or make tests/workload/rp-annotate)"
[[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -ge 1 ] || die "SECONDS must be a positive integer"
perf version >/dev/null 2>&1 || die "perf is not installed (Debian: linux-perf)"
[ -x /usr/bin/time ] || die "/usr/bin/time is not installed (Debian: time)"

T=$(mktemp -d /tmp/annotate-bench.XXXXXX)
trap '[ -n "${KEEP:-}" ] && echo "kept: $T" || rm -rf "$T"' EXIT
cd "$T"

"$B/ringprof" record -q -e cpu-clock -o rp.data -- "$W" "$SECS"
# Without --buildid-mmap perf 6.1 aborts in util/build-id.c while another session asks the
# kernel for build-ids (tests/perf-neighbour.sh); 3 tries all the same.
for try in 1 2 3; do
	perf record --buildid-mmap -q -e cpu-clock -o perf.data -- "$W" "$SECS" 2>perf-record.err && break
	[ "$try" -lt 3 ] || die "perf record failed 3 times: $(tail -1 perf-record.err)"
done
echo "recordings of rp-annotate $SECS: ringprof $("$B/ringprof" annotate --no-pager -i rp.data -n 1 |
	awk 'NR == 1 { print $3; exit }') samples, perf $(perf report -i perf.data --stdio 2>/dev/null |
	awk '/^# Samples:/ { print $3; exit }') samples"

# measure NAME CMD...: RUNS runs; sets med_s and max_kb.
measure() {
	local name=$1 i
	shift
	: >"$name.times"
	local t0 t1
	for ((i = 1; i <= RUNS; i++)); do
		# Wall time from the shell's clock (µs; time's %e has 10 ms steps), peak RSS from time.
		t0=$EPOCHREALTIME
		/usr/bin/time -o "$name.time" -f '%M' "$@" >"$name.out" 2>"$name.err" ||
			{ cat "$name.err" >&2; die "failed: $*"; }
		t1=$EPOCHREALTIME
		echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }') $(cat "$name.time")" >>"$name.times"
	done
	med_s=$(awk '{ print $1 }' "$name.times" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	max_kb=$(awk '$2 > m { m = $2 } END { print m }' "$name.times")
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
printf '| case | ringprof s | perf s | time ratio | ringprof CPU s | perf CPU s | CPU ratio | ringprof KB | perf KB | RSS ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
row() {
	local name=$1 rs rk rc ps pk pc
	measure "rp-$name" "${@:2:$(($# / 2))}"
	rs=$med_s rk=$max_kb
	cpu_median "rp-$name" "${@:2:$(($# / 2))}"
	rc=$med_cpu
	measure "perf-$name" "${@:$(($# / 2 + 2))}"
	ps=$med_s pk=$max_kb
	cpu_median "perf-$name" "${@:$(($# / 2 + 2))}"
	pc=$med_cpu
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$rs" "$ps" "$(ratio "$rs" "$ps")" \
		"$rc" "$pc" "$(ratio "$rc" "$pc")" "$rk" "$pk" "$(ratio "$rk" "$pk")"
}
export XDG_CACHE_HOME=$T/xdg
cold_t0=$EPOCHREALTIME
perf stat -x, -e task-clock -o cold.stat -- "$B/ringprof" annotate --no-pager -i rp.data -n 1000 \
	>cold.out 2>&1 || die "cold annotate failed"
cold_t1=$EPOCHREALTIME
echo "cold (the first run of all, writing the debug cache): wall $(awk -v a="$cold_t0" -v b="$cold_t1" \
	'BEGIN { printf "%.3f", b - a }') s, CPU $(awk -F, '$3 ~ /^task-clock/ { printf "%.4f", $1 / 1000 }' \
	cold.stat) s; cached: $(du -sh "$XDG_CACHE_HOME" 2>/dev/null | cut -f1)"
# Each row: the ringprof command and the perf command, the same number of words.
row one "$B/ringprof" annotate --no-pager -i rp.data hot_loop \
	perf annotate --stdio -i perf.data hot_loop
row all "$B/ringprof" annotate --no-pager -i rp.data -n 1000 \
	perf annotate --stdio -i perf.data --percent-type=local-period
row "all, no debug cache" "$B/ringprof" annotate --no-pager -i rp.data -n 1000 --no-debug-cache \
	perf annotate --stdio -i perf.data --percent-type=local-period --stdio
