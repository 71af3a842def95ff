#!/bin/bash
# record-load.sh — every CPU busy, sampling at kernel.perf_event_max_sample_rate with
# frame-pointer callchains (the most records per second: a stack copy per sample would make
# the kernel throttle first): the recorder's memory stays within what its buffers account
# for, the loss
# accounting agrees everywhere it is stated (record's summary line, FINISH, the per-CPU
# CPU_STATS, --stats and the report header), and the dump is in time order. A second run
# with small rings and the recorder stopped for 0.5 s makes the losses real, so that the
# accounting is checked on numbers that are not all 0. Nothing is changed on the system:
# the rate is read, not raised.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_root
require_perf_events

max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
[ -n "$max" ] && [ "$max" -gt 0 ] || fail "cannot read kernel.perf_event_max_sample_rate"
ncpu=$(getconf _NPROCESSORS_ONLN)
page=$(getconf PAGESIZE)
echo "# kernel.perf_event_max_sample_rate $max, $ncpu CPUs"

# load SECONDS: every online CPU busy (stress-ng when installed, else one rp-workload per
# CPU: each burns about one CPU).
LOAD_PIDS=""
load() {
	if command -v stress-ng >/dev/null; then
		stress-ng --cpu "$ncpu" --timeout "${1}s" >/dev/null 2>&1 &
		LOAD_PIDS="$LOAD_PIDS $!"
		BG_PIDS="$BG_PIDS $!"
	else
		for _ in $(seq "$ncpu"); do
			"$WL" -q -d "$1" >/dev/null &
			LOAD_PIDS="$LOAD_PIDS $!"
			BG_PIDS="$BG_PIDS $!"
		done
	fi
	sleep 0.3
}

# kib FIELD PID: a "FIELD: N kB" line of /proc/PID/status.
kib() {
	awk -v f="$1:" '$1 == f { print $2 }' "/proc/$2/status" 2>/dev/null
}

# accounting NAME: record's summary line, the FINISH and CPU_STATS records, --stats and the
# report header must give the same sample and loss totals. Sets LOST.
accounting() {
	local n=$1 sum_samples sum_lost cpu_lost
	read -r sum_samples sum_lost < <(sed -n 's/^\[ ringprof record: \([0-9]*\) samples, \([0-9]*\) lost .*/\1 \2/p' "$T/$n.err")
	[ -n "$sum_samples" ] || fail "$n: no summary line in: $(cat "$T/$n.err")"
	"$RP" report -i "$T/$n.data" --stats >"$T/$n.stats" 2>"$T/$n.stats.err" || fail "$n: --stats: $(cat "$T/$n.stats.err")"
	"$RP" report -i "$T/$n.data" --dump >"$T/$n.dump" 2>"$T/$n.dump.err" || fail "$n: --dump: $(cat "$T/$n.dump.err")"
	"$RP" report -i "$T/$n.data" --percent-limit 5 >"$T/$n.report" 2>"$T/$n.report.err" || fail "$n: report: $(cat "$T/$n.report.err")"
	check_no_grep 'warning' "$T/$n.stats.err" "$n: the recording reads without warnings"
	check_grep '^  finished +yes$' "$T/$n.stats" "$n: the recording is complete"
	check_grep '^  frames +[0-9]+ read, 0 damaged' "$T/$n.stats" "$n: no damaged frame"
	check_no_grep '^  not written' "$T/$n.stats" "$n: the recorder dropped nothing itself"

	check_eq "$(stat_field samples "$T/$n.stats")" "$sum_samples" "$n: --stats samples = the summary line's ($sum_samples)"
	check_eq "$(stat_field lost "$T/$n.stats")" "$sum_lost" "$n: --stats lost = the summary line's ($sum_lost)"
	check_eq "$(awk '/^FINISH / { for (i = 3; i <= NF; i++) if ($i ~ /^samples=/) { sub(/samples=/, "", $i); print $i } }' "$T/$n.dump")" \
		"$sum_samples" "$n: FINISH samples = the summary line's"
	check_eq "$(awk '/^FINISH / { for (i = 3; i <= NF; i++) if ($i ~ /^lost=/) { sub(/lost=/, "", $i); print $i } }' "$T/$n.dump")" \
		"$sum_lost" "$n: FINISH lost = the summary line's"
	# CPU_STATS: lost (LOST records) + lost_unreported (the kernel's count beyond them).
	cpu_lost=$(awk '/^CPU_STATS / { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "lost" || kv[1] == "lost_unreported") s += kv[2] } } END { print s + 0 }' "$T/$n.dump")
	check_eq "$cpu_lost" "$sum_lost" "$n: the CPU_STATS losses add up to the total ($cpu_lost)"
	check_eq "$(grep -c '^CPU_STATS ' "$T/$n.dump")" "$ncpu" "$n: one CPU_STATS per CPU"
	check_eq "$(awk '/^CPU_STATS / { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "samples") s += kv[2] } } END { print s + 0 }' "$T/$n.dump")" \
		"$sum_samples" "$n: the CPU_STATS samples add up to the total"
	check_eq "$(awk '$1 == "cpu" && $2 ~ /^[0-9]+$/ { s += $5 } END { print s + 0 }' "$T/$n.stats")" "$sum_lost" \
		"$n: the lost column of --stats by CPU adds up to the total"
	check_eq "$(grep -c '^SAMPLE ' "$T/$n.dump")" "$sum_samples" "$n: --dump prints every sample"
	check_grep "^# samples: $sum_samples, lost: $sum_lost \(" "$T/$n.report" "$n: the report header gives the same totals"

	# Time order: every record of the dump at or after the one before (sec and ns compared
	# apart, as integers).
	awk '{ split($2, t, "."); if (t[2] == "" || t[1] !~ /^[0-9]+$/) { print "no time: " $0; exit 1 }
	       if (NR > 1 && (t[1] + 0 < s || (t[1] + 0 == s && t[2] + 0 < ns))) { print "line " NR " goes back in time: " prev " / " $0; exit 1 }
	       s = t[1] + 0; ns = t[2] + 0; prev = $0 }' "$T/$n.dump" >"$T/$n.order" ||
		fail "$n: --dump is not in time order: $(cat "$T/$n.order")"
	ok "$n: the $(wc -l <"$T/$n.dump") records of --dump are in time order"
	check_no_grep '^  out of order' "$T/$n.stats" "$n: no record missed the ordering window"
	LOST=$sum_lost
}

