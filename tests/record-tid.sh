#!/bin/bash
# record-tid.sh — thread ids as perf users pass them (top -H): `-p TID` of a thread that is not
# its process's leader records the process, with its mappings and names right (the records
# carried the thread id as the pid, and 98 % of the frames were unknown); `-t TID` records
# that thread alone.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

"$WL" -d 6 -q >/dev/null &
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

"$RP" record -p "$wl" -t "$worker" -d 0.1 -o "$T/pt.data" >"$T/pt.out" 2>&1
check_eq $? 2 "-p and -t together is a usage error"
check_grep 'give -p PID or -t TID, not both' "$T/pt.out" "and says so"
kill "$wl" 2>/dev/null
exit 0
