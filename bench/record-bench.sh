#!/bin/bash
# record-bench.sh — the recorder's own CPU time per sample, bytes on disk per sample and lost samples: ringprof record vs perf record -z and perf record, side by side.
#
# Usage: bash bench/record-bench.sh [SECONDS]      (as root, after the build; default 20 per rate)
#
# For each rate (999 Hz and 20000 Hz per CPU by default) every CPU is kept busy (one rp-workload
# per CPU, or stress-ng --cpu N) and three recorders run system-wide over the same window, with
# callchains, cpu-clock and the same rate: `ringprof record -d SECS`, `perf record -z` and
# `perf record`, both `-- sleep SECS`. ringprof's events are opened first (a precaution against
# recorders that ask the kernel for build-ids, see lib.sh). Each recorder runs under bash's
# `time` (getrusage: user + sys of the recorder and what it waited for, perf's `sleep` included;
# ms resolution); the load is not counted. Samples, lost and throttled counts come from `ringprof report --stats` and
# `perf report --stats`; bytes per sample is the file size over the samples. For information:
# a steady-state CPU figure (per-thread schedstat over the middle of the window: start-up and
# the end of the run left out) and the size of each tool's fixed file head (a 0.3 s recording).
# Targets (issue): bytes/sample <= 0.5x perf -z; recorder CPU/sample <= 1.0x perf -z; no lost
# samples at 20 kHz with ringprof's default ring (no -m).
# Then, at the highest rate, each recorder alone under the same load, one after the other (lost
# samples and CPU without the other recorders competing; ALONE=0 skips it).
# 20 kHz needs the kernel's consent: kernel.perf_event_max_sample_rate is raised to MAX_RATE and
# kernel.perf_cpu_time_max_percent set to 0 for the run; both are restored on exit.
# Environment: RATES (default "999 20000"), LOAD (workload or stress-ng; default workload),
# MAX_RATE (default 25000), ALONE (default 1), RP_BUILD (build dir, default build/ or the
# source tree), KEEP=1 keeps the temp dir (recordings, logs, stats).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=record-bench
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
SECS=${1:-20}
RATES=${RATES:-999 20000}
MAX_RATE=${MAX_RATE:-25000}
LOAD=${LOAD:-workload}
ALONE=${ALONE:-1}

check_rates
case $LOAD in workload) bench_init ;; stress-ng) bench_init stress-ng ;; *) die "LOAD must be workload or stress-ng, got '$LOAD'" ;; esac

if [ "$LOAD" = stress-ng ]; then LOAD_CMD="stress-ng --cpu $NCPU --timeout $((SECS + 15))s --quiet"
else LOAD_CMD="rp-workload -q -d $((SECS + 15))   # one per CPU"
fi
echo "### Machine"
echo
machine_md "$MAX_RATE"
echo "| workload | $(load_desc) on every CPU for the whole window |"
echo "| plan | $SECS s per rate, rates $RATES Hz per CPU, 3 recorders side by side |"
echo

sysctl_raise "$MAX_RATE"

# ---- fixed head of each file: a 0.3 s idle recording by each tool, one after the other -----
# (ringprof: header, /proc processes and the kernel symbol table; perf: synthesized
# processes, features, and without -z the build-id table. Shown for information.)
cd "$T"
mkdir head
"$RP" record -q -a -g -e cpu-clock -F 999 -o head/rp.data -d 0.3
perf record -q -a -g -e cpu-clock -F 999 -z -o head/perf-z.data -- sleep 0.3 >/dev/null 2>&1
perf record -q -a -g -e cpu-clock -F 999 -o head/perf.data -- sleep 0.3 >/dev/null 2>&1
declare -A HEAD=([rp]=$(stat -c %s head/rp.data) [pz]=$(stat -c %s head/perf-z.data) [pp]=$(stat -c %s head/perf.data))

