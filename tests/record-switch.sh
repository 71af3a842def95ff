#!/bin/bash
# record-switch.sh — the recording's life: --switch-output by time, SIGUSR2 and size gives
# several files that together are one continuous recording (report --dir reads them);
# --switch-max-files keeps the newest; --max-size stops near the size and says why; -D
# starts the samples after the delay; each conflict gets its message.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

# Option errors need no perf events.
bad() { # bad EXPECTED-REGEX WHAT ARGS...
	local want=$1 what=$2
	shift 2
	"$RP" record "$@" >"$T/out" 2>&1 && fail "$what: record $* succeeded"
	check_grep "^ringprof record: $want" "$T/out" "$what"
}
bad "invalid --switch-output '10': give 'signal', a size with its unit" "a switch size without a unit" \
	--switch-output=10 -- true
bad "invalid --max-size 'lots'" "a bad --max-size" --max-size lots -- true
bad "-D -1 \(start with the events disabled\) needs perf's --control" "-D -1 explained" -D -1 -- true
bad "invalid delay 'soon'" "a bad -D" -D soon -- true
bad "--switch-max-files limits the files of --switch-output" "--switch-max-files alone" \
	--switch-max-files 3 -- true
bad "--switch-output renames the output .* /dev/null is not one" "--switch-output to a device" \
	--switch-output -o /dev/null -- true

require_perf_events
mkdir -p "$T/time" "$T/sig" "$T/size" "$T/max"

# samples_of FILE: the sample count --stats gives.
samples_of() {
	"$RP" report -i "$1" --stats | awk '$1 == "samples" { print $2; exit }'
}
# summary_samples ERR-FILE: the sample count of the summary line.
summary_samples() {
	sed -n 's/^\[ ringprof record: \([0-9]*\) samples,.*/\1/p' "$1"
}
# check_continuous DIR SUMMARY-ERR WHAT: the switched files hold every sample the recorder
# took, each file names the workload's symbols on its own, no gap between files.
check_continuous() {
	local dir=$1 err=$2 what=$3 sum=0 prev_last="" f n first last sym gone=""
	local firstf=$(ls "$dir"/ringprof-*.data | head -1)
	for f in "$dir"/ringprof-*.data; do
		n=$(samples_of "$f")
		sum=$((sum + n))
		# The workload's own objects (an exit's samples in a stripped library, say
		# libstdc++'s static destructors, have no name in any file).
		"$RP" report -i "$f" --dso rp-workload,librp-worklib.so >"$f.rep" 2>&1 || fail "$what: report -i $f: $(head -3 "$f.rep")"
		grep -Eq 'unresolved frames: 0\.0%' "$f.rep" && grep -q 'hot_leaf' "$f.rep" ||
			fail "$what: $(basename "$f") is not symbolized on its own: $(head -6 "$f.rep"; grep -E '\[unknown\]|\] 0x' "$f.rep" | head -8; "$RP" report -i "$f" --stats 2>&1 | grep -E '^  (frames|records|lost)')"
		# The thread and the child run from the first file until they end (they may end files
		# before the main thread on a busy machine): each is named in a file, or in none after
		# it. [vdso] is not symbolized yet: a few frames may be unresolved.
		for sym in worker_spin worklib_spin; do
			if grep -q "$sym" "$f.rep"; then
				case " $gone " in *" $sym "*) fail "$what: $sym is back in $(basename "$f") after a file without it" ;; esac
			elif [ "$f" = "$firstf" ]; then
				fail "$what: $(basename "$f") lacks $sym (the thread's or the child's): $(head -12 "$f.rep")"
			else
				gone="$gone $sym"
			fi
		done
		"$RP" report -i "$f" --dump | awk '$1 == "SAMPLE" { print $2 }' | sort -n >"$f.times"
		first=$(head -1 "$f.times")
		last=$(tail -1 "$f.times")
		if [ -n "$prev_last" ]; then
			awk -v a="$prev_last" -v b="$first" 'BEGIN { exit !(b - a >= 0 && b - a < 0.1) }' ||
				fail "$what: a gap of $(awk -v a="$prev_last" -v b="$first" 'BEGIN { print b - a }') s before $(basename "$f")"
		fi
		prev_last=$last
	done
	ok "$what: each file symbolized on its own, no gap over 0.1 s between files"
	check_eq "$sum" "$(summary_samples "$err")" "$what: the files' samples add up to the recording's"
	"$RP" report --dir "$dir" >"$dir/all.rep" 2>&1 || fail "$what: report --dir: $(head -3 "$dir/all.rep")"
	check_grep "^# samples: $sum, lost: 0" "$dir/all.rep" "$what: report --dir reads all $sum samples"
	check_grep 'rp-worker +rp-workload +\[\.\] worker_spin' "$dir/all.rep" "$what: report --dir has the workload's symbols"
}

