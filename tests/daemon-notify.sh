#!/bin/bash
# daemon-notify.sh — ringprofd as systemd runs it: READY=1 once the first file is open,
# STATUS= with rate, samples, loss, bytes and compression, WATCHDOG=1 pings, STOPPING=1, and
# SIGTERM completing the file (exit 0, nothing .partial left). Also the abstract socket
# namespace, journal priority prefixes, and the refusal without privileges.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events

start_listener
WATCHDOG_USEC=1000000 start_daemon -c /dev/null -D "$D" $FAST
partials_at_ready=$(partial_files | wc -l)
check_eq "$partials_at_ready" 1 "READY=1 comes after the first file is open"
check_grep "^pid=$DPID READY=1 STATUS=recording [0-9]+ CPUs? at 199 Hz \(cpu-clock\): [0-9]+ samples, 0 lost, [0-9.]+ [KM]iB written \([0-9.]+x\), file ringprof-[0-9]{8}T[0-9]{6}Z-0001\.data\.partial$" \
	"$NLOG" "READY=1 with a STATUS= naming rate, samples, loss, bytes, compression and file (sent by the daemon's pid)"
[ "$(stat -c %a "$D")" = 750 ] || fail "the recording directory is $(stat -c %a "$D"), not 0750"
ok "the recording directory is 0750"
f=$(partial_files)
[ "$(stat -c %a "$D/$f")" = 640 ] || fail "the active file is $(stat -c %a "$D/$f"), not 0640"
ok "the active file is 0640"
# A second daemon on the same directory is refused before it touches anything.
"$RPD" -c /dev/null -D "$D" $FAST >"$T/second.out" 2>&1
check_eq "$?" 73 "a second daemon on the same directory: exit 73"
check_grep "^ringprofd: error: another ringprofd is recording into this directory \($D\)$" "$T/second.out" \
	"a second daemon on the same directory: the reason"
check_eq "$(partial_files)" "$f" "the first daemon's active file is left alone"

wait_until 20 "three WATCHDOG=1 pings (WATCHDOG_USEC=1 s)" notify_at_least "^pid=$DPID WATCHDOG=1$" 3
ok "WATCHDOG=1 pings"
# STATUS is refreshed every few seconds: the samples show up in it.
wait_until 30 "STATUS= counts samples" samples_at_least 300
ok "STATUS= counts samples ($(status_samples))"
check_grep 'STATUS=.* [0-9]+ samples, 0 lost, [0-9.]+ [KM]iB written \([1-9][0-9]*\.[0-9]x\)' "$NLOG" "STATUS= has a compression ratio"

stop_daemon
check_eq "$DRC" 0 "SIGTERM: exit 0"
check_grep "^pid=$DPID STOPPING=1 STATUS=stopping; " "$NLOG" "STOPPING=1"
check_eq "$(partial_files | wc -l)" 0 "no .partial left after SIGTERM"
check_eq "$(n_closed)" 1 "one closed recording"
f=$(closed_files)
[ "$(stat -c %a "$D/$f")" = 640 ] || fail "the closed file is $(stat -c %a "$D/$f"), not 0640"
ok "the closed file is 0640"
stats "$D/$f" "$T/stats"
check_grep '^  finished +yes$' "$T/stats" "the file is complete (finished yes)"
check_grep '^  event +cpu-clock, 199 Hz .*callchains, kernel and user(, cgroups)?$' "$T/stats" "199 Hz with callchains, kernel and user"
check_grep '^  target +system-wide, [0-9]+ CPUs? recorded$' "$T/stats" "system-wide"
check_grep '^  kernel syms +[1-9][0-9]* \(the ones samples hit' "$T/stats" "kernel symbols in the file"
samples=$(stat_field samples "$T/stats")
check_range "$samples" 300 10000000 "samples in the file"
check_no_grep '^<[0-9]>' "$DLOG" "no priority prefixes outside systemd"
check_grep '^ringprofd: recording [0-9]+ CPUs? at 199 Hz \(cpu-clock, callchains\) into ' "$DLOG" "start-up line"
check_grep "^ringprofd: closed $f " "$DLOG" "closing is logged"

# As under systemd: an abstract notify socket, journal prefixes, and a watchdog meant for
# another process (WATCHDOG_PID) is not ours to feed.
kill "$LPID"; wait "$LPID" 2>/dev/null
: >"$DLOG"
start_listener "@ringprof-test-$$"
INVOCATION_ID=0123456789abcdef WATCHDOG_USEC=200000 WATCHDOG_PID=1 start_daemon -c /dev/null -D "$D" $FAST
check_grep "^pid=$DPID READY=1 STATUS=recording " "$NLOG" "READY=1 through an abstract socket"
sleep 1.5
check_eq "$(n_notify 'WATCHDOG=1')" 0 "no pings when WATCHDOG_PID is another process"
stop_daemon
check_eq "$DRC" 0 "SIGTERM: exit 0 (second run)"
check_grep '^<6>recording [0-9]+ CPUs? at 199 Hz' "$DLOG" "info lines carry <6> under systemd"
check_eq "$(n_closed)" 2 "the second run added a file"

# Without privileges the refusal is one clear sentence and exit status 4.
if command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
	U="$T/u"
	mkdir -p "$U"
	cp "$RPD" "$U/"
	chmod 755 "$T" "$U"
	chown nobody "$U"
	setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env -- "$U/ringprofd" -c /dev/null \
		-D "$U/rec" >"$T/unpriv.out" 2>&1
	check_eq "$?" 4 "without privileges: exit 4"
	check_grep '^ringprofd: error: cannot record: permission denied for system-wide recording: .*CAP_PERFMON' \
		"$T/unpriv.out" "without privileges: the reason and the capability"
fi
exit 0
