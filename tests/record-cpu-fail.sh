#!/bin/bash
# record-cpu-fail.sh — a CPU whose event cannot be opened. With tests/fail-cpu-open.so
# preloaded, perf_event_open fails on chosen CPUs with a chosen errno. System-wide recording
# (record -a, record -a -C, ringprofd) then leaves that CPU out with a note naming it and the
# reason and records the others: the header counts only the recorded CPUs, samples and
# per-CPU statistics exist only for them, and the report works. No CPU at all, or a failure
# that is not the CPU's own (the open-file limit), still ends the recording with the reason.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events

SHIM="$top_builddir/tests/fail-cpu-open.so"
[ -f "$SHIM" ] || fail "$SHIM is missing (make check builds it)"
online=$(cat /sys/devices/system/cpu/online)
n_online=$(getconf _NPROCESSORS_ONLN)
[ "$n_online" -ge 2 ] && [ -d /sys/devices/system/cpu/cpu1 ] && [ "$(cat /sys/devices/system/cpu/cpu1/online 2>/dev/null || echo 1)" = 1 ] ||
	skip "needs CPUs 0 and 1 online (online: $online)"
# An ASan build checks that its runtime comes first among the loaded libraries; the shim
# is preloaded before it on purpose.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
LOG="$T/shim.log"

# with_shim CPUS ERRNO CMD...: CMD with perf_event_open failing on CPUS with ERRNO.
with_shim() {
	local cpus=$1 err=$2
	shift 2
	LD_PRELOAD="$SHIM" RP_FAIL_CPUS="$cpus" RP_FAIL_ERRNO="$err" RP_FAIL_LOG="$LOG" "$@"
}

LOAD_PIDS=""
# Load on CPUs 0 and 1, so that each would have samples of its own.
load() {
	local cpu
	for cpu in 0 1; do
		if command -v taskset >/dev/null; then
			taskset -c "$cpu" "$WL" -q -d "$1" >/dev/null &
		else
			"$WL" -q -d "$1" >/dev/null &
		fi
		BG_PIDS="$BG_PIDS $!"
		LOAD_PIDS="$LOAD_PIDS $!"
	done
}
# wait_load: until the load is over (not `wait`: sd-listen runs in the background too).
wait_load() {
	wait $LOAD_PIDS 2>/dev/null
	LOAD_PIDS=""
}

# samples_on CPU STATS: the samples column of "cpu N" in --stats "by CPU" (0 when absent).
samples_on() {
	awk -v c="$1" '$1 == "cpu" && $2 == c { print $4; found = 1 } END { if (!found) print 0 }' "$2"
}

# ---- record -a, CPU 1 refuses (EBUSY) -----------------------------------------------------
: >"$LOG"
load 3
with_shim 1 EBUSY "$RP" record -a -e cpu-clock -F 499 -d 2 -o "$T/a.data" >"$T/a.out" 2>"$T/a.err"
check_eq "$?" 0 "record -a succeeds when CPU 1 cannot be opened"
check_grep '^cpu 1 errno 16$' "$LOG" "the shim refused CPU 1 (EBUSY)"
check_no_grep '^cpu [^1] ' "$LOG" "the shim refused no other CPU"
check_grep "^ringprof record: note: CPU 1: cannot open cpu-clock: Device or resource busy; recording the other CPUs only \($((n_online - 1)) of $n_online\)$" \
	"$T/a.err" "a note names the CPU, the event and the reason"
check_no_grep 'error|warning' "$T/a.err" "no error or warning besides the note"
"$RP" report -i "$T/a.data" --stats >"$T/a.stats" 2>"$T/a.stats.err" || fail "--stats: $(cat "$T/a.stats.err")"
check_grep "^  target +system-wide, $((n_online - 1)) CPUs? recorded$" "$T/a.stats" \
	"the header counts the recorded CPUs only ($((n_online - 1)))"
check_range "$(samples_on 0 "$T/a.stats")" 200 100000 "CPU 0 has samples"
check_eq "$(samples_on 1 "$T/a.stats")" 0 "CPU 1 has none"
"$RP" report -i "$T/a.data" --dump >"$T/a.dump" 2>&1 || fail "--dump failed"
check_no_grep '^SAMPLE [0-9.]+ cpu=1 ' "$T/a.dump" "no SAMPLE record from CPU 1"
check_grep '^CPU_STATS .* cpu=0 samples=[1-9]' "$T/a.dump" "CPU_STATS for CPU 0"
check_no_grep '^CPU_STATS .* cpu=1 ' "$T/a.dump" "no CPU_STATS for the CPU that was not recorded"
total=$(stat_field samples "$T/a.stats")
summary=$(sed -n 's/^\[ ringprof record: \([0-9]*\) samples,.*/\1/p' "$T/a.err")
check_eq "$summary" "$total" "the summary line counts the samples in the file ($total)"
"$RP" report -i "$T/a.data" --sort comm --percent-limit 5 >"$T/a.report" 2>"$T/a.report.err" ||
	fail "report: $(cat "$T/a.report.err")"