# By time: a 3.5 s command in files of 1 s. On a busy machine the workload's wall time grows
# (it paces its CPU budget): the file count and the files' durations are bounded by the wall
# time it says it ran, not by the 3.5 s it was asked for.
(cd "$T/time" && "$RP" record -e cpu-clock -F 1000 --switch-output=1s -- "$WL" -d 3.5) >"$T/time.out" 2>"$T/time.err" ||
	fail "switch by time: $(cat "$T/time.err")"
wall=$(sed -n 's/^rp-workload: cpu seconds: .*; wall \([0-9.]*\)$/\1/p' "$T/time.out")
[ -n "$wall" ] || fail "switch by time: the workload said no wall time: $(cat "$T/time.out")"
n=$(ls "$T/time" | grep -cE '^ringprof-[0-9]{8}T[0-9]{6}Z-[0-9]{4,}\.data$')
# A span of W s in 1 s files: at most floor(W) + 3 (start-up, the end); at least W / 2 (a
# switch is late when the recorder waits for a CPU: this is no timing check, bench/ does those).
w=${wall%.*}
check_range "$n" $(((w + 1) / 2 > 2 ? (w + 1) / 2 : 2)) $((w + 3)) "switch by time: ${wall} s in 1 s files, named STEM-YYYYmmddTHHMMSSZ-NNNN.data"
[ ! -e "$T/time/ringprof.data" ] || fail "switch by time: the last file kept the name ringprof.data"
ok "switch by time: the last file is time-stamped too"
check_eq "$(grep -c '^\[ ringprof record: dump ringprof-[0-9]\{8\}T[0-9]\{6\}Z-[0-9]\{4,\}\.data \]$' "$T/time.err")" "$n" \
	"switch by time: each finished file is announced"
check_continuous "$T/time" "$T/time.err" "switch by time"
"$RP" report --dir "$T/time" --stats | awk '$1 == "duration" { print $2 }' >"$T/durs"
d_total=$(awk '{ s += $1 } END { printf "%d", s * 10 }' "$T/durs")
w10=$(awk -v w="$wall" 'BEGIN { printf "%d", w * 10 }')
check_range "$d_total" $((w10 - 2)) $((w10 + 10)) "switch by time: the files' durations add up to the command's ${wall} s (tenths of s)"

# On SIGUSR2 (--switch-output alone means 'signal').
(cd "$T/sig" && exec "$RP" record -e cpu-clock -F 1000 --switch-output -- "$WL" -q -d 2.5) 2>"$T/sig.err" &
pid=$!
BG_PIDS=$pid
sleep 0.8
kill -USR2 $pid
sleep 0.8
kill -USR2 $pid
wait $pid || fail "switch on SIGUSR2: $(cat "$T/sig.err")"
BG_PIDS=""
check_eq "$(ls "$T/sig" | grep -cE '^ringprof-[0-9]{8}T[0-9]{6}Z-[0-9]{4,}\.data$')" 3 "two SIGUSR2 make three files"
check_eq "$(ls "$T/sig" | sed -n 's/^ringprof-[0-9]\{8\}T[0-9]\{6\}Z-\([0-9]*\)\.data$/\1/p' | tr '\n' ' ')" \
	"0001 0002 0003 " "their sequence numbers count up from 0001, as ringprofd's"
