#!/bin/bash
# daemon-reload.sh — `ringprofd --reload PID` (the unit's ExecReload=): it returns only once the
# new configuration is in force, ten times in a row with busy CPUs; a rejected reload makes it
# exit 1 with the daemon's reason, which stays in STATUS= until a reload succeeds; the
# recorder's notes (no hardware PMU) are logged once, not at every reload.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events

C="$T/ringprofd.conf"
printf 'Frequency=199\nFlushInterval=0.2\nMaxFileSec=0\nCallChain=no\n' >"$C"
start_listener
start_daemon -c "$C" -D "$D"
notes0=$(grep -c 'note: ' "$DLOG" || true)

# Both CPUs busy while reloading: under load is when an asynchronous reload lost the race.
for _ in 1 2; do
	"$WL" -d 60 -q >/dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
done

# Ten reloads, each changing the frequency; the log line of the new recorder and the STATUS=
# datagram are written before the daemon answers, so they are there when --reload returns.
for i in $(seq 1 10); do
	hz=$((100 + i))
	sed -i "s/^Frequency=.*/Frequency=$hz/" "$C"
	"$RPD" --reload "$DPID" 2>"$T/reload.err" || fail "reload $i: $(cat "$T/reload.err")"
	grep -q "recording at $hz Hz" "$DLOG" || fail "reload $i returned before $hz Hz was in force"
	[ -s "$T/reload.err" ] && fail "reload $i printed: $(cat "$T/reload.err")"
done
ok "ten reloads with busy CPUs, each in force (log says its frequency) when --reload returned"
sleep 0.3 # sd-listen writes the datagrams it received to its log
check_grep "^pid=$DPID READY=1 STATUS=recording [0-9]+ CPUs? at 110 Hz" "$NLOG" "STATUS= after the tenth reload says 110 Hz"
check_eq "$(grep -c 'configuration reloaded' "$DLOG")" 10 "ten reloads logged"
check_eq "$(grep -c 'note: ' "$DLOG" || true)" "$notes0" "the recorder's notes are not logged again at each reload"
if grep -q 'note: .*PMU' "$DLOG"; then
	ok "the no-PMU note was logged once, at start"
fi

# A rejected reload: exit 1 with the reason; the running configuration and file are kept;
# STATUS= says why until a reload succeeds.
active=$(partial_files)
echo 'Frequency=many' >>"$C"
"$RPD" --reload "$DPID" 2>"$T/reject.err" && fail "a rejected reload made --reload exit 0"
check_grep "^ringprofd: the reload was rejected and the running configuration kept: $C:5: Frequency=many: expected a frequency in Hz" \
	"$T/reject.err" "a rejected reload: --reload exits non-zero with the daemon's reason"
check_grep "reload rejected: $C:5: Frequency=many" "$DLOG" "and the daemon logs it"
check_eq "$(partial_files)" "$active" "a rejected reload keeps the active file"
sleep 0.3
check_grep "^pid=$DPID READY=1 STATUS=recording [0-9]+ CPUs? at 110 Hz.*; last reload rejected: $C:5: Frequency=many" \
	"$NLOG" "STATUS= keeps the running frequency and says why the reload was rejected"
kill -USR2 "$DPID"
# A function, so that the active file is looked at again on every try.
rotated_from() { [ "$(partial_files)" != "$1" ]; }
wait_until 10 "a rotation after the rejected reload" rotated_from "$active"
sleep 0.3
last_status >"$T/st"
check_grep '; last reload rejected: ' "$T/st" "the rejection stays in STATUS= after other updates"
sed -i '$d' "$C"
"$RPD" --reload "$DPID" 2>"$T/reload.err" || fail "the reload after the fix: $(cat "$T/reload.err")"
sleep 0.3
last_status >"$T/st"
check_no_grep 'reload rejected' "$T/st" "a successful reload clears the rejection from STATUS="

# A plain SIGHUP still reloads (and expects no answer).
sed -i "s/^Frequency=.*/Frequency=97/" "$C"
kill -HUP "$DPID"
wait_until 10 "a plain SIGHUP reloads" grep -q 'recording at 97 Hz' "$DLOG"
ok "a plain SIGHUP reloads without a requester"
check_no_grep 'cannot answer' "$DLOG" "nobody to answer is not an error"

# Asking something that is not there.
"$RPD" --reload 999999999 2>"$T/nopid.err" && fail "--reload of a missing process exited 0"
check_grep '^ringprofd: cannot signal process 999999999: No such process$' "$T/nopid.err" "--reload names a missing process"
"$RPD" --reload abc 2>"$T/bad.err"
check_eq "$?" 2 "--reload abc is a usage error"
check_grep "^ringprofd: --reload takes the daemon's process id, not 'abc'$" "$T/bad.err" "and says what it takes"

stop_daemon
check_eq "$DRC" 0 "SIGTERM after the reloads: exit 0"
echo "$n_checks checks passed"