check_grep '^# samples: [0-9]+' "$T/a.report" "the report reads the recording"
check_grep '^ +[0-9.]+% rp-workload$' "$T/a.report" "the load on CPU 0 is in the report"
wait_load

# ---- record -a -C 0,1, CPU 0 (the first one opened) refuses with ENODEV --------------------
: >"$LOG"
load 2
with_shim 0 ENODEV "$RP" record -a -C 0,1 -e cpu-clock -F 499 -d 1 -o "$T/c.data" >"$T/c.out" 2>"$T/c.err"
check_eq "$?" 0 "record -a -C 0,1 succeeds when CPU 0 cannot be opened"
check_grep '^ringprof record: note: CPU 0: cannot open cpu-clock: No such device; recording the other CPUs only \(1 of 2\)$' \
	"$T/c.err" "the note names CPU 0 and ENODEV"
"$RP" report -i "$T/c.data" --stats >"$T/c.stats" 2>&1 || fail "--stats of the -C recording"
check_grep '^  target +system-wide, 1 CPU recorded$' "$T/c.stats" "1 CPU recorded"
check_range "$(samples_on 1 "$T/c.stats")" 100 100000 "CPU 1 has samples"
check_eq "$(samples_on 0 "$T/c.stats")" 0 "CPU 0 has none"
wait_load

# ---- every CPU refuses: the recording fails with the first CPU's explanation --------------
with_shim "0-4095" EBUSY "$RP" record -a -e cpu-clock -d 1 -o "$T/none.data" >"$T/none.out" 2>&1
check_eq "$?" 1 "record -a fails when no CPU can be opened"
check_grep '^ringprof record: perf_event_open failed on CPU 0: Device or resource busy$' "$T/none.out" \
	"and says why, for the first CPU"
check_no_grep 'note: CPU' "$T/none.out" "no note about recording the other CPUs"
[ ! -e "$T/none.data" ] || fail "a recording was left although nothing was recorded"
ok "no file is left"
with_shim "0-4095" EACCES "$RP" record -a -e cpu-clock -d 1 -o "$T/none.data" >"$T/acc.out" 2>&1
check_eq "$?" 1 "record -a fails when every CPU is denied"
check_grep 'permission denied for system-wide recording: kernel.perf_event_paranoid is [0-9-]+ and this process lacks CAP_PERFMON' \
	"$T/acc.out" "the refusal still names the sysctl and the capability"

# ---- the open-file limit on one CPU is not that CPU's problem: no partial recording --------
with_shim 1 EMFILE "$RP" record -a -e cpu-clock -d 1 -o "$T/mf.data" >"$T/mf.out" 2>&1
check_eq "$?" 1 "EMFILE on CPU 1 ends the recording"
check_grep 'too many open files' "$T/mf.out" "with the open-file explanation"
check_no_grep 'note: CPU' "$T/mf.out" "rather than recording the other CPUs"

# ---- ringprofd does the same (it uses the same recorder) ---------------------------------
: >"$LOG"
start_listener
export LD_PRELOAD="$SHIM" RP_FAIL_CPUS=1 RP_FAIL_ERRNO=EBUSY RP_FAIL_LOG="$LOG"
start_daemon $FAST -D "$D"
unset LD_PRELOAD RP_FAIL_CPUS RP_FAIL_ERRNO RP_FAIL_LOG
load 3
wait_until 20 "ringprofd records samples" samples_at_least 150
stop_daemon
check_eq "$DRC" 0 "ringprofd exits 0 on SIGTERM"
check_grep '^cpu 1 errno 16$' "$LOG" "the shim refused CPU 1 to ringprofd"
check_grep "note: CPU 1: cannot open cpu-clock: Device or resource busy; recording the other CPUs only \($((n_online - 1)) of $n_online\)" \
	"$DLOG" "ringprofd logs the note"
check_grep "^ringprofd: recording $((n_online - 1)) CPUs? at " "$DLOG" "its start-up line counts the recorded CPUs"
f=$(closed_files | head -1)
[ -n "$f" ] || fail "ringprofd left no closed file: $(ls "$D")"
stats "$D/$f" "$T/d.stats"
check_grep "^  target +system-wide, $((n_online - 1)) CPUs? recorded$" "$T/d.stats" "the daemon's file counts the recorded CPUs"
check_range "$(samples_on 0 "$T/d.stats")" 50 100000 "the daemon recorded CPU 0"
check_eq "$(samples_on 1 "$T/d.stats")" 0 "and nothing from CPU 1"
wait_load
exit 0
