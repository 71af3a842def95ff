#!/bin/bash
# offcpu.sh — record --off-cpu and report --off-cpu / --wall on rp-offcpu, whose threads wait in
# known functions for times the workload measures itself: the off-CPU time of each waiting
# function within 10 % of it, with its full stack through libc; spinners pinned to one CPU
# show as [preempted], sleepers as [waiting]; --folded counts microseconds; --wall gives each
# thread its wall time within 5 %; a recording without switch-outs is refused with the fix.
# --off-cpu-rate (default with -a 10000 a second per CPU, else every switch-out): at a rate low
# enough to leave switch-outs without a stack each thread's waiting time stays the truth, the
# header says so, and under a ping-pong load the stacks kept stay within the rate. --dso
# filters off-CPU stacks by the code they waited in, not by [off-cpu]. Recorded without -g, --off-cpu still
# has full stacks; -g caller shows the waiting function's path into the kernel; diff --off-cpu
# pairs the waiting functions; a thread that exits early has its waits only; --pprof writes
# off-CPU time as off_cpu/nanoseconds, which the real pprof reads.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
require_root
# A crafted recording (tests/rp-craft offcpu: its comment has the story) with lost records, an
# exit and a dead task's switch-out: the time per thread, what was clipped and what was lost.
"$top_builddir/tests/rp-craft" offcpu "$T/craft.data" || fail "rp-craft offcpu"
"$RP" report --no-pager --off-cpu -s tid --no-children -n -i "$T/craft.data" >"$T/craft.txt" 2>"$T/craft.err" ||
	fail "report --off-cpu of the crafted recording: $(cat "$T/craft.err")"
check_eq "$(awk '/^ +[0-9.]+%/ { printf "%s=%s ", $3, $2 }' "$T/craft.txt")" "4246=20.000 4242=10.000 4243=2.000 4245=1.000 " \
	"crafted: each thread's off-CPU ms (none for 4244, dropped; none for tid -1; 4245 not past its exit)"
check_grep "^# weights: time in ns; off-CPU: 0\.033 s \(waiting 0\.033 s, preempted 0\.000 s\) after 7 switch-outs$" \
	"$T/craft.txt" "crafted: 33 ms after 7 switch-outs (a dead or exited thread's last one is none)"
check_grep "^# off-CPU clipped: 1 thread still off at the end of a recording, 0\.020 s counted up to it; dropped: 0 switch-outs whose switch-in was lost$" \
	"$T/craft.txt" "crafted: 4246 clipped at the end, 20 ms"
check_grep "^# off-CPU lost: 3 intervals open while records were lost, 0\.047 s not counted \(the thread may have run meanwhile\)$" \
	"$T/craft.txt" "crafted: the 3 intervals open across 5 lost records, 47 ms, said (not those across 1)"
OC="$top_builddir/tests/workload/rp-offcpu"
[ -x "$OC" ] || fail "$OC is not built (make check builds it)"
if ! "$RP" record -q -e cpu-clock --off-cpu -o "$T/probe.data" -- true 2>"$T/probe.err"; then
	grep -q "tracefs is not mounted" "$T/probe.err" &&
		skip "tracefs is not mounted here ($(cat "$T/probe.err"))"
	fail "record --off-cpu: $(cat "$T/probe.err")"
fi

# Without -g: --off-cpu implies the default call graph (dwarf), and says so.
"$RP" record -e cpu-clock --off-cpu -o "$T/off.data" -- "$OC" -d 2 >"$T/wl.out" 2>"$T/rec.err" ||
	fail "record --off-cpu: $(cat "$T/rec.err")"
check_grep "^ringprof record: note: --off-cpu records callchains as -g does \(--call-graph dwarf; --no-call-graph records none\)$" \
	"$T/rec.err" "--off-cpu without -g: the note on the implied call graph"
check_grep "^\[ user stacks: [0-9.]+% complete" "$T/rec.err" "--off-cpu without -g: user stacks unwound (dwarf)"
"$RP" report --no-pager -i "$T/off.data" >"$T/ev.txt" 2>&1 || fail "report of off.data: $(cat "$T/ev.txt")"
check_grep "^# event: sched:sched_switch, period 1, callchains unwound while recording \(dwarf\), kernel and user$" \
	"$T/ev.txt" "--off-cpu without -g: the switch-outs have dwarf callchains"
# --no-call-graph: no callchains, not even --off-cpu's.
"$RP" record -q -e cpu-clock --off-cpu --no-call-graph -o "$T/nocg.data" -- true 2>"$T/nocg.err" ||
	fail "record --off-cpu --no-call-graph: $(cat "$T/nocg.err")"