# ---- side by side: the three recorders over the same window --------------------------------
declare -A R # R[KEY,TOOL,FIELD]; KEY: the rate, or aRATE for the recorders alone; TOOL: rp pz pp
NAMES=([0]=rp [1]=perf-z [2]=perf)
declare -A TOOL_OF=([rp]=rp [perf-z]=pz [perf]=pp)
rec_cmd() { # rec_cmd NAME RATE: the recorder's command line
	case $1 in
	rp) echo "$RP record -a -g -e cpu-clock -F $2 -o rp.data -d $SECS" ;;
	perf-z) echo "perf record -a -g -e cpu-clock -F $2 -z -o perf-z.data -- sleep $SECS" ;;
	perf) echo "perf record -a -g -e cpu-clock -F $2 -o perf.data -- sleep $SECS" ;;
	esac
}
# side_by_side RATE: 0; 2 when a perf aborted in util/build-id.c (to be retried)
side_by_side() {
	local rate=$1 t0 t1 n rc=0 argv
	local -A c0 c1
	rm -f ./*.data ./*.log ./*.time
	load_start $((SECS + 15))
	sleep 1
	for n in "${NAMES[@]}"; do
		read -ra argv <<<"$(rec_cmd "$n" "$rate")"
		timed "$n" "${argv[@]}"
		# ringprof's events first, perf's after them (lib.sh says why)
		[ "$n" != rp ] || wait_events "${PID[rp]}"
	done
	# Steady state: from 1 s after the last start to about 2 s before ringprof's end.
	sleep 1
	t0=$(date +%s.%N)
	for n in "${NAMES[@]}"; do c0[$n]=$(cpu_ns "${PID[$n]}"); done
	sleep $((SECS - 4))
	t1=$(date +%s.%N)
	for n in "${NAMES[@]}"; do c1[$n]=$(cpu_ns "${PID[$n]}"); done
	R[$rate,win]=$(calc "print $t1 - $t0")
	for n in "${NAMES[@]}"; do
		R[$rate,${TOOL_OF[$n]},ss_ns]=$(calc "printf \"%.0f\", ${c1[$n]} - ${c0[$n]}")
	done
	for n in "${NAMES[@]}"; do
		wait "${SUB[$n]}" || { [ "$n" != rp ] || { cat rp.log >&2; die "ringprof record failed"; }; rc=1; }
	done
	load_stop
	[ "$rc" = 0 ] && return 0
	perf_aborted perf-z.log perf.log && return 2
	tail -5 perf-z.log perf.log >&2
	die "perf record failed"
}
# alone RATE: each recorder on its own under the same load, one after the other
alone() {
	local rate=$1 n try rc argv
	rm -f ./*.data ./*.log ./*.time
	for n in "${NAMES[@]}"; do
		for try in 1 2 3; do
			load_start $((SECS + 15))
			sleep 1
			read -ra argv <<<"$(rec_cmd "$n" "$rate")"
			timed "$n" "${argv[@]}"
			rc=0
			wait "${SUB[$n]}" || rc=$?
			load_stop
			[ "$rc" = 0 ] && break
			if [ "$n" = rp ] || ! perf_aborted "$n.log" || [ "$try" = 3 ]; then
				tail -5 "$n.log" >&2
				die "$n failed"
			fi
			echo "  $n: perf record aborted in util/build-id.c (someone else's recorder asking the kernel for build-ids?); again"
		done
	done
}

# stats KEY: fill R[KEY,*] from the three recordings and their times in the current directory
stats() {
	local key=$1 tool name v sa lo ls th u s
	for name in perf-z perf; do
		tool=${TOOL_OF[$name]}
		perf report -i "$name.data" --stats >"$name.stats" 2>/dev/null
		# Aggregated counts, then one section per event ("cpu-clock stats:", "dummy:HG stats:"):
		# LOST_SAMPLES under the sampled event are lost samples, under the others lost side-band
		# records (mmap, comm, ...).
		read -r sa lo ls th < <(awk '
			/^Aggregated stats:/ { sec = "all"; next }
			/ stats:$/ { sec = $1; next }
			$2 != "events:" { next }
			sec == "all" && $1 == "SAMPLE" { s = $3 }
			sec == "all" && $1 == "THROTTLE" { th = $3 }
			sec == "cpu-clock" && $1 == "LOST_SAMPLES" { l += $3 }
			sec != "all" && sec != "cpu-clock" && $1 == "LOST_SAMPLES" { ls += $3 }
			END { print s + 0, l + 0, ls + 0, th + 0 }' "$name.stats")
		[ "$sa" -gt 0 ] || die "no samples in $PWD/$name.data"
		R[$key,$tool,samples]=$sa R[$key,$tool,lost]=$lo R[$key,$tool,lost_side]=$ls R[$key,$tool,throttled]=$th
		R[$key,$tool,dur]=$SECS
	done
	"$RP" report -i rp.data --stats >rp.stats
	R[$key,rp,samples]=$(awk '$1 == "samples" { print $2; exit }' rp.stats)
	R[$key,rp,lost]=$(awk '$1 == "lost" { print $2; exit }' rp.stats)
	R[$key,rp,lost_side]=0
	R[$key,rp,throttled]=$(awk '$1 == "throttled" { print $2; exit }' rp.stats)
	R[$key,rp,dur]=$(awk '$1 == "duration" { print $2; exit }' rp.stats)
	R[$key,rp,event]=$(sed -n 's/^  event *//p' rp.stats)
	for v in samples lost throttled dur; do
		[[ "${R[$key,rp,$v]}" =~ ^[0-9.]+$ ]] || die "could not read '$v' from ringprof report --stats ($PWD/rp.stats)"
	done
	for name in "${NAMES[@]}"; do
		tool=${TOOL_OF[$name]}
		R[$key,$tool,bytes]=$(stat -c %s "$name.data")
		read -r _ u s <"$name.time"
		R[$key,$tool,cpu]=$(calc "print $u + $s")
	done
}
# show_logs KEY: the recorders' summaries and notes, ringprof's LOST records, who else ran
show_logs() {
	local key=$1
	grep -v '^\[ ringprof record' rp.log | sed 's/^/  ringprof: /' || true
	grep -h -E '^\[ (ringprof record|perf record: Captured)' rp.log perf-z.log perf.log | sed 's/^/  /' || true
	grep -h -v -E '^\[ perf record: (Woken|Captured)|^$' perf-z.log perf.log | sed 's/^/  perf: /' || true
	echo "  ringprof's recording: ${R[$key,rp,event]}; samples per CPU per second:" \
		"ringprof $(calc "printf \"%.0f\", ${R[$key,rp,samples]} / $NCPU / ${R[$key,rp,dur]}")," \
		"perf -z $(calc "printf \"%.0f\", ${R[$key,pz,samples]} / $NCPU / $SECS")," \
		"perf $(calc "printf \"%.0f\", ${R[$key,pp,samples]} / $NCPU / $SECS")"
	if [ "${R[$key,rp,lost]}" != 0 ]; then
		echo "  ringprof's LOST records (time after the start of its recording, CPU, count):"
		"$RP" report -i rp.data --dump | awk '$1 == "HEADER" { t0 = $2 }
			$1 == "LOST" { printf "    +%.2f s %s %s\n", $2 - t0, $3, $NF }' | head -20
	fi
	echo "  CPU share by command over ringprof's recording (all CPUs):" \
		"$("$RP" report -i rp.data --no-children --sort comm 2>/dev/null |
			awk '!/^#/ && NF == 2 && n < 10 { printf "%s%s %s", (n++ ? ", " : ""), $2, $1 }')"
}

