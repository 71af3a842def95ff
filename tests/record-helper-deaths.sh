#!/bin/bash
# record-helper-deaths.sh — the helper (one per recorder: it builds unwind tables and reads
# build-ids and symbols) runs as nobody, so any process of that user can kill it, and a crafted binary may crash or hang
# them (issue 24). A death is never silent and never ends unwinding for good: the helper is
# restarted at once (UHELPER_BUDGET times a minute), then paused until the minute has passed;
# record's summary and ringprofd's log and STATUS say how it died. Programs started after the
# deaths still get their tables from the restarted helper.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
require_root
require_perf_events

# kill_helpers PID: SIGKILL to PID's helper child (as a user sharing its uid could).
kill_helpers() {
	local h
	h=$(pgrep -P "$1" -f 'ringprof-unwind --fd' || true)
	[ -n "$h" ] || fail "no helper under process $1"
	kill -9 $h
}

# 1. Killed twice while `record -g` runs (before its command's workload starts): restarted,
# the summary says so, and the workload is unwound by the restarted helper (no disk cache).
# (Its command, not -a: on a loaded machine under ASan, -a's hundred tables came too late.)
"$RP" record -g --unwind-cache no -e cpu-clock -o "$T/k.rp" -- sh -c "sleep 2.5; exec '$WL' -d 2" \
	>/dev/null 2>"$T/k.err" &
rec=$!
BG_PIDS="$rec"
sleep 0.8
hs=$(pgrep -P "$rec" -f 'ringprof-unwind --fd' | wc -l)
check_range "$hs" 1 1 "helper processes of one recorder (one registry, one helper)"
for i in 1 2; do
	kill_helpers "$rec"
	sleep 0.7
done
wait "$rec" || { cat "$T/k.err" >&2; fail "record -g with its helpers killed"; }
check_grep 'warning: the unwind-table and build-id helper died or hung 2 times \(last: died of signal 9 \(Killed\)' \
	"$T/k.err" "record's summary names the helper's 2 deaths and how it died"
check_grep 'helper died or hung [0-9]* times*.*; restarted$' "$T/k.err" "record's summary says it was restarted"
"$RP" report -i "$T/k.rp" --comm rp-workload --stdio -g caller --no-children >"$T/k.tree" 2>&1 ||
	fail "report of the recording"
check_grep '__libc_start_call_main' "$T/k.tree" \
	"a program started after the deaths reaches libc's start (its tables came from the new helper)"
c=$(sed -n 's/^# user stacks: \([0-9]*\)\.[0-9]*% complete.*/\1/p' "$T/k.tree" | head -1)
check_range "$c" 90 100 "% of that program's user stacks complete"

# 2. Killed UHELPER_BUDGET + 1 times within a minute: paused, and the summary says for how long.
"$RP" record -a -g -e cpu-clock -d 5 -o "$T/p.rp" 2>"$T/p.err" &
rec=$!
BG_PIDS="$rec"
sleep 1
for i in 1 2 3 4 5 6; do
	kill_helpers "$rec"
	sleep 0.4
done
left=$(pgrep -P "$rec" -f 'ringprof-unwind --fd' || true)
wait "$rec" || { cat "$T/p.err" >&2; fail "record -a -g with its helpers killed 6 times"; }
check_grep 'build-id helper died or hung 6 times .*; 6 deaths within 60 s: it is paused for [0-9]* s' \
	"$T/p.err" "6 deaths in a minute pause the helper, and the summary says so"
for h in $left; do
	! kill -0 "$h" 2>/dev/null || fail "helper $h outlived its recorder"
done
ok "no helper outlives the recorder (${left:-none} checked)"

# 3. ringprofd: each death is logged at warning level and shown in STATUS.
start_listener
start_daemon -c /dev/null -D "$D" $FAST
sleep 1
kill_helpers "$DPID"
wait_until 10 "ringprofd logs the helper's death" grep -q 'helper died or hung 1 time (last: died of signal 9' "$DLOG"
check_grep 'warning.*unwind-table and build-id helper died or hung 1 time' "$DLOG" "ringprofd logs the death as a warning"
wait_until 10 "STATUS names the death" notify_at_least 'STATUS=.*helper died or hung 1 time' 1
ok "ringprofd's STATUS names the death"
stop_daemon
[ "$DRC" = 0 ] || fail "ringprofd exited $DRC after its helpers died"
ok "ringprofd exits 0 after its helpers died"
echo "# $n_checks checks"
