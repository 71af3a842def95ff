#!/bin/bash
# record-system.sh — `ringprof record -a -g` as root: every CPU, kernel and user frames,
# processes that ran before recording (synthesized), kallsyms, -C, sample counts.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_root
require_perf_events

F=999
# One workload starts before recording (it must come from the /proc synthesis), one during
# it; the recording is stopped with SIGINT once the second one has finished.
"$WL" -d 30 >"$T/wl1.out" &
wl1=$!
BG_PIDS="$wl1"
sleep 0.5
"$RP" record -a -g -e cpu-clock -F $F -d 60 -o "$T/sys.data" 2>"$T/rec.err" &
rp=$!
BG_PIDS="$BG_PIDS $rp"
wait_for_file "$T/sys.data"
"$WL" -d 1 >"$T/wl2.out"
sleep 0.3
kill -INT $rp
wait $rp || fail "system-wide recording failed: $(cat "$T/rec.err")"
kill $wl1 2>/dev/null; wait $wl1 2>/dev/null
"$RP" report -i "$T/sys.data" --dump >"$T/dump" || fail "dump"
"$RP" report -i "$T/sys.data" --stats >"$T/stats" || fail "stats"

check_grep '^  target +system-wide, [0-9]+ CPUs? recorded' "$T/stats" "header says system-wide"
check_grep '^  kernel syms +[1-9][0-9]* \(the ones samples hit, and their neighbours\)$' "$T/stats" \
	"the kernel symbols samples need are stored"
check_grep '^KSYMS ' "$T/dump" "KSYMS records present"

# A process that ran before recording started is known from synthesis.
check_grep "^COMM [0-9.]+ cpu=- pid=$wl1 tid=$wl1 exec=0 comm=rp-workload$" "$T/dump" "pre-existing process synthesized (COMM)"
check_grep "^MMAP2 [0-9.]+ cpu=- pid=$wl1 tid=$wl1 .* ino=$(stat -c %i "$WL") path=.*/rp-workload$" "$T/dump" \
	"pre-existing process synthesized (MMAP2)"
check_buildid "$WL" "$T/dump" "its build-id (BUILDID)"
check_grep '^COMM [0-9.]+ cpu=- pid=1 tid=1 ' "$T/dump" "init is synthesized"

# The workload started during the recording: side-band from the kernel.
pid2=$(sed -n 's/.*main [0-9.]* (pid \([0-9]*\)).*/\1/p' "$T/wl2.out")
child2=$(sed -n 's/.*child [0-9.]* (pid \([0-9]*\)).*/\1/p' "$T/wl2.out")
check_grep "^COMM [0-9.]+ cpu=[0-9]+ pid=$pid2 tid=$pid2 exec=1 comm=rp-workload$" "$T/dump" "exec of a new process"
check_grep "^MMAP2 [0-9.]+ cpu=[0-9]+ pid=$pid2 .* path=.*/librp-worklib.so$" "$T/dump" "MMAP2 of the library"
check_buildid "$top_builddir/tests/workload/librp-worklib.so" "$T/dump" "the library's build-id (BUILDID)"
check_grep "^FORK .* pid=$child2 ppid=$pid2 " "$T/dump" "FORK of its child"
check_grep "^EXIT .* pid=$child2 " "$T/dump" "EXIT of its child"

check_grep '^SAMPLE .* mode=kernel ip=0xffff[0-9a-f]+ nr=[0-9]+ chain=kernel,0xffff' "$T/dump" "kernel samples with kernel callchains"
n=$(grep -Ec "^SAMPLE .* pid=$pid2 .* chain=user,0x[0-9a-f]+,0x[0-9a-f]+,0x[0-9a-f]+" "$T/dump")
check_range "$n" 100 100000 "user samples of the new process with >= 3 user frames"
for cpu in $(seq 0 $(($(nproc) - 1))); do
	c=$(grep -c "^SAMPLE [0-9.]* cpu=$cpu " "$T/dump")
	check_range "$c" 100 1000000 "samples on CPU $cpu"
done

# Every CPU kept busy for D seconds: about F x CPUs x D samples.
D=2
ncpu=$(nproc)
for i in $(seq $ncpu); do (while :; do :; done) & BG_PIDS="$BG_PIDS $!"; done
"$RP" record -q -a -e cpu-clock -F $F -d $D -o "$T/busy.data" || fail "busy recording"
# A one-page ring at 4 kHz, and a recorder stopped for 300 ms: the rings overflow. Every
# loss must be counted, so samples + lost still add up to frequency x CPUs x time.
"$RP" record -a -g -e cpu-clock -F 4000 -m 1 -d $D -o "$T/tiny.data" 2>"$T/tiny.err" &
tiny=$!
sleep 0.7
kill -STOP $tiny
sleep 0.3
kill -CONT $tiny
wait $tiny || fail "tiny-ring recording: $(cat "$T/tiny.err")"
for p in $BG_PIDS; do kill $p 2>/dev/null; done
"$RP" report -i "$T/tiny.data" --stats >"$T/tiny.stats"
lost=$(stat_field lost "$T/tiny.stats")
tsamples=$(stat_field samples "$T/tiny.stats")
check_range "$lost" 1 1000000 "a one-page ring at 4 kHz loses records and counts them"
tdur_ms=$(awk '$1 == "duration" { printf "%d", $2 * 1000 }' "$T/tiny.stats")
texpect=$((4000 * ncpu * tdur_ms / 1000))
# The lost count is of records of every kind (the side-band of the machine's other processes
# too, many on a busy machine): it bounds the samples lost from above, not from below.
if grep -Eq '^  throttled +0$' "$T/tiny.stats"; then
	check_range $((tsamples + lost)) $((texpect * 85 / 100)) $((texpect * 1000)) \
		"samples + lost cover frequency x CPUs x time ($texpect)"
	check_range "$tsamples" 1 $((texpect * 105 / 100)) "samples kept are at most frequency x CPUs x time"