cd "$T"
for rate in $RATES; do
	mkdir "$T/$rate"
	cd "$T/$rate"
	echo "== $rate Hz per CPU, $SECS s, side by side, $(load_desc)"
	for try in 1 2 3; do
		rc=0
		side_by_side "$rate" || rc=$?
		[ "$rc" = 0 ] && break
		echo "  try $try: perf record aborted in util/build-id.c (MMAP2 records with a bogus build-id flag:"
		echo "  a recorder asking the kernel for build-ids started during the window?)"
		[ "$try" -lt 3 ] || die "perf record failed 3 times; run on a quieter machine"
		echo "  recording again"
	done
	stats "$rate"
	show_logs "$rate"
	echo "  max rate after: $(cat $SYS/perf_event_max_sample_rate)"
	echo
done
ARATE=
for rate in $RATES; do ARATE=$rate; done # the last (highest) rate, alone
if [ "$ALONE" != 0 ]; then
	mkdir "$T/alone"
	cd "$T/alone"
	echo "== $ARATE Hz per CPU, $SECS s, each recorder alone, one after the other, $(load_desc)"
	alone "$ARATE"
	stats "a$ARATE"
	show_logs "a$ARATE"
	echo
fi
cd "$T"
sysctl_restore
echo

# ---- table --------------------------------------------------------------------------------
# row LABEL FORMAT EXPR [TARGET]: one markdown row for R[$key,*]. EXPR is an awk expression over
# a tool's samples lost lost_side throttled dur bytes cpu ss_ns win head ncpu, FORMAT its printf
# format. TARGET: empty (ratios, no target), "-" (no ratios), "ratio:X" (ringprof <= X times
# perf -z), "zero" (ringprof's value must be 0).
row() {
	local label=$1 fmt=$2 expr=$3 target=${4:-} tool
	local -A val
	for tool in rp pz pp; do
		val[$tool]=$(awk -v samples="${R[$key,$tool,samples]}" -v lost="${R[$key,$tool,lost]}" \
			-v lost_side="${R[$key,$tool,lost_side]}" -v throttled="${R[$key,$tool,throttled]}" \
			-v dur="${R[$key,$tool,dur]}" -v bytes="${R[$key,$tool,bytes]}" -v cpu="${R[$key,$tool,cpu]}" \
			-v ss_ns="${R[$key,$tool,ss_ns]:-0}" -v win="${R[$key,win]:-1}" -v head="${HEAD[$tool]}" \
			-v ncpu="$NCPU" "BEGIN { printf \"%.6f\", $expr }")
	done
	awk -v label="$label" -v target="$target" -v fmt="$fmt" -v a="${val[rp]}" -v b="${val[pz]}" -v c="${val[pp]}" '
	function ratio(x, y) { return (target == "-" || target == "zero" || y <= 0) ? "" : sprintf("%.3fx", x / y) }
	BEGIN {
		t = ""
		if (target ~ /^ratio:/) {
			lim = substr(target, 7) + 0
			t = sprintf("<= %sx perf -z: %s", lim, (b > 0 && a / b <= lim) ? "met" : "**missed**")
		} else if (target == "zero")
			t = sprintf("0: %s", (a == 0) ? "met" : "**missed**")
		printf "| %s | %s | %s | %s | %s | %s | %s |\n", label, sprintf(fmt, a), sprintf(fmt, b), ratio(a, b),
			sprintf(fmt, c), ratio(a, c), t
	}'
}
echo "### Result"
echo
echo "System-wide (-a -g -e cpu-clock), $(load_desc) busy on all $NCPU CPUs, $SECS s per run;"
echo "ratios are ringprof / perf. Rows without 'alone': the three recorders side by side."
echo
echo "| measure | ringprof | perf -z | ratio vs perf -z | perf (no -z) | ratio vs perf | target |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
for rate in $RATES; do
	key=$rate h="$rate Hz"
	row "$h: samples" "%.0f" "samples"
	row "$h: effective rate (samples / CPUs / s)" "%.0f Hz" "samples / (ncpu * dur)" -
	row "$h: recorder CPU time (user+sys)" "%.3f s" "cpu"
	row "**$h: recorder CPU per sample**" "%.2f us" "cpu * 1e6 / samples" ratio:1.0
	row "$h: CPU per sample, steady state (schedstat)" "%.2f us" "ss_ns / 1e3 / (samples * win / dur)"
	row "$h: file size" "%.2f MB" "bytes / 1e6"
	row "**$h: bytes per sample**" "%.1f B" "bytes / samples" ratio:0.5
	row "$h: bytes per sample without the file head" "%.1f B" "(bytes - head) / samples"
	if [ "$rate" = "$ARATE" ] && [ "$rate" -ge 20000 ]; then
		row "**$h: lost samples**" "%.0f" "lost" zero
	else
		row "$h: lost samples" "%.0f" "lost" -
	fi
	row "$h: lost share" "%.3f %%" "100 * lost / (samples + lost)" -
	row "$h: throttled (THROTTLE records)" "%.0f" "throttled" -