# ---- 1: all CPUs busy, maximum rate, callchains, 5 s; the recorder's memory ---------------
load 8
"$RP" record -a --call-graph fp -e cpu-clock -F "$max" -d 5 -o "$T/max.data" >"$T/max.out" 2>"$T/max.err" &
rp=$!
hwm=0
rss_max=0
while kill -0 "$rp" 2>/dev/null; do
	h=$(kib VmHWM "$rp")
	r=$(kib VmRSS "$rp")
	[ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
	[ -n "$r" ] && [ "$r" -gt "$rss_max" ] && rss_max=$r
	sleep 0.1
done
wait "$rp"
check_eq "$?" 0 "record -a -g -F $max under full load exits 0"
check_no_grep 'error|warning' "$T/max.err" "record says nothing alarming"
echo "# recorder memory: VmHWM $hwm kB, largest VmRSS seen $rss_max kB"
# What the recorder holds: the writer's frame buffer (8 MiB) and the compressed copy of a
# frame (zstd's bound of 8 MiB), the compact-sample stack table (at most 8 MiB + 1.5 MiB),
# about 6 MiB for the zstd level-3 context, the kernel symbol snapshot, the program and its
# libraries; and one ring (256 data pages + the control page) per CPU, in case the kernel
# counts them in the RSS (6.x does not). Everything else is per-record and must not grow.
bound=$((16384 + 9728 + 6144 + ncpu * 257 * page / 1024))
if readelf -d "$top_builddir/ringprof-record" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
	# ASan's shadow memory and quarantine are most of the RSS there; the plain build checks.
	echo "# AddressSanitizer build: the memory bound ($bound kB) is checked in the plain build only"
else
	check_range "$hwm" 1000 "$bound" "the recorder's peak memory (VmHWM, kB) stays within its buffers"
	check_range "$rss_max" 1000 "$bound" "its largest VmRSS seen (kB) too"
fi
accounting max
samples=$(stat_field samples "$T/max.stats")
# At least a quarter of the rate on every CPU for 5 s: the kernel throttles at this rate
# (and may lower the rate while it runs, when its interrupts take too long). At most the rate
# for as long as the events were on: on a loaded machine the recorder may stop later than 5 s.
dur_ms=$(sed -n 's/^  duration *\([0-9]*\)\.\([0-9]\{3\}\) s$/\1\2/p' "$T/max.stats")
[ -n "$dur_ms" ] || fail "no duration in --stats"
dur_ms=$((10#$dur_ms))
check_range "$dur_ms" 4900 60000 "the recording lasted 5 s or more (ms)"
check_range "$samples" $((max * ncpu * 5 / 4)) $((max * ncpu * (dur_ms + 1000) / 1000)) "samples at $max Hz on $ncpu CPUs for 5 s"
check_grep "^  event +cpu-clock, [0-9]+ Hz \(requested $max Hz\), callchains" "$T/max.stats" "the header records the rate asked for"
wait $LOAD_PIDS 2>/dev/null

# ---- 2: small rings, the recorder stopped for 0.5 s: losses, accounted everywhere ---------
load 4
"$RP" record -a --call-graph fp -e cpu-clock -F "$max" -m 8 -d 2 -o "$T/loss.data" >"$T/loss.out" 2>"$T/loss.err" &
rp=$!
sleep 0.8
kill -STOP "$rp"
sleep 0.5
kill -CONT "$rp"
wait "$rp"
check_eq "$?" 0 "record -m 8 stopped for 0.5 s exits 0"
accounting loss
check_range "$LOST" 1 100000000 "samples were lost while the recorder was stopped"
check_grep '^LOST [0-9.]+ cpu=[0-9]+ .* lost=[1-9]' "$T/loss.dump" "the kernel's LOST records are in the file"
wait $LOAD_PIDS 2>/dev/null
exit 0
