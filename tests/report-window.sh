#!/bin/bash
# report-window.sh — several recordings in a directory (as rotated files are): --dir reads them
# all, --since/--until return exactly the samples in the window, across files.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

D="$T/dir"
mkdir -p "$D"
for i in 1 2 3; do
	"$RP" record -q -e cpu-clock -F 499 -g -o "$D/ringprof-2026112${i}T000000Z-000$i.data" -- "$WL" -d 0.6 >/dev/null \
		|| fail "recording $i"
	sleep 0.4
done
# The last one as a file still being written.
mv "$D/ringprof-20261123T000000Z-0003.data" "$D/ringprof-20261123T000000Z-0003.data.partial"
echo "not a recording" >"$D/notes.txt"

n=()
for f in "$D"/*; do
	case "$f" in *.txt) continue ;; esac
	"$RP" report -i "$f" --dump >"$f.dump" 2>/dev/null
	n+=("$(grep -c '^SAMPLE ' "$f.dump")")
done
total=$((n[0] + n[1] + n[2]))
"$RP" report --dir "$D" --no-children >"$T/all" 2>"$T/all.err" || fail "--dir: $(cat "$T/all.err")"
check_grep "^# samples: $total, lost" "$T/all" "--dir reads every recording, .partial included ($total samples)"
check_grep '^# ringprof report of .*-0001.data and 2 more recordings$' "$T/all" "the header names the inputs"
check_grep '^ +[0-9.]+% +rp-workload +rp-workload +\[\.\] warm_func$' "$T/all" "and symbolizes them"

# Times of the dumps are CLOCK_MONOTONIC seconds of one boot: differences are wall-clock ones.
h1=$(awk '/^HEADER/ { print $2; exit }' "$D"/*0001.data.dump)
f2="$(ls "$D"/*0002.data.dump)"
s2=$(awk '/^SAMPLE/ { print $2; exit }' "$f2")
e2=$(awk '/^SAMPLE/ { t = $2 } END { print t }' "$f2")
# Exactly the second recording.
since=$(awk -v a="$s2" -v h="$h1" 'BEGIN { printf "+%.6f", a - h - 0.000001 }')
until=$(awk -v a="$e2" -v h="$h1" 'BEGIN { printf "+%.6f", a - h + 0.000001 }')
"$RP" report --dir "$D" --no-children --since "$since" --until "$until" >"$T/w2" 2>"$T/w2.err" || fail "window: $(cat "$T/w2.err")"
check_grep "^# samples: ${n[1]}(,| of)" "$T/w2" "a window around the second recording has exactly its ${n[1]} samples"
# The middle 40 % of it: compare with the dump, sample by sample.
a=$(awk -v s="$s2" -v e="$e2" 'BEGIN { printf "%.9f", s + (e - s) * 0.3 }')
b=$(awk -v s="$s2" -v e="$e2" 'BEGIN { printf "%.9f", s + (e - s) * 0.7 }')
want=$(awk -v a="$a" -v b="$b" '/^SAMPLE/ && $2 >= a && $2 <= b { c++ } END { print c + 0 }' "$f2")
since=$(awk -v a="$a" -v h="$h1" 'BEGIN { printf "+%.9f", a - h }')
until=$(awk -v b="$b" -v h="$h1" 'BEGIN { printf "+%.9f", b - h }')
"$RP" report --dir "$D" --no-children --since "$since" --until "$until" >"$T/wm" || fail "middle window"
got=$(sed -n 's/^# samples: \([0-9]*\) of.*/\1/p' "$T/wm")
check_range "$got" $((want - 1)) $((want + 1)) "a window inside one recording returns the samples in it ($want by the dump)"
# -DUR counts back from the end of the last recording.
"$RP" report --dir "$D" --no-children --since -0.3s >"$T/tail" || fail "--since -0.3s"
tail_n=$(sed -n 's/^# samples: \([0-9]*\) of.*/\1/p' "$T/tail")
check_range "${tail_n:-0}" 1 $((n[2] - 1)) "--since -0.3s keeps only the end of the last recording"
"$RP" report --dir "$D" --since "2001-01-01 00:00" --until "2001-01-02 00:00" >"$T/none" || fail "empty window"
check_grep '^# samples: 0,' "$T/none" "a window before every recording has no samples, and no file is read"
"$RP" report --dir "$T/nothing-here" >"$T/nodir" 2>&1
check_grep 'cannot read directory .*nothing-here: No such file or directory' "$T/nodir" "a missing directory is explained"
exit 0
