#!/bin/bash
# report-window-header.sh — with --dir and --since/--until, the report's header names and times
# what the report covers: the first recording with samples in the window (not the first of the
# directory, which the window skipped), how many of the recordings it covers, and the first
# and last sample it kept.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

D="$T/dir"
mkdir -p "$D"
for i in 1 2 3; do
	"$RP" record -q -e cpu-clock -F 499 -o "$D/ringprof-2026112${i}T000000Z-000$i.data" -- "$WL" -d 0.5 >/dev/null ||
		fail "recording $i"
	sleep 1.1 # whole seconds apart: each header's start time differs in the header line
done
for i in 1 2 3; do
	"$RP" report -i "$D"/*000$i.data --no-children >"$T/r$i" 2>/dev/null || fail "report of recording $i"
	"$RP" report -i "$D"/*000$i.data --dump >"$T/d$i" 2>/dev/null
done
recorded() { sed -n 's/^# recorded: \([^,]*\),.*/\1/p' "$1"; }
h1=$(awk '/^HEADER/ { print $2; exit }' "$T/d1")
s2=$(awk '/^SAMPLE/ { print $2; exit }' "$T/d2")
s3=$(awk '/^SAMPLE/ { t = $2 } END { print t }' "$T/d3")

# From the second recording's first sample on: the first one is skipped.
since=$(awk -v a="$s2" -v h="$h1" 'BEGIN { printf "+%.6f", a - h - 0.000001 }')
"$RP" report --dir "$D" --no-children --since "$since" >"$T/w" 2>"$T/w.err" || fail "--since: $(cat "$T/w.err")"
check_grep '^# ringprof report of .*/ringprof-20261122T000000Z-0002\.data and 1 more recording \(2 of 3 recordings have samples in the --since/--until window\)$' \
	"$T/w" "the header names the first recording the window covers, and how many it covers"
check_eq "$(recorded "$T/w")" "$(recorded "$T/r2")" "the recorded time is the second recording's start, not the first's"
[ "$(recorded "$T/r1")" != "$(recorded "$T/r2")" ] || fail "the recordings' start times differ (the check above would prove nothing)"
check_grep '^# window: samples from [0-9-]+ [0-9:]+\.[0-9]{3} to [0-9-]+ [0-9:]+\.[0-9]{3}$' "$T/w" "a window line gives the first and last sample kept"
check_grep "^# samples: $(($(grep -c '^SAMPLE ' "$T/d2") + $(grep -c '^SAMPLE ' "$T/d3")))[, ]" "$T/w" "and the samples are those of recordings 2 and 3"

# A window inside the last recording only.
since=$(awk -v a="$s3" -v h="$h1" 'BEGIN { printf "+%.6f", a - h - 0.2 }')
"$RP" report --dir "$D" --no-children --since "$since" >"$T/w3" 2>/dev/null || fail "--since inside the last"
check_grep '^# ringprof report of .*/ringprof-20261123T000000Z-0003\.data \(1 of 3 recordings has samples in the --since/--until window\)$' \
	"$T/w3" "a window inside the last recording names only it"
check_eq "$(recorded "$T/w3")" "$(recorded "$T/r3")" "and times it"

# A window with nothing in it says so instead of naming a recording.
"$RP" report --dir "$D" --since "2001-01-01 00:00" --until "2001-01-02 00:00" >"$T/none" 2>/dev/null || fail "empty window"
check_grep '^# ringprof report of no recording: none of the 3 has samples in the --since/--until window$' "$T/none" "an empty window names no recording"

# Without a window the header is as before: the first input and how many more.
"$RP" report --dir "$D" --no-children >"$T/all" 2>/dev/null || fail "--dir"
check_grep '^# ringprof report of .*-0001\.data and 2 more recordings$' "$T/all" "without a window, every recording is named"
check_no_grep '^# window:' "$T/all" "and there is no window line"
echo "$n_checks checks passed"
