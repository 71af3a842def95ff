#!/bin/bash
# daemon-pidns.sh — recording system-wide inside a PID namespace (a container) while a process
# outside burns CPU: the kernel gives it as pid 0. The recorder says so at start, drops its
# side-band (which would rename and map the idle task), sets the header flag, and the report
# shows its samples as [outside the PID namespace] instead of naming the idle task after it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events
unshare -p -f --mount-proc true 2>"$T/unshare.err" || skip "cannot make a PID namespace here: $(cat "$T/unshare.err")"

# Outside: a workload that starts processes (side-band) and burns CPU.
"$WL" -d 30 -q >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
(for _ in $(seq 1 200); do /bin/true; sleep 0.02; done) &
BG_PIDS="$BG_PIDS $!"
sleep 0.3

# Inside, besides the recorder (pid 1): a loop of short processes, whose FORK and EXIT records
# are the namespace's own.
unshare -p -f --mount-proc sh -c '(for _ in $(seq 1 40); do /bin/true; sleep 0.05; done) &
	exec "$0" record -a -g -e cpu-clock -F 499 -d 2 -o "$1"' "$RP" "$T/ns.data" 2>"$T/ns.err" ||
	fail "record -a in a PID namespace: $(cat "$T/ns.err")"
check_grep '^ringprof record: note: recording in a PID namespace other than the host.s \(a container\): the kernel gives tasks outside it as pid 0' \
	"$T/ns.err" "record says at start that it is in a PID namespace"
"$RP" report -i "$T/ns.data" --dump >"$T/dump" 2>&1 || fail "dump: $(cat "$T/dump")"
check_range "$(grep -Ec '^SAMPLE .* pid=0 tid=0 .*mode=user ' "$T/dump")" 50 100000000 "the outside workload's samples came as pid 0 (in user mode: not the idle task)"
check_pid0_regex "$T/dump"
check_no_grep "$PID0_SIDEBAND" "$T/dump" "no side-band record of pid 0 / tid 0 is stored"
check_grep '^(COMM|MMAP2) .* pid=1 tid=1 ' "$T/dump" "the namespace's own processes have their side-band"

"$RP" report -i "$T/ns.data" --no-children --stdio >"$T/rep" 2>&1 || fail "report: $(cat "$T/rep")"
check_grep '^# note: recorded inside a PID namespace \(a container\): tasks outside it have no pid there; their samples are shown as \[outside the PID namespace\]$' \
	"$T/rep" "the report header says the recording was made in a PID namespace"
check_grep '^ +[0-9.]+% +\[outside the PID namespace\] ' "$T/rep" "samples of tasks outside are labelled as such"
check_no_grep '^ +[0-9.]+% +swapper .*\[\.\] ' "$T/rep" "no user-space frame is attributed to the idle task (swapper)"
check_no_grep 'rp-workload|hot_leaf' "$T/rep" "nor is anything named after a process outside"

# The host's view of the same machine: no note, the workload named.
"$RP" record -a -g -e cpu-clock -F 499 -d 1 -o "$T/host.data" 2>"$T/host.err" || fail "record -a on the host: $(cat "$T/host.err")"
check_no_grep 'PID namespace' "$T/host.err" "on the host nothing is said"
"$RP" report -i "$T/host.data" --no-children --stdio >"$T/hrep" 2>&1
check_grep '^ +[0-9.]+% +rp-workload ' "$T/hrep" "and the workload is named"
check_no_grep 'PID namespace' "$T/hrep" "and the header has no namespace note"

# ringprofd in a PID namespace logs it, and its files have no pid-0 side-band either.
mkdir -p "$D"
unshare -p -f --mount-proc sh -c '"$1" -c /dev/null -D "$2" --frequency 199 --event cpu-clock 2>"$3" & p=$!; sleep 3; kill -TERM $p; wait $p' \
	sh "$RPD" "$D" "$DLOG" || fail "ringprofd in a PID namespace: $(tail -3 "$DLOG")"
check_grep '^ringprofd: note: recording in a PID namespace other than the host.s' "$DLOG" "ringprofd logs that it records in a PID namespace"
f=$(ls "$D"/*.data | head -1)
"$RP" report -i "$f" --dump >"$T/ddump" 2>&1
check_no_grep "$PID0_SIDEBAND" "$T/ddump" "ringprofd's file has no pid-0 side-band"
check_grep '^SAMPLE .* pid=0 tid=0 .*mode=user ' "$T/ddump" "though it has pid-0 samples from outside (user mode: not the idle task)"
echo "$n_checks checks passed"
