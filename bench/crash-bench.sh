#!/bin/bash
# crash-bench.sh — what kill -9 costs on a loaded machine (issue 24 item 9). N times (default
# 30) `ringprof record -a -F 999 -e cpu-clock` beside `stress-ng --cpu NCPU` (a hog per CPU),
# killed with SIGKILL after a random 1-4 s; the loss is the time from the newest sample in the
# file to the kill (CLOCK_MONOTONIC; /proc/uptime, read without a fork, counts the same on a
# host that does not suspend). Then N/5 more kills within the first 0.3 s (the start-up:
# kernel symbols and /proc synthesis), each of which must leave a file that reads (or none).
# Prints each kill, then the largest and median loss and how many of the N exceeded the
# flush interval (1 s, the documented bound).
#
# Usage: bash bench/crash-bench.sh [N]   (root; BUILD=dir for another build tree)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$ROOT/build}
RP=$B/ringprof
N=${1:-30}
[ -x "$RP" ] || { echo "crash-bench: no $RP (bash setup.sh demo builds it)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "crash-bench: run as root (record -a)" >&2; exit 1; }
command -v stress-ng >/dev/null || { echo "crash-bench: stress-ng is missing" >&2; exit 1; }
T=$(mktemp -d /tmp/crash-bench.XXXXXX)
stress-ng --cpu "$(nproc)" --timeout 0 >/dev/null 2>&1 &
hog=$!
trap 'kill "$hog" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
sleep 1

now_s() {
	local up _
	read -r up _ </proc/uptime
	echo "$up"
}

losses=()
over=0
nosample=0
startup_ok=0
startup=0
startup_none=0
printf '%-5s %-9s %-10s %s\n' kill after loss_ms file
for i in $(seq $((N + N / 5))); do
	if ((i > N)); then
		d=0.$((RANDOM % 3))$((RANDOM % 10))
	else
		d=$((1 + RANDOM % 3)).$((RANDOM % 10))
	fi
	rm -f "$T/c.rp"
	"$RP" record -a -F 999 -e cpu-clock -q -o "$T/c.rp" 2>/dev/null &
	r=$!
	sleep "$d"
	k=$(now_s)
	kill -9 "$r"
	wait "$r" 2>/dev/null || true
	if [ ! -s "$T/c.rp" ]; then
		((i > N)) && startup_none=$((startup_none + 1)) || nosample=$((nosample + 1))
		printf '%-5s %-9s %-10s %s\n' "$i" "${d}s" - "not created yet (kernel symbols being read)"
		continue
	fi
	last=$("$RP" report -i "$T/c.rp" --dump 2>/dev/null | awk '/^SAMPLE/ { t = $2 } END { print t }')
	if ((i > N)) || [ -z "$last" ]; then
		if ((i > N)); then
			startup=$((startup + 1))
		else
			nosample=$((nosample + 1))
		fi
		if "$RP" report -i "$T/c.rp" --stats >/dev/null 2>&1; then
			((i > N)) && startup_ok=$((startup_ok + 1))
			printf '%-5s %-9s %-10s %s\n' "$i" "${d}s" - "${last:+samples; }the file reads"
		else
			printf '%-5s %-9s %-10s %s\n' "$i" "${d}s" - "the file does NOT read"
		fi
		continue
	fi
	ms=$(awk -v k="$k" -v l="$last" 'BEGIN { printf "%d", (k - l) * 1000 }')
	losses+=("$ms")
	[ "$ms" -le 1000 ] || over=$((over + 1))
	printf '%-5s %-9s %-10s %s\n' "$i" "${d}s" "$ms" "$(du -k "$T/c.rp" | cut -f1) KiB"
done
if [ "${#losses[@]}" -gt 0 ]; then
	sorted=$(printf '%s\n' "${losses[@]}" | sort -n)
	max=$(echo "$sorted" | tail -1)
	med=$(echo "$sorted" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	echo "kills after 1-4 s: $N; with samples: ${#losses[@]} (without: $nosample); loss max ${max} ms, median ${med} ms; over 1000 ms: $over"
	echo "within the bound: $((${#losses[@]} - over)) of $N"
fi
echo "kills in the first 0.3 s: $((N / 5)); no file yet: $startup_none; a file: $startup, of which it reads: $startup_ok"