"$RP" report --no-pager -i "$T/nocg.data" >"$T/nocg.txt" 2>&1 || fail "report of nocg.data: $(cat "$T/nocg.txt")"
check_grep "^# event: sched:sched_switch, period 1, no callchains, kernel and user$" "$T/nocg.txt" \
	"--off-cpu --no-call-graph: switch-outs without callchains"
# truth THREAD: the seconds the workload measured around THREAD's waiting function, in ms.
truth() { awk -v t="$1" '$1 == t { printf "%d", $7 * 1000 }' "$T/wl.out"; }
wall() { awk -v t="$1" '$1 == t { printf "%d", $5 * 1000 }' "$T/wl.out"; }
[ -n "$(truth rp-sleeper)" ] || fail "no output from the workload: $(cat "$T/wl.out")"

"$RP" report --off-cpu --folded -i "$T/off.data" >"$T/f.txt" 2>"$T/f.err" ||
	fail "report --off-cpu --folded: $(cat "$T/f.err")"
# folded_ms THREAD FUNCTION KIND: microseconds of THREAD's stacks through FUNCTION ending in
# [KIND], in ms.
folded_ms() {
	awk -v t="$1" -v f=";$2;" -v k=";[$3]" 'index($0, t ";") == 1 && index($0, f) && index($0, k " ") {
		s += $NF } END { printf "%d", s / 1000 }' "$T/f.txt"
}
# within PCT GOT WANT WHAT
within() {
	local lo=$(($3 - $3 * $1 / 100)) hi=$(($3 + $3 * $1 / 100))
	check_range "$2" "$lo" "$hi" "$4 (truth $3 ms, ±$1 %)"
}
within 10 "$(folded_ms rp-sleeper wait_sleep waiting)" "$(truth rp-sleeper)" "rp-sleeper's off-CPU ms in wait_sleep (nanosleep)"
within 10 "$(folded_ms rp-piper wait_pipe waiting)" "$(truth rp-piper)" "rp-piper's off-CPU ms in wait_pipe (a pipe fed every 20 ms)"
within 10 "$(folded_ms rp-locker wait_mutex waiting)" "$(truth rp-locker)" "rp-locker's off-CPU ms in wait_mutex (a mutex held 30 ms)"
within 10 "$(folded_ms rp-holder hold_lock waiting)" "$(truth rp-holder)" "rp-holder's off-CPU ms in hold_lock"
# rp-early waits in its first 100 ms, while the unwind tables may still be building (stacks cut
# short then): its waiting time in wait_early, or in a stack cut before it reaches start_thread
# (which may be wait_early's), not until the end of the recording. Not its other waits, read
# whole (a busy machine makes it wait at start or exit too, outside what the workload measures).
early=$(awk 'index($0, "rp-early;") == 1 && index($0, "[waiting] ") && (index($0, ";wait_early;") || !index($0, ";start_thread;")) {
	s += $NF } END { printf "%d", s / 1000 }' "$T/f.txt")
within 10 "$early" "$(truth rp-early)" "rp-early's off-CPU ms (it exits early)"
# Full stacks through libc's wrappers (no frame pointers there) down to the kernel's schedule.
check_grep "^rp-sleeper;clone3;start_thread;run;wait_sleep;(sleep_ms;)?(__)?nanosleep;clock_nanosleep[^;]*;.*schedule_\[k\];.*\[waiting\] [0-9]+$" \
	"$T/f.txt" "wait_sleep's stack: thread start, libc's nanosleep, the kernel, [waiting]"
check_grep "^rp-locker;clone3;start_thread;run;wait_mutex;pthread_mutex_lock[^;]*;__(GI___)?lll_lock_wait;.*futex" \
	"$T/f.txt" "wait_mutex's stack through pthread_mutex_lock and the futex"
check_grep "^rp-piper;clone3;start_thread;run;wait_pipe;(__interceptor_read[^;]*;)?(__libc_)?read;.*pipe_read" "$T/f.txt" \
	"wait_pipe's stack through read into the pipe"
# Preemption apart from waiting: the two spinners on one CPU are only ever preempted.
check_eq "$(folded_ms rp-spin1 spin_contend waiting)" 0 "rp-spin1 never waits voluntarily"
spin=$(folded_ms rp-spin1 spin_contend preempted)
check_range "$spin" 300 "$(wall rp-spin1)" "rp-spin1 is preempted for a good part of its life (ms)"
# Its sleeps are waits. It can be preempted in its own loop around them when the machine is
# busy (the spinners, or a CI running two test trees at once): a few ms at most, never its sleeps.
check_range "$(folded_ms rp-sleeper wait_sleep preempted)" 0 $(($(truth rp-sleeper) / 10)) \
	"a sleep is never counted as a preemption (preempted ms in wait_sleep)"