check_continuous "$T/sig" "$T/sig.err" "switch on SIGUSR2"

# By size, keeping the newest two. (Without the captured symbol tables, which every file
# repeats so that it stands alone: libc's alone is some 13 KiB, more than these files.)
(cd "$T/size" && "$RP" record -e cpu-clock -F 4000 -g --no-symbols --switch-output=8K --switch-max-files 2 \
	-- "$WL" -q -d 3) 2>"$T/size.err" || fail "switch by size: $(cat "$T/size.err")"
dumps=$(grep -c '^\[ ringprof record: dump ' "$T/size.err")
check_range "$dumps" 3 1000 "switch by size: 8K files"
check_eq "$(ls "$T/size" | grep -cE '^ringprof-[0-9]{8}T[0-9]{6}Z-[0-9]{4,}\.data$')" 2 "--switch-max-files 2 keeps two files"
newest=$(sed -n 's/^\[ ringprof record: dump \(.*\) \]$/\1/p' "$T/size.err" | tail -2 | tr '\n' ' ')
check_eq "$(cd "$T/size" && ls ringprof-*.data | tr '\n' ' ')" "$newest" "... the newest two"
first=$(cd "$T/size" && ls ringprof-*.data | head -1)
size=$(stat -c %s "$T/size/$first")
check_range "$size" 7000 20000 "switch by size: a finished file is near 8 KiB"

# --max-size: stops near the size, says why, the file is complete and readable. Without the
# captured symbol tables (tens of KiB at once, when the helper delivers them), which would make
# "near" depend on when they arrive.
"$RP" record -e cpu-clock -F 4000 -g --no-symbols --max-size 32K -o "$T/max/m.data" -- "$WL" -q -d 20 2>"$T/max.err"
check_grep '^ringprof record: note: the output reached --max-size 32\.0 KiB: recording stopped$' "$T/max.err" \
	"--max-size stops with a note"
check_grep 'size limit reached -> .*/m\.data \]$' "$T/max.err" "the summary says the size limit was reached"
size=$(stat -c %s "$T/max/m.data")
check_range "$size" 26000 49152 "--max-size 32K: the file is near 32 KiB"
"$RP" report -i "$T/max/m.data" --stats >"$T/max.stats"
check_grep '^  finished +yes' "$T/max.stats" "--max-size: the file is finished"
d=$(awk '$1 == "duration" { printf "%d", $2 }' "$T/max.stats")
check_range "$d" 0 10 "--max-size stopped well before the command's 20 s"

# -D 500: the first sample comes about 0.5 s after the command started (the header's time);
# without -D, at once.
first_sample_delay() { # FILE: seconds from the header to the first sample
	"$RP" report -i "$1" --dump | awk '$1 == "HEADER" && !h { h = $2 } $1 == "SAMPLE" && !s { s = $2 }
		END { printf "%d", (s - h) * 1000 }'
}
"$RP" record -q -e cpu-clock -F 1000 -D 500 -o "$T/delay.data" -- "$WL" -q -d 1.5 2>"$T/delay.err" ||
	fail "-D 500: $(cat "$T/delay.err")"
check_range "$(first_sample_delay "$T/delay.data")" 480 900 "-D 500: the first sample ~0.5 s after the start (ms)"
"$RP" report -i "$T/delay.data" >"$T/delay.rep"
check_grep 'rp-child +librp-worklib\.so +\[\.\] worklib_spin' "$T/delay.rep" "-D: the command's processes are symbolized"
"$RP" record -q -e cpu-clock -F 1000 -o "$T/nodelay.data" -- "$WL" -q -d 0.5 2>"$T/nodelay.err" ||
	fail "no -D: $(cat "$T/nodelay.err")"
check_range "$(first_sample_delay "$T/nodelay.data")" 0 150 "without -D, the first sample at once (ms)"
"$RP" record -e cpu-clock -D 3000 -o "$T/short.data" -- true 2>"$T/short.err" || fail "-D longer than the command"
check_grep "^ringprof record: note: recording ended before -D's delay of 3000 ms: no samples$" "$T/short.err" \
	"a command shorter than -D is said"
exit 0
