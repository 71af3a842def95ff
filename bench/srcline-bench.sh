#!/bin/bash
# srcline-bench.sh — time and peak RSS of `ringprof report -s srcline` vs `perf report -s srcline`
# on recordings of the same run.
#
# Usage: bash bench/srcline-bench.sh [SECONDS [CMD...]]      (as root, after the build)
#
# perf records `ringprof record -- CMD` (default: rp-workload -d SECONDS, 10 s), so both tools
# sample the same run (cpu-clock, callchains, RATE Hz, default 999; perf with --buildid-mmap,
# see README's known issues). Then each report runs RUNS times (default 3) under /usr/bin/time:
# median wall time, median CPU time (perf stat's task-clock, children included: perf's
# addr2line; RUNS more runs), largest peak RSS, ratio ringprof/perf, for the flat -s srcline table and
# -s sym,srcline. The top lines of both are printed side by side as a sanity check.
# ringprof reads compressed debug files (libc6-dbg's) through its cache of inflated copies, here
# one of its own in the temp dir: the first report, which writes the copies, is timed apart
# (cold), the RUNS after it find them (warm), and -s srcline --no-debug-cache is timed too.
# Environment: RUNS, RATE, RP_BUILD (build dir), COMM (the command whose samples count, default
# CMD's name), KEEP=1 keeps the temp dir.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-3}
RATE=${RATE:-999}
SECS=${1:-10}
[ $# -gt 0 ] && shift
BENCH=srcline-bench
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh" # die, measure

if [ -n "${RP_BUILD:-}" ]; then B=$RP_BUILD
elif [ -x "$ROOT/build/ringprof" ]; then B=$ROOT/build
else die "no ringprof binary: build first (cd build && make -j2) or set RP_BUILD"
fi
[ "$(id -u)" = 0 ] || die "needs root (perf record of ringprof record)"
perf version >/dev/null 2>&1 || die "perf is not installed (apt-get install linux-perf)"
[ -x /usr/bin/time ] || die "/usr/bin/time is not installed (apt-get install time)"
[[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -gt 0 ] || die "SECONDS must be a positive integer, got '$SECS'"

T=$(mktemp -d "${TMPDIR:-/tmp}/rp-srcline-bench.XXXXXX")
trap 'if [ -n "${KEEP:-}" ]; then echo "kept: $T"; else rm -rf "$T"; fi' EXIT
mkdir "$T/bin"
cp "$B/ringprof" "$B/ringprof-record" "$B/ringprof-report" "$B/ringprof-unwind" "$T/bin/"
cp "$B/tests/workload/rp-workload" "$B/tests/workload/librp-worklib.so" "$T/bin/"
RP=$T/bin/ringprof
if [ $# -gt 0 ]; then CMD=("$@"); else CMD=("$T/bin/rp-workload" -q -d "$SECS"); fi
rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$ROOT" status --porcelain -uno 2>/dev/null)" ] || rev="$rev + local changes"

echo "== machine: $(nproc) CPUs, $(uname -r), $(perf version 2>&1), ringprof commit $rev"
echo "  load $(cut -d' ' -f1-3 /proc/loadavg) before the run"
cd "$T"
echo "== record: perf record of ringprof record -- ${CMD[*]}"
perf record -q --buildid-mmap -e cpu-clock -F "$RATE" -g -o perf.data -- \
	"$RP" record -q -e cpu-clock -F "$RATE" -g -o rp.data -- "${CMD[@]}" >record.log 2>&1 ||
	{ cat record.log >&2; die "recording failed"; }
comm=${COMM:-$(basename "${CMD[0]}" | cut -c1-15)}
rp_n=$("$RP" report -i rp.data --comm "$comm" --no-children -s sym | sed -n 's/^# samples: \([0-9]*\).*/\1/p')
echo "  ringprof: $rp_n samples of $comm"
echo

export XDG_CACHE_HOME=$T/xdg
echo "== the first report, writing the debug cache (cold, one run)"
cold_t0=$EPOCHREALTIME
perf stat -x, -e task-clock -o cold.stat -- "$RP" report -i rp.data --no-pager --no-children \
	-s srcline --comm "$comm" >cold.out 2>&1 || die "cold report failed"
cold_t1=$EPOCHREALTIME
cold_s=$(awk -v a="$cold_t0" -v b="$cold_t1" 'BEGIN { printf "%.3f", b - a }')
cold_cpu=$(awk -F, '$3 ~ /^task-clock/ { printf "%.4f", $1 / 1000 }' cold.stat)
echo "  wall $cold_s s, CPU $cold_cpu s; cached: $(du -sh "$XDG_CACHE_HOME" 2>/dev/null | cut -f1 || echo nothing)"
echo

echo "== report ($RUNS runs each, stdout to a file; median wall time, max peak RSS)"
declare -A S K C
CMDS=(
	"nocache_ringprof|$RP report -i rp.data --no-pager --no-children -s srcline --comm $comm --no-debug-cache"
	"srcline_ringprof|$RP report -i rp.data --no-pager --no-children -s srcline --comm $comm"
	"srcline_perf|perf report -i perf.data --stdio --no-children -g none -s srcline --comms $comm"
	"symline_ringprof|$RP report -i rp.data --no-pager --no-children -s sym,srcline --comm $comm"
	"symline_perf|perf report -i perf.data --stdio --no-children -g none -s sym,srcline --comms $comm"
)
for c in "${CMDS[@]}"; do
	name=${c%%|*} cmd=${c#*|}
	echo "  \$ $cmd > /dev/null"
	read -ra argv <<<"$cmd"
	measure "$name" "${argv[@]}"
	cpu_median "$name" "${argv[@]}"
	S[$name]=$med_s K[$name]=$max_kb C[$name]=$med_cpu
	echo "  $name: median CPU time $med_cpu s"
done
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }'; }
echo "== results ($RATE Hz, $SECS s)"
printf '  %-24s %12s %12s %10s\n' report ringprof perf ratio
for k in srcline symline; do
	printf '  %-24s %10.2f s %10.2f s %9sx\n' "-s ${k/symline/sym,srcline}: time" \
		"${S[${k}_ringprof]}" "${S[${k}_perf]}" "$(ratio "${S[${k}_ringprof]}" "${S[${k}_perf]}")"
	printf '  %-24s %10.4f s %10.4f s %9sx\n' "-s ${k/symline/sym,srcline}: CPU" \
		"${C[${k}_ringprof]}" "${C[${k}_perf]}" "$(ratio "${C[${k}_ringprof]}" "${C[${k}_perf]}")"
	printf '  %-24s %9d KB %9d KB %9sx\n' "-s ${k/symline/sym,srcline}: peak RSS" \
		"${K[${k}_ringprof]}" "${K[${k}_perf]}" "$(ratio "${K[${k}_ringprof]}" "${K[${k}_perf]}")"
done
printf '  %-24s %10.2f s %10s   %9sx\n' "-s srcline: cold, time" "$cold_s" "" \
	"$(ratio "$cold_s" "${S[srcline_perf]}")"
printf '  %-24s %10.4f s %10s   %9sx\n' "-s srcline: cold, CPU" "$cold_cpu" "" \
	"$(ratio "$cold_cpu" "${C[srcline_perf]}")"
printf '  %-24s %10.4f s %10s   %9sx\n' "--no-debug-cache: CPU" "${C[nocache_ringprof]}" "" \
	"$(ratio "${C[nocache_ringprof]}" "${C[srcline_perf]}")"
echo
echo "== top lines (ringprof | perf, shares of all samples of $comm for ringprof, of all for perf)"
paste <(awk '$1 ~ /%$/ { print $1, $2 }' srcline_ringprof.out | head -5) \
	<(awk '$1 ~ /%$/ { print $1, $2 }' srcline_perf.out | head -5) | sed 's/^/  /'