check_no_grep " [0-9]+ [0-9]+$" "$T/f.txt" "one count per folded line"

# The flat report: the header states the totals, time units and what was clipped.
"$RP" report --no-pager --off-cpu -n -i "$T/off.data" >"$T/r.txt" 2>"$T/r.err" || fail "report --off-cpu"
check_grep "^# weights: time in ns; off-CPU: [0-9.]+ s \(waiting [0-9.]+ s, preempted [0-9.]+ s\) after [0-9]+ switch-outs$" \
	"$T/r.txt" "the header states the off-CPU total, waiting and preempted apart"
check_grep "^# off-CPU clipped: [0-9]+ threads? still off at the end of a recording, [0-9.]+ s counted up to it; dropped: [0-9]+ switch-outs? whose switch-in was lost$" \
	"$T/r.txt" "the header states what was clipped and dropped"
check_grep "^# Children +Self +Time ms +Command" "$T/r.txt" "the -n column is time, in ms"
check_grep "^ +[0-9.]+% +[0-9.]+% +[0-9.]+ rp-piper +rp-offcpu +\[\.\] wait_pipe$" "$T/r.txt" "wait_pipe has its row"
pipe_ms=$(awk '$4 == "rp-piper" && $NF == "wait_pipe" { printf "%d", $3 }' "$T/r.txt")
within 10 "$pipe_ms" "$(truth rp-piper)" "the flat table's Time ms of wait_pipe"

# -g caller: the waiting function's entry, with its time, and below it the path into the kernel
# that ends in [waiting].
"$RP" report --no-pager --off-cpu -g caller --comm rp-piper -n -i "$T/off.data" >"$T/g.txt" 2>"$T/g.err" ||
	fail "report --off-cpu -g caller: $(cat "$T/g.err")"
awk '/\] wait_pipe$/ { p = 1 } p && /^$/ { exit } p' "$T/g.txt" >"$T/gw.txt"
within 10 "$(awk 'NR == 1 { printf "%d", $3 }' "$T/gw.txt")" "$(truth rp-piper)" "-g caller: wait_pipe's entry, Time ms"
# All of wait_pipe's time goes to read: the first callee has the entry's own share (the tree's
# shares are of the total).
pct=$(awk 'NR == 1 { print $1; exit }' "$T/gw.txt" | sed 's/\./\\./')
check_grep "^ +\`--$pct--(__libc_read|read|__interceptor_read[^ ]*)$" "$T/gw.txt" "-g caller: wait_pipe calls read, all of its time"
check_grep "^ +\`--[0-9.]+%--anon_pipe_read \[k\]$" "$T/gw.txt" "-g caller: into the kernel's pipe read"
check_grep "^ +\`--[0-9.]+%--\[waiting\]$" "$T/gw.txt" "-g caller: the path ends in [waiting]"

# --pprof: off-CPU time is a sample type of its own, which the real pprof reads; with --wall
# beside cpu/nanoseconds, with their sum wall/nanoseconds the default.
PPROF=${PPROF:-/usr/lib/go-1.19/pkg/tool/linux_amd64/pprof}
[ -x "$PPROF" ] || fail "the pprof tool is missing ($PPROF): install golang-1.19-go (setup.sh does)"
export PPROF_TMPDIR="$T/pprof-home"
"$RP" report --off-cpu --pprof "$T/oc.pb.gz" -i "$T/off.data" 2>"$T/pp.err" || fail "report --off-cpu --pprof: $(cat "$T/pp.err")"
"$RP" report --wall --pprof "$T/wall.pb.gz" -i "$T/off.data" 2>"$T/pp.err" || fail "report --wall --pprof: $(cat "$T/pp.err")"
"$PPROF" -raw "$T/oc.pb.gz" >"$T/oc.raw" 2>"$T/pp.err" || fail "pprof -raw of the off-CPU profile: $(cat "$T/pp.err")"
check_grep '^samples/count off_cpu/nanoseconds\[dflt\]$' "$T/oc.raw" "--off-cpu --pprof: sample types samples/count and off_cpu/nanoseconds"
check_grep '^PeriodType: off_cpu nanoseconds$' "$T/oc.raw" "--off-cpu --pprof: period type off_cpu/nanoseconds"
"$PPROF" -raw "$T/wall.pb.gz" >"$T/wall.raw" 2>"$T/pp.err" || fail "pprof -raw of the wall profile: $(cat "$T/pp.err")"
check_grep '^samples/count cpu/nanoseconds off_cpu/nanoseconds wall/nanoseconds\[dflt\]$' "$T/wall.raw" \
	"--wall --pprof: on-CPU, off-CPU and wall time as three types"
