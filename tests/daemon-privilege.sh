#!/bin/bash
# daemon-privilege.sh — a privilege audit beyond daemon-unit.sh:
#  1. `systemd-analyze security` on the generated unit: every hardening check it passes is
#     listed here and must stay passed; the ones it fails are exactly the documented
#     exceptions (each with its reason below), so that a regression shows up by name.
#  2. Each capability of the bounding set is explained in the unit, and the daemon really
#     works as the unit runs it: a non-root user whose only capabilities are that set, as
#     ambient capabilities, with no new privileges (setpriv), inside a mount namespace where
#     /home is hidden as ProtectHome=yes hides it: system-wide samples with callchains,
#     kernel symbols, and the build-id of a binary in a 0700 directory under /home that
#     another user runs (CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH and /proc/PID/root at work).
#     And each is needed: the recorder without CAP_PERFMON is refused -a, without
#     CAP_DAC_READ_SEARCH it loses that build-id. With the same credentials, no route to
#     kernel tunables or to root's files and memory opens (tests/sandbox-probe), here on the
#     host's writable /proc/sys: the user, not a read-only mount, is what closes them.
#  3. Files: the daemon's directory and files give nothing to other users whatever the umask
#     (0750 and 0640, owned by the daemon's user and group), `ringprof record` writes 0600
#     even over a world-readable file and under umask 000, and an ordinary user can neither
#     list the daemon's directory nor read a recording.
# (That `ringprof record -a` is refused to an ordinary user, naming perf_event_paranoid and
# CAP_PERFMON, is tests/record-unprivileged.sh.)
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"

UNIT="$top_builddir/systemd/ringprofd.service"
[ -f "$UNIT" ] || fail "$UNIT was not generated"
chmod 711 "$T" # other users may pass through, not list; what they can read is decided below

# ---- 1. systemd-analyze security ---------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
	sed "s|^ExecStart=.*|ExecStart=$top_builddir/ringprofd|" "$UNIT" >"$T/ringprofd.service"
	systemd-analyze security --offline=true --no-pager "$T/ringprofd.service" >"$T/security" 2>&1 ||
		{ cat "$T/security" >&2; fail "systemd-analyze security failed"; }
	# passed SETTING...: each must be a ✓ line.
	passed() {
		local s
		for s in "$@"; do
			grep -qF "✓ $s " "$T/security" || { grep -F "$s " "$T/security" >&2; fail "systemd-analyze security: $s is not passed"; }
		done
		ok "passed: $*"
	}
	passed NoNewPrivileges= User=/DynamicUser= SupplementaryGroups= RemoveIPC= "ProtectSystem=" PrivateNetwork= PrivateTmp= PrivateDevices= \
		PrivateMounts= IPAddressDeny= ProtectKernelModules= ProtectControlGroups= ProtectClock= ProtectHostname= \
		RestrictSUIDSGID= RestrictRealtime= LockPersonality= MemoryDenyWriteExecute= KeyringMode= \
		SystemCallArchitectures= NotifyAccess= Delegate=
	check_grep '^✓ ProtectSystem= +Service has strict read-only access to the OS file hierarchy' "$T/security" \
		"ProtectSystem=strict: the OS is read-only"
	passed "RestrictAddressFamilies=~AF_(INET|INET6)" RestrictAddressFamilies=~AF_PACKET \
		RestrictAddressFamilies=~AF_NETLINK "RestrictAddressFamilies=~…"
	passed CapabilityBoundingSet=~CAP_SYS_ADMIN CapabilityBoundingSet=~CAP_BPF "CapabilityBoundingSet=~CAP_SET(UID|GID|PCAP)" \
		"CapabilityBoundingSet=~CAP_(CHOWN|FSETID|SETFCAP)" CapabilityBoundingSet=~CAP_NET_ADMIN \
		"CapabilityBoundingSet=~CAP_NET_(BIND_SERVICE|BROADCAST|RAW)" CapabilityBoundingSet=~CAP_SYS_MODULE \
		CapabilityBoundingSet=~CAP_SYS_RAWIO "CapabilityBoundingSet=~CAP_SYS_(NICE|RESOURCE)" \
		CapabilityBoundingSet=~CAP_KILL CapabilityBoundingSet=~CAP_SYS_TIME CapabilityBoundingSet=~CAP_SYS_BOOT \
		CapabilityBoundingSet=~CAP_SYS_CHROOT CapabilityBoundingSet=~CAP_MKNOD CapabilityBoundingSet=~CAP_LINUX_IMMUTABLE \
		"CapabilityBoundingSet=~CAP_AUDIT_*" "CapabilityBoundingSet=~CAP_MAC_*"
	passed SystemCallFilter=~@privileged SystemCallFilter=~@mount SystemCallFilter=~@module SystemCallFilter=~@raw-io \
		SystemCallFilter=~@reboot SystemCallFilter=~@swap SystemCallFilter=~@clock SystemCallFilter=~@obsolete \
		SystemCallFilter=~@resources SystemCallFilter=~@cpu-emulation
	passed RestrictNamespaces=~user RestrictNamespaces=~mnt RestrictNamespaces=~net RestrictNamespaces=~pid
	# The failed checks, each for a reason:
	#   SystemCallFilter=~@debug          perf_event_open(2) is in @debug
	#   CapabilityBoundingSet=~CAP_SYS_PTRACE   /proc/PID/maps and /proc/PID/root of other users
	#   CapabilityBoundingSet=~CAP_SYSLOG       real addresses in /proc/kallsyms
	#   CapabilityBoundingSet=~CAP_IPC_LOCK     rings beyond kernel.perf_event_mlock_kb
	#   CapabilityBoundingSet=~CAP_(DAC_*|FOWNER|IPC_OWNER)   CAP_DAC_READ_SEARCH: build-ids of
	#                                     binaries the daemon cannot read (no DAC_OVERRIDE, FOWNER)
	#   ProtectKernelTunables=            would make /proc/kallsyms inaccessible
	#   ProtectKernelLogs=                would drop CAP_SYSLOG
	#   ProtectProc= ProcSubset=          every process's /proc entry must be readable
	#   PrivateUsers=                     capabilities must hold in the initial user namespace
	#   AmbientCapabilities=              the user ringprof gets the five that way (not root)
	#   RootDirectory=/RootImage=         the host's binaries are what it records
	#   RestrictAddressFamilies=~AF_UNIX  sd_notify
	#   DeviceAllow=                      char-rtc:r, which ProtectClock= itself adds
	#   UMask=                            recordings are group-readable (group ringprof)
	expected="AmbientCapabilities=
