#!/bin/bash
# daemon-files.sh — ringprofd's files: SIGUSR2 rotates into a new complete file, SIGHUP with
# a changed frequency restarts recording into a file whose header says so, a bad config on
# SIGHUP keeps the running one, and files rotate by MaxFileSec and MaxFileSize.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events

C="$T/ringprofd.conf"
printf 'Frequency=199\nFlushInterval=0.2\nEvent=cpu-clock\nMaxFileSec=0\n' >"$C"
start_listener
start_daemon -c "$C" -D "$D"
first=$(partial_files)
wait_until 20 "samples recorded" samples_at_least 200

# SIGUSR2: the active file is completed and renamed, recording goes on in a new one.
kill -USR2 "$DPID"
wait_until 20 "SIGUSR2 closes a file" n_closed_at_least 1
check_eq "$(closed_files)" "${first%.partial}" "the first file got its final name"
has_partial() { [ -n "$(partial_files)" ]; } # looked at again on every try
wait_until 10 "a new active file" has_partial
second=$(partial_files)
[ "$second" != "$first" ] || fail "no new active file after SIGUSR2"
ok "SIGUSR2: a new active file $second"
check_grep '^ringprof-[0-9]{8}T[0-9]{6}Z-0002\.data\.partial$' <(echo "$second") "sequence numbers count up"
stats "$D/${first%.partial}" "$T/s1"
check_grep '^  finished +yes$' "$T/s1" "the rotated file is complete"
check_grep '^  event +cpu-clock, 199 Hz' "$T/s1" "the rotated file: 199 Hz"
check_range "$(stat_field samples "$T/s1")" 200 10000000 "the rotated file has its samples"
"$RP" report -i "$D/${first%.partial}" --dump 2>/dev/null | grep -c '^KSYMS' >"$T/n" || true
check_range "$(cat "$T/n")" 1 1000000 "the rotated file has its own kernel symbols"

# SIGHUP with a new frequency: RELOADING=1, READY=1, and a new file recorded at 99 Hz.
echo 'Frequency=99' >>"$C"
ready=$(n_notify 'READY=1')
kill -HUP "$DPID"
wait_until 20 "READY=1 after the reload" notify_at_least 'READY=1' $((ready + 1))
check_grep "^pid=$DPID RELOADING=1 MONOTONIC_USEC=[0-9]+$" "$NLOG" "RELOADING=1 with MONOTONIC_USEC="
check_grep "^pid=$DPID READY=1 STATUS=recording [0-9]+ CPUs? at 99 Hz" "$NLOG" "STATUS= shows the new rate"
check_eq "$(n_closed)" 2 "the reload closed the 199 Hz file"
third=$(partial_files)
sleep 1
kill -USR2 "$DPID"
wait_until 20 "SIGUSR2 closes the 99 Hz file" n_closed_at_least 3
stats "$D/${second%.partial}" "$T/s2"
check_grep '^  event +cpu-clock, 199 Hz' "$T/s2" "the file before the reload: 199 Hz"
check_grep '^  finished +yes$' "$T/s2" "the file before the reload is complete"
stats "$D/${third%.partial}" "$T/s3"
check_grep '^  event +cpu-clock, 99 Hz \(requested 99 Hz\)' "$T/s3" "SIGHUP with Frequency=99: the next file's header says 99 Hz"
check_grep '^  finished +yes$' "$T/s3" "the 99 Hz file is complete"
check_grep 'configuration reloaded' "$DLOG" "the reload is logged"

# A bad config on SIGHUP: logged with file:line, the running configuration stays.
echo 'Frequency=many' >>"$C"
active=$(partial_files)
ready=$(n_notify 'READY=1')
kill -HUP "$DPID"
wait_until 20 "READY=1 after the failed reload" notify_at_least 'READY=1' $((ready + 1))
check_grep "^ringprofd: error: reload rejected: $C:6: Frequency=many: expected a frequency in Hz from 1 to 100000; keeping the running configuration$" \
	"$DLOG" "a bad config on reload is named and the old one kept"
check_eq "$(partial_files)" "$active" "a failed reload keeps the active file"
check_grep "^pid=$DPID READY=1 STATUS=recording [0-9]+ CPUs? at 99 Hz" "$NLOG" "still 99 Hz after a failed reload"
kill -0 "$DPID" || fail "the daemon died on a bad reload"

# A storage-only change applies without a new file.
sed -i '$d' "$C"
echo 'MaxUse=1G' >>"$C"
ready=$(n_notify 'READY=1')
kill -HUP "$DPID"
wait_until 20 "READY=1 after a storage-only reload" notify_at_least 'READY=1' $((ready + 1))
check_eq "$(partial_files)" "$active" "a storage-only reload keeps the active file"

stop_daemon
check_eq "$DRC" 0 "SIGTERM: exit 0"
check_eq "$(partial_files | wc -l)" 0 "no .partial left"

# Rotation by age and by size.
rm -rf "$D"
: >"$NLOG"
start_daemon -c /dev/null -D "$D" $FAST --max-file-sec 2s
wait_until 30 "MaxFileSec=2s rotates" n_closed_at_least 2
check_grep 'new file ringprof-.* \(MaxFileSec\)' "$DLOG" "rotation by MaxFileSec is logged"
stop_daemon
rm -rf "$D"
start_daemon -c /dev/null -D "$D" $FAST --max-file-size 64K --max-file-sec 0
wait_until 30 "MaxFileSize=64K rotates" n_closed_at_least 2
check_grep 'new file ringprof-.* \(MaxFileSize\)' "$DLOG" "rotation by MaxFileSize is logged"
stop_daemon
check_eq "$DRC" 0 "SIGTERM: exit 0 after rotations"
for f in $(closed_files); do
	stats "$D/$f" "$T/sf"
	grep -Eq '^  finished +yes$' "$T/sf" || fail "$f is not complete"
done
ok "every rotated file is complete and readable"
exit 0
