#!/bin/bash
# report-growth.sh — how `ringprof report` and `perf report --stdio` wall time and peak RSS grow from ~1 M to ~5 M samples.
#
# Usage: bash bench/report-growth.sh [SECONDS]      (as root, after the build)
#
# Both profilers record side by side (system-wide, cpu-clock, callchains, RATE Hz, default
# 20000: 5 M samples in ~2 min on 2 CPUs) while one rp-workload per CPU keeps every CPU busy;
# ringprof's events are opened first (see lib.sh). Then, for each size of SIZES (default ~1 M,
# ~2.5 M, ~5 M samples), the call-graph report (`ringprof report -g caller` vs
# `perf report --stdio -g caller`) and the flat report (`ringprof report --no-children` vs
# `perf report --stdio --no-children -g none`) run RUNS times each under /usr/bin/time: median
# wall time, largest peak RSS, ratio ringprof/perf per size, and the growth from the smallest
# size to the largest for each tool.
# MODE=windows (default): one long recording per tool, reports restricted to the time window
#   from its start holding the size (ringprof `--until +SECS`, perf `--time FIRST,FIRST+SECS`
#   from perf's "time of first sample"). ringprof skips the frames after the window; perf reads
#   and parses the whole file whatever the window, so its small windows cost more than a
#   recording of that size would.
# MODE=lengths: one recording per size and tool (longer: 1 + 2.5 + 5 M samples), whole files.
# SECONDS (windows mode: the one recording) defaults to what holds the largest size with 10 %
# margin. kernel.perf_event_max_sample_rate is raised to RATE (and perf_cpu_time_max_percent set
# to 0) for the recording, both restored afterwards.
# Environment: MODE, SIZES (samples, default "1000000 2500000 5000000"), RATE (default 20000),
# RUNS (default 3), RP_BUILD (build dir, default build/ or the source tree), KEEP=1 keeps the
# temp dir (recordings, report outputs, logs). The whole run takes 10-15 min with RUNS=3
# (perf's call graph on 5 M samples is the long part); RUNS=1 for a first look.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=report-growth
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
MODE=${MODE:-windows}
SIZES=${SIZES:-1000000 2500000 5000000}
RATE=${RATE:-20000}
RUNS=${RUNS:-3}
LOAD=workload

case $MODE in windows | lengths) ;; *) die "MODE must be windows or lengths, got '$MODE'" ;; esac
{ [[ "$RATE" =~ ^[0-9]+$ ]] && [ "$RATE" -gt 0 ]; } || die "RATE must be a positive integer, got '$RATE'"
{ [[ "$RUNS" =~ ^[0-9]+$ ]] && [ "$RUNS" -gt 0 ]; } || die "RUNS must be a positive integer, got '$RUNS'"
prev=0
for n in $SIZES; do
	{ [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -gt "$prev" ]; } || die "SIZES must be increasing positive integers, got '$SIZES'"
	prev=$n