CapabilityBoundingSet=~CAP_(DAC_*|FOWNER|IPC_OWNER)
CapabilityBoundingSet=~CAP_IPC_LOCK
CapabilityBoundingSet=~CAP_SYSLOG
CapabilityBoundingSet=~CAP_SYS_PTRACE
DeviceAllow=
PrivateUsers=
ProcSubset=
ProtectKernelLogs=
ProtectKernelTunables=
ProtectProc=
RestrictAddressFamilies=~AF_UNIX
RootDirectory=/RootImage=
SystemCallFilter=~@debug
UMask="
	failed=$(sed -n 's/^✗ \([^ ]*\) .*/\1/p' "$T/security" | LC_ALL=C sort)
	[ "$failed" = "$(LC_ALL=C sort <<<"$expected")" ] ||
		fail "systemd-analyze security: the failed checks changed; new: $(comm -13 <(LC_ALL=C sort <<<"$expected") <(echo "$failed") | tr '\n' ' ') gone: $(comm -23 <(LC_ALL=C sort <<<"$expected") <(echo "$failed") | tr '\n' ' ')"
	ok "the failed checks are exactly the documented exceptions ($(wc -l <<<"$failed"))"
	check_no_grep '^✗ ProtectHome=' "$T/security" "ProtectHome=yes: home directories are not even readable"
else
	echo "# systemd-analyze is not installed: the unit's settings are checked from its text only"
fi
check_grep '^NoNewPrivileges=yes$' "$UNIT" "NoNewPrivileges=yes"
check_eq "$(sed -n 's/^AmbientCapabilities=//p' "$UNIT")" "$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")" \
	"the ambient capabilities are the bounding set (a non-root user has no others)"
