#!/bin/bash
# soak.sh — ringprofd for a long time under process churn: RSS and open fds flat, no file lost, every file readable.
#
# Usage: bash bench/soak.sh [MINUTES]      (as root, after the build; default 30, at least 2)
#
# ringprofd records system-wide with its defaults (49 Hz, callchains) into a temporary
# directory, a new file every minute (MaxFileSec=1min) and files older than RETENTION
# (default 5min, 1min for runs of 10 minutes or less; MaxRetentionSec=) removed, while a churn loop starts and reaps short-lived
# processes (/bin/true in batches, and rp-workload runs of a second each, so that samples have
# user stacks). Every SAMPLE_SEC seconds (default 60) the daemon's VmRSS and open descriptors
# are read from /proc. At the end the daemon is stopped with SIGTERM and:
#   - every file the daemon logged as closed exists or was logged as removed by retention,
#     and no other file is in the directory (no file lost, none unexplained);
#   - every file left is readable: `ringprof report --stats` exits 0, says finished, has
#     samples and no damaged frame;
#   - open descriptors are the same at every reading, and RSS at the end is within 10 %
#     (+ 2 MiB) of the first reading after a third of the run (at least a minute).
# It prints a summary and exits 1 when a check fails. Not part of `make check` (it is long);
# a short run (bash bench/soak.sh 3) shows that it works.
# Environment: RP_BUILD (build dir, default build/), SAMPLE_SEC, RETENTION, DAEMON_ARGS (more
# ringprofd options, e.g. --call-graph=fp), KEEP=1 keeps the temp dir.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MINUTES=${1:-30}
SAMPLE_SEC=${SAMPLE_SEC:-60}
# Long enough to keep a few files, short enough that a short run prunes too.
RETENTION=${RETENTION:-$((MINUTES > 10 ? 5 : 1))min}
die() { echo "soak: $*" >&2; exit 1; }
[[ "$MINUTES" =~ ^[0-9]+$ ]] && [ "$MINUTES" -ge 2 ] || die "MINUTES must be an integer of at least 2, got '$MINUTES'"
[[ "$SAMPLE_SEC" =~ ^[0-9]+$ ]] && [ "$SAMPLE_SEC" -ge 5 ] || die "SAMPLE_SEC must be an integer of at least 5, got '$SAMPLE_SEC'"

if [ -n "${RP_BUILD:-}" ]; then B=$RP_BUILD
elif [ -x "$ROOT/build/ringprofd" ]; then B=$ROOT/build
elif [ -x "$ROOT/ringprofd" ]; then B=$ROOT
else die "no ringprofd binary: build first (cd build && make -j2) or set RP_BUILD"
fi
[ "$(id -u)" = 0 ] || die "needs root (system-wide recording)"
T=$(mktemp -d "${TMPDIR:-/tmp}/rp-soak.XXXXXX")
# Private copies: a rebuild during the run must not change the binaries.
cp "$B/ringprofd" "$B/ringprof" "$B/ringprof-report" "$T/"
[ -x "$B/ringprof-unwind" ] && cp "$B/ringprof-unwind" "$T/"
cp "$B/tests/workload/rp-workload" "$T/" || die "no rp-workload in $B/tests/workload: build first"
RPD=$T/ringprofd
RP=$T/ringprof
WL=$T/rp-workload
D=$T/rec
LOG=$T/daemon.log
mkdir -p "$D"

