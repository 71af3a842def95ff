#!/bin/bash
# ls.sh — `ringprof ls`: a directory's recordings, oldest first, with the samples a report of
# each counts, complete, partial (a recording still being written) or damaged (a cut file),
# the totals of the column, and one sentence for what it cannot list.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

# rows FILE: the file lines of an ls output ("START END SAMPLES LOST SIZE STATE NAME"; the
# times are two words each).
rows() { grep -v '^#' "$1"; }

# 1. record --switch-output's files: one line each, oldest first, a report's samples each.
mkdir -p "$T/d"
"$RP" record -q -e cpu-clock -F 499 --switch-output=1s -d 2.5 -o "$T/d/s.data" -- "$WL" -d 4 -q >/dev/null 2>&1
ls "$T"/d/s-*.data >/dev/null 2>&1 || fail "record --switch-output wrote no file"
"$RP" ls "$T/d" >"$T/ls.out" 2>"$T/ls.err" || fail "ringprof ls: status $? ($(cat "$T/ls.err"))"
check_grep '^# START +END +SAMPLES +LOST +SIZE +STATE +FILE$' "$T/ls.out" "the title line"
n=$(find "$T/d" -name '*.data' | wc -l)
check_eq "$(rows "$T/ls.out" | wc -l)" "$n" "one line for each of the $n recordings"
check_eq "$(rows "$T/ls.out" | awk '{ print $9 }' | sort -u)" complete "each is complete"
rows "$T/ls.out" | awk '{ print $1 " " $2 }' >"$T/starts"
sort -c "$T/starts" || fail "not the oldest first: $(tr '\n' '|' <"$T/starts")"
ok "the oldest first"
total=0
while read -r _ _ _ _ samples lost _ _ state name; do
	r=$("$RP" report -i "$T/d/$name" 2>/dev/null | sed -n 's/^# samples: \([0-9]*\),.*/\1/p')
	[ "$samples" = "$r" ] || fail "$name: ls says $samples samples, report $r"
	total=$((total + samples))
done < <(rows "$T/ls.out")
ok "each file's samples are those report counts"
check_grep "^# $n recordings: $n complete; $total samples, 0 lost, " "$T/ls.out" "the totals: $n files, $total samples"

# 2. A cut file is damaged, and still counted as far as it is readable.
first=$(rows "$T/ls.out" | awk 'NR == 1 { print $10 }')
mkdir -p "$T/e"
cp "$T/d/$first" "$T/e/cut.data" && truncate -s -64 "$T/e/cut.data"
"$RP" ls "$T/e" >"$T/cut.out" 2>/dev/null || fail "ls of a cut file"
check_grep ' damaged +cut\.data$' "$T/cut.out" "a cut file is damaged"
check_grep '^# 1 recording: 1 damaged; ' "$T/cut.out" "the totals say so"

# 3. A recording being written is partial until its recorder closes it.
mkdir -p "$T/p"
"$RP" record -q -e cpu-clock -F 499 -o "$T/p/live.data" -- "$WL" -d 30 -q >/dev/null 2>&1 &
rec=$!
BG_PIDS="$rec"
for _ in $(seq 100); do
	"$RP" ls "$T/p" >"$T/live.out" 2>/dev/null && rows "$T/live.out" | awk '$5 > 0 { f = 1 } END { exit !f }' && break
	sleep 0.1
done
check_grep ' partial +live\.data$' "$T/live.out" "a recording being written is partial"
kill -INT "$rec"
wait "$rec"
"$RP" ls "$T/p/live.data" >"$T/done.out" 2>/dev/null || fail "ls of the finished recording"
check_grep " complete +$T/p/live\.data$" "$T/done.out" "complete once its recorder ended; a file operand is named as given"

# 4. What cannot be listed: one sentence, status 1.
mkdir -p "$T/empty"
"$RP" ls "$T/empty" >/dev/null 2>"$T/err"
check_eq $? 1 "a directory without recordings exits 1"
check_grep "^ringprof ls: $T/empty: no recordings \(\*\.data, \*\.data\.partial\) in this directory$" "$T/err" "and says so"
echo hello >"$T/e/not.data"
"$RP" ls "$T/e" >"$T/nd.out" 2>"$T/err"
check_eq $? 1 "a file that is not a recording: exit 1"
check_grep ' unreadable +not\.data$' "$T/nd.out" "it is listed as unreadable"
check_grep "^ringprof ls: $T/e/not.data: not a ringprof recording" "$T/err" "with the reason"
check_grep ' damaged +cut\.data$' "$T/nd.out" "the others are still listed"
"$RP" ls --bogus >/dev/null 2>"$T/err"
check_eq $? 2 "an unknown option exits 2"
check_grep "^ringprof ls: unknown option '--bogus'$" "$T/err" "... in every program's words"
if command -v setpriv >/dev/null; then
	mkdir -p "$T/priv" && chmod 700 "$T/priv" && cp "$T/e/cut.data" "$T/priv/"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$top_builddir/ringprof-ls" "$T/priv" >/dev/null 2>"$T/err"
	check_eq $? 1 "an unreadable directory exits 1"
	check_grep 'Permission denied' "$T/err" "it says permission was denied"
	check_eq "$(grep -c 'readable by the ringprof group.*sudo usermod -aG ringprof \$USER, then log in again' "$T/err")" 1 \
		"and says once how to join the ringprof group"
fi
"$RP" --help | grep -q '^  ls ' || fail "ringprof --help does not list ls"
ok "ringprof --help lists ls"