check_grep '^ProtectSystem=strict$' "$UNIT" "ProtectSystem=strict"
check_grep '^ProtectHome=yes$' "$UNIT" "ProtectHome=yes"
check_grep '^PrivateNetwork=yes$' "$UNIT" "PrivateNetwork=yes"
check_grep '^RestrictAddressFamilies=AF_UNIX$' "$UNIT" "RestrictAddressFamilies=AF_UNIX only"
check_grep '^StateDirectoryMode=0750$' "$UNIT" "StateDirectoryMode=0750: nothing for other users"
check_grep '^UMask=0027$' "$UNIT" "UMask=0027: nothing for other users"
check_grep '^User=ringprof$' "$UNIT" "the daemon runs as the system user ringprof, not root (User=ringprof)"
check_no_grep '^SupplementaryGroups=' "$UNIT" "with no supplementary groups"
check_grep '^Group=ringprof$' "$UNIT" "the files belong to the ringprof group (Group=ringprof)"
check_grep '^u ringprof -:ringprof ' "$top_srcdir/systemd/ringprof.sysusers" "sysusers.d makes the user ringprof, primary group ringprof"
check_grep '^SystemCallFilter=~ptrace process_vm_readv process_vm_writev pidfd_getfd$' "$UNIT" \
	"the system call filter refuses what CAP_SYS_PTRACE would open beyond /proc"

# ---- 2. every capability is explained, and the set suffices -------------------------------
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
[ -n "$caps" ] || fail "no CapabilityBoundingSet= in the unit"
for c in $caps; do
	check_grep "^# $c: .{10,}" "$UNIT" "$c is explained in the unit"
done
bset=-all
capl="" # the five as setpriv's list: +perfmon,...
mask=0
for c in $caps; do
	name=$(tr 'A-Z' 'a-z' <<<"${c#CAP_}")
	bset="$bset,+$name"
	capl="$capl${capl:+,}+$name"
	bit=$(setpriv --list-caps | grep -nx "$name" | cut -d: -f1)
	[ -n "$bit" ] || fail "setpriv does not know $c"
	mask=$((mask | (1 << (bit - 1))))
done

require_perf_events
# A binary in a 0700 directory under /home, run by another user: its build-id can only be
# read through /proc/PID/root, past the directory's mode, with the sandbox hiding /home.
[ -d /home ] || skip "no /home to hide"
H=$(mktemp -d /home/ringprof-test.XXXXXX)
trap 'for p in $BG_PIDS; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$H"; cleanup' EXIT
cp "$WL" "$top_builddir/tests/workload/librp-worklib.so" "$H/"
chown -R nobody:nogroup "$H"
chmod 700 "$H"
setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$H/rp-workload" -q -d 30 >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
WLPID=$!
sleep 0.3
kill -0 "$WLPID" 2>/dev/null || fail "the workload did not start as nobody from $H"
wl_bid=$(build_id_of "$WL")

# The unit's user: a uid and gid no account or process has here (systemd-sysusers makes
# ringprof on a real system; tests/daemon-systemd.sh runs the unit itself). The binaries are
# copied where that user may run them: the build tree may lie under a directory it cannot
# enter. Its state directory is its own, as StateDirectory= makes it.
RPU=""
for u in $(seq 64100 64199); do
	getent passwd "$u" >/dev/null || getent group "$u" >/dev/null || pgrep -U "$u" >/dev/null || { RPU=$u; break; }
done
[ -n "$RPU" ] || fail "no free uid in 64100-64199 for the daemon's user"
B="$T/bin"
mkdir -p "$B"
cp "$top_builddir"/ringprofd "$top_builddir"/ringprof "$top_builddir"/ringprof-record \
	"$top_builddir"/ringprof-report "$top_builddir"/ringprof-unwind "$top_builddir"/tests/sandbox-probe "$B/"
chmod 755 "$B"
mkdir -p "$D"
chown "$RPU:$RPU" "$D"
chmod 750 "$D"
# as_unit CMD...: as the unit runs its commands: that user and group, no supplementary
# groups, the five capabilities ambient (so effective) and bounding, no new privileges.
as_unit() {
	setpriv --reuid="$RPU" --regid="$RPU" --clear-groups --inh-caps="-all,$capl" --ambient-caps="-all,$capl" \
		--bounding-set="$bset" --no-new-privs -- "$@"
}
# ringprofd so, with the unit's umask, /home hidden in its own mount namespace.
cat >"$T/sandboxed-ringprofd" <<EOF
#!/bin/sh
umask 0027
exec unshare -m --propagation private sh -c 'mount -t tmpfs -o mode=0755,size=1m ringprof-test /home &&
	exec setpriv --reuid=$RPU --regid=$RPU --clear-groups --inh-caps=-all,$capl --ambient-caps=-all,$capl \\
		--bounding-set=$bset --no-new-privs -- "\$0" "\$@"' "$B/ringprofd" "\$@"
