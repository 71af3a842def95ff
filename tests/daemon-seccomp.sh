#!/bin/bash
# daemon-seccomp.sh — a seccomp filter that fails perf_event_open with EPERM (a container
# runtime's, or SystemCallFilter= without @debug) is named as such by ringprof record and by
# ringprofd, not reported as a missing CAP_PERFMON; without capabilities the old advice stays.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events
SD="$top_builddir/tests/seccomp-deny"

"$SD" true 2>"$T/probe.err" || { [ $? = 77 ] && skip "$(cat "$T/probe.err")"; fail "seccomp-deny true: $(cat "$T/probe.err")"; }

# Root (CAP_PERFMON) under the filter: record -a.
"$SD" "$RP" record -a -e cpu-clock -d 1 -o "$T/a.data" 2>"$T/rec.err" && fail "record -a succeeded under a filter that denies perf_event_open"
check_grep '^ringprof record: .*permission denied for system-wide recording by a seccomp filter \(Seccomp: 2 in /proc/self/status\), not for lack of privileges \(this process has CAP_PERFMON\)' \
	"$T/rec.err" "record -a under the filter names the seccomp filter"
check_grep 'SystemCallFilter=@debug' "$T/rec.err" "and says how to allow the call"
check_no_grep 'lacks CAP_PERFMON' "$T/rec.err" "and does not claim that CAP_PERFMON is missing"

# A command under the filter.
"$SD" "$RP" record -e cpu-clock -o "$T/c.data" -- true 2>"$T/cmd.err" && fail "record -- true succeeded under the filter"
check_grep 'permission denied for recording that process by a seccomp filter' "$T/cmd.err" "record -- CMD under the filter names it too"

# ringprofd: exit 4 (NOPERMISSION), the log names the filter.
"$SD" "$RPD" -c /dev/null -D "$D" $FAST 2>"$T/d.err"
check_eq "$?" 4 "ringprofd under the filter exits 4"
check_grep '^ringprofd: error: cannot record: permission denied for system-wide recording by a seccomp filter' "$T/d.err" "ringprofd names the filter"

# Without privileges, the filter is not what stops system-wide recording: the advice about
# CAP_PERFMON and the sysctl stays (paranoid >= 1 here; at 0 this part says nothing new).
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$paranoid" -ge 1 ] && command -v setpriv >/dev/null; then
	# Copies nobody can run: the build tree may lie under a directory only root may enter.
	U="$T/u"
	mkdir -p "$U"
	cp "$SD" "$top_builddir"/ringprof "$top_builddir"/ringprof-record "$top_builddir"/ringprof-unwind "$U/"
	chmod 755 "$T" "$U"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$U/seccomp-deny" "$U/ringprof" record -a -e cpu-clock -d 1 -o "$T/u.data" 2>"$T/u.err" &&
		fail "an unprivileged record -a succeeded with paranoid $paranoid"
	check_grep 'lacks CAP_PERFMON' "$T/u.err" "unprivileged under the filter: the privileges are what is missing, and it says so"
	check_no_grep 'seccomp' "$T/u.err" "and it does not blame the filter"
fi

# The same commands without the filter work (the filter, not the machine, made them fail).
"$RP" record -a -e cpu-clock -d 1 -o "$T/ok.data" 2>"$T/ok.err" || fail "record -a without the filter: $(cat "$T/ok.err")"
ok "record -a without the filter records"
echo "$n_checks checks passed"