fi
check_grep "^\[ ringprof record: $tsamples samples, $lost lost \([0-9.]+%\)" "$T/tiny.err" "the summary line reports the same loss"
"$RP" report -i "$T/busy.data" --stats >"$T/busy.stats"
samples=$(stat_field samples "$T/busy.stats")
dur_ms=$(awk '$1 == "duration" { printf "%d", $2 * 1000 }' "$T/busy.stats")
check_range "$dur_ms" $((D * 1000)) $((D * 1000 + 500)) "-d $D records for $D seconds"
expect=$((F * ncpu * dur_ms / 1000))
check_range "$samples" $((expect * 85 / 100)) $((expect * 105 / 100)) "sample count is about frequency x CPUs x time"
check_grep '^  lost +0 \(0\.00%' "$T/busy.stats" "nothing lost at $F Hz on busy CPUs"
check_grep '^  lost +0 \(0\.00%' "$T/stats" "nothing lost in the -g recording"

# The report resolves kernel frames from the recording's kallsyms snapshot, marked [k].
"$RP" report -i "$T/sys.data" --no-children -s dso,sym >"$T/report" 2>"$T/report.err" || fail "report: $(cat "$T/report.err")"
check_grep '^ +[0-9.]+% +\[kernel\.kallsyms\] +\[k\] [a-z_][a-z0-9_.]+$' "$T/report" "kernel symbols in the report"
"$RP" report -i "$T/sys.data" --folded --pid "$pid2" >"$T/folded"
check_grep '^rp-workload;.*main;run_main;hot_outer_a;hot_leaf [0-9]+$' "$T/folded" "user stacks of a process started during -a"
"$RP" report -i "$T/sys.data" --folded >"$T/allfolded"
check_grep '_\[k\] [0-9]+$' "$T/allfolded" "kernel frames in folded output end in _[k]"
# __pfx_ symbols are the padding before a function, never executed: a frame named so is a
# return address at the end of the caller resolved to the next symbol. The idle stacks run
# through cpu_startup_entry (when a CPU was idle at all: a machine busy with other work may
# give the recording none).
check_no_grep '__pfx_' "$T/allfolded" "no frame is named after a function's padding (__pfx_)"
if grep -q '^swapper' "$T/allfolded"; then
	check_grep '^swapper;.*cpu_startup_entry_\[k\];do_idle_\[k\]' "$T/allfolded" "idle stacks name their callers"
	check_no_grep '^swapper;[^;]*_\[k\] [0-9]+$' "$T/allfolded" "no idle stack is cut to a single frame"
else
	echo "# no CPU was idle while recording (a busy machine): the idle stacks' callers are not checked"
fi

# -C limits the CPUs.
"$RP" record -q -a -C 0 -e cpu-clock -F $F -d 1 -o "$T/cpu0.data" || fail "-C 0 recording"
"$RP" report -i "$T/cpu0.data" --dump >"$T/dump0"
check_grep '^SAMPLE [0-9.]+ cpu=0 ' "$T/dump0" "-C 0 has samples on CPU 0"
check_no_grep '^SAMPLE [0-9.]+ cpu=[1-9]' "$T/dump0" "-C 0 has no samples on other CPUs"

# -a -- COMMAND (perf's `-a -- sleep 10`): every CPU while the command runs, its exit status.
"$RP" record -q -a -e cpu-clock -F $F -o "$T/acmd.data" -- sh -c "\"$WL\" -d 0.6 -q; exit 4" >/dev/null 2>"$T/acmd.err"
check_eq $? 4 "-a -- COMMAND: the command's exit status is ringprof's"
"$RP" report -i "$T/acmd.data" --stats >"$T/acmd.stats" 2>&1
check_grep '^  target +system-wide' "$T/acmd.stats" "-a -- COMMAND records system-wide"
check_grep '^  exit status +4$' "$T/acmd.stats" "and stores the command's exit status"
d=$(awk '$1 == "duration" { printf "%d", $2 * 1000 }' "$T/acmd.stats")
check_range "${d:-0}" 500 3000 "-a -- COMMAND stops when the command ends (duration in ms)"
"$RP" report -i "$T/acmd.data" --no-children >"$T/acmd.rep" 2>&1
check_grep '^ +[0-9.]+% +rp-worker +rp-workload +\[\.\] worker_spin$' "$T/acmd.rep" "the command's own samples are there"
exit 0