EOF
chmod 755 "$T/sandboxed-ringprofd"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
start_listener
chmod 777 "$NOTIFY_SOCKET" # the daemon's user sends to it
RPD="$T/sandboxed-ringprofd" start_daemon -c /dev/null -D "$D" $FAST
check_eq "$(awk '$1 == "Uid:" { print $2 " " $3 " " $4 " " $5 }' "/proc/$DPID/status")" "$RPU $RPU $RPU $RPU" \
	"ringprofd runs as the unit's user, not root (uid $RPU)"
eff=$(awk '$1 == "CapEff:" { print $2 }' "/proc/$DPID/status")
check_eq "$((16#$eff))" "$mask" "ringprofd runs with the unit's capabilities only (CapEff $eff)"
amb=$(awk '$1 == "CapAmb:" { print $2 }' "/proc/$DPID/status")
check_eq "$((16#$amb))" "$mask" "as ambient capabilities (CapAmb $amb)"
check_eq "$(awk '$1 == "NoNewPrivs:" { print $2 }' "/proc/$DPID/status")" 1 "and with no new privileges"
# Its helpers (unwind tables, build-ids) start with no capabilities: the ambient set is cleared
# before exec, and as that user nothing gives them any.
helpers=$(pgrep -P "$DPID" -x ringprof-unwind)
[ -n "$helpers" ] || fail "the sandboxed daemon has no ringprof-unwind helper"
for h in $helpers; do
	check_eq "$(awk '$1 == "Uid:" { print $2 } $1 == "CapEff:" || $1 == "CapPrm:" || $1 == "CapAmb:" || $1 == "Seccomp:" { print $2 }' "/proc/$h/status" | tr '\n' ' ')" \
		"$RPU 0000000000000000 0000000000000000 0000000000000000 2 " "helper $h: the daemon's user, no capabilities, its own system call filter"
done
[ -z "$(ls -A "/proc/$DPID/root/home" 2>/dev/null)" ] || fail "/home is not hidden from the sandboxed daemon"
ok "/home is empty in the daemon's mount namespace"
wait_until 20 "the sandboxed daemon records samples" samples_at_least 200
stop_daemon
check_eq "$DRC" 0 "the sandboxed daemon stops cleanly"
check_no_grep 'error|warning|cannot' "$DLOG" "it had nothing to complain about"
f=$(closed_files | head -1)
[ -n "$f" ] || fail "no closed file in $D: $(ls "$D")"
stats "$D/$f" "$T/sb.stats"
check_grep '^  target +system-wide' "$T/sb.stats" "it recorded system-wide (CAP_PERFMON)"
check_grep '^  event .*callchains, kernel and user' "$T/sb.stats" "with kernel samples and callchains"
check_grep '^  kernel syms +[1-9][0-9]*( \(the ones samples hit, and their neighbours\))?$' "$T/sb.stats" \
	"and kernel symbols (CAP_SYSLOG)"
check_no_grep 'kallsyms addresses were hidden' "$T/sb.stats" "kallsyms addresses were not hidden from it"
"$RP" report -i "$D/$f" --dump >"$T/sb.dump" 2>/dev/null || fail "--dump of the sandboxed daemon's file"
# MMAP2 names the file by inode; its build-id comes in a BUILDID record of that inode.
wl_dev=$(stat -c %d "$H/rp-workload") wl_ino=$(stat -c %i "$H/rp-workload")
wl_bidrec="^BUILDID .* maj=$((wl_dev >> 8)) min=$((wl_dev & 255)) ino=$wl_ino gen=[0-9]+ build_id=$wl_bid$"
check_grep "^MMAP2 [0-9.]+ cpu=- pid=$WLPID .* ino=$wl_ino path=$H/rp-workload$" "$T/sb.dump" \
	"another user's binary in a 0700 directory under the hidden /home is mapped"
check_grep "$wl_bidrec" "$T/sb.dump" \
	"the build-id of another user's binary in a 0700 directory under the hidden /home"
"$RP" report -i "$D/$f" --pid "$WLPID" --sort sym --percent-limit 5 >"$T/sb.report" 2>/dev/null
check_grep '^ +[0-9.]+% +[0-9.]+% \[\.\] hot_leaf$' "$T/sb.report" "the report of that process names its functions (hot_leaf)"
check_grep '^ +[0-9.]+% +[0-9.]+% \[\.\] worker_spin$' "$T/sb.report" "and its thread's (worker_spin)"