# ptop FILE INDEX FUNCTION: FUNCTION's cum in ms by pprof -top at sample index INDEX.
ptop() { "$PPROF" -sample_index="$2" -unit=ms -top -nodefraction=0 -nodecount=100000 "$1" 2>/dev/null |
	awk -v f="$3" '$NF == f { sub("ms", "", $4); printf "%d", $4 }'; }
within 10 "$(ptop "$T/oc.pb.gz" off_cpu wait_pipe)" "$(truth rp-piper)" "pprof -sample_index=off_cpu -top: wait_pipe's time off CPU"
within 10 "$(ptop "$T/oc.pb.gz" off_cpu wait_sleep)" "$(truth rp-sleeper)" "pprof -sample_index=off_cpu -top: wait_sleep's time off CPU"
within 10 "$(ptop "$T/wall.pb.gz" off_cpu wait_pipe)" "$(truth rp-piper)" "--wall, pprof -sample_index=off_cpu: wait_pipe's time off CPU"
pcpu=$(ptop "$T/wall.pb.gz" cpu wait_pipe)
check_range "${pcpu:-0}" 0 $(($(truth rp-piper) / 20)) "--wall, pprof -sample_index=cpu: wait_pipe hardly runs"
# How much the spinners run depends on what else runs (pinned to one CPU, they share it with
# the machine's other jobs): at least 5 times wait_pipe's CPU time and 20 ms, at most the wall.
pspin=$(ptop "$T/wall.pb.gz" cpu spin_contend)
check_range "${pspin:-0}" "$((5 * ${pcpu:-0} > 20 ? 5 * ${pcpu:-0} : 20))" "$(wall rp-spin1)" \
	"--wall, pprof -sample_index=cpu: the spinners run (${pspin:-0} ms; wait_pipe ${pcpu:-0} ms)"

# --wall: on-CPU periods plus off-CPU time: each thread's total is its wall time.
"$RP" report --no-pager --wall -s comm --no-children -n -i "$T/off.data" >"$T/w.txt" 2>"$T/w.err" ||
	fail "report --wall: $(cat "$T/w.err")"
for t in rp-sleeper rp-piper rp-locker rp-spin1; do
	got=$(awk -v t="$t" '$NF == t { printf "%d", $2 }' "$T/w.txt")
	within 5 "${got:-0}" "$(wall "$t")" "--wall: $t's total is its wall time"
done

# A recording without switch-outs is refused with the fix.
"$RP" record -q -e cpu-clock -o "$T/cpu.data" -- true 2>/dev/null || fail "record"
"$RP" report --off-cpu -i "$T/cpu.data" >"$T/n.out" 2>"$T/n.err" && fail "--off-cpu of a CPU recording should fail"
check_grep "^ringprof report: --off-cpu needs off-CPU samples, .*record with ringprof record --off-cpu$" "$T/n.err" \
	"--off-cpu without switch-outs: the message"

# --wall adds sample periods to nanoseconds: an event that counts something else is refused.
"$RP" record -q -e sched:sched_wakeup -c 1 --off-cpu -o "$T/tp.data" -- sleep 0.1 2>"$T/tp.err" ||
	fail "record -e sched:sched_wakeup --off-cpu: $(cat "$T/tp.err")"
"$RP" report --wall -i "$T/tp.data" >"$T/tp.out" 2>"$T/tp.err" && fail "--wall of a tracepoint's counts should fail"
check_grep "^ringprof report: --wall adds on-CPU sample periods to off-CPU nanoseconds, but 'sched:sched_wakeup' counts events, not time: record with -e cpu-clock or -e task-clock" \
	"$T/tp.err" "--wall with a non-time event: the message names cpu-clock and task-clock"
check_eq "$(wc -c <"$T/tp.out")" 0 "--wall with a non-time event: no report"
# ringprof diff refuses the same, with the same sentences, before reading either side.
"$RP" diff --wall "$T/tp.data" "$T/tp.data" >"$T/dtp.out" 2>"$T/dtp.err"
check_eq "$?" 2 "diff --wall of a tracepoint's counts exits 2"
check_grep "^ringprof diff: --wall adds on-CPU sample periods to off-CPU nanoseconds, but 'sched:sched_wakeup' counts events, not time" \
	"$T/dtp.err" "diff --wall with a non-time event: the message"
check_eq "$(wc -c <"$T/dtp.out")" 0 "diff --wall with a non-time event: no diff"
"$RP" diff --off-cpu "$T/cpu.data" "$T/cpu.data" >/dev/null 2>"$T/dn0.err" && fail "diff --off-cpu of CPU recordings should fail"
check_grep "^ringprof diff: --off-cpu needs off-CPU samples, .*record with ringprof record --off-cpu$" "$T/dn0.err" \
	"diff --off-cpu without switch-outs: the message"

