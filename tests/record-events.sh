#!/bin/bash
# record-events.sh — perf's event spellings: several -e in one recording (one section per
# event in the report, --event, --stats and --dump per event, shares as perf's), the :u and :k
# modifiers, tracepoints by name (and what is said when tracefs is not mounted or the name is
# unknown), -c with -F, and --list-events marking what this machine cannot open.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

# ---- several events ----
"$RP" record -e cpu-clock -e task-clock -F 999 -o "$T/two.data" -- "$WL" -q >"$T/two.out" 2>&1 ||
	fail "record -e cpu-clock -e task-clock: $(cat "$T/two.out")"
"$RP" report -i "$T/two.data" --stats >"$T/two.stats" 2>&1 || fail "--stats of two events"
check_grep '^  format +2\.5$' "$T/two.stats" "two events: format 2.5 (2.1 added events, 2.2 stack generations, 2.3 joined chains, 2.4 file digests, 2.5 frame-pointer continuations)"
check_grep '^  events +2$' "$T/two.stats" "--stats lists two events"
cc=$(awk '$1 == "cpu-clock" && $3 == "samples" { print $2 }' "$T/two.stats")
tc=$(awk '$1 == "task-clock" && $3 == "samples" { print $2 }' "$T/two.stats")
all=$(stat_field samples "$T/two.stats")
# The workload burns about 2 CPU seconds at 999 Hz: each event about 2000 samples.
check_range "${cc:-0}" 1200 2600 "cpu-clock samples"
check_range "${tc:-0}" 1200 2600 "task-clock samples"
check_eq "$((cc + tc))" "$all" "the events' samples add up to all samples"
# script names each sample's own event: as many of each as --stats counts.
"$RP" script -i "$T/two.data" >"$T/two.script" 2>/dev/null || fail "script of two events"
check_eq "$(grep -Ec ' cpu-clock: ( [^ ]+)?$' "$T/two.script")" "$cc" "script: the cpu-clock samples, named so"
check_eq "$(grep -Ec ' task-clock: ( [^ ]+)?$' "$T/two.script")" "$tc" "script: the task-clock samples, named so"

"$RP" report -i "$T/two.data" --no-children >"$T/two.rep" 2>&1 || fail "report of two events"
check_grep "^# Samples: $cc of event 'cpu-clock'$" "$T/two.rep" "a section for cpu-clock with its sample count"
check_grep "^# Samples: $tc of event 'task-clock'$" "$T/two.rep" "a section for task-clock with its sample count"
# Each section has the workload's functions: worker_spin in both.
awk "/of event 'cpu-clock'/ { s = 1 } /of event 'task-clock'/ { s = 2 } s && / worker_spin\$/ { print s }" \
	"$T/two.rep" | sort -u | tr '\n' ' ' >"$T/two.sections"
check_grep '^1 2 $' "$T/two.sections" "worker_spin in both sections"

"$RP" report -i "$T/two.data" --no-children --event task-clock >"$T/tc.rep" 2>&1 || fail "report --event task-clock"
check_grep '^# event: task-clock, 999 Hz' "$T/tc.rep" "--event: the header names the event chosen"
check_grep ' worker_spin$' "$T/tc.rep" "--event task-clock: the workload's functions"
check_no_grep "^# (event: cpu-clock|Samples: .*cpu-clock)" "$T/tc.rep" "--event task-clock: no section of cpu-clock"
! "$RP" report -i "$T/two.data" --event cycles >"$T/bad.rep" 2>&1 || fail "--event of an event not recorded succeeded"
check_grep "^ringprof report: no event 'cycles' in the recording; they have: cpu-clock, task-clock$" "$T/bad.rep" "--event of an event not recorded names those recorded"
"$RP" report -i "$T/two.data" --folded >"$T/two.folded" 2>"$T/two.ferr" || fail "--folded of two events"
check_grep "^ringprof report: note: the recording has 2 events \(cpu-clock, task-clock\); --folded shows 'cpu-clock'" "$T/two.ferr" "--folded of several events says which it shows"
check_grep '^rp-worker;.*worker_spin [0-9]+$' "$T/two.folded" "--folded shows the first event's stacks"
"$RP" report -i "$T/two.data" --dump >"$T/two.dump" 2>&1 || fail "--dump of two events"
check_grep '^SAMPLE event=task-clock ' "$T/two.dump" "--dump names each sample's event"
check_grep '^EVENT .* index=1 of=2 event=task-clock ' "$T/two.dump" "--dump shows the second event's description"

# A comma list is the same as repeated -e.
"$RP" record -q -e cpu-clock,task-clock:u -F 499 -o "$T/list.data" -- "$WL" -q -d 0.5 >/dev/null 2>&1 || fail "record -e cpu-clock,task-clock:u"
"$RP" report -i "$T/list.data" --stats >"$T/list.stats" 2>&1
check_grep '^    task-clock:u +[0-9]+ samples$' "$T/list.stats" "a comma list records both events, the modifier in the name"

