#!/bin/bash
# record-tid.sh — thread ids as perf users pass them (top -H): `-p TID` of a thread that is not
# its process's leader records the process, with its mappings and names right (the records
# carried the thread id as the pid, and 98 % of the frames were unknown); `-t TID` records
# that thread alone; `-p PID -- COMMAND` records the process while the command runs.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

"$WL" -d 60 -q >/dev/null & # killed at the end: its worker must outlive every step, however slow
wl=$!
BG_PIDS="$BG_PIDS $wl"
worker=""
for _ in $(seq 50); do
	for t in /proc/$wl/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = rp-worker ] && worker=${t##*/}
	done
	[ -n "$worker" ] && break
	sleep 0.1
done
[ -n "$worker" ] || fail "rp-workload's worker thread did not show up"
[ "$worker" != "$wl" ] || fail "the worker thread is the process leader"

# -p TID: the whole process, its frames named.
"$RP" record -e cpu-clock -F 499 -g -p "$worker" -d 1.5 -o "$T/p.data" >"$T/p.out" 2>&1 || fail "record -p $worker: $(cat "$T/p.out")"
check_grep "^ringprof record: note: $worker is a thread of process $wl: recording the process" "$T/p.out" "-p TID says it records the thread's process"
"$RP" report -i "$T/p.data" --no-children --sort comm,dso,sym >"$T/p.rep" 2>&1 || fail "report of -p TID"
check_grep '^ +[0-9.]+% +rp-worker +rp-workload +\[\.\] worker_spin$' "$T/p.rep" "-p TID: the worker thread's frames are named"
check_grep '^ +[0-9.]+% +rp-workload +rp-workload +\[\.\] (hot_leaf|warm_func)$' "$T/p.rep" "-p TID: the main thread is recorded too"
unknown=$(sed -n 's/.*unresolved frames: \([0-9.]*\)%.*/\1/p' "$T/p.rep")
check_range "${unknown%.*}" 0 2 "-p TID: unresolved frames ${unknown} %"
check_no_grep 'JIT' "$T/p.rep" "-p TID: no frame is taken for JIT code"

# -t TID: that thread only.
"$RP" record -e cpu-clock -F 499 -g -t "$worker" -d 1 -o "$T/t.data" >"$T/t.out" 2>&1 || fail "record -t $worker: $(cat "$T/t.out")"
"$RP" report -i "$T/t.data" --dump >"$T/t.dump" 2>&1
n=$(grep -c '^SAMPLE ' "$T/t.dump")
other=$(grep '^SAMPLE ' "$T/t.dump" | grep -cv " tid=$worker ")
check_range "$n" 30 100000 "-t TID: samples recorded"
check_eq "$other" 0 "-t TID: every sample is of thread $worker"
"$RP" report -i "$T/t.data" --no-children >"$T/t.rep" 2>&1
check_grep '^ +[0-9.]+% +rp-worker +rp-workload +\[\.\] worker_spin$' "$T/t.rep" "-t TID: its frames are named"

# -p PID -- COMMAND (perf's `-p PID -- sleep 10`): the command only says how long; it is not
# profiled, and its exit status is ringprof's.
"$RP" record -e cpu-clock -F 499 -p "$wl" -o "$T/pc.data" -- sh -c 'sleep 1; exit 3' >"$T/pc.out" 2>&1
check_eq $? 3 "-p PID -- COMMAND: the command's exit status is ringprof's"
"$RP" report -i "$T/pc.data" --stats >"$T/pc.stats" 2>&1
check_grep '^  target +processes' "$T/pc.stats" "-p PID -- COMMAND records the process, not the command"
d=$(awk '$1 == "duration" { printf "%d", $2 * 1000 }' "$T/pc.stats")
check_range "${d:-0}" 800 2500 "-p PID -- COMMAND stops when the command ends (duration in ms)"
"$RP" report -i "$T/pc.data" --no-children -s comm >"$T/pc.rep" 2>&1
check_grep '^ +[0-9.]+% +rp-worker$' "$T/pc.rep" "-p PID -- COMMAND: the process's threads are recorded"
check_no_grep '^ +[0-9.]+% +(sh|sleep)$' "$T/pc.rep" "-p PID -- COMMAND: the command is not profiled"
"$RP" record -q -e cpu-clock -F 499 -t "$worker" -o "$T/tc.data" -- sleep 0.5 >"$T/tc.out" 2>&1 ||
	fail "record -t TID -- sleep 0.5: exit $?$( [ -d "/proc/$wl/task/$worker" ] || echo ' (the worker thread is gone)'): $(cat "$T/tc.out")"
"$RP" report -i "$T/tc.data" --no-children -s comm >"$T/tc.rep" 2>&1
check_grep '^ +[0-9.]+% +rp-worker$' "$T/tc.rep" "-t TID -- COMMAND: that thread is recorded"
check_no_grep '^ +[0-9.]+% +(rp-workload|sleep)$' "$T/tc.rep" "-t TID -- COMMAND: nothing else"
"$RP" record -a -p "$wl" -- true >"$T/ap.out" 2>&1
check_eq $? 2 "-a with -p is a usage error"
check_grep 'give only one target' "$T/ap.out" "and says so"

"$RP" record -p "$wl" -t "$worker" -d 0.1 -o "$T/pt.data" >"$T/pt.out" 2>&1
check_eq $? 2 "-p and -t together is a usage error"
check_grep 'give -p PID or -t TID, not both' "$T/pt.out" "and says so"
kill "$wl" 2>/dev/null
exit 0
