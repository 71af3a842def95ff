#!/bin/bash
# daemon-bench.sh — ringprofd's own cost at its default rate on busy CPUs: CPU share, peak RSS, bytes per hour.
#
# Usage: bash bench/daemon-bench.sh [SECONDS]      (as root, after the build; default 120, at least 60)
#
# Every CPU is kept busy (stress-ng --cpu N when installed, else one rp-workload per CPU), and
# ringprofd runs with its built-in defaults (49 Hz, callchains, default event) into a
# temporary directory. Once it is ready, the daemon's CPU time is read from /proc/PID/stat
# (utime + stime, clock ticks) and /proc/PID/schedstat (ns, finer), then again after SECONDS;
# the difference over the wall time is its share of one CPU (target < 0.1 %). Peak RSS is
# VmHWM at the end. Bytes per hour: the growth of the active file over the window, scaled, plus
# one file head (kernel symbols and process table) per MaxFileSec (1 h).
# Note: the kernel's cost of taking each sample is charged to the task that was interrupted,
# not to the daemon; it is the same for any perf-based profiler at the same rate.
# Environment: RP_BUILD (build dir, default build/), KEEP=1 keeps the temp dir.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-120}
die() { echo "daemon-bench: $*" >&2; exit 1; }
[[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -ge 60 ] || die "SECONDS must be an integer of at least 60, got '$SECS'"

if [ -n "${RP_BUILD:-}" ]; then B=$RP_BUILD
elif [ -x "$ROOT/build/ringprofd" ]; then B=$ROOT/build
elif [ -x "$ROOT/ringprofd" ]; then B=$ROOT
else die "no ringprofd binary: build first (cd build && make -j2) or set RP_BUILD"
fi
RPD=$B/ringprofd
WL=$B/tests/workload/rp-workload
[ -x "$RPD" ] && [ -x "$B/ringprof" ] || die "$RPD or $B/ringprof missing: build first"
[ "$(id -u)" = 0 ] || die "needs root (system-wide recording)"

NCPU=$(nproc)
TCK=$(getconf CLK_TCK)
T=$(mktemp -d "${TMPDIR:-/tmp}/rp-daemon-bench.XXXXXX")
BG=()
DPID=
cleanup() {
	local p
	[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
	for p in "${BG[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ -n "${KEEP:-}" ]; then echo "kept: $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

# ---- load ---------------------------------------------------------------------------------
if command -v stress-ng >/dev/null; then
	LOAD="stress-ng --cpu $NCPU"
	stress-ng --cpu "$NCPU" --timeout $((SECS + 60))s --quiet &
	BG+=($!)
else
	[ -x "$WL" ] || die "neither stress-ng nor $WL: run 'make'"
	LOAD="$NCPU x rp-workload"
	for _ in $(seq "$NCPU"); do "$WL" -q -d $((SECS + 60)) >/dev/null & BG+=($!); done
fi
sleep 1

# ---- daemon -------------------------------------------------------------------------------
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
cpu_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }
active_size() { stat -c %s "$T"/rec/*.partial; }

# A cold unwind-table cache of its own: the tables are built (by the helper) during the run.
printf "UnwindCache=%s\n%s" "$T/cache" "${EXTRA_CONF:-}" >"$T/conf"
"$RPD" -c "$T/conf" -D "$T/rec" --max-use infinity --keep-free 0 2>"$T/daemon.log" &
DPID=$!
for _ in $(seq 100); do
	ls "$T"/rec/*.partial >/dev/null 2>&1 && grep -q '^ringprofd: recording' "$T/daemon.log" && break
	sleep 0.1
done
kill -0 "$DPID" 2>/dev/null || die "ringprofd did not start: $(cat "$T/daemon.log")"
sleep 2 # the start-up synthesis is written; from here on it is the steady state
start_ticks=$(cpu_ticks "$DPID")
start_ns=$(cpu_ns "$DPID")
start_size=$(active_size)
start_wall=$(date +%s.%N)
sleep "$SECS"
end_ticks=$(cpu_ticks "$DPID")
end_ns=$(cpu_ns "$DPID")
end_size=$(active_size)
end_wall=$(date +%s.%N)
hwm_kb=$(awk '/^VmHWM/ { print $2 }' "/proc/$DPID/status")
rss_kb=$(awk '/^VmRSS/ { print $2 }' "/proc/$DPID/status")
# The unwind-table helper (its child): CPU since it started (the tables of every binary seen),
# its peak RSS, and the tables kept on disk.
HPID=$(pgrep -P "$DPID" -x ringprof-unwind | head -1 || true)
helper_s=$([ -n "$HPID" ] && awk -v t="$TCK" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$HPID/stat" || echo 0)
helper_hwm_kb=$([ -n "$HPID" ] && awk '/^VmHWM/ { print $2 }' "/proc/$HPID/status" || echo 0)
cache_bytes=$(du -sb "$T/cache" 2>/dev/null | cut -f1)
cache_files=$(find "$T/cache" -name '*.utab' 2>/dev/null | wc -l)
# One rotation (as MaxFileSec does once an hour): its CPU time and memory peak.
kill -USR2 "$DPID"
for _ in $(seq 100); do
	grep -q '^ringprofd: new file' "$T/daemon.log" && break
	sleep 0.1
done
sleep 1
rot_ns=$(( $(cpu_ns "$DPID") - end_ns ))
rot_hwm_kb=$(awk '/^VmHWM/ { print $2 }' "/proc/$DPID/status")
head_size=$(active_size) # the new file: its head and about a second of samples
kill -TERM "$DPID"
wait "$DPID" || die "ringprofd exited with $?"
DPID=
f=$(ls "$T"/rec/*.data | head -1) # the steady-state file
"$B/ringprof" report -i "$f" --stats >"$T/stats"
samples=$(awk '$1 == "samples" { print $2; exit }' "$T/stats")
lost=$(awk '$1 == "lost" { print $2; exit }' "$T/stats")
event=$(sed -n 's/^  event *//p' "$T/stats")
dur=$(awk '$1 == "duration" { print $2; exit }' "$T/stats")

awk -v t0="$start_wall" -v t1="$end_wall" -v k0="$start_ticks" -v k1="$end_ticks" -v tck="$TCK" \
	-v n0="$start_ns" -v n1="$end_ns" -v s0="$start_size" -v s1="$end_size" -v hwm="$hwm_kb" -v rss="$rss_kb" \
	-v head="$head_size" -v rot="$rot_ns" -v rhwm="$rot_hwm_kb" -v ncpu="$NCPU" -v load="$LOAD" -v samples="$samples" -v lost="$lost" \
	-v dur="$dur" -v event="$event" -v kernel="$(uname -r)" -v helper="$helper_s" -v hhwm="$helper_hwm_kb" \
	-v cache="${cache_bytes:-0}" -v ncache="$cache_files" 'BEGIN {
	wall = t1 - t0
	cpu_t = (k1 - k0) / tck
	cpu_n = (n1 - n0) / 1e9
	rate = (s1 - s0) / wall * 3600
	printf "ringprofd, defaults (%s), %d CPUs busy (%s), %.0f s window, kernel %s\n\n", event, ncpu, load, wall, kernel
	printf "| measure | value |\n|---|---|\n"
	printf "| CPU time in the window, utime+stime (/proc/PID/stat) | %.2f s |\n", cpu_t
	printf "| CPU time in the window, schedstat | %.3f s |\n", cpu_n
	printf "| **CPU share of one CPU** (schedstat; stat) | **%.4f %%** (%.3f %%) |\n", 100 * cpu_n / wall, 100 * cpu_t / wall
	printf "| CPU time per sample | %.1f us |\n", (samples > 0 ? cpu_n / (samples * wall / dur) * 1e6 : 0)
	printf "| start-up CPU time (events, kallsyms, /proc synthesis, first file) | %.2f s |\n", (k0) / tck
	printf "| peak RSS (VmHWM) / RSS at the end of the window | %.1f MiB / %.1f MiB |\n", hwm / 1024, rss / 1024
	printf "| one rotation (SIGUSR2): CPU time / peak RSS after it | %.3f s / %.1f MiB |\n", rot / 1e9, rhwm / 1024
	printf "| unwind-table helper: CPU since it started (every table) / peak RSS | %.2f s / %.1f MiB |\n", helper, hhwm / 1024
	printf "| unwind tables on disk after the run (UnwindCache=) | %d files, %.1f MiB |\n", ncache, cache / 1048576
	printf "| CPU share with one rotation per hour (MaxFileSec=1h) | %.4f %% |\n", 100 * (cpu_n / wall + rot / 1e9 / 3600)
	printf "| samples / lost over the whole run | %d / %s |\n", samples, lost
	printf "| bytes written per hour, steady state | %.1f MiB |\n", rate / 1048576
	printf "| bytes per sample on disk | %.0f B |\n", (samples > 0 ? (s1 - s0) / (samples * wall / dur) : 0)
	printf "| head of each file: kernel symbols, processes (one per MaxFileSec=1h) | %.2f MiB |\n", head / 1048576
	printf "| **bytes written per hour**, with one file head | **%.1f MiB** |\n", (rate + head) / 1048576
}'