# A one-event recording has no EVENT record (a 2.0 reader reads it whole).
"$RP" record -q -e cpu-clock -F 499 -o "$T/one.data" -- "$WL" -q -d 0.3 >/dev/null 2>&1 || fail "record of one event"
"$RP" report -i "$T/one.data" --stats >"$T/one.stats" 2>&1
check_grep '^  format +2\.5$' "$T/one.stats" "one event: format 2.5"
check_no_grep '^  events ' "$T/one.stats" "one event: no events list"
"$RP" report -i "$T/one.data" --dump >"$T/one.dump" 2>&1
check_no_grep '^(EVENT|SAMPLE event=)' "$T/one.dump" "one event: no EVENT record, SAMPLE lines unchanged"

# Cross-check: perf on the same workload names the same events with similar shares.
if command -v perf >/dev/null; then
	perf record -e cpu-clock -e task-clock -F 999 -o "$T/perf.data" -- "$WL" -q >"$T/perf.out" 2>&1 ||
		fail "perf record of two events failed: $(tail -3 "$T/perf.out")"
	perf report --stdio --no-children -i "$T/perf.data" --sort sym 2>/dev/null >"$T/perf.rep"
	check_grep "of event 'cpu-clock'" "$T/perf.rep" "perf names cpu-clock"
	check_grep "of event 'task-clock'" "$T/perf.rep" "perf names task-clock"
	share() { awk -v ev="$2" '/of event/ { s = index($0, "'"'"'" ev "'"'"'") > 0 } s && / worker_spin *$/ { sub("%", "", $1); print int($1); exit }' "$1"; }
	ours=$(share "$T/two.rep" task-clock)
	theirs=$(share "$T/perf.rep" task-clock)
	check_range "${ours:-0}" $(( ${theirs:-0} - 8 )) $(( ${theirs:-0} + 8 )) "task-clock share of worker_spin near perf's ${theirs}%"
else
	echo "# perf is not installed: no cross-check against perf"
fi

# ---- modifiers ----
"$RP" record -q -e cpu-clock:u --call-graph fp -F 999 -o "$T/u.data" -- "$WL" -q -d 1 >/dev/null 2>&1 || fail "record -e cpu-clock:u"
"$RP" report -i "$T/u.data" --folded >"$T/u.folded" 2>&1 || fail "report of :u"
check_grep 'worker_spin [0-9]+$' "$T/u.folded" ":u: user frames"
check_no_grep '_\[k\]' "$T/u.folded" ":u: no kernel frame"
"$RP" report -i "$T/u.data" >"$T/u.rep" 2>&1
check_grep '^# event: cpu-clock:u, .*user space only' "$T/u.rep" ":u: the header says user space only"
"$RP" record -q -e cpu-clock:k --call-graph fp -F 999 -o "$T/k.data" -- "$WL" -q -d 1 >/dev/null 2>&1 || fail "record -e cpu-clock:k"
"$RP" report -i "$T/k.data" --folded >"$T/k.folded" 2>&1 || fail "report of :k"
check_grep '_\[k\] [0-9]+$' "$T/k.folded" ":k: kernel frames"
check_no_grep '(worker_spin|hot_leaf|warm_func|worklib_spin|main)( |;|$)' "$T/k.folded" ":k: no user frame"
for bad in 'cpu-clock:x' 'cpu-clock:p' 'cpu-clock:'; do
	! "$RP" record -e "$bad" -- true >"$T/mod.err" 2>&1 || fail "-e $bad was accepted"
	cat "$T/mod.err" >>"$T/mods.err"
done
check_grep "^ringprof record: unknown modifier 'x' in 'cpu-clock:x' \(ringprof knows u: user space only, k: kernel only" "$T/mods.err" "an unknown modifier is named"
check_grep "^ringprof record: ':p' in 'cpu-clock:p' asks for precise sampling, which needs a hardware PMU event" "$T/mods.err" ":p says it needs a PMU"
check_grep "^ringprof record: empty modifier in 'cpu-clock:'" "$T/mods.err" "an empty modifier is refused"

# ---- -c with -F ----
! "$RP" record -e cpu-clock -c 10000 -F 99 -- true >"$T/cf.err" 2>&1 || fail "-c with -F was accepted"
check_grep '^ringprof record: -c PERIOD and -F HZ both set the sampling rate; give one$' "$T/cf.err" "-c with -F names both"

# ---- -F max: perf's spelling of kernel.perf_event_max_sample_rate ----
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
"$RP" record -q -e cpu-clock -F max -o "$T/max.data" -- true >"$T/max.out" 2>&1 || fail "-F max: $(cat "$T/max.out")"
"$RP" report -i "$T/max.data" --stats >"$T/max.stats" 2>&1
check_grep "^  event +cpu-clock, [0-9]+ Hz \(requested $max Hz\)" "$T/max.stats" "-F max asks for kernel.perf_event_max_sample_rate ($max Hz)"
! "$RP" record -F maximum -- true >"$T/maxbad.err" 2>&1 || fail "-F maximum was accepted"
check_grep "^ringprof record: invalid frequency 'maximum' \(expected Hz, e.g. 999, or max\)$" "$T/maxbad.err" "a bad -F names max as a choice"

