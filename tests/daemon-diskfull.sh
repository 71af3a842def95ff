#!/bin/bash
# daemon-diskfull.sh — ringprofd on a full file system: it stays up, counts what it cannot
# write (log and STATUS=), does not rotate into a file it could not start, and resumes
# writing when space returns.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events

M="$T/mnt"
mount_tmpfs 2m "$M" || skip "cannot mount a tmpfs here: $(cat "$T/mount.err")"
D="$M/rec"

bigger_than() {
	[ "$(stat -c %s "$1")" -gt "$2" ]
}

start_listener
start_daemon -c /dev/null -D "$D" $FAST --max-use infinity --keep-free 0 --max-file-sec 0
active=$(partial_files)
wait_until 20 "samples recorded" samples_at_least 100

# Fill the file system: the daemon's next frames cannot be written.
dd if=/dev/zero of="$M/fill" bs=16k 2>/dev/null
check_range "$(df -B1 --output=avail "$M" | tail -1 | tr -d " ")" 0 16384 "the file system is full"
wait_until 20 "the write failure is logged" grep -q 'cannot write' "$DLOG"
check_grep "^ringprofd: warning: cannot write $D/$active: No space left on device; recording continues and drops what it cannot write until space returns$" \
	"$DLOG" "disk full: one clear warning"
wait_until 20 "STATUS= counts dropped records" status_count_at_least "records dropped" 1
check_grep "STATUS=recording .*; cannot write \(No space left on device\): [1-9][0-9]* records dropped$" "$NLOG" \
	"disk full: STATUS= says so and counts the dropped records"
first=$(status_count "records dropped")
wait_until 30 "the dropped count grows" status_count_at_least "records dropped" $((first + 1))
kill -0 "$DPID" || fail "the daemon died on a full disk"
ok "the daemon stays up on a full disk"
check_range "$(grep -c 'cannot write' "$DLOG")" 1 3 "the failure is not logged for every frame"

# Rotation needs room for a new file's head: the old file goes on instead.
kill -USR2 "$DPID"
wait_until 20 "the refused rotation is logged" grep -q 'not starting a new file' "$DLOG"
check_grep "^ringprofd: warning: not starting a new file \(SIGUSR2\): [0-9.]+ [KMi]*B available, [0-9.]+ [KM]iB needed; continuing in $active$" \
	"$DLOG" "no rotation on a full disk, with the reason"
check_eq "$(partial_files)" "$active" "the active file stays"
kill -0 "$DPID" || fail "the daemon died on SIGUSR2 with a full disk"

# Space returns: frames land again.
size_full=$(stat -c %s "$D/$active")
rm -f "$M/fill"
freed_at=$(uptime_s)
# (How soon does not matter here, that it happens does: on a loaded machine the first frame
# that lands can take a while after the rotation that was refused; a CI run waited 20 s.)
wait_until 60 "writing resumes" grep -q 'again;' "$DLOG"
check_grep "^ringprofd: writing $active again; [1-9][0-9]* records \([0-9.]+ [KMi]*B\) could not be written meanwhile$" \
	"$DLOG" "the resumption is logged with what was lost"
wait_until 60 "the file grows again" bigger_than "$D/$active" "$size_full"
ok "new frames land after space returns"
wait_until 60 "STATUS= after the resumption" grep -q 'records dropped earlier$' "$NLOG"
ok "STATUS= still reports the earlier drops"
sleep 1
stop_daemon
check_eq "$DRC" 0 "SIGTERM: exit 0 after a full disk"
f=${active%.partial}
[ -f "$D/$f" ] || fail "$f was not completed"
stats "$D/$f" "$T/stats"
grep -Eq '^  finished +yes$' "$T/stats" || { echo "--- the daemon's log:" >&2; tail -15 "$DLOG" >&2; df -k "$M" >&2; }
check_grep '^  finished +yes$' "$T/stats" "the file is complete"
check_grep '^  not written +[1-9][0-9]* records' "$T/stats" "the file records how much could not be written"
"$RP" report -i "$D/$f" --dump >"$T/dump" 2>/dev/null || fail "dump"
n_after=$(awk -v t="$freed_at" '/^SAMPLE/ && $2 > t + 0.3 { n++ } END { print n + 0 }' "$T/dump")
check_range "$n_after" 10 10000000 "samples after the space returned are in the file"
exit 0
