#!/bin/bash
# daemon-unit.sh — the systemd unit: generated with the install paths, accepted by
# `systemd-analyze verify`, and hardened to an exposure of 2.5 or lower by
# `systemd-analyze security --offline=true`.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"

UNIT="$top_builddir/systemd/ringprofd.service"
[ -f "$UNIT" ] || fail "$UNIT was not generated"
check_grep '^ExecStart=/.*/sbin/ringprofd$' "$UNIT" "ExecStart= points into the installed sbin"
check_no_grep '@[a-z]+@' "$UNIT" "every @path@ is substituted"
check_grep '^ExecReload=/.*/sbin/ringprofd --reload \$MAINPID$' "$UNIT" "ExecReload= waits for the daemon's answer (ringprofd --reload)"
check_no_grep '^Exec.*/bin/kill' "$UNIT" "no /bin/kill (procps is absent from minimal images)"
check_grep '^Type=notify$' "$UNIT" "Type=notify"
check_grep '^WatchdogSec=[1-9]' "$UNIT" "WatchdogSec="
check_grep '^StateDirectory=ringprof$' "$UNIT" "StateDirectory=ringprof"
check_grep '^StateDirectoryMode=0750$' "$UNIT" "StateDirectoryMode=0750"
check_grep '^SystemCallFilter=.*@debug' "$UNIT" "perf_event_open (@debug) is allowed"
check_no_grep '^ProtectKernelTunables=yes' "$UNIT" "ProtectKernelTunables would hide /proc/kallsyms"
check_grep '^User=ringprof$' "$UNIT" "the daemon runs as the system user ringprof, not root"
check_grep '^Group=ringprof$' "$UNIT" "recordings belong to the ringprof group"
check_grep '^u ringprof -:ringprof ' "$top_srcdir/systemd/ringprof.sysusers" "sysusers.d makes the user ringprof"
check_grep '^g ringprof -$' "$top_srcdir/systemd/ringprof.sysusers" "and the group ringprof"
check_grep '^ReadOnlyPaths=/proc/sys /sys$' "$UNIT" "kernel tunables are read-only mounts for the daemon as well"
check_grep '^NoExecPaths=/var/lib/ringprof /var/cache/ringprof$' "$UNIT" "what the daemon writes cannot be executed"
check_no_grep '^ProtectKernelLogs=yes' "$UNIT" "ProtectKernelLogs would drop CAP_SYSLOG"
check_grep '^CapabilityBoundingSet=.*CAP_PERFMON' "$UNIT" "CAP_PERFMON in the bounding set"
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT" | tr " " "\n" | LC_ALL=C sort | tr '\n' ' ')
check_eq "$caps" "CAP_CHECKPOINT_RESTORE CAP_DAC_READ_SEARCH CAP_IPC_LOCK CAP_PERFMON CAP_SYSLOG CAP_SYS_PTRACE " "only the capabilities profiling needs"
amb=$(sed -n 's/^AmbientCapabilities=//p' "$UNIT" | tr " " "\n" | LC_ALL=C sort | tr '\n' ' ')
check_eq "$amb" "$caps" "the same six as ambient capabilities (User= is not root)"
# What CAP_SYS_PTRACE opens beyond /proc is refused; nothing of ringprof calls it.
check_grep '^SystemCallFilter=~ptrace process_vm_readv process_vm_writev pidfd_getfd$' "$UNIT" \
	"ptrace, process_vm_readv/writev and pidfd_getfd are refused by the system call filter"
denied='ptrace|process_vm_readv|process_vm_writev|pidfd_getfd'
uses=$(grep -rnE "\\b($denied)[[:space:]]*\\(|SYS_($denied)\\b|__NR_($denied)\\b" \
	"$top_srcdir"/lib "$top_srcdir"/daemon "$top_srcdir"/record "$top_srcdir"/helper --include='*.[ch]' || true)
check_eq "$uses" "" "no source of the daemon, recorder or helper calls them"
for b in ringprofd ringprof-unwind; do
	if command -v nm >/dev/null; then
		check_no_grep "^ *U ($denied)(@|$)" <(nm -D "$top_builddir/$b") "$b imports none of them"
	fi
done

command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"

# verify checks that ExecStart= exists and that the man pages in Documentation= open:
# point it at the build tree's binary and man pages.
mkdir -p "$T/unit" "$T/man/man5" "$T/man/man8"
sed -e "s|^ExecStart=.*|ExecStart=$top_builddir/ringprofd|" \
	-e "s|^ExecReload=[^ ]*|ExecReload=$top_builddir/ringprofd|" "$UNIT" >"$T/unit/ringprofd.service"
cp "$top_srcdir/man/ringprofd.8" "$T/man/man8/"
cp "$top_srcdir/man/ringprofd.conf.5" "$T/man/man5/"
man_opt=--man=yes
command -v man >/dev/null || man_opt=--man=no
MANPATH="$T/man" systemd-analyze verify $man_opt "$T/unit/ringprofd.service" >"$T/verify" 2>&1 ||
	fail "systemd-analyze verify: $(cat "$T/verify")"
ok "systemd-analyze verify accepts the unit"
[ ! -s "$T/verify" ] || fail "systemd-analyze verify complains: $(cat "$T/verify")"
ok "systemd-analyze verify says nothing"

systemd-analyze security --offline=true --no-pager "$T/unit/ringprofd.service" >"$T/security" 2>&1 ||
	{ cat "$T/security" >&2; fail "systemd-analyze security failed"; }
score=$(sed -n 's/.*Overall exposure level for ringprofd.service: \([0-9.]*\).*/\1/p' "$T/security")
[ -n "$score" ] || fail "no exposure level in: $(tail -3 "$T/security")"
echo "# systemd-analyze security: exposure $score"
check_range "$(awk -v s="$score" 'BEGIN { printf "%d", s * 10 + 0.5 }')" 0 25 "exposure $score is 2.5 or lower"
exit 0