done
if [ "$ALONE" != 0 ]; then
	key=a$ARATE h="$ARATE Hz alone"
	row "$h: samples" "%.0f" "samples"
	row "$h: recorder CPU per sample" "%.2f us" "cpu * 1e6 / samples"
	if [ "$ARATE" -ge 20000 ]; then
		row "**$h: lost samples**" "%.0f" "lost" zero
	else
		row "$h: lost samples" "%.0f" "lost" -
	fi
	row "$h: lost share" "%.3f %%" "100 * lost / (samples + lost)" -
fi
echo
echo "File head (a 0.3 s idle recording by each tool, for the 'without the file head' rows):" \
	"ringprof $(calc "printf \"%.1f\", ${HEAD[rp]} / 1e3") kB, perf -z $(calc "printf \"%.1f\", ${HEAD[pz]} / 1e3") kB," \
	"perf $(calc "printf \"%.1f\", ${HEAD[pp]} / 1e3") kB."
side=
keys=$RATES
[ "$ALONE" = 0 ] || keys+=" a$ARATE"
for key in $keys; do
	side+="${side:+; }${key#a} Hz$([ "${key#a}" = "$key" ] || echo ' alone'): perf -z ${R[$key,pz,lost_side]}, perf ${R[$key,pp,lost_side]}"
done
echo "Lost: ringprof counts every record the kernel dropped (samples and side-band alike); perf's figure"
echo "is the LOST_SAMPLES count of the cpu-clock event (its side-band event lost: $side)."
echo "Recorder CPU: getrusage (bash time) of each recorder process over its whole run (start-up, the"
echo "window, the end), the load excluded; the kernel's cost of taking each sample is charged to the"
echo "interrupted task, not to the recorder. perf -z (zstd level 1) skips the build-id pass at the end"
echo "(perf disables it when compressing); plain perf reads its whole file back for build-ids."
echo "Steady state: CPU time of all the recorder's threads (schedstat) from 1 s after the last start"
echo "to 2 s before the end, over the samples of that window (pro rata). perf is woken when a ring is"
echo "half full, every few seconds at 999 Hz, so its steady figure is coarse at the low rate."
echo
echo "Commands (RATE in $RATES; side by side: ringprof started first, the two perf as soon as its"
echo "events exist; alone: the same commands one after the other at $ARATE Hz):"
echo
echo "    $LOAD_CMD"
echo "    ringprof record -a -g -e cpu-clock -F RATE -o rp.data -d $SECS"
echo "    perf record -a -g -e cpu-clock -F RATE -z -o perf-z.data -- sleep $SECS"
echo "    perf record -a -g -e cpu-clock -F RATE -o perf.data -- sleep $SECS"
echo "    ringprof report -i rp.data --stats; perf report -i perf-z.data --stats; perf report -i perf.data --stats"