# ringprof diff --off-cpu compares off-CPU time by the functions that waited (Children, as the
# flat report): the same recording twice diffs to zero.
"$RP" diff --no-pager --off-cpu "$T/off.data" "$T/off.data" >"$T/d.txt" 2>"$T/d.err" || fail "diff --off-cpu"
check_grep "^# shares: Children \(the weight of every stack through the entry\), of each side's own total off-CPU time;" \
	"$T/d.txt" "diff --off-cpu: the header says the shares are Children of off-CPU time"
check_grep "^ +[0-9.]+% +[0-9.]+% +\+0\.00 +1\.00 +\[off-cpu\] +\[\.\] \[waiting\]$" "$T/d.txt" \
	"diff --off-cpu: off-CPU entries, unchanged against themselves"
check_grep "^ +[0-9.]+% +[0-9.]+% +\+0\.00 +1\.00 +rp-offcpu +\[\.\] wait_pipe$" "$T/d.txt" \
	"diff --off-cpu: the waiting function has its own row (wait_pipe), unchanged"
# Two runs of one thread napping A then B ms: its off-CPU time moves from nap_a to nap_b. The
# diff's delta is the difference of report --off-cpu's Children shares of the two recordings
# (each of its own total, which other threads' waits and, under load, preemptions also fill:
# so not the napper's own ratio), and goes the way the naps moved.
"$RP" record -q -e cpu-clock --off-cpu -o "$T/na.data" -- "$OC" -n 2 30 10 >"$T/na.out" 2>"$T/na.err" ||
	fail "record rp-offcpu -n: $(cat "$T/na.err")"
"$RP" record -q -e cpu-clock --off-cpu -o "$T/nb.data" -- "$OC" -n 2 10 30 >"$T/nb.out" 2>"$T/nb.err" ||
	fail "record rp-offcpu -n: $(cat "$T/nb.err")"
# nap_share OUT FN: FN's share of the napper's naps, in hundredths of a point.
nap_share() { awk -v f="$2" '$1 == "rp-napper" { for (i = 6; i < NF; i += 2) { t += $(i + 1); if ($i == f) x = $(i + 1) }
	printf "%d", x / t * 10000 }' "$1"; }
"$RP" diff --no-pager --off-cpu "$T/na.data" "$T/nb.data" >"$T/dn.txt" 2>"$T/dn.err" ||
	fail "diff --off-cpu of two nap runs: $(cat "$T/dn.err")"
# delta SYM: SYM's Delta column, in hundredths of a point.
delta() { awk -v s="$1" '$NF == s && $(NF-1) == "[.]" { for (i = 1; i < NF; i++) if ($i ~ /^[+-][0-9]+\.[0-9]+$/) {
	x = $i; printf "%d", (x < 0 ? x * 100 - 0.5 : x * 100 + 0.5); exit } }' "$T/dn.txt"; }
# children DATA SYM: SYM's Children share in report --off-cpu of DATA, in hundredths of a point.
children() { "$RP" report --no-pager --off-cpu -i "$1" 2>/dev/null |
	awk -v s="$2" '$1 !~ /^#/ && $NF == s && $(NF-1) == "[.]" { x = $1; sub("%", "", x); printf "%d", x * 100 + 0.5; exit }'; }
for f in nap_a nap_b; do
	want=$(($(children "$T/nb.data" $f) - $(children "$T/na.data" $f)))
	got=$(delta $f)
	[ -n "$got" ] || fail "diff --off-cpu: no row for $f: $(cat "$T/dn.txt")"
	check_range "$got" $((want - 2)) $((want + 2)) "diff --off-cpu: $f's delta (hundredths of a point) is report's shares' difference ($want)"
	naps=$(($(nap_share "$T/nb.out" $f) - $(nap_share "$T/na.out" $f)))
	[ $((got * naps)) -gt 0 ] || fail "diff --off-cpu: $f's delta $got goes against the naps' ($naps)"
	ok "diff --off-cpu: $f's delta $got goes the naps' way ($naps in the napper's own ratio)"
done
# --folded: both sides' microseconds per stack; nap_a's add up to each run's naps in it.
"$RP" diff --off-cpu --folded "$T/na.data" "$T/nb.data" >"$T/dnf.txt" 2>"$T/dnf.err" ||
	fail "diff --off-cpu --folded: $(cat "$T/dnf.err")"
