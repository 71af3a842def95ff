#!/bin/bash
# record-cmd.sh — `ringprof record -- CMD` on the bundled workload: samples with callchains,
# side-band with build-ids (BUILDID records), threads and a forked child, sample count and exit status.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

F=999
D=2
"$RP" record -e cpu-clock -F $F -g -o "$T/cmd.data" -- "$WL" -d $D -x 3 >"$T/wl.out" 2>"$T/rec.err"
rc=$?
check_eq "$rc" 3 "the command's exit status (3) is ringprof's"
check_grep '^\[ ringprof record: [0-9]+ samples, 0 lost \(0\.00%\), .* written \(.*x compression\), .* s -> ' \
	"$T/rec.err" "summary line with samples, lost, bytes, ratio, duration"
zstd -q -t "$T/cmd.data" || fail "zstd -t rejects the recording"
ok "zstd -t accepts the recording"

"$RP" report -i "$T/cmd.data" --dump >"$T/dump" || fail "report --dump failed"
"$RP" report -i "$T/cmd.data" --stats >"$T/stats" || fail "report --stats failed"

main_pid=$(sed -n 's/.*main [0-9.]* (pid \([0-9]*\)).*/\1/p' "$T/wl.out")
worker_tid=$(sed -n 's/.*worker [0-9.]* (tid \([0-9]*\)).*/\1/p' "$T/wl.out")
child_pid=$(sed -n 's/.*child [0-9.]* (pid \([0-9]*\)).*/\1/p' "$T/wl.out")
[ -n "$main_pid" ] && [ -n "$worker_tid" ] && [ -n "$child_pid" ] || fail "workload output not understood: $(cat "$T/wl.out")"

check_grep "^COMM .* pid=$main_pid tid=$main_pid exec=1 comm=rp-workload$" "$T/dump" "COMM of the exec, marked exec"
check_grep "^COMM .* pid=$main_pid tid=$worker_tid exec=0 comm=rp-worker$" "$T/dump" "COMM of the named thread"
check_grep "^COMM .* pid=$child_pid tid=$child_pid exec=0 comm=rp-child$" "$T/dump" "COMM of the forked child"
check_grep "^FORK .* pid=$child_pid ppid=$main_pid tid=$child_pid ptid=$main_pid$" "$T/dump" "FORK of the child process"
check_grep "^FORK .* pid=$main_pid ppid=$main_pid tid=$worker_tid ptid=$main_pid$" "$T/dump" "FORK of the thread"
check_grep "^EXIT .* pid=$child_pid ppid=$main_pid tid=$child_pid " "$T/dump" "EXIT of the child"
check_grep "^EXIT .* pid=$main_pid .* tid=$main_pid " "$T/dump" "EXIT of the workload"

bid=$(build_id_of "$WL")
lbid=$(build_id_of "$top_builddir/tests/workload/librp-worklib.so")
[ -n "$bid" ] && [ -n "$lbid" ] || fail "could not read the workload's build-ids"
# The kernel is not asked for build-ids (it would mislabel other perf sessions' records): the
# MMAP2 names the file by device and inode, and a BUILDID record read by the helper gives that
# inode its build-id.
for f in "$WL:$bid" "$top_builddir/tests/workload/librp-worklib.so:$lbid"; do
	file=${f%:*} id=${f##*:} name=$(basename "${f%:*}")
	dev=$(stat -c '%d' "$file") ino=$(stat -c '%i' "$file")
	maj=$((dev >> 8)) min=$((dev & 255))
	check_grep "^MMAP2 .* pid=$main_pid .* prot=r-x .* maj=$maj min=$min ino=$ino path=.*/$name$" "$T/dump" "MMAP2 of $name by device and inode"
	check_grep "^BUILDID .* maj=$maj min=$min ino=$ino gen=[0-9]+ build_id=$id$" "$T/dump" "BUILDID record of $name's inode with its build-id"
done
check_no_grep "^MMAP2 .* build_id=" "$T/dump" "no MMAP2 record carries a kernel build-id"

# Samples of each participant with user callchains several frames deep.
for who in "pid=$main_pid tid=$main_pid" "pid=$main_pid tid=$worker_tid" "pid=$child_pid tid=$child_pid"; do
	n=$(grep "^SAMPLE .* $who " "$T/dump" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^chain=/) { n = split(substr($i, 7), a, ","); if (n >= 4) c++ } } END { print c + 0 }')
	check_range "$n" 50 100000 "samples of $who with callchains of >= 4 entries"
done
check_no_grep '^SAMPLE .* mode=kernel .* chain=user' "$T/dump" "kernel-mode samples start with a kernel context"

# The workload burns D CPU-seconds in all, so expect about F * D samples.
samples=$(stat_field samples "$T/stats")
check_range "$samples" $((F * D * 75 / 100)) $((F * D * 125 / 100)) "sample count is about frequency x CPU time"
check_grep '^  lost +0 \(0\.00%' "$T/stats" "nothing lost at $F Hz"
check_grep '^  finished +yes' "$T/stats" "the recording is finished"
check_grep '^  exit status +3$' "$T/stats" "the exit status is stored"
check_grep '^  event +cpu-clock, 999 Hz' "$T/stats" "event and frequency in the header"

# Ordered stream: times never go backwards.
awk '{ t = $2 + 0; if (NR > 1 && t < last) { print "backwards at line " NR; exit 1 } last = t }' "$T/dump" \
	|| fail "dump is not time-ordered"
ok "the dump is time-ordered across CPUs"

# An existing output is kept as .old.
"$RP" record -q -e cpu-clock -o "$T/cmd.data" -- true || fail "second recording"
[ -s "$T/cmd.data.old" ] || fail "no .old kept"
"$RP" report -i "$T/cmd.data.old" --stats | grep -Eq '^  exit status +3$' || fail ".old is not the previous recording"
ok "the previous recording is kept as .old"

# --switch-events: context switches of the workload, both directions.
"$RP" record -q -e cpu-clock --switch-events -o "$T/sw.data" -- "$WL" -d 0.5 >"$T/sw.wl" || fail "--switch-events recording"
"$RP" report -i "$T/sw.data" --dump >"$T/sw.dump"
swpid=$(sed -n 's/.*main [0-9.]* (pid \([0-9]*\)).*/\1/p' "$T/sw.wl")
check_grep "^SWITCH [0-9.]+ cpu=[0-9]+ pid=$swpid tid=$swpid out=1" "$T/sw.dump" "SWITCH out records of the workload"
check_grep "^SWITCH [0-9.]+ cpu=[0-9]+ pid=$swpid tid=$swpid out=0" "$T/sw.dump" "SWITCH in records of the workload"
"$RP" report -i "$T/sw.data" --stats | grep -Eq '^  event .*context switches' || fail "header lacks switch events"
ok "the header records that switches were asked for"

# SIGINT stops cleanly: file finished, command terminated.
"$RP" record -e cpu-clock -o "$T/int.data" -- "$WL" -d 20 >/dev/null 2>"$T/int.err" &
rp=$!
BG_PIDS="$rp"
sleep 1.5
kill -INT $rp
wait $rp
rc=$?
[ "$rc" -ne 0 ] || fail "an interrupted command should not report success"
check_grep 'interrupted -> ' "$T/int.err" "the summary says interrupted"
"$RP" report -i "$T/int.data" --stats >"$T/int.stats"
check_grep '^  finished +yes' "$T/int.stats" "Ctrl-C finishes the file"
exit 0
