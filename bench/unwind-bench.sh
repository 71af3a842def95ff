#!/bin/bash
# unwind-bench.sh — dwarf call graphs: `ringprof record --call-graph dwarf` against
# `perf record --call-graph dwarf` (plus the `perf report` that does perf's unwinding) and
# against `ringprof record --call-graph fp`, side by side, system-wide, on busy CPUs.
#
# Usage: bash bench/unwind-bench.sh [SECONDS]      (as root, after the build; default 10 per rate)
#
# For each rate of RATES (999 and 4000 Hz per CPU) one `rp-unwind qsort` per CPU keeps every CPU
# busy (tests/workload/rp-unwind.c: -O2, no frame pointers, a qsort callback through libc) and
# three recorders run system-wide over the same window (-a -e cpu-clock, the same rate):
# ringprof --call-graph dwarf, ringprof --call-graph fp (ringprof's events first) and perf
# record --call-graph dwarf (perf's default 8 KB stack copy). Then `perf report` reads perf's
# recording with its call graph (perf unwinds the stack copies there) and is timed too.
# Per tool and as ratios: samples, recorder CPU (user+sys, getrusage via bash's time; perf: record
# + report), CPU per sample, file size, bytes per sample, lost samples.
# Targets (issue 11): bytes/sample <= 0.01x perf dwarf and <= 1.5x ringprof fp; recorder CPU per
# sample <= 0.2x perf's record + report; no lost samples at 4 kHz on all CPUs (default rings).
# kernel.perf_event_max_sample_rate is raised to MAX_RATE and perf_cpu_time_max_percent set to 0
# for the run, both restored on exit (bench/lib.sh).
# Environment: RATES (default "999 4000"), MAX_RATE (default 5000), RP_BUILD, KEEP=1 (keep the
# recordings and logs), WITHOUT_DWARF=1: run without ringprof's dwarf recorder (before ringprof
# has --call-graph dwarf; the perf and ringprof fp halves only).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=unwind-bench
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
SECS=${1:-10}
RATES=${RATES:-999 4000}
MAX_RATE=${MAX_RATE:-5000}
WITHOUT_DWARF=${WITHOUT_DWARF:-0}

check_rates
bench_init time
[ -x "$B/tests/workload/rp-unwind" ] || die "$B/tests/workload/rp-unwind missing: run 'make' (it builds the workloads)"
cp "$B/tests/workload/rp-unwind" "$T/bin/"
UW=$T/bin/rp-unwind

# The interface assumed (issue 11): ringprof record --call-graph fp|dwarf[,SIZE]
# (The help read whole first: grep -q may stop reading it, and pipefail would count that.)
if grep -q -- '--call-graph.*dwarf' <<<"$("$RP" record --help 2>&1)"; then
	NAMES=(rpd rpf perf)
	[ "$WITHOUT_DWARF" = 0 ] || NAMES=(rpf perf)
elif [ "$WITHOUT_DWARF" != 0 ]; then
	NAMES=(rpf perf)
else
	die "ringprof record does not know --call-graph dwarf (not in 'ringprof record --help'): build the" \
		"dwarf recorder first, or run WITHOUT_DWARF=1 for the perf and frame-pointer halves"
fi
if "$RP" record --call-graph fp --help >/dev/null 2>&1; then FP_OPT=(--call-graph fp)
else FP_OPT=(-g) # before issue 11: -g/--call-graph took no argument
fi
has() { [[ " ${NAMES[*]} " == *" $1 "* ]]; }

echo "### Machine"
echo
machine_md "$MAX_RATE"
echo "| workload | $NCPU x rp-unwind qsort (tests/workload, -O2 without frame pointers, one per CPU) |"
echo "| plan | $SECS s per rate, rates $RATES Hz per CPU, recorders side by side: ${NAMES[*]} |"
echo

sysctl_raise "$MAX_RATE"

