#!/bin/bash
# daemon-crash.sh — kill -9 of ringprofd: the restart recovers the .partial file (renamed,
# never deleted), its complete frames are readable, and at most about the flush interval
# before the kill is missing.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events

start_listener
start_daemon -c /dev/null -D "$D" $FAST
crashed=$(partial_files)
wait_until 30 "samples recorded" samples_at_least 400
sleep 0.5
killed_at=$(uptime_s)
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
check_eq "$(partial_files)" "$crashed" "kill -9 leaves the active file .partial"

# What a crashed file holds is readable before any recovery.
stats "$D/$crashed" "$T/before"
check_grep '^  finished +no\b' "$T/before" "the crashed file is unfinished"

# A foreign file next to ours is not touched.
echo keep >"$D/notes.txt"
# An empty .partial (a crash right after creating a file) holds nothing and is removed.
: >"$D/ringprof-20200101T000000Z-0099.data.partial"
start_daemon -c /dev/null -D "$D" $FAST
check_grep "^ringprofd: recovered $D/${crashed%.partial} \([0-9.]+ [KM]iB\) from an unclean shutdown" "$DLOG" \
	"the restart says it recovered the file"
check_grep '^ringprofd: removed .*ringprof-20200101T000000Z-0099.data.partial: empty' "$DLOG" "an empty leftover is removed"
[ -f "$D/${crashed%.partial}" ] || fail "the crashed file was not renamed to ${crashed%.partial}"
ok "the crashed file is now ${crashed%.partial}"
[ -f "$D/notes.txt" ] || fail "a foreign file was removed"
ok "foreign files are left alone"
now_active=$(partial_files)
check_grep '^ringprof-[0-9]{8}T[0-9]{6}Z-0100\.data\.partial$' <(echo "$now_active") "the sequence continues after the highest seen"

stats "$D/${crashed%.partial}" "$T/after"
check_grep '^  finished +no\b' "$T/after" "the recovered file is marked unfinished"
check_grep '^  event +cpu-clock, 199 Hz' "$T/after" "its header is intact"
samples=$(stat_field samples "$T/after")
check_range "$samples" 400 10000000 "its samples are readable"
"$RP" report -i "$D/${crashed%.partial}" --dump >"$T/dump" 2>/dev/null || fail "dump of the recovered file"
last=$(awk '/^SAMPLE/ { t = $2 } END { print t }' "$T/dump")
gap_ms=$(awk -v a="$killed_at" -v b="$last" 'BEGIN { printf "%d", (a - b) * 1000 }')
check_range "$gap_ms" -100 1500 "at most the flush interval is lost (gap ${gap_ms} ms)"
"$RP" report -i "$D/${crashed%.partial}" --no-children -s comm >"$T/report" 2>/dev/null || fail "report of the recovered file"
check_grep '^ +[0-9.]+% +swapper|^ +[0-9.]+% +[a-z]' "$T/report" "the recovered file gives a report"

stop_daemon
check_eq "$DRC" 0 "the restarted daemon stops cleanly"
check_eq "$(partial_files | wc -l)" 0 "no .partial left"
check_eq "$(n_closed)" 2 "the recovered file and the new one"
exit 0