# Each of these capabilities is needed, not only enough: the same recorder (ringprof record -a)
# as the unit's user with its set minus one of them loses what it is there for.
# without CAP: record -a so into $T/wo/without-CAP.data, then $T/without-CAP.{err,dump}
mkdir -p "$T/wo"
chown "$RPU:$RPU" "$T/wo"
without() {
	local minus
	minus=$(tr 'A-Z' 'a-z' <<<"${1#CAP_}")
	setpriv --reuid="$RPU" --regid="$RPU" --clear-groups --inh-caps="-all,$capl,-$minus" \
		--ambient-caps="-all,$capl,-$minus" --bounding-set="$bset,-$minus" --no-new-privs -- \
		"$B/ringprof" record -a -e cpu-clock -d 0.3 -o "$T/wo/without-$1.data" >/dev/null 2>"$T/without-$1.err"
	"$RP" report -i "$T/wo/without-$1.data" --dump >"$T/without-$1.dump" 2>/dev/null
}
without CAP_PERFMON
check_grep 'permission denied for system-wide recording: kernel.perf_event_paranoid is [0-9]+ and this process lacks CAP_PERFMON' \
	"$T/without-CAP_PERFMON.err" "without CAP_PERFMON: no system-wide recording"
# Another user's binary in a 0700 directory: its mappings (/proc/PID/maps) are open to
# CAP_PERFMON on 6.x kernels; its file is opened through /proc/PID/root (CAP_SYS_PTRACE) or, on
# the host's mount namespace, by its path past the directory's mode (CAP_DAC_READ_SEARCH), the
# inode checked either way. Without CAP_SYS_PTRACE the path still serves here (a file only a
# container's mount namespace shows would be lost); without CAP_DAC_READ_SEARCH neither does.
for c in CAP_SYS_PTRACE CAP_DAC_READ_SEARCH; do
	without $c
	check_grep '^SAMPLE ' "$T/without-$c.dump" "without $c: samples are recorded"
	check_grep "^MMAP2 [0-9.]+ cpu=- pid=$WLPID .*path=$H/rp-workload$" "$T/without-$c.dump" \
		"without $c: another user's mappings are recorded"
done
check_grep "$wl_bidrec" "$T/without-CAP_SYS_PTRACE.dump" \
	"without CAP_SYS_PTRACE: the build-id is read by path (host mount namespace, inode checked)"
check_no_grep "$wl_bidrec" "$T/without-CAP_DAC_READ_SEARCH.dump" \
	"without CAP_DAC_READ_SEARCH: but not the build-id of that user's binary"
if [ "$(cat /proc/sys/kernel/kptr_restrict)" = 0 ]; then
	echo "# kernel.kptr_restrict is 0 here: /proc/kallsyms shows addresses without CAP_SYSLOG too"
fi
# (CAP_IPC_LOCK matters only for rings beyond kernel.perf_event_mlock_kb and LimitMEMLOCK=.)

# No write path to kernel tunables, root's files or root's memory with the unit's credentials,
# though CAP_SYS_PTRACE opens /proc/PID/root of a root process (the route out of any mount
# namespace) and this host's /proc/sys is writable: the kernel lets only uid 0 write /proc/sys
# whatever the capabilities, and root's files and /proc/PID/mem (0600) need CAP_DAC_OVERRIDE.
# The target is a root process of the test's own, the directory one of root's it made.
sleep 60 &
ROOTPID=$!
BG_PIDS="$BG_PIDS $ROOTPID"
mkdir -m 755 "$T/rootdir"
as_unit "$B/sandbox-probe" "$ROOTPID" "$T/rootdir" >"$T/probe" 2>&1 || fail "sandbox-probe: $(cat "$T/probe")"
sed 's/^/# /' "$T/probe"
probe_is() { # NAME RESULT-REGEX WHAT
	check_grep "^sandbox-probe: $1: $2\$" "$T/probe" "$3"
}
probe_is "read /proc/PID/maps of the target" allowed "the unit's user reads a root process's maps (CAP_SYS_PTRACE)"
probe_is "enter /proc/PID/root of the target" allowed "and enters its /proc/PID/root"
[ -w /proc/sys/kernel/core_pattern ] && ok "/proc/sys is writable to root on this host (the routes below are not closed by a mount)"
probe_is "write /proc/sys/kernel/core_pattern" "denied \(EACCES: .*\)" "kernel.core_pattern cannot be opened for writing (EACCES: the uid)"
probe_is "write /proc/PID/root/proc/sys/kernel/core_pattern" "denied \(EACCES: .*\)" "nor through the root process's /proc/PID/root"
probe_is "write /proc/PID/root/sys/kernel/profiling" "denied \(EACCES: .*\)" "nor a /sys tunable through it"
probe_is "create a file in root's directory through /proc/PID/root" "denied \(EACCES: .*\)" "no file can be created in a directory of root's through it"
probe_is "open /proc/PID/root/etc/passwd by handle for writing" "denied \(E(ACCES|PERM): .*\)" "nor root's files opened for writing by handle (CAP_DAC_READ_SEARCH)"
probe_is "open /proc/PID/mem for writing" "denied \(EACCES: .*\)" "the root process's memory cannot be opened for writing"
# ptrace attach, process_vm_writev and pidfd_getfd pass the kernel's check with CAP_SYS_PTRACE:
# the unit's system call filter refuses them (tests/daemon-systemd.sh, under systemd).
sed -n 's/^sandbox-probe: \(ptrace.*\|process_vm.*\|pidfd_getfd.*\)/# without the unit'"'"'s system call filter: \1/p' "$T/probe"
# The same credentials but uid 0, as the unit ran the daemon before: the probe finds the routes.
setpriv --clear-groups --inh-caps="-all,$capl" --ambient-caps="-all,$capl" --bounding-set="$bset" --no-new-privs -- \
	"$B/sandbox-probe" "$ROOTPID" "$T/rootdir" >"$T/probe-root" 2>&1
