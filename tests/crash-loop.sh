#!/bin/bash
# crash-loop.sh — SIGKILL at random moments, start-up synthesis included: the recorder's file
# and the daemon's files stay readable up to their last complete frame, report never crashes
# or hangs on them, and the daemon recovers (never loses, never deletes blindly) its .partial.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_perf_events
N=${CRASH_LOOP_N:-20}

# A random delay: every third one within the first 0.3 s (start-up: /proc synthesis, kernel
# symbols, the first frame), the others anywhere in the first 2 s.
random_delay() {
	local ms
	if (($1 % 3 == 0)); then ms=$((RANDOM % 300)); else ms=$((RANDOM % 2001)); fi
	awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }'
}

# check_file FILE: report --stats and --dump of a killed recording. Sets KIND to "frames" (at
# least one complete frame: exit 0, times ordered) or "none" (nothing complete: exit 1 with
# the reason); anything else fails the test.
check_file() {
	local f=$1 rc frames
	timeout -s KILL 60 "$RP" report -i "$f" --stats >"$T/stats" 2>"$T/stats.err"
	rc=$?
	case $rc in
	0)
		frames=$(awk '$1 == "frames" { print $2; exit }' "$T/stats")
		[ "${frames:-0}" -ge 1 ] || fail "$(basename "$f"): --stats exit 0 without a complete frame"
		timeout -s KILL 60 "$RP" report -i "$f" --dump >"$T/dump" 2>"$T/dump.err" ||
			fail "$(basename "$f"): --dump failed or hung (exit $?): $(head -3 "$T/dump.err")"
		awk '$2 ~ /^[0-9]+\.[0-9]+$/ { if ($2 + 0 < prev) { print NR ": " $2 " after " prev; exit 1 } prev = $2 + 0 }' \
			"$T/dump" >"$T/order" || fail "$(basename "$f"): --dump times out of order: $(cat "$T/order")"
		KIND=frames
		;;
	1)
		grep -Eq 'the file is empty|no intact frame in the file; nothing could be read' "$T/stats.err" ||
			fail "$(basename "$f"): --stats exit 1 without saying why: $(head -3 "$T/stats.err")"
		KIND=none
		;;
	*)
		fail "$(basename "$f"): report --stats crashed or hung (exit $rc): $(head -3 "$T/stats.err")"
		;;
	esac
}

# ---- the recorder ----
n_nofile=0 n_none=0 n_frames=0
for ((i = 1; i <= N; i++)); do
	f="$T/r$i.data"
	delay=$(random_delay "$i")
	if [ "$(id -u)" = 0 ]; then
		"$RP" record -a -g -F 999 -o "$f" >/dev/null 2>&1 &
	else
		"$RP" record -g -F 999 -o "$f" -- "$WL" -d 10 >/dev/null 2>&1 &
	fi
	rp=$!
	BG_PIDS="$BG_PIDS $rp"
	sleep "$delay"
	children=$(pgrep -P "$rp" || true)
	kill -9 "$rp"
	wait "$rp" 2>/dev/null
	for c in $children; do kill -9 "$c" 2>/dev/null; done
	if [ ! -e "$f" ]; then
		n_nofile=$((n_nofile + 1))
		echo "# recorder kill $i after ${delay} s: before the file existed"
		continue
	fi
	check_file "$f"
	if [ "$KIND" = frames ]; then n_frames=$((n_frames + 1)); else n_none=$((n_none + 1)); fi
	echo "# recorder kill $i after ${delay} s: $KIND"
	rm -f "$f"
done
check_eq $((n_nofile + n_none + n_frames)) "$N" \
	"recorder: $N kills injected, $N survived ($n_frames with frames, $n_none before the first frame, $n_nofile before the file existed)"
[ "$n_frames" -ge 1 ] || fail "no kill left a file with a complete frame: the delays are too short"

# ---- the daemon ----
if [ "$(id -u)" != 0 ]; then
	echo "# ringprofd part skipped: it records system-wide and needs root"
	exit 0
fi
start_listener
: >"$T/seen"
n_ready=0
# every_partial_kept: each .partial seen after a kill still exists, as itself or recovered
# under its closed name, or the daemon said it removed it as empty.
every_partial_kept() {
	local p
	while read -r p; do
		[ -e "$D/$p" ] || [ -e "$D/${p%.partial}" ] ||
			grep -q "removed $D/$p: empty" "$DLOG" ||
			fail "$p vanished without a word (daemon log: $(tail -3 "$DLOG"))"
	done <"$T/seen"
}
for ((i = 1; i <= N; i++)); do
	delay=$(random_delay "$i")
	ready=$(n_notify '(^| )READY=1( |$)')
	"$RPD" -c /dev/null -D "$D" $FAST 2>>"$DLOG" &
	DPID=$!
	BG_PIDS="$BG_PIDS $DPID"
	sleep "$delay"
	kill -9 "$DPID"
	wait "$DPID" 2>/dev/null
	[ "$(n_notify '(^| )READY=1( |$)')" -gt "$ready" ] && n_ready=$((n_ready + 1))
	partial_files >>"$T/seen"
	sort -u -o "$T/seen" "$T/seen"
	every_partial_kept
	echo "# ringprofd kill $i after ${delay} s: $(partial_files | tr '\n' ' ')"
done
ok "ringprofd: $N kills injected ($n_ready after READY=1), no .partial lost"

# A clean start recovers everything; a clean stop closes the new file.
start_daemon -c /dev/null -D "$D" $FAST
stop_daemon
check_eq "$DRC" 0 "the daemon starts and stops cleanly after $N kills"
check_eq "$(partial_files | wc -l)" 0 "no .partial left after the clean start"
every_partial_kept
n_rec=0 n_empty=0
while read -r p; do
	if [ -e "$D/${p%.partial}" ]; then
		check_grep "^ringprofd: recovered $D/${p%.partial} " "$DLOG" "$p was recovered and said so"
		n_rec=$((n_rec + 1))
	else
		n_empty=$((n_empty + 1))
	fi
done <"$T/seen"
n_files=0 n_none=0
for f in $(closed_files); do
	check_file "$D/$f"
	n_files=$((n_files + 1))
	[ "$KIND" = none ] && n_none=$((n_none + 1))
done
[ "$n_files" -ge "$n_rec" ] || fail "fewer closed files ($n_files) than recovered ones ($n_rec)"
ok "ringprofd: $N kills survived: $n_rec files recovered, $n_empty empty ones removed with a message," \
	"$n_files files readable ($n_none of them without a complete frame)"
exit 0
