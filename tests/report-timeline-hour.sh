#!/bin/bash
# report-timeline-hour.sh — issue 28: `report --timeline` finds the spike in an hour of a
# continuous profiler's data, in text. tests/rp-craft hour writes 12 recordings of 5 minutes
# named as ringprofd names them, 20 samples a second, and in the minute from 30:00 to 31:00 a
# spike of 200 a second, 9 in 10 of command "server" in rp_spike_hot. The timeline of the
# directory has one bucket far above the others, the one holding that minute; its samples per
# command are what report --dir --since/--until of that bucket counts.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

mkdir -p "$T/d"
"$top_builddir/tests/rp-craft" hour "$T/d" >"$T/craft.out" || fail "rp-craft hour"
read -r word since until <"$T/craft.out"
[ "$word" = spike ] || fail "rp-craft hour said: $(cat "$T/craft.out")"
TZ=UTC "$RP" report --dir "$T/d" --timeline >"$T/tl" 2>"$T/tl.err" || fail "report --timeline: $(cat "$T/tl.err")"
width=$(sed -n 's/^# Timeline: [0-9]* buckets of \([0-9]*\) s from .*/\1/p' "$T/tl")
check_eq "$width" 300 "the bucket width chosen for an hour (s)"
# The busiest bucket: its HH:MM:SS, its samples, server's and batch's.
read -r at n server batch < <(awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / { if ($2 > m) { m = $2; l = $1 " " $2 " " $3 " " $4 } } END { print l }' "$T/tl")
second=$(awk -v top="$n" '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / && $2 != top { if ($2 > m) m = $2 } END { print m + 0 }' "$T/tl")
check_range "$((n / second))" 2 100 "the spike's bucket has at least twice the next one's samples ($n against $second)"
spike_hms=$(date -u -d "@$((since / 1000000000))" +%H:%M:%S)
bucket_s=$(date -u -d "1970-01-01 $at" +%s)
spike_s=$(date -u -d "1970-01-01 $spike_hms" +%s)
check_range "$((spike_s - bucket_s))" 0 299 "the busiest bucket ($at) holds the spike's minute ($spike_hms)"
# The same bucket by --since/--until (wall-clock times): the same counts per command.
day=$(date -u -d "@$((since / 1000000000))" +%Y-%m-%d)
for c in server batch; do
	want=$([ $c = server ] && echo "$server" || echo "$batch")
	got=$(TZ=UTC "$RP" report --dir "$T/d" --since "$day $at" --until "$(date -u -d "@$(( $(date -u -d "$day $at" +%s) + 300 ))" '+%Y-%m-%d %H:%M:%S')" \
		--comm $c -n --no-children -s comm 2>/dev/null | awk '$1 ~ /%$/ { n += $2 } END { print n + 0 }')
	check_eq "$got" "$want" "$c's samples in the spike's bucket, as report --since/--until counts them"
done
echo "# $n_checks checks"