check_grep "^rp-napper;.*;main;nap_a;.*\[waiting\] [0-9]+ [0-9]+$" "$T/dnf.txt" "diff --off-cpu --folded: nap_a's stacks with two counts"
check_no_grep "^[^ ]+ [0-9]+$|^[^ ]+ [0-9]+ [0-9]+ " "$T/dnf.txt" "diff --off-cpu --folded: exactly two counts a line"
nap_ms() { awk -v f="$2" '$1 == "rp-napper" { for (i = 6; i < NF; i += 2) if ($i == f) printf "%d", $(i + 1) * 1000 }' "$1"; }
fa=$(awk '/;nap_a;/ { s += $(NF - 1) } END { printf "%d", s / 1000 }' "$T/dnf.txt")
fb=$(awk '/;nap_a;/ { s += $NF } END { printf "%d", s / 1000 }' "$T/dnf.txt")
within 10 "$fa" "$(nap_ms "$T/na.out" nap_a)" "diff --off-cpu --folded: nap_a's baseline microseconds, in ms"
within 10 "$fb" "$(nap_ms "$T/nb.out" nap_a)" "diff --off-cpu --folded: nap_a's new microseconds, in ms"

# --dso: the objects the thread waited in (the kernel leaf below [off-cpu], and the user-space
# frame that entered the kernel), never the made-up [off-cpu] frame.
"$RP" report --off-cpu --folded --dso libc.so.6 -i "$T/off.data" >"$T/dl.txt" 2>"$T/dl.err" ||
	fail "report --off-cpu --dso libc.so.6: $(cat "$T/dl.err")"
check_grep "^rp-piper;.*;wait_pipe;.*read;.*\[waiting\] [0-9]+$" "$T/dl.txt" "--dso libc.so.6 keeps wait_pipe's read"
check_no_grep "^rp-spin1;.*;spin_contend;" "$T/dl.txt" "--dso libc.so.6: the spinners are preempted in their own code, not in libc"
"$RP" report --off-cpu --folded --dso rp-offcpu -i "$T/off.data" >"$T/do.txt" 2>/dev/null || fail "report --dso rp-offcpu"
check_grep "^rp-spin1;.*;spin_contend;.*\[preempted\] [0-9]+$" "$T/do.txt" "--dso rp-offcpu keeps the spinners' preemptions"
check_no_grep "wait_pipe" "$T/do.txt" "--dso rp-offcpu: wait_pipe entered the kernel in libc"
"$RP" report --off-cpu --folded --dso '[off-cpu]' -i "$T/off.data" >"$T/dx.txt" 2>"$T/dx.err" ||
	fail "report --off-cpu --dso '[off-cpu]': $(cat "$T/dx.err")"
check_eq "$(wc -l <"$T/dx.txt")" 0 "--dso [off-cpu] matches nothing: it is no object of the program"

# --off-cpu-rate 0 samples every switch-out; 100 a second per CPU leaves many without a stack
# and charges their time to the thread's next stack: the per-thread totals agree.
"$RP" record -q -e cpu-clock -g --off-cpu --off-cpu-rate 0 -o "$T/all.data" -- "$OC" -d 2 >"$T/wl0.out" 2>"$T/rec0.err" ||
	fail "record --off-cpu-rate 0: $(cat "$T/rec0.err")"
"$RP" report --no-pager --off-cpu -n -i "$T/all.data" >"$T/a.txt" 2>/dev/null || fail "report of all.data"
"$RP" record -q -e cpu-clock -g --off-cpu --off-cpu-rate 100 -o "$T/few.data" -- "$OC" -d 2 >"$T/wl1.out" 2>"$T/rec1.err" ||
	fail "record --off-cpu-rate 100: $(cat "$T/rec1.err")"
"$RP" report --no-pager --off-cpu -n -i "$T/few.data" >"$T/few.txt" 2>/dev/null || fail "report of few.data"
check_no_grep "^# off-CPU stacks sampled" "$T/a.txt" "rate 0: no sampling of stacks to state"
check_no_grep "^# off-CPU stacks sampled" "$T/r.txt" "a command's switch-outs are all sampled by default"
check_grep "^# off-CPU stacks sampled at most 100 times a second per CPU: [0-9]+ of the [0-9]+ switch-outs have theirs; the time of the others goes to the thread's next stack of the same kind \(totals are exact\)$" \
	"$T/few.txt" "the rate is stated in the header"