uw_load_start() { # uw_load_start SECONDS: one rp-unwind qsort per CPU
	local i
	for ((i = 0; i < NCPU; i++)); do
		"$UW" qsort "$1" >/dev/null 2>&1 &
		LOADP+=($!)
	done
	BG+=("${LOADP[@]}")
}
rec_cmd() { # rec_cmd NAME RATE: the recorder's command line
	case $1 in
	rpd) echo "$RP record -a --call-graph dwarf -e cpu-clock -F $2 -o rpd.data -d $SECS" ;;
	rpf) echo "$RP record -a ${FP_OPT[*]} -e cpu-clock -F $2 -o rpf.data -d $SECS" ;;
	perf) echo "perf record -a --call-graph dwarf -e cpu-clock -F $2 -o perf.data -- sleep $SECS" ;;
	esac
}
# side_by_side RATE: 0; 2 when perf aborted in util/build-id.c (to be retried)
side_by_side() {
	local rate=$1 n rc=0 argv
	rm -f ./*.data ./*.log ./*.time
	uw_load_start $((SECS + 10))
	sleep 1
	for n in "${NAMES[@]}"; do
		read -ra argv <<<"$(rec_cmd "$n" "$rate")"
		timed "$n" "${argv[@]}"
		# ringprof's events first, perf's after them (bench/lib.sh says why)
		[ "$n" = perf ] || wait_events "${PID[$n]}"
	done
	for n in "${NAMES[@]}"; do
		wait "${SUB[$n]}" || { [ "$n" = perf ] || { tail -5 "$n.log" >&2; die "$n: ringprof record failed"; }; rc=1; }
	done
	load_stop
	[ "$rc" = 0 ] && return 0
	perf_aborted perf.log && return 2
	tail -5 perf.log >&2
	die "perf record failed"
}

declare -A R # R[RATE,TOOL,FIELD]
stats() {
	local key=$1 n v sa lo
	perf report -i perf.data --stats >perf.stats 2>/dev/null
	read -r sa lo < <(awk '
		/^Aggregated stats:/ { sec = "all"; next }
		/ stats:$/ { sec = $1; next }
		$2 != "events:" { next }
		sec == "all" && $1 == "SAMPLE" { s = $3 }
		sec == "cpu-clock" && $1 == "LOST_SAMPLES" { l += $3 }
		END { print s + 0, l + 0 }' perf.stats)
	[ "$sa" -gt 0 ] || die "no samples in $PWD/perf.data"
	R[$key,perf,samples]=$sa R[$key,perf,lost]=$lo
	# perf's unwinding happens here: the call-graph report, timed like the recorders
	rc=0
	# (perf 6.1's report can hang on one of its addr2line children, waiting for an answer that
	# never comes: it is killed after PERF_REPORT_MAX s, and its CPU time is then a lower bound.)
	/usr/bin/time -o perf-report.time -f '%e %U %S' timeout -s KILL "${PERF_REPORT_MAX:-300}" \
		perf report -i perf.data --stdio --no-children -g caller --percent-limit 1 \
		>perf-report.out 2>perf-report.err || rc=$?
	if [ "$rc" = 137 ]; then
		echo "  perf report killed after ${PERF_REPORT_MAX:-300} s (hung): its CPU below is a lower bound" >&2
		pkill -f 'addr2line -e .*/.debug/' 2>/dev/null || true
	elif [ "$rc" != 0 ]; then
		tail -5 perf-report.err >&2
		die "perf report failed"
	fi
	read -r _ u s <perf-report.time
	R[$key,perf,rcpu]=$(calc "print $u + $s")
	for n in "${NAMES[@]}"; do
		R[$key,$n,bytes]=$(stat -c %s "$n.data")
		read -r _ u s <"$n.time"
		R[$key,$n,cpu]=$(calc "print $u + $s")
		[ "$n" != perf ] || continue
		R[$key,$n,rcpu]=0
		"$RP" report -i "$n.data" --stats >"$n.stats"
		R[$key,$n,samples]=$(awk '$1 == "samples" { print $2; exit }' "$n.stats")
		R[$key,$n,lost]=$(awk '$1 == "lost" { print $2; exit }' "$n.stats")
		for v in samples lost; do
			[[ "${R[$key,$n,$v]}" =~ ^[0-9]+$ ]] || die "could not read '$v' from ringprof report --stats ($PWD/$n.stats)"
		done
	done
}
show_logs() {
	local n
	# ringprof's dwarf figures mean something only with its table builder at hand.
	if has rpd && grep -q 'unwind-table helper' rpd.log; then
		grep 'unwind-table helper' rpd.log >&2
		die "ringprof's dwarf recorder ran without its unwind-table helper (ringprof-unwind)"
	fi
	for n in "${NAMES[@]}"; do grep -h -E '^\[ (ringprof record|user stacks|perf record: Captured)' "$n.log" | sed "s/^/  $n: /" || true; done
	grep -h -v -E '^\[ perf record: (Woken|Captured)|^$' perf.log | sed 's/^/  perf: /' || true
	echo "  perf report (call graph, unwinds the copies): $(cat perf-report.time) (wall, user, sys s)"
}

cd "$T"
for rate in $RATES; do
	mkdir "$T/$rate"
	cd "$T/$rate"
	echo "== $rate Hz per CPU, $SECS s, side by side (${NAMES[*]}), $NCPU x rp-unwind qsort"
	for try in 1 2 3; do
		rc=0
		side_by_side "$rate" || rc=$?
		[ "$rc" = 0 ] && break
		echo "  try $try: perf record aborted in util/build-id.c (a recorder asking the kernel for build-ids started?)"
		[ "$try" -lt 3 ] || die "perf record failed 3 times; run on a quieter machine"
	done
	stats "$rate"
	show_logs
	[ -n "${KEEP:-}" ] || rm -f perf.data # GBs at 4 kHz
	echo