DPID=
CHURN=
cleanup() {
	# set -e holds here too: a process already gone must not stop the cleanup.
	[ -z "$CHURN" ] || kill "$CHURN" 2>/dev/null || true
	[ -z "$DPID" ] || kill -9 "$DPID" 2>/dev/null || true
	wait 2>/dev/null || true
	if [ -n "${KEEP:-}" ]; then echo "kept: $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

# The churn: batches of short processes, counted; one rp-workload second in every ten batches.
churn() {
	local n=0 b=0 i
	trap 'echo "$n" >"$T/churn.count"; exit 0' TERM
	while :; do
		for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true & done
		wait
		n=$((n + 10))
		b=$((b + 1))
		if [ $((b % 10)) = 0 ]; then "$WL" -d 1 -q >/dev/null 2>&1 || true; n=$((n + 1)); fi
		sleep 0.05
		echo "$n" >"$T/churn.tmp" && mv "$T/churn.tmp" "$T/churn.count"
	done
}

# shellcheck disable=SC2086 # DAEMON_ARGS: extra options, split on purpose
"$RPD" -c /dev/null -D "$D" --max-file-sec 1min --max-retention-sec "$RETENTION" \
	--log-level info ${DAEMON_ARGS:-} 2>"$LOG" &
DPID=$!
for _ in $(seq 1 100); do ls "$D" | grep -q '\.partial$' && break; sleep 0.1; done
ls "$D" | grep -q '\.partial$' || die "ringprofd did not start: $(tail -3 "$LOG")"
churn &
CHURN=$!

echo "soak: ringprofd pid $DPID for $MINUTES min, new file every minute, retention $RETENTION, readings every ${SAMPLE_SEC}s"
printf '%8s %10s %5s %6s %9s\n' "elapsed" "VmRSS_kB" "fds" "files" "processes"
T0=$(date +%s)
END=$((T0 + MINUTES * 60))
: >"$T/readings"
while :; do
	now=$(date +%s)
	[ "$now" -lt "$END" ] || break
	sleep $(( END - now < SAMPLE_SEC ? END - now : SAMPLE_SEC ))
	kill -0 "$DPID" 2>/dev/null || die "ringprofd died: $(tail -5 "$LOG")"
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status")
	fds=$(ls "/proc/$DPID/fd" | wc -l)
	nf=$(ls "$D" | wc -l)
	procs=$(cat "$T/churn.count" 2>/dev/null || echo 0)
	el=$(($(date +%s) - T0))
	echo "$el $rss $fds $nf $procs" >>"$T/readings"
	printf '%7ss %10s %5s %6s %9s\n' "$el" "$rss" "$fds" "$nf" "$procs"
done

kill -TERM "$CHURN"
wait "$CHURN" 2>/dev/null || true
CHURN=
hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$DPID/status")
cpu=$(awk '{ print $14 + $15 }' "/proc/$DPID/stat")
kill -TERM "$DPID"
rc=0
wait "$DPID" || rc=$?
DPID=
procs=$(cat "$T/churn.count")

fails=0
bad() { echo "soak: FAIL: $*"; fails=$((fails + 1)); }
[ "$rc" = 0 ] || bad "ringprofd exited $rc on SIGTERM"

# Files: closed = present + removed, nothing else.
sed -n 's/^ringprofd: \(info: \)\{0,1\}closed \(ringprof-[^ ]*\.data\) .*/\2/p' "$LOG" | sort -u >"$T/closed"
sed -n 's/^ringprofd: \(info: \)\{0,1\}removed \(ringprof-[^ ]*\.data\) .*/\2/p' "$LOG" | sort -u >"$T/removed"
ls "$D" | sort >"$T/present"
lost=$(comm -23 "$T/closed" <(sort -u "$T/present" "$T/removed"))
unexplained=$(comm -13 "$T/closed" "$T/present")
[ -z "$lost" ] || bad "closed files neither present nor removed by retention: $lost"
[ -z "$unexplained" ] || bad "files in the directory the daemon did not log as closed: $unexplained"
n_closed=$(wc -l <"$T/closed")
n_removed=$(wc -l <"$T/removed")
[ "$n_closed" -ge $((MINUTES - 1)) ] || bad "only $n_closed files closed in $MINUTES min (one a minute expected)"
[ "$n_removed" -ge 1 ] || bad "retention removed nothing (RETENTION=$RETENTION)"

# Every file readable and complete.
n_ok=0
samples=0
while read -r f; do
	if ! "$RP" report --stats -i "$D/$f" >"$T/stats" 2>&1; then
		bad "$f: report --stats failed: $(head -2 "$T/stats")"
		continue
	fi
	grep -Eq '^  finished +yes' "$T/stats" || bad "$f is not finished"
	dmg=$(sed -n 's/^  frames .* \([0-9][0-9]*\) damaged or truncated.*/\1/p' "$T/stats")
	[ "${dmg:-x}" = 0 ] || bad "$f: damaged or truncated frames: $(grep -E '^  frames' "$T/stats")"
	s=$(awk '$1 == "samples" { print $2; exit }' "$T/stats")
	[ "${s:-0}" -gt 0 ] || bad "$f has no samples"
	samples=$((samples + ${s:-0}))
	n_ok=$((n_ok + 1))
done <"$T/present"

# Flat: descriptors identical at every reading; RSS at the end within 10 % + 2 MiB of the
# first reading after a third of the run, at least a minute (warmed up: the first file's head,
# the caches, the per-process tables of a first pass through the pid space).
fd_min=$(awk '{ print $3 }' "$T/readings" | sort -n | head -1)
fd_max=$(awk '{ print $3 }' "$T/readings" | sort -n | tail -1)
[ "$fd_min" = "$fd_max" ] || bad "open descriptors changed: $fd_min to $fd_max"
warm=$((MINUTES * 20 > 60 ? MINUTES * 20 : 60))
rss_ref=$(awk -v w="$warm" '$1 >= w { print $2; exit }' "$T/readings")
[ -n "$rss_ref" ] || rss_ref=$(head -1 "$T/readings" | awk '{ print $2 }')
rss_last=$(tail -1 "$T/readings" | awk '{ print $2 }')
rss_max=$(awk '{ print $2 }' "$T/readings" | sort -n | tail -1)
limit=$((rss_ref + rss_ref / 10 + 2048))
[ "$rss_last" -le "$limit" ] || bad "RSS grew: $rss_ref kB after ${warm} s, $rss_last kB at the end (limit $limit kB)"

tck=$(getconf CLK_TCK)
echo
echo "soak summary ($MINUTES min, $(nproc) CPUs, kernel.pid_max $(cat /proc/sys/kernel/pid_max)):"
echo "  processes started by the churn: $procs"
echo "  files closed: $n_closed, removed by retention: $n_removed, present: $(wc -l <"$T/present"), readable and finished: $n_ok ($samples samples)"
echo "  open fds: $fd_min..$fd_max over $(wc -l <"$T/readings") readings"
echo "  VmRSS: $rss_ref kB after ${warm} s, $rss_last kB at the end, at most $rss_max kB; VmHWM $hwm kB"
echo "  daemon CPU time: $(awk -v c="$cpu" -v t="$tck" -v m="$MINUTES" 'BEGIN { printf "%.2f s (%.3f %% of one CPU)", c / t, 100 * c / t / (m * 60) }')"
echo "  exit status on SIGTERM: $rc"
if [ "$fails" -gt 0 ]; then
	echo "soak: $fails check(s) failed"
	exit 1
fi
echo "soak: all checks passed"
