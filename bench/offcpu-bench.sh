#!/bin/bash
# offcpu-bench.sh — what `record -a --off-cpu` costs under a switch-heavy load, and what
# --off-cpu-rate saves: recorder CPU and bytes per second, switch-outs and stacks kept.
#
# Usage: bash bench/offcpu-bench.sh [SECONDS]     (as root, after the build; default 5 per run)
#
# The load is rp-offcpu -P (two threads bouncing a byte over pipes: ~10^5 switches a second on
# 2 CPUs). Under it, one after the other, system-wide with -g -e cpu-clock (4000 Hz):
#   cpu        no --off-cpu (the baseline)
#   off-all    --off-cpu --off-cpu-rate 0 (every switch-out sampled, with its stack)
#   off-10k    --off-cpu (the default rate: at most 10000 switch-outs sampled a second per CPU)
#   off-1k     --off-cpu --off-cpu-rate 1000
# Each recorder runs under /usr/bin/time (user + sys CPU). Bytes are the file's size; switch-outs
# and kept stacks come from `report --off-cpu`'s header, lost records from its "lost:" figure;
# trips/s is the load's own count (the recorder slows it down). RP_BUILD: the build directory.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-5}
B=${RP_BUILD:-$ROOT/build}
die() { echo "offcpu-bench: $*" >&2; exit 1; }
[[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -ge 1 ] || die "SECONDS must be a positive integer, got '$SECS'"
[ -x "$B/ringprof" ] && [ -x "$B/tests/workload/rp-offcpu" ] || die "build first (cd build && make -j2 && make tests/workload/rp-offcpu)"
[ "$(id -u)" = 0 ] || die "needs root (system-wide recording)"
[ -x /usr/bin/time ] || { apt-get update -qq >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
T=$(mktemp -d)
LOAD=
trap '[ -z "$LOAD" ] || kill "$LOAD" 2>/dev/null; rm -rf "$T"' EXIT

printf '%-8s %9s %11s %9s %12s %12s %9s %10s\n' run "CPU s" "CPU %/s" "KiB/s" switch-outs "stacks kept" lost trips/s
for run in cpu off-all off-10k off-1k; do
	case $run in
	cpu) opts=() ;;
	off-all) opts=(--off-cpu --off-cpu-rate 0) ;;
	off-10k) opts=(--off-cpu) ;;
	off-1k) opts=(--off-cpu --off-cpu-rate 1000) ;;
	esac
	"$B/tests/workload/rp-offcpu" -P $((SECS + 2)) >"$T/$run.load" &
	LOAD=$!
	sleep 0.5
	/usr/bin/time -o "$T/$run.time" -f "%U %S" \
		"$B/ringprof" record -q -a -g -e cpu-clock "${opts[@]}" -d "$SECS" -o "$T/$run.data"
	wait "$LOAD"
	LOAD=
	read -r u s <"$T/$run.time"
	bytes=$(stat -c %s "$T/$run.data")
	if [ "$run" = cpu ]; then
		outs=- kept=-
		"$B/ringprof" report --no-pager -i "$T/$run.data" >"$T/$run.rep" 2>/dev/null
	else
		"$B/ringprof" report --no-pager --off-cpu -i "$T/$run.data" >"$T/$run.rep" 2>/dev/null
		outs=$(sed -n 's/.* after \([0-9]*\) switch-outs$/\1/p' "$T/$run.rep")
		kept=$(sed -n 's/.*: \([0-9]*\) of the [0-9]* switch-outs have theirs.*/\1/p' "$T/$run.rep")
		kept=${kept:-$outs}
	fi
	lost=$(sed -n 's/.*lost: \([0-9]*\) (.*/\1/p' "$T/$run.rep")
	trips=$(awk '{ printf "%d", $5 / $3 }' "$T/$run.load")
	awk -v r="$run" -v u="$u" -v s="$s" -v b="$bytes" -v t="$SECS" -v o="$outs" -v k="$kept" \
		-v l="${lost:-?}" -v p="$trips" \
		'BEGIN { printf "%-8s %9.2f %10.1f%% %9.0f %12s %12s %9s %10s\n", r, u + s, 100 * (u + s) / t, b / 1024 / t, o, k, l, p }'
done