kept() { sed -n 's/^# off-CPU stacks sampled at most [0-9]* times .*: \([0-9]*\) of the [0-9]* switch-outs.*/\1/p' "$1"; }
outs() { sed -n 's/^# weights: .* after \([0-9]*\) switch-outs$/\1/p' "$1"; }
few=$(kept "$T/few.txt") seen=$(outs "$T/few.txt")
check_range "${few:-0}" 1 $((${seen:-0} * 9 / 10)) "rate 100: switch-outs without a stack (of $seen)"
# Each run against its own truth: a thread's waiting time is what the workload measured around
# its waits. Within 10 %, less the thread's preempted time inside its waiting function in the
# same recording: on a loaded machine a thread is also preempted inside the calls it times
# (before it sleeps, after it wakes), which the recording says is [preempted], not [waiting].
offms() { # DATA THREAD KIND [FUNCTION]: the thread's KIND ms (in stacks through FUNCTION)
	"$RP" report --off-cpu --folded --comm "$2" -i "$1" 2>/dev/null |
		awk -v k="[$3] " -v f=";${4:-};" 'index($0, k) && (f == ";;" || index($0, f)) { s += $NF } END { printf "%d", s / 1000 }'
}
# A recording that lost records (its header says how many) may lack switch-outs: then only
# the upper bound holds.
waiting_within() { # DATA OUT THREAD FUNCTION WHAT
	local truth pre got lost lo
	truth=$(awk -v t="$3" '$1 == t { printf "%d", $7 * 1000 }' "$2")
	pre=$(offms "$1" "$3" preempted "$4") got=$(offms "$1" "$3" waiting)
	lost=$("$RP" report --no-pager --off-cpu -i "$1" 2>/dev/null | sed -n 's/^# samples: .*lost: \([0-9]*\) .*/\1/p')
	lo=$((truth - truth / 10 - pre))
	[ "${lost:-0}" -eq 0 ] || lo=0
	check_range "$got" "$lo" $((truth + truth / 10)) \
		"$3's waiting ms, $5 (truth $truth ms, ±10 %, less $pre ms preempted in $4; ${lost:-0} records lost)"
}
for tf in rp-sleeper:wait_sleep rp-piper:wait_pipe rp-holder:hold_lock; do
	waiting_within "$T/all.data" "$T/wl0.out" "${tf%%:*}" "${tf#*:}" "every switch-out sampled"
	waiting_within "$T/few.data" "$T/wl1.out" "${tf%%:*}" "${tf#*:}" "at 100 stacks a second (switch-outs without a stack count)"
done

# Ping-pong: ~10^5 switches a second; the rate keeps a small share of their stacks.
"$RP" record -q -e cpu-clock -g --off-cpu --off-cpu-rate 0 -o "$T/pp0.data" -- "$OC" -P 1 >"$T/pp0.out" 2>&1 || fail "record ping-pong, rate 0"
"$RP" record -q -e cpu-clock -g --off-cpu --off-cpu-rate 1000 -o "$T/pp1.data" -- "$OC" -P 1 >"$T/pp1.out" 2>&1 || fail "record ping-pong"
"$RP" report --no-pager --off-cpu -i "$T/pp0.data" >"$T/pp0.txt" 2>/dev/null || fail "report pp0"
"$RP" report --no-pager --off-cpu -i "$T/pp1.data" >"$T/pp1.txt" 2>/dev/null || fail "report pp1"
all=$(outs "$T/pp0.txt") some=$(kept "$T/pp1.txt") seen=$(outs "$T/pp1.txt")
trips0=$(awk '$1 == "rp-ping" { print $NF }' "$T/pp0.out") trips1=$(awk '$1 == "rp-ping" { print $NF }' "$T/pp1.out")
# How fast it bounces depends on the machine's load: each run against its own round trips.
check_range "${all:-0}" "${trips0:-1}" 100000000 "ping-pong, rate 0: a switch-out at least per round trip ($trips0)"
check_no_grep "^# off-CPU stacks sampled" "$T/pp0.txt" "ping-pong, rate 0: every switch-out has its stack"
check_range "${seen:-0}" "${trips1:-1}" 100000000 "ping-pong, 1000 a second: every switch-out still counted ($trips1 round trips)"
# The bound: 1000 stacks a second per CPU, twice that for the kernel's frequency adaptation.
bound=$((1000 * $(nproc) * 2))
check_range "${seen:-0}" $((bound * 2)) 100000000 "ping-pong: switches enough to test the bound of $bound stacks"
check_range "${some:-999999}" 1 "$bound" "ping-pong, 1000 a second: stacks kept within the rate (of $seen switch-outs)"


# script --off-cpu: each switch-out with its off-CPU time and kind, its frames below it.
"$RP" script --no-pager --off-cpu -i "$T/off.data" >"$T/s.txt" 2>"$T/s.err" || fail "script --off-cpu: $(cat "$T/s.err")"
check_grep "^rp-sleeper +[0-9]+/[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+: +[0-9]+ sched:sched_switch: ( [^ ]+)? off-cpu [0-9]+ ns waiting$" \
	"$T/s.txt" "a switch-out line ends in its off-CPU ns and kind"
