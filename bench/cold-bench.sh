#!/bin/bash
# cold-bench.sh — cold start of record-time unwinding: how long after `ringprof record -a -g`
# starts do a busy process's stacks become complete, beside ~100 other running binaries whose
# tables nobody needs, with a cold and with a warm unwind-table cache.
#
# Usage: bash bench/cold-bench.sh [SECONDS]     (as root, after the build; default 4)
#
# N_IDLE (default 100) distinct idle programs (3000 functions each) are built and started (each
# its own binary, so its own table), then one python3 busy loop (libpython's table is large)
# and one rp-workload.
# Each is started before the recording: their mappings come from /proc, not from MMAP2
# records as they load. Then, RUNS times (default 3) each: `record -a -g -e cpu-clock -F 999
# -- sleep SECONDS` with an empty cache directory (cold), and again with the cache the cold run
# left (warm). Per run, from `report --dump`: the busy processes' samples in 100-ms buckets
# from the first sample, the first bucket from which every bucket has >= 95 % complete stacks
# (complete, completed by joining or continued by frame pointers), and the share complete over
# the whole run.
# DAEMON=1: ringprofd (-e cpu-clock -F 999, callchains, UnwindCache= the cache directory) runs
# SECONDS instead of record, and a second python3 loop and rp-workload start once it records
# (the workload that starts beside a freshly started daemon); all four processes are counted.
# Environment: N_IDLE, RUNS, RP_BUILD, DAEMON, KEEP=1.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=cold-bench
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
SECS=${1:-4}
N_IDLE=${N_IDLE:-100}
RUNS=${RUNS:-3}
bench_init gcc python3

MACHINE=$(machine_md 999) # before the workload starts: its warnings are about others
# N_IDLE distinct binaries, each with 3000 functions to unwind (a table like a real program's,
# built in tens of ms): one object compiled once, linked with another build-id each time.
mkdir "$T/idle"
{
	echo '#include <unistd.h>'
	for f in $(seq 1 3000); do echo "int f$f(int x) { return x * $f ^ (x >> 3); }"; done
	echo 'int main(void) { for (;;) pause(); }'
} >"$T/idle/idle.c"
gcc -O2 -c -o "$T/idle/idle.o" "$T/idle/idle.c"
for i in $(seq 1 "$N_IDLE"); do
	gcc -o "$T/idle/idle$i" "$T/idle/idle.o" -Wl,--build-id=0x$(printf '%040x' "$i")
done
for i in $(seq 1 "$N_IDLE"); do
	"$T/idle/idle$i" &
	BG+=($!)
done
python3 -c 'import time
def f(n): return sum(i * i for i in range(n))
while True: f(10000)' &
PY=$!
BG+=($PY)
"$WL" -d 100000 >/dev/null 2>&1 &
W=$!
BG+=($W)
sleep 1

# time_to_95 DUMP PIDS: "SECONDS_TO_95 PERCENT_COMPLETE SAMPLES" of the pids' samples.
time_to_95() {
	awk -v pids=" $2 " '
	$1 == "SAMPLE" {
		t = $2; pid = $4; sub("pid=", "", pid)
		if (index(pids, " " pid " ") == 0) next
		if (!t0) t0 = t
		b = int((t - t0) * 10)
		n[b]++; all++
		if ($NF ~ /unwind:(complete|joined|completed-by-joining|continued-by-frame-pointers)$/) { c[b]++; good++ }
		if (b > last) last = b
	}
	END {
		first = -1
		for (b = last; b >= 0; b--) {
			if (n[b] && c[b] / n[b] < 0.95) break
			first = b
		}
		printf "%s %.1f %d\n", first < 0 ? "never" : sprintf("%.1f", first / 10), all ? 100 * good / all : 0, all
	}' "$1"
}

# daemon_run NAME: ringprofd for SECS s into $T/NAME.d with the cache $T/cache, a python3 loop
# and an rp-workload started once it records (their pids added to $pids); its dump in $T/dump,
# its log in $T/NAME.err.
daemon_run() {
	local d=$T/$1.d dpid py2 w2 _
	mkdir -p "$d"
	echo "UnwindCache=$T/cache" >"$T/rpd.conf"
	"$(dirname "$RP")/ringprofd" -c "$T/rpd.conf" -D "$d" -e cpu-clock -F 999 >"$T/$1.err" 2>&1 &
	dpid=$!
	for _ in $(seq 100); do grep -q 'ringprofd: recording' "$T/$1.err" && break; sleep 0.1; done
	python3 -c 'import time
def f(n): return sum(i * i for i in range(n))
while True: f(10000)' &
	py2=$!
	"$WL" -d 100000 >/dev/null 2>&1 &
	w2=$!
	sleep "$SECS"
	kill -INT "$dpid" 2>/dev/null || true
	wait "$dpid" || true
	kill "$py2" 2>/dev/null || true
	kill "$w2" 2>/dev/null || true
	wait "$py2" "$w2" 2>/dev/null || true
	grep -q 'ringprofd: recording' "$T/$1.err" || die "ringprofd did not record: $(tail -3 "$T/$1.err")"
	pids="$pids $py2 $w2"
	"$RP" report --dir "$d" --dump >"$T/dump" 2>/dev/null
}

echo "### Machine"
echo
echo "$MACHINE"
echo "| workload | $N_IDLE idle binaries, python3 busy loop (pid $PY), rp-workload (pid $W), all started before the recording |"
if [ -n "${DAEMON:-}" ]; then
	echo "| plan | ringprofd -e cpu-clock -F 999 for $SECS s (a second python3 loop and rp-workload started once it records); $RUNS x (cold cache, then warm) |"
else
	echo "| plan | record -a -g -e cpu-clock -F 999 -- sleep $SECS; $RUNS x (cold cache, then warm) |"
fi
echo
echo "| run | cache | time to >= 95 % complete | complete over the run | samples (python3 + rp-workload) | tables built | from the cache |"
echo "|---|---|---|---|---|---|---|"
# A build before --unwind-cache (issue 22) has no cache: cold runs only.
CACHES="cold warm"
grep -q -- --unwind-cache <<<"$("$RP" record --help 2>&1)" || CACHES=cold
for r in $(seq 1 "$RUNS"); do
	rm -rf "$T/cache"
	for cache in $CACHES; do
		opt=(--unwind-cache "$T/cache")
		[ "$CACHES" = "cold warm" ] || opt=()
		pids="$PY $W"
		if [ -n "${DAEMON:-}" ]; then
			daemon_run "$r$cache"
		else
			"$RP" record -a -g -e cpu-clock -F 999 "${opt[@]}" -o "$T/$r$cache.rp" -- sleep "$SECS" \
				2>"$T/$r$cache.err" || die "record failed: $(cat "$T/$r$cache.err")"
			"$RP" report -i "$T/$r$cache.rp" --dump >"$T/dump" 2>/dev/null
		fi
		read -r t95 pc n < <(time_to_95 "$T/dump" "$pids")
		built=$(sed -n 's/.*; \([0-9]*\) tables\{0,1\} built, \([0-9]*\) from the disk cache.*/\1/p' "$T/$r$cache.err")
		hits=$(sed -n 's/.*; \([0-9]*\) tables\{0,1\} built, \([0-9]*\) from the disk cache.*/\2/p' "$T/$r$cache.err")
		echo "| $r | $cache | ${t95} s | $pc % | $n | ${built:-?} | ${hits:-?} |"
	done
done