# ---- the default event without a hardware PMU: a note that says so, no errno text ----
if ! "$RP" record -q -e cycles -o "$T/cyc0.data" -- true 2>/dev/null; then
	"$RP" record -o "$T/def.data" -- true >"$T/def.out" 2>&1 || fail "record with the default event: $(cat "$T/def.out")"
	check_grep '^ringprof record: note: no hardware PMU on this machine \(as in most virtual machines\): sampling on cpu-clock instead of cycles$' \
		"$T/def.out" "the default event without a PMU: the note says no hardware PMU"
	check_no_grep 'No such file|ENOENT|not found' "$T/def.out" "the note has no errno text that reads as a missing file"
else
	echo "# cycles opens here: no note about a missing PMU to check"
fi

# ---- --list-events ----
"$RP" record --list-events >"$T/list.out" 2>&1 || fail "--list-events"
check_grep '^  cpu-clock +per-CPU high-resolution timer \(software\)$' "$T/list.out" "--list-events: cpu-clock, openable, unmarked"
if "$RP" record -q -e cycles -o "$T/cyc.data" -- true 2>"$T/cyc.err"; then
	check_no_grep '^  cycles .*\[not supported' "$T/list.out" "--list-events: cycles opens here, unmarked"
else
	check_grep 'needs a hardware PMU' "$T/cyc.err" "-e cycles without a PMU says so"
	check_grep '^  cycles +CPU cycles \(hardware PMU\)  \[not supported here: no hardware PMU\]$' "$T/list.out" "--list-events marks cycles as not supported here"
fi
check_grep "list them with$" "$T/list.out" "--list-events says how to list tracepoints"

# ---- tracepoints ----
! "$RP" record -e 'sched:../../x' -- true >"$T/tp.err" 2>&1 || fail "a path as tracepoint was accepted"
check_grep "is not a tracepoint name" "$T/tp.err" "a tracepoint name that is a path is refused"
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	echo "# not root or no mount namespaces: tracefs cases left out"
	exit 0
fi
# A private mount namespace: the machine's own mounts are not touched.
unshare -m sh -c 'umount -l /sys/kernel/tracing 2>/dev/null; umount -l /sys/kernel/debug 2>/dev/null;
	"$0" record -e sched:sched_switch -- true' "$RP" >"$T/nomount.err" 2>&1 && fail "a tracepoint without tracefs was accepted"
check_grep '^ringprof record: tracefs is not mounted, so tracepoints cannot be found; mount it as root: mount -t tracefs nodev /sys/kernel/tracing$' "$T/nomount.err" "tracefs not mounted: says how to mount it"
unshare -m sh -c 'mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing || exit 9
	"$0" record -e sched:no_such_event -- true >"$1/unknown.err" 2>&1 && exit 8
	"$0" record --list-events "sched:*" >"$1/tplist.out" 2>&1 || exit 7
	"$0" record -e task-clock -e sched:sched_switch -o "$1/tp.data" -- "$2" -q -d 1 >"$1/tp.out" 2>&1 || exit 6' \
	"$RP" "$T" "$WL"
rc=$?
[ $rc != 9 ] || { echo "# tracefs cannot be mounted here: tracepoint recording left out"; exit 0; }
[ $rc = 0 ] || fail "tracepoint steps failed ($rc): $(cat "$T"/unknown.err "$T"/tp.out 2>/dev/null)"
check_grep "^ringprof record: unknown tracepoint 'sched:no_such_event' \(no /sys/kernel/tracing/events/sched/no_such_event\); list them with: ringprof record --list-events 'sched:\*'$" "$T/unknown.err" "an unknown tracepoint is named, with how to list them"
check_grep '^  sched:sched_switch +tracepoint$' "$T/tplist.out" "--list-events 'sched:*' lists sched_switch"
"$RP" report -i "$T/tp.data" --stats >"$T/tp.stats" 2>&1
sw=$(awk '$1 == "sched:sched_switch" && $3 == "samples" { print $2 }' "$T/tp.stats")
check_range "${sw:-0}" 2 1000000 "sched:sched_switch samples (the workload's threads switch)"
"$RP" report -i "$T/tp.data" --dump >"$T/tp.dump" 2>&1
check_grep '^SAMPLE event=sched:sched_switch .* period=1 ' "$T/tp.dump" "a tracepoint samples every hit (period 1)"
check_grep '^EVENT .* event=sched:sched_switch type=2 .* freq=0 period=1$' "$T/tp.dump" "the tracepoint's description: type 2, period 1"