check_no_grep "^[^	].* cpu-clock: " "$T/s.txt" "script --off-cpu prints switch-outs only"
# blocks_ms THREAD FUNCTION KIND: ms of THREAD's switch-outs of KIND whose frames include FUNCTION.
blocks_ms() {
	awk -v t="$1" -v f=" $2+" -v k="$3" '
		/^[^\t]/ { if (keep) s += ns; keep = 0; ns = 0; hit = 0
		       if ($1 == t && $NF == k) { ns = $(NF - 2); cand = 1 } else cand = 0; next }
		/^\t/ { if (cand && index($0, f)) keep = 1; next }
		END { if (keep) s += ns; printf "%d", s / 1000000 }' "$T/s.txt"
}
within 10 "$(blocks_ms rp-sleeper wait_sleep waiting)" "$(truth rp-sleeper)" "script --off-cpu: wait_sleep's switch-outs add up to its sleeps"
within 10 "$(blocks_ms rp-piper wait_pipe waiting)" "$(truth rp-piper)" "script --off-cpu: wait_pipe's switch-outs add up to its waits"
check_eq "$(blocks_ms rp-spin1 spin_contend waiting)" 0 "script --off-cpu: the spinner is never waiting in spin_contend"
check_range "$(blocks_ms rp-spin1 spin_contend preempted)" 300 "$(wall rp-spin1)" "script --off-cpu: the spinner's preemptions (ms)"
# ringprofd with OffCpu=yes: a system-wide recording whose report has the sleeper's wait (others'
# threads are filtered out by name).
. "$top_srcdir/tests/daemon-lib.sh"
start_listener
# Rings of 4 MiB per CPU: on a loaded machine (a CI running two test trees at once) the daemon
# drains late while it builds the workload's unwind tables, and intervals open while records
# are lost are dropped (the header says how many): the check below wants the sleeper's all.
start_daemon $FAST --off-cpu -m 1024 -D "$D"
"$OC" -d 1 >"$T/wld.out" || fail "rp-offcpu under ringprofd"
sleep 0.5
stop_daemon
check_eq "$DRC" 0 "ringprofd --off-cpu stops cleanly"
"$RP" report --no-pager --off-cpu --comm rp-sleeper --folded -i "$D"/*.data >"$T/df.txt" 2>"$T/df.err" ||
	fail "report --off-cpu of ringprofd's file: $(cat "$T/df.err")"
sl=$(awk '$1 == "rp-sleeper" { printf "%d", $7 * 1000 }' "$T/wld.out")
# The daemon samples switch-outs at a rate per CPU: on a busy machine (a CI runs two test trees
# at once) the sleeper's few switch-outs may all go without a stack, and their time then goes to
# the thread alone. Its total waiting time is exact either way.
got=$(awk 'index($0, "[waiting] ") { s += $NF } END { printf "%d", s / 1000 }' "$T/df.txt")
"$RP" report --no-pager --off-cpu -i "$D"/*.data 2>/dev/null | grep "^# off-CPU lost: " >&2 || true # in the log, for a failure below
within 20 "$got" "$sl" "ringprofd --off-cpu: rp-sleeper's waiting ms"
# A thread's last switch-out comes after its EXIT (system-wide, the kernel gives it tid -1): it
# is no off-CPU time. rp-early, gone a second before the end, has its sleeps alone, and no tid -1
# has any time.
"$RP" report --no-pager --off-cpu --comm rp-early -s comm --no-children -n -i "$D"/*.data >"$T/de.txt" 2>"$T/de.err" ||
	fail "report --off-cpu --comm rp-early: $(cat "$T/de.err")"
got=$(awk '$NF == "rp-early" { printf "%d", $2 }' "$T/de.txt")
early=$(awk '$1 == "rp-early" { printf "%d", $7 * 1000 }' "$T/wld.out")
within 20 "${got:-0}" "$early" "ringprofd --off-cpu: rp-early's off-CPU ms, not until the end of the recording"
"$RP" report --no-pager --off-cpu -s tid --no-children -n -i "$D"/*.data >"$T/dt.txt" 2>"$T/dt.err" ||
	fail "report --off-cpu -s tid: $(cat "$T/dt.err")"
check_grep "^ +[0-9.]+% +[0-9.]+ +[0-9]+$" "$T/dt.txt" "-s tid: rows of threads"
check_no_grep "^ +[0-9.]+% +[0-9.]+ +-1$" "$T/dt.txt" "no off-CPU time for exited tasks (tid -1)"
"$RP" report --no-pager --off-cpu -i "$D"/*.data >"$T/dr.txt" 2>/dev/null || fail "report of ringprofd's file"
check_grep "^# off-CPU stacks sampled at most 1000 times a second per CPU: " "$T/dr.txt" "ringprofd's rate is stated in the header"