probe_root_is() {
	check_grep "^sandbox-probe: $1: allowed\$" "$T/probe-root" "$2"
}
probe_root_is "write /proc/PID/root/proc/sys/kernel/core_pattern" "(uid 0 with the same five capabilities: kernel.core_pattern through /proc/PID/root opens for writing)"
probe_root_is "create a file in root's directory through /proc/PID/root" "(uid 0: a file in a directory of root's can be created)"
probe_root_is "open /proc/PID/mem for writing" "(uid 0: the root process's memory opens for writing)"
kill "$ROOTPID" 2>/dev/null

# ---- 3. who can read what -----------------------------------------------------------------
check_eq "$(stat -c '%a %u %g' "$D")" "750 $RPU $RPU" "the daemon's directory: 0750, the daemon's user and group"
check_eq "$(stat -c '%a %u %g' "$D/$f")" "640 $RPU $RPU" "its recordings: 0640, the daemon's user and group"
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env -- "$@"
}
as_nobody ls "$D" >"$T/ls.out" 2>&1
check_eq "$?" 2 "nobody cannot list the daemon's directory"
check_grep 'Permission denied' "$T/ls.out" "ls says Permission denied"
as_nobody cat "$D/$f" >/dev/null 2>"$T/cat.out"
check_eq "$?" 1 "nobody cannot read a recording of the daemon"
check_grep 'Permission denied' "$T/cat.out" "cat says Permission denied"

# Whatever the umask: the daemon's own modes leave other users out.
rm -rf "$T/rec0"
(umask 000 && exec "$RPD" -c /dev/null -D "$T/rec0" $FAST >"$T/rec0.log" 2>&1) &
d0=$!
BG_PIDS="$BG_PIDS $d0"
has_partial() {
	ls "$T/rec0" 2>/dev/null | grep -q '\.partial$'
}
wait_until 20 "ringprofd under umask 000 opens its file" has_partial
kill -TERM "$d0"
wait "$d0"
check_eq "$(stat -c %a "$T/rec0")" 750 "under umask 000 the directory is still 0750"
check_eq "$(stat -c %a "$T/rec0"/*.data | sort -u)" 640 "and its recordings 0640"

# ringprof record: 0600, even over a world-readable file of the same name and under umask 000.
U="$T/u"
mkdir -p "$U"
chmod 755 "$U"
cp "$top_builddir"/ringprof "$top_builddir"/ringprof-report "$U/"
echo junk >"$U/r.data"
chmod 644 "$U/r.data"
(umask 000 && exec "$RP" record -q -a -e cpu-clock -d 0.3 -o "$U/r.data") || fail "record -a"
check_eq "$(stat -c '%a %U' "$U/r.data")" "600 root" "ringprof record writes 0600 under umask 000"
check_eq "$(cat "$U/r.data.old")" junk "the world-readable file of that name was moved aside, not reused"
as_nobody "$U/ringprof" report -i "$U/r.data" --stats >"$T/nr.out" 2>&1
check_eq "$?" 1 "nobody cannot report root's recording"
check_grep "^ringprof report: $U/r.data: cannot open: Permission denied$" "$T/nr.out" "and is told why"
exit 0