done
read -ra SZ <<<"$SIZES"
[ ${#SZ[@]} -ge 2 ] || die "SIZES needs at least two sizes"
bench_init time
# seconds_for N: recording length for N samples at RATE on every CPU, 10 % margin
seconds_for() { calc "s = $1 * 1.1 / ($NCPU * $RATE); print (s == int(s)) ? s : int(s) + 1"; }
SECS=${1:-$(seconds_for "${SZ[-1]}")}
{ [[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -gt 0 ]; } || die "SECONDS must be a positive integer, got '$SECS'"

# ---- machine ------------------------------------------------------------------------------
label() { calc "n = $1; if (n >= 1e6) printf \"%g M\", n / 1e6; else printf \"%g k\", n / 1e3"; }
echo "### Machine"
echo
machine_md "$RATE"
echo "| workload | $(load_desc) on every CPU while recording |"
if [ "$MODE" = windows ]; then
	echo "| plan | one recording per tool, $RATE Hz x $NCPU CPUs x $SECS s; windows of$(for n in "${SZ[@]}"; do printf ' %s,' "$(label "$n")"; done | sed 's/,$//') samples; RUNS=$RUNS per report |"
else
	echo "| plan | one recording per size and tool,$(for n in "${SZ[@]}"; do printf ' %s (%s s),' "$(label "$n")" "$(seconds_for "$n")"; done | sed 's/,$//') at $RATE Hz x $NCPU CPUs; RUNS=$RUNS per report |"
fi
echo

# ---- record -------------------------------------------------------------------------------
# record_pair SECONDS: ringprof and perf side by side into rp.data and perf.data; retried when
# perf aborts in util/build-id.c (a recorder asking the kernel for build-ids started during the
# window).
record_pair() {
	local secs=$1 try rc n
	for try in 1 2 3; do
		rm -f rp.data perf.data
		load_start $((secs + 6))
		sleep 1
		timed rp "$RP" record -a -g -e cpu-clock -F "$RATE" -o rp.data -d "$secs"
		wait_events "${PID[rp]}"
		timed perf perf record -a -g -e cpu-clock -F "$RATE" -o perf.data -- sleep "$secs"
		wait "${SUB[rp]}" || { cat rp.log >&2; die "ringprof record failed"; }
		rc=0
		wait "${SUB[perf]}" || rc=$?
		load_stop
		[ "$rc" = 0 ] && break
		perf_aborted perf.log || { tail -5 perf.log >&2; die "perf record failed"; }
		echo "  try $try: perf record aborted in util/build-id.c (a recorder asking the kernel for build-ids started?)"
		[ "$try" -lt 3 ] || die "perf record failed 3 times; run on a quieter machine"
	done
	for n in rp perf; do grep -h -E '^\[ (ringprof record|perf record: Captured)' "$n.log" | sed 's/^/  /' || true; done
	grep -h -v -E '^\[ (ringprof record|perf record: (Woken|Captured))|^$' rp.log perf.log | sed 's/^/  note: /' || true
}
rp_samples() { "$RP" report -i "$1" --stats | awk '$1 == "samples" { print $2; exit }'; }
perf_samples() { perf report -i "$1" --stats 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }'; }

sysctl_raise "$RATE"
cd "$T"
declare -A DIR RPW PW # per size: directory, ringprof window args, perf window args
if [ "$MODE" = windows ]; then
	echo "== record: $RATE Hz x $NCPU CPUs x $SECS s, side by side (ringprof's events first)"
	record_pair "$SECS"
	rp_all=$(rp_samples rp.data)
	perf_all=$(perf_samples perf.data)
	rp_dur=$("$RP" report -i rp.data --stats | awk '$1 == "duration" { print $2; exit }')
	perf_first=$(perf report -i perf.data --header-only 2>/dev/null | awk '/time of first sample/ { print $NF }')
	perf_last=$(perf report -i perf.data --header-only 2>/dev/null | awk '/time of last sample/ { print $NF }')
	[[ "$perf_first" =~ ^[0-9]+\.[0-9]+$ ]] || die "no 'time of first sample' in perf.data's header"
	echo "  ringprof: $rp_all samples in $rp_dur s; perf: $perf_all samples in $(calc "printf \"%.3f\", $perf_last - $perf_first") s"
	for n in "${SZ[@]}"; do
		DIR[$n]=$T
		# window lengths at each tool's own sample rate over its recording
		w=$(calc "printf \"%.3f\", $n * $rp_dur / $rp_all")
		RPW[$n]="--until +$w"
		w=$(calc "printf \"%.6f\", $n * ($perf_last - $perf_first) / $perf_all")
		PW[$n]="--time $perf_first,$(calc "printf \"%.6f\", $perf_first + $w")"
		{ [ "$n" -le "$rp_all" ] && [ "$n" -le "$perf_all" ]; } ||
			echo "  WARNING: $n samples is more than a recording holds (ringprof $rp_all, perf $perf_all): the window is the whole file"
	done
else
	for n in "${SZ[@]}"; do
		s=$(seconds_for "$n")
		mkdir "$T/$n"
		cd "$T/$n"
		echo "== record for $(label "$n"): $RATE Hz x $NCPU CPUs x $s s, side by side (ringprof's events first)"
		record_pair "$s"
		DIR[$n]=$T/$n RPW[$n]="" PW[$n]=""
		cd "$T"
	done
fi
sysctl_restore
echo

# ---- report -------------------------------------------------------------------------------
declare -A S K N # S/K[size,name]: median s, peak KB; N[size,tool]: samples in the window
echo "== report (RUNS=$RUNS each, stdout to a file; median wall time, max peak RSS)"
for n in "${SZ[@]}"; do
	cd "${DIR[$n]}"
	echo "  -- $(label "$n") samples"
	read -ra rpw <<<"${RPW[$n]}"
	read -ra pw <<<"${PW[$n]}"
	for c in \
		"graph_ringprof|$RP report -i rp.data -g caller" \
		"graph_perf|perf report -i perf.data --stdio -g caller" \
		"flat_ringprof|$RP report -i rp.data --no-children" \
		"flat_perf|perf report -i perf.data --stdio --no-children -g none"; do
		name=${c%%|*}
		read -ra argv <<<"${c#*|}"
		if [ "${name#*_}" = ringprof ]; then argv+=("${rpw[@]}"); else argv+=("${pw[@]}"); fi
		echo "  \$ ${argv[*]} > $name-$n.out"
		measure "$name-$n" "${argv[@]}"
		S[$n,$name]=$med_s K[$n,$name]=$max_kb
	done
	# samples in the window: ringprof's report header; perf's per-CPU counts (-n, not timed)
	N[$n,rp]=$(awk '/^# samples:/ { gsub(",", "", $3); print $3; exit }' "flat_ringprof-$n.out")
	N[$n,perf]=$(perf report -i perf.data "${pw[@]}" --stdio -g none --sort cpu -n 2>/dev/null |
		awk '!/^#/ && NF >= 4 { s += $3 } END { print s + 0 }')
	echo "      samples: ringprof ${N[$n,rp]}, perf ${N[$n,perf]}"
done
echo

# ---- table --------------------------------------------------------------------------------
# line LABEL FORMAT EXPR: one row over the sizes, then the growth (last / first); EXPR is an awk
# expression of a (ringprof's figure) and b (perf's), given as "rpKEY perfKEY" pairs below.
first=${SZ[0]} last=${SZ[-1]}
line() {
	local label=$1 fmt=$2 expr=$3 src=$4 n a b cells="" v f l
	for n in "${SZ[@]}"; do
		a=$(val "$n" "${src% *}") b=$(val "$n" "${src#* }")
		v=$(calc "a = $a; b = $b; printf \"$fmt\", $expr")
		cells+=" $v |"
		[ "$n" != "$first" ] || f=$(calc "a = $a; b = $b; print $expr")
		[ "$n" != "$last" ] || l=$(calc "a = $a; b = $b; print $expr")
	done
	echo "| $label |$cells $(calc "printf \"%.2fx\", ($f > 0) ? $l / $f : 0") |"
}
# val SIZE KEY: S:name (seconds), K:name (KB), N:tool (samples)
val() {
	case $2 in
	S:*) echo "${S[$1,${2#S:}]}" ;;
	K:*) echo "${K[$1,${2#K:}]}" ;;
	N:*) echo "${N[$1,${2#N:}]}" ;;
	esac
}
echo "### Result"
echo
echo "MODE=$MODE, $RATE Hz x $NCPU CPUs, $(load_desc) while recording; median of RUNS=$RUNS, largest peak RSS;"
echo "growth = figure at the largest size / figure at the smallest; ratio = ringprof / perf."
echo
printf '| measure |'
for n in "${SZ[@]}"; do printf ' ~%s |' "$(label "$n")"; done
printf ' growth %s / %s |\n' "$(label "$last")" "$(label "$first")"
printf '| --- |'
for _ in "${SZ[@]}"; do printf ' ---: |'; done
printf ' ---: |\n'
line "samples, ringprof" "%.0f" "a" "N:rp N:perf"
line "samples, perf" "%.0f" "b" "N:rp N:perf"
for r in graph flat; do
	if [ $r = graph ]; then t="call graph (-g caller)"; else t="flat (--no-children)"; fi
	line "$t: time, ringprof" "%.2f s" "a" "S:${r}_ringprof S:${r}_perf"
	line "$t: time, perf" "%.2f s" "b" "S:${r}_ringprof S:${r}_perf"
	line "**$t: time ratio**" "%.3fx" "(b > 0) ? a / b : 0" "S:${r}_ringprof S:${r}_perf"
	line "$t: peak RSS, ringprof" "%.0f MB" "a / 1024" "K:${r}_ringprof K:${r}_perf"
	line "$t: peak RSS, perf" "%.0f MB" "b / 1024" "K:${r}_ringprof K:${r}_perf"
	line "**$t: RSS ratio**" "%.3fx" "(b > 0) ? a / b : 0" "K:${r}_ringprof K:${r}_perf"
done
echo
echo "Commands (MODE=$MODE):"
echo
echo "    rp-workload -q -d SECS+6   # one per CPU, while recording"
if [ "$MODE" = windows ]; then
	echo "    ringprof record -a -g -e cpu-clock -F $RATE -o rp.data -d $SECS"
	echo "    perf record -a -g -e cpu-clock -F $RATE -o perf.data -- sleep $SECS"
	for n in "${SZ[@]}"; do echo "    # ~$(label "$n"): ringprof report ${RPW[$n]}; perf report ${PW[$n]}"; done
else
	echo "    ringprof record -a -g -e cpu-clock -F $RATE -o rp.data -d SECS   # SECS per size:$(for n in "${SZ[@]}"; do printf ' %s' "$(seconds_for "$n")"; done)"
	echo "    perf record -a -g -e cpu-clock -F $RATE -o perf.data -- sleep SECS"
fi
echo "    ringprof report -i rp.data -g caller;      perf report -i perf.data --stdio -g caller"
echo "    ringprof report -i rp.data --no-children;  perf report -i perf.data --stdio --no-children -g none"