done
cd "$T"
sysctl_restore
echo

# val KEY TOOL EXPR: EXPR (awk, over samples lost bytes cpu rcpu) for one tool, or "" if not run
val() {
	has "$2" || { echo ""; return; }
	awk -v samples="${R[$1,$2,samples]}" -v lost="${R[$1,$2,lost]}" -v bytes="${R[$1,$2,bytes]}" \
		-v cpu="${R[$1,$2,cpu]}" -v rcpu="${R[$1,$2,rcpu]}" "BEGIN { printf \"%.6f\", $3 }"
}
# row LABEL FORMAT EXPR [TARGET]: TARGET "perf:X" (ringprof dwarf <= X times perf), "fp:X"
# (<= X times ringprof fp), "zero" (ringprof dwarf's value must be 0), "-" (no ratios)
row() {
	local label=$1 fmt=$2 expr=$3 target=${4:-}
	awk -v label="$label" -v fmt="$fmt" -v target="$target" -v a="$(val "$key" rpd "$expr")" \
		-v f="$(val "$key" rpf "$expr")" -v p="$(val "$key" perf "$expr")" '
	function show(x) { return x == "" ? "-" : sprintf(fmt, x) }
	function ratio(x, y) { return (x == "" || y == "" || y <= 0 || target == "-" || target == "zero") ? "" : sprintf("%.4fx", x / y) }
	BEGIN {
		t = ""
		if (target ~ /^(perf|fp):/) {
			lim = substr(target, index(target, ":") + 1) + 0; y = (target ~ /^perf/) ? p : f
			t = sprintf("<= %sx %s: %s", lim, (target ~ /^perf/) ? "perf" : "rp fp",
				(a == "" || y == "") ? "not measured" : (y > 0 && a / y <= lim) ? "met" : "**missed**")
		} else if (target == "zero")
			t = sprintf("0: %s", a == "" ? "not measured" : (a == 0) ? "met" : "**missed**")
		printf "| %s | %s | %s | %s | %s | %s | %s |\n", label, show(a), show(f), ratio(a, f), show(p), ratio(a, p), t
	}'
}
echo "### Result"
echo
echo "System-wide (-a -e cpu-clock), $NCPU x rp-unwind qsort busy on all $NCPU CPUs, $SECS s per rate, the"
echo "recorders side by side; ratios are ringprof dwarf / the other tool. perf's CPU = record + report."
echo
echo "| measure | ringprof dwarf | ringprof fp | ratio vs fp | perf dwarf | ratio vs perf | target |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
for rate in $RATES; do
	key=$rate h="$rate Hz"
	row "$h: samples" "%.0f" "samples" -
	row "$h: recorder CPU (user+sys)" "%.3f s" "cpu" -
	row "$h: report CPU (perf: the unwinding)" "%.3f s" "rcpu" -
	row "**$h: CPU per sample (record + report)**" "%.2f us" "(cpu + rcpu) * 1e6 / samples" perf:0.2
	row "$h: file size" "%.2f MB" "bytes / 1e6" -
	row "**$h: bytes per sample**" "%.1f B" "bytes / samples" perf:0.01
	row "**$h: bytes per sample vs fp**" "%.1f B" "bytes / samples" fp:1.5
	if [ "$rate" -ge 4000 ]; then row "**$h: lost samples**" "%.0f" "lost" zero
	else row "$h: lost samples" "%.0f" "lost" -
	fi
	row "$h: lost share" "%.3f %%" "100 * lost / (samples + lost)" -
done
echo
echo "Commands (RATE in $RATES; ringprof's recorders started first, perf as soon as their events exist):"
echo
echo "    rp-unwind qsort $((SECS + 10))   # one per CPU"
for n in "${NAMES[@]}"; do echo "    $(rec_cmd "$n" RATE | sed "s|$T/bin/||")"; done
echo "    perf report -i perf.data --stdio --no-children -g caller --percent-limit 1   # timed, added to perf's CPU"
echo "    ringprof report -i FILE --stats; perf report -i perf.data --stats"
echo
echo "### Unwind tables: build time and size per binary"
echo
echo "\`ringprof-unwind --build FILE\` (the helper's builder, here run directly), best of 5 runs:"
echo
echo "| binary | FDEs | table rows | rules | table size | build time |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for f in /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/bin/python3.11; do
	[ -f "$f" ] || continue
	for _ in 1 2 3 4 5; do "$B/ringprof-unwind" --build "$f"; done | awk -v f="$(basename "$f")" '
		$1 == "fdes" { fdes = $2 } $1 == "rows" { rows = $2 } $1 == "rules" { rules = $2 }
		$1 == "bytes" { bytes = $2 } $1 == "build-ms" { if (best == "" || $2 < best) best = $2 }
		END { printf "| %s | %d | %d | %d | %.0f KiB | %.1f ms |\n", f, fdes, rows, rules, bytes / 1024, best }'
done
