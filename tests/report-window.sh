#!/bin/bash
# report-window.sh — several recordings in a directory (as rotated files are): --dir reads them
# all, --since/--until return exactly the samples in the window, across files.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

D="$T/dir"
mkdir -p "$D"
for i in 1 2 3; do
	# The last one longer: --since -DUR below reaches back into its middle (see tail_window).
	"$RP" record -q -e cpu-clock -F 499 -g -o "$D/ringprof-2026112${i}T000000Z-000$i.data" -- "$WL" -d "$([ $i = 3 ] && echo 3 || echo 0.6)" >/dev/null \
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
# Exactly the second recording, with 0.1 s to spare on each side: each file maps its times to
# the wall clock by its own offset, which follows the realtime clock's adjustments between
# recordings (a window 1 us wide lost 2 of 298 samples once); the recordings are 0.4 s apart.
since=$(awk -v a="$s2" -v h="$h1" 'BEGIN { printf "+%.6f", a - h - 0.1 }')
until=$(awk -v a="$e2" -v h="$h1" 'BEGIN { printf "+%.6f", a - h + 0.1 }')
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
# -DUR counts back from the end of the last recording: when the recorder stopped sampling,
# after the command ended. (Its last frame closes up to a second later: the recorder waits for
# the last unwind tables and build-ids; what they bring is stamped with the stop.) The dump has
# the records' times, not the stop's, so the window's start is known to within the time from
# the last sample to the stop (SLACK s at most): the samples kept are at most those after
# (last record - DUR) and at least those after (last record + SLACK - DUR). The recording is
# 3 s long, so both bounds are neither none nor all of it.
SLACK=0.2
# tail_window DUMP: "DUR LO HI", a DUR that reaches back to the middle of DUMP's samples, and
# the fewest and most samples that keeps by the dump.
tail_window() {
	awk -v slack="$SLACK" '/^SAMPLE/ { t[n++] = $2 }
		$2 ~ /^[0-9]+\.[0-9]+$/ && $2 > z { z = $2 }
		END { d = z - (t[0] + t[n - 1]) / 2; hi = z - d; lo = z + slack - d
			for (i = 0; i < n; i++) { a += t[i] >= lo; b += t[i] >= hi }
			printf "%.6f %d %d\n", d, a, b }' "$1"
}
read -r dur lo want < <(tail_window "$(ls "$D"/*0003.data.partial.dump)")
"$RP" report --dir "$D" --no-children --since "-${dur}s" >"$T/tail" 2>"$T/tail.err" || fail "--since -${dur}s"
check_no_grep 'counts back from the last sample' "$T/tail.err" \
	"--since -${dur}s on recordings just made: no note that the window ends in the past"
tail_n=$(sed -n 's/^# samples: \([0-9]*\) of.*/\1/p' "$T/tail")
check_range "$lo" 1 $((want - 1)) "the slack leaves part of the window certain ($lo of $want samples)"
check_range "${tail_n:-0}" "$lo" $((want + 1)) \
	"--since -${dur}s keeps only the end of the last recording ($want of ${n[2]} samples by the dump)"
check_range "$want" 1 $((n[2] - 1)) "and that is part of the last recording, not all of it"
"$RP" report --dir "$D" --since "2001-01-01 00:00" --until "2001-01-02 00:00" >"$T/none" || fail "empty window"
check_grep '^# samples: 0,' "$T/none" "a window before every recording has no samples, and no file is read"
"$RP" report --dir "$T/nothing-here" >"$T/nodir" 2>&1
check_grep 'cannot read directory .*nothing-here: No such file or directory' "$T/nodir" "a missing directory is explained"

# More recordings than a readdir buffer's worth (a default ringprofd passes 256 files in ~11
# days): every one is read, the newest included. 299 copies of an old recording, then the
# newest one last by name.
M="$T/many"
mkdir -p "$M"
for i in $(seq -w 1 299); do cp "$D/ringprof-20261121T000000Z-0001.data" "$M/ringprof-20261001T000000Z-0$i.data"; done
"$RP" record -q -e cpu-clock -F 499 -o "$M/ringprof-20261231T235959Z-9999.data" -- "$WL" -d 3 -q >/dev/null || fail "the newest recording"
newest=$("$RP" report -i "$M/ringprof-20261231T235959Z-9999.data" --no-children | sed -n 's/^# samples: \([0-9]*\),.*/\1/p')
"$RP" report --dir "$M" --no-children >"$T/many.out" 2>"$T/many.err" || fail "--dir with 300 recordings: $(cat "$T/many.err")"
check_grep '^# ringprof report of .*-0001.data and 299 more recordings$' "$T/many.out" "--dir reads all 300 recordings"
check_grep "^# samples: $((n[0] * 299 + newest)), " "$T/many.out" "every sample of them, the newest recording's $newest too"
"$RP" report -i "$M/ringprof-20261231T235959Z-9999.data" --dump >"$T/newest.dump" 2>&1
read -r dur lo want < <(tail_window "$T/newest.dump")
"$RP" report --dir "$M" --no-children --since "-${dur}s" >"$T/many.tail" 2>&1 || fail "--dir --since -${dur}s"
tail_n=$(sed -n 's/^# samples: \([0-9]*\) of.*/\1/p' "$T/many.tail")
check_range "${tail_n:-0}" "$lo" $((want + 1)) "--since -${dur}s finds the end of the newest file ($want of $newest samples by the dump)"
# An empty --dir is an error, not a report of whatever ./ringprof.data is.
mkdir -p "$T/empty" "$T/cwd"
cp "$D/ringprof-20261121T000000Z-0001.data" "$T/cwd/ringprof.data"
(cd "$T/cwd" && "$RP" report --dir "$T/empty") >"$T/empty.out" 2>&1
check_eq $? 1 "--dir with no recordings exits 1"
check_grep 'no recordings \(\*\.data, \*\.data\.partial\) in this directory' "$T/empty.out" "and says the directory has none"
check_no_grep '^# ringprof report' "$T/empty.out" "and reports nothing else (not ./ringprof.data)"
# So is a --dir that does not exist (the README's ringprofd command on a host without it).
for cmd in report script; do
	(cd "$T/cwd" && "$RP" $cmd --dir "$T/missing") >"$T/missing.out" 2>&1
	check_eq $? 1 "$cmd --dir MISSING exits 1"
	check_grep "^ringprof $cmd: cannot read directory $T/missing: No such file or directory" "$T/missing.out" \
		"$cmd --dir MISSING says why"
	check_no_grep '^# ringprof report|^ *rp-' "$T/missing.out" "$cmd --dir MISSING reads nothing else"
done
exit 0
