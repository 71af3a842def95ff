#!/bin/bash
# daemon-systemd.sh — ringprofd's installed unit under a real systemd PID 1: this machine's own
# OS booted with systemd-nspawn on a throw-away overlay, the tree installed into it with
# `make install`, and systemctl driving the daemon as it does in production: readiness,
# STATUS, reload, rotation by signal, recovery after kill -9, the watchdog, a bad
# configuration (exit 78, no restart loop), the sandbox's user, capabilities and seccomp, no
# write path from it to kernel tunables or root's processes (tests/sandbox-probe run as an
# ExecStartPre= of the unit, so with the daemon's own credentials, filter and mounts), and
# recordings with kernel and user frames, of root's processes and another user's, made from
# inside it.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
. "$top_srcdir/tests/nspawn-lib.sh"

nspawn_require
require_perf_events
[ -x "$top_builddir/tests/sandbox-probe" ] || fail "tests/sandbox-probe was not built"
nspawn_install
mkdir -p "$T/probe-bin"
cp "$top_builddir/tests/sandbox-probe" "$T/probe-bin/"
nspawn_boot --bind-ro="$top_builddir/tests/workload":/run/rp-workload --bind-ro="$T/probe-bin":/run/rp-probe
# What a package's postinst does: the ringprof user and group from sysusers.d. One reader in
# the group, one user outside it.
in_ct systemd-sysusers || fail "systemd-sysusers in the container"
in_ct getent group ringprof >/dev/null || fail "sysusers.d/ringprof.conf made the ringprof group"
RPUID=$(in_ct id -u ringprof) RPGID=$(in_ct id -g ringprof)
check_range "${RPUID:-0}" 1 65533 "sysusers.d/ringprof.conf made the system user ringprof (uid $RPUID)"
check_eq "$RPGID" "$(in_ct getent group ringprof | cut -d: -f3)" "its primary group is ringprof"
in_ct useradd -M -G ringprof rpreader && in_ct useradd -M rpother || fail "useradd in the container"
# Short intervals so that the test sees each behaviour quickly; everything else as shipped.
in_ct mkdir -p /etc/systemd/system/ringprofd.service.d /etc/ringprof/ringprofd.conf.d
in_ct sh -c 'printf "[Service]\nWatchdogSec=4\n" >/etc/systemd/system/ringprofd.service.d/test.conf'
# The probe, in the unit's own sandbox: an ExecStartPre= gets the daemon's user, capabilities,
# system call filter and mounts. Its target is PID 1, root's systemd.
in_ct sh -c 'printf "[Service]\nExecStartPre=/run/rp-probe/sandbox-probe 1\n" >/etc/systemd/system/ringprofd.service.d/probe.conf'
in_ct sh -c 'printf "Frequency=199\nFlushInterval=0.5s\n" >/etc/ringprof/ringprofd.conf.d/test.conf'
in_ct systemctl daemon-reload
prop() { in_ct systemctl show -p "$1" --value ringprofd; }
files() { in_ct sh -c 'ls /var/lib/ringprof' 2>/dev/null | grep '^ringprof-'; } # recordings (not symbols/)

# --- start: readiness comes after the first file is open ---
in_ct systemctl start ringprofd || { in_ct journalctl -u ringprofd --no-pager | tail -20 >&2; fail "systemctl start ringprofd"; }
check_eq "$(prop ActiveState)" active "systemctl start returns with the service active"
files >"$T/files0"
check_grep '\.data\.partial$' "$T/files0" "a recording is open when start returns (readiness after the first file)"
MAIN=$(prop MainPID)
in_ct systemctl status ringprofd --no-pager >"$T/status" 2>&1
check_grep '^ +Status: ".*"' "$T/status" "systemctl status shows the daemon's STATUS="

# --- the sandbox ---
in_ct grep -E '^(Uid|Gid|Groups|CapEff|CapPrm|CapBnd|CapAmb|Seccomp|NoNewPrivs):' "/proc/$MAIN/status" >"$T/caps"
check_grep "^Uid:[[:space:]]+$RPUID[[:space:]]+$RPUID[[:space:]]+$RPUID[[:space:]]+$RPUID\$" "$T/caps" "the daemon runs as the user ringprof, not root (uid $RPUID)"
check_grep "^Gid:[[:space:]]+$RPGID[[:space:]]+$RPGID[[:space:]]+$RPGID[[:space:]]+$RPGID\$" "$T/caps" "and the group ringprof"
check_grep "^Groups:[[:space:]]*($RPGID[[:space:]]*)?\$" "$T/caps" "with no supplementary group but its own"
capeff=$(awk '/^CapEff/ { print $2 }' "$T/caps")
caps=$(capsh --decode="$capeff" 2>/dev/null | sed 's/^.*=//')
[ -n "$caps" ] || caps=$capeff
# CAP_DAC_READ_SEARCH 2, CAP_IPC_LOCK 14, CAP_SYS_PTRACE 19, CAP_SYSLOG 34, CAP_PERFMON 38,
# CAP_CHECKPOINT_RESTORE 40
check_eq "$capeff" "0000014400084004" "effective capabilities are exactly the six of the unit ($caps)"
check_grep '^CapAmb:[[:space:]]+0000014400084004$' "$T/caps" "as ambient capabilities"
check_grep '^CapBnd:[[:space:]]+0000014400084004$' "$T/caps" "and no others in the bounding set"
check_grep '^Seccomp:[[:space:]]+2$' "$T/caps" "a seccomp filter is in force"
check_grep '^NoNewPrivs:[[:space:]]+1$' "$T/caps" "no_new_privs is set"
in_ct sh -c 'for p in $(pgrep -P "$1" -x ringprof-unwind); do grep -E "^(Uid|CapEff|Seccomp):" /proc/$p/status | tr -s "\t" " " | tr "\n" " "; echo; done' sh "$MAIN" >"$T/helpers"
check_range "$(grep -c . "$T/helpers")" 1 4 "the daemon's unwind helpers run"
check_eq "$(grep -v "^Uid: $RPUID $RPUID $RPUID $RPUID CapEff: 0000000000000000 Seccomp: 2 \$" "$T/helpers")" "" \
	"each as the user ringprof with no capabilities and its own filter"

# systemd's own audit of the loaded unit, online under PID 1.
in_ct systemd-analyze security ringprofd.service --no-pager >"$T/security" 2>&1 ||
	{ cat "$T/security" >&2; fail "systemd-analyze security ringprofd.service"; }
score=$(sed -n 's/.*Overall exposure level for ringprofd.service: \([0-9.]*\).*/\1/p' "$T/security")
[ -n "$score" ] || fail "no exposure level in: $(tail -3 "$T/security")"
echo "# systemd-analyze security ringprofd.service under PID 1: exposure $score"
check_range "$(awk -v s="$score" 'BEGIN { printf "%d", s * 10 + 0.5 }')" 0 17 "exposure $score under PID 1 is 1.7 or lower (2.0 as uid 0)"
check_grep '^✓ User=/DynamicUser= ' "$T/security" "systemd-analyze: the service runs under a non-root user"

# No write path to kernel tunables, root's files or root's memory from inside the sandbox.
# nspawn makes the container's /proc/sys read-only itself, so a write there failing proves
# nothing: what counts is why. The kernel checks permission before a read-only mount, so
# EACCES is the uid's doing (only uid 0 may write /proc/sys, and root's 0600 /proc/PID/mem
# and 0755 directories need CAP_DAC_OVERRIDE); EROFS would mean only the mount held it.
in_ct journalctl -u ringprofd --no-pager -o cat | grep '^sandbox-probe: ' | head -20 >"$T/probe"
sed 's/^/# /' "$T/probe"
check_grep "^sandbox-probe: uid=$RPUID euid=$RPUID gid=$RPGID groups=($RPGID)? CapEff=0000014400084004 CapBnd=0000014400084004 CapAmb=0000014400084004 NoNewPrivs=1 Seccomp=2\$" \
	"$T/probe" "the probe ran as an ExecStartPre= with the daemon's user, capabilities and filter"
probe_is() { # FILE NAME RESULT-REGEX WHAT
	check_grep "^sandbox-probe: $2: $3\$" "$1" "$4"
}
denied_by() {
	echo "denied \\($1: .*\\)"
}
probe_is "$T/probe" "read /proc/PID/maps of the target" allowed "the sandbox reads PID 1's maps (CAP_SYS_PTRACE)"
probe_is "$T/probe" "enter /proc/PID/root of the target" allowed "and enters PID 1's root, out of the sandbox's mounts"
probe_is "$T/probe" "read real addresses in /proc/kallsyms" allowed "and reads kernel addresses"
probe_is "$T/probe" "write /proc/sys/kernel/core_pattern" "$(denied_by EACCES)" "kernel.core_pattern cannot be opened for writing (EACCES, not only a read-only mount)"
probe_is "$T/probe" "write /proc/PID/root/proc/sys/kernel/core_pattern" "$(denied_by EACCES)" "nor through /proc/1/root (EACCES)"
probe_is "$T/probe" "write /proc/PID/root/sys/kernel/profiling" "$(denied_by EACCES)" "nor a /sys tunable through /proc/1/root (EACCES)"
probe_is "$T/probe" "create a file in root's directory through /proc/PID/root" "$(denied_by EACCES)" "no file can be created in /proc/1/root/etc"
probe_is "$T/probe" "open /proc/PID/root/etc/passwd by handle for writing" "$(denied_by 'E(PERM|ACCES)')" "nor root's files opened for writing by handle"
probe_is "$T/probe" "open /proc/PID/mem for writing" "$(denied_by EACCES)" "/proc/1/mem cannot be opened for writing (EACCES)"
probe_is "$T/probe" "ptrace attach \\(PTRACE_SEIZE\\) the target" "$(denied_by EPERM)" "PID 1 cannot be ptrace-attached (EPERM)"
probe_is "$T/probe" "process_vm_writev to the target" "$(denied_by EPERM)" "nor written with process_vm_writev (EPERM)"
probe_is "$T/probe" "process_vm_readv from the target" "$(denied_by EPERM)" "nor read with process_vm_readv (EPERM)"
probe_is "$T/probe" "pidfd_getfd from the target" "$(denied_by EPERM)" "nor its descriptors taken with pidfd_getfd (EPERM)"

# The probe can find these routes: the same unit with one thing taken away, as a oneshot
# service running the probe. rp-probe-root is the unit as it was (uid 0, group ringprof, the
# five capabilities, no ptrace filter); rp-probe-nofilter keeps the user but drops the
# ptrace line of the filter, which is what closes those routes.
probe_unit() { # NAME SED-EXPRESSIONS...: the installed unit, edited, run; its probe lines in $T/NAME
	local name=$1
	shift
	in_ct sed -e 's|^ExecStart=.*|ExecStart=/run/rp-probe/sandbox-probe 1|' -e 's|^Type=.*|Type=oneshot|' \
		-e '/^ExecReload=/d' -e '/^WatchdogSec=/d' -e '/^Restart/d' -e '/^\(State\|Cache\)Directory/d' \
		-e '/^\[Install\]/,$d' "$@" /usr/lib/systemd/system/ringprofd.service >"$T/$name.service"
	in_ct sh -c "cat >/etc/systemd/system/$name.service" <"$T/$name.service"
	in_ct systemctl daemon-reload
	in_ct systemctl start "$name" || fail "systemctl start $name"
	in_ct journalctl -u "$name" --no-pager -o cat | grep '^sandbox-probe: ' >"$T/$name"
	sed "s/^/# $name: /" "$T/$name"
}
probe_unit rp-probe-root -e '/^User=/d' -e 's/^AmbientCapabilities=.*/AmbientCapabilities=/' -e '/^SystemCallFilter=~ptrace/d'
check_grep '^sandbox-probe: uid=0 euid=0 ' "$T/rp-probe-root" "(as the unit was: uid 0)"
in_ct systemd-analyze security rp-probe-root.service --no-pager 2>/dev/null |
	sed -n 's/.*Overall exposure level for rp-probe-root.service: \([0-9.]*\).*/# the unit as it was (uid 0): exposure \1/p'
probe_is "$T/rp-probe-root" "write /proc/sys/kernel/core_pattern" "$(denied_by EROFS)" "(uid 0: kernel.core_pattern held by the read-only mount only)"
probe_is "$T/rp-probe-root" "create a file in root's directory through /proc/PID/root" allowed "(uid 0: a file can be created in /proc/1/root/etc)"
probe_is "$T/rp-probe-root" "open /proc/PID/mem for writing" allowed "(uid 0: /proc/1/mem opens for writing)"
probe_is "$T/rp-probe-root" "ptrace attach \\(PTRACE_SEIZE\\) the target" allowed "(uid 0 without the ptrace filter: PID 1 can be attached)"
probe_unit rp-probe-nofilter -e '/^SystemCallFilter=~ptrace/d'
check_grep "^sandbox-probe: uid=$RPUID " "$T/rp-probe-nofilter" "(the user ringprof without the ptrace line of the filter)"
probe_is "$T/rp-probe-nofilter" "write /proc/PID/root/proc/sys/kernel/core_pattern" "$(denied_by EACCES)" "(still no kernel.core_pattern through /proc/1/root: the uid)"
probe_is "$T/rp-probe-nofilter" "open /proc/PID/mem for writing" "$(denied_by EACCES)" "(still no /proc/1/mem for writing: the uid)"
probe_is "$T/rp-probe-nofilter" "ptrace attach \\(PTRACE_SEIZE\\) the target" allowed "(but without that line PID 1 can be attached: the filter is what refuses it)"
probe_is "$T/rp-probe-nofilter" "process_vm_writev to the target" allowed "(and written with process_vm_writev)"
# (pidfd_getfd: nspawn's own filter refuses it in this container whatever the unit says; on
# the host, without any filter, tests/daemon-privilege.sh shows it allowed to these credentials.)
grep -q '^sandbox-probe: pidfd_getfd from the target: allowed$' "$T/rp-probe-nofilter" ||
	echo "# pidfd_getfd is refused by the container's own filter here: $(grep -m1 'pidfd' "$T/rp-probe-nofilter")"
in_ct rm /etc/systemd/system/rp-probe-root.service /etc/systemd/system/rp-probe-nofilter.service
in_ct systemctl daemon-reload

# Kernel tunables are read-only and the state directory is not executable in the service's
# own mount namespace (the container's /proc/sys is read-only already; the unit's is checked
# by its own mounts).
in_ct cat "/proc/$MAIN/mountinfo" >"$T/mountinfo"
check_grep '^[0-9]+ [0-9]+ [0-9:]+ [^ ]+ /proc/sys ro[, ]' "$T/mountinfo" "/proc/sys is read-only for the service"
check_grep '^[0-9]+ [0-9]+ [0-9:]+ [^ ]+ /sys ro[, ]' "$T/mountinfo" "/sys is read-only for the service"
check_grep '^[0-9]+ [0-9]+ [0-9:]+ [^ ]+ /var/lib/ringprof [^ ]*noexec' "$T/mountinfo" "the state directory is mounted noexec"
check_no_grep '^[0-9]+ [0-9]+ [0-9:]+ [^ ]+ /(usr|etc)(/[^ ]*)? rw[, ]' "$T/mountinfo" "nothing under /usr or /etc is writable for the service"
in_ct nsenter -t "$MAIN" -m sh -c 'echo x >/proc/sys/kernel/core_pattern' 2>"$T/corepat.err" &&
	fail "kernel.core_pattern was writable from the service's mount namespace"
check_grep 'Read-only file system' "$T/corepat.err" "kernel.core_pattern cannot be written from the service's mount namespace"

# --- workloads in the container, then rotation by signal ---
# The build tree may be under /tmp, which the container replaces: the workload is bound in.
# One run by root; one by another user from a 0700 directory under /home, which ProtectHome=
# hides from the daemon (it reads that binary through /proc/PID/root, past the mode with
# CAP_DAC_READ_SEARCH). Meanwhile a workload on the host, outside the container's PID
# namespace: its samples come as pid 0.
# (/home/rpother is a tmpfs of its own, which a 0700 directory needs to hide the binary; binaries
# on the container's overlayfs are checked below.)
in_ct sh -c 'mkdir -p /home/rpother && mount -t tmpfs -o size=32m,mode=0700 rp-home /home/rpother &&
	mkdir -p /home/rpother/bin && cp /run/rp-workload/rp-workload /home/rpother/bin/rp-wl-other &&
	cp /run/rp-workload/librp-worklib.so /home/rpother/bin/ && chown -R rpother: /home/rpother && chmod 700 /home/rpother' ||
	fail "the other user's copy of the workload"
"$WL" -d 3 -q >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
in_ct sh -c 'echo $$ >/run/wl-root.pid; exec /run/rp-workload/rp-workload -d 4 -q' >/dev/null 2>&1 &
wl_root=$!
in_ct runuser -u rpother -- sh -c 'echo $$ >/tmp/wl-other.pid; exec /home/rpother/bin/rp-wl-other -d 4 -q' >/dev/null 2>&1 &
wl_other=$!
wait "$wl_root" || fail "root's workload ran in the container"
wait "$wl_other" || fail "the other user's workload ran in the container"
WLROOT=$(in_ct cat /run/wl-root.pid) WLOTHER=$(in_ct cat /tmp/wl-other.pid)
in_ct stat -c '%d %i' /home/rpother/bin/rp-wl-other >"$T/other-ino"
sleep 1 # a flush interval (0.5 s) for the last samples
in_ct systemctl kill -s USR2 ringprofd
for _ in $(seq 1 100); do files | grep -q '\.data$' && break; sleep 0.1; done
files >"$T/files1"
check_grep '\.data$' "$T/files1" "systemctl kill -s USR2 closed a file"
check_grep '\.data\.partial$' "$T/files1" "and recording went on into a new one"
in_ct sh -c 'ringprof report --dir /var/lib/ringprof --comm rp-workload --no-children -s sym' >"$T/report" 2>"$T/report.err" ||
	fail "ringprof report in the container: $(cat "$T/report.err")"
check_grep 'hot_leaf' "$T/report" "the workload's functions are named"
in_ct sh -c 'ringprof report --dir /var/lib/ringprof --folded' >"$T/folded" 2>/dev/null
check_grep '_\[k\]' "$T/folded" "kernel frames were recorded from inside the sandbox"
check_grep '(^|;)main;' "$T/folded" "user frames were recorded from inside the sandbox"
# Each workload's own stacks: user frames named, and kernel frames above user ones in a stack.
for w in "root:$WLROOT:rp-workload" "rpother:$WLOTHER:rp-wl-other"; do
	who=${w%%:*} pid=${w#*:} comm=${w##*:}
	pid=${pid%%:*}
	in_ct ringprof report --dir /var/lib/ringprof --pid "$pid" --folded >"$T/folded-$who" 2>&1
	check_grep "^$comm;.*;main;run_main;hot_outer_a;hot_leaf [0-9]+$" "$T/folded-$who" "$who's process ($comm, pid $pid): user frames named (main;run_main;hot_outer_a;hot_leaf)"
done
# Kernel frames on top of user ones in one stack: a CPU-bound workload enters the kernel rarely
# (page faults, exit; none in one run of 4 s at 199 Hz), so any process's stacks will do.
check_grep "^[^;]+;.*;main;.*_\[k\]( |;)" "$T/folded" "kernel frames on top of user frames in the container's stacks"
# The container's root is an overlayfs: its libc, opened by path, shows the overlay's device and
# inode, not the layer's that MMAP2 names. Through /proc/PID/map_files (CAP_CHECKPOINT_RESTORE)
# the recorder opens the mapped file itself, so libc gets its build-id and unwind table and the
# root workload's stacks are walked through it to _start.
in_ct stat -f -c %T /usr/lib/x86_64-linux-gnu/libc.so.6 >"$T/libc-fs"
check_grep '^overlayfs$' "$T/libc-fs" "the container's libc is on overlayfs"
check_grep "^rp-workload;_start;__libc_start_main[^;]*;__libc_start_call_main;main;run_main;hot_outer_a;hot_leaf [0-9]+$" \
	"$T/folded-root" "root's process: stacks walked through the overlay's libc up to _start"
in_ct ringprof report --dir /var/lib/ringprof --pid "$WLROOT" --no-children >"$T/root-hdr" 2>&1
complete=$(sed -n 's/^# user stacks: \([0-9]*\)\.[0-9]*% complete.*/\1/p' "$T/root-hdr")
check_range "${complete:-0}" 90 100 "root's process: user stacks complete (%) with libc on overlayfs"

# The container is a PID namespace of its own: host tasks come as pid 0. No side-band of
# theirs is stored (it would rename and map the idle task), and both log and header say why.
closed=$(files | grep '\.data$' | head -1)
in_ct ringprof report -i "/var/lib/ringprof/$closed" --dump >"$T/dump" 2>&1
check_range "$(grep -c '^SAMPLE ' "$T/dump")" 1 100000000 "the closed recording has samples"
check_range "$(grep -Ec '^SAMPLE .* pid=0 tid=0 .*mode=user ' "$T/dump")" 20 100000000 \
	"it has pid-0 samples in user mode: tasks outside the container (the host's workload), not the idle task"
check_pid0_regex "$T/dump"
check_no_grep "$PID0_SIDEBAND" "$T/dump" "no pid-0 side-band records from tasks outside the container"
read -r o_dev o_ino <"$T/other-ino"
check_grep "^BUILDID .* maj=$((o_dev >> 8)) min=$((o_dev & 255)) ino=$o_ino gen=[0-9]+ build_id=$(build_id_of "$WL")$" "$T/dump" \
	"the build-id of the other user's binary, in a 0700 directory under /home hidden from the daemon"
in_ct ringprof report --dir /var/lib/ringprof --sort comm -n >"$T/comms" 2>&1
check_grep '^ +([0-9.]+% +){1,2}[0-9]+ +\[outside the PID namespace\]$' "$T/comms" "the report shows them as [outside the PID namespace]"
in_ct journalctl -u ringprofd --no-pager -o cat >"$T/journal"
check_grep 'recording in a PID namespace other than the host.s' "$T/journal" "the journal says the daemon records in a PID namespace"
check_grep '^# note: recorded inside a PID namespace' "$T/report" "the report header says so too"

# Recordings belong to the ringprof group: its members report, nobody else reads them.
in_ct sh -c "stat -c '%U:%G %a %n' /var/lib/ringprof /var/lib/ringprof/*" >"$T/owners"
check_range "$(grep -c '/var/lib/ringprof/ringprof-' "$T/owners")" 2 100 "recordings listed with their owners"
check_grep '^ringprof:ringprof 750 /var/lib/ringprof$' "$T/owners" "the state directory is ringprof:ringprof 0750"
check_no_grep '^[^ ]+ [0-9]+ /var/lib/ringprof/' <(grep -v '^ringprof:ringprof 640 \|/var/lib/ringprof/symbols$' "$T/owners") "every recording is ringprof:ringprof 0640"
# The symbol tables captured beside them, likewise readable by the group only.
in_ct sh -c "stat -c '%U:%G %a %n' /var/lib/ringprof/symbols /var/lib/ringprof/symbols/*" >"$T/sym-owners"
check_grep '^ringprof:ringprof 750 /var/lib/ringprof/symbols$' "$T/sym-owners" "the symbols directory is ringprof:ringprof 0750"
check_range "$(grep -c '\.sym$' "$T/sym-owners")" 1 100000 "symbol tables captured under the unit"
check_no_grep '\.sym$' <(grep -v '^ringprof:ringprof 640 ' "$T/sym-owners") "every symbol table is ringprof:ringprof 0640"
in_ct runuser -u rpreader -- ringprof report --dir /var/lib/ringprof --comm rp-workload -s sym >"$T/reader" 2>&1
check_grep 'hot_leaf' "$T/reader" "a member of the ringprof group runs reports"
in_ct runuser -u rpother -- ringprof report --dir /var/lib/ringprof >"$T/other" 2>&1 &&
	fail "a user outside the ringprof group read the recordings"
check_grep '[Pp]ermission denied' "$T/other" "a user outside the group is told permission is denied"

# --- reload: synchronous, ten times in a row with busy CPUs ---
check_grep "^\\{ path=/usr/sbin/ringprofd ; argv\\[\\]=/usr/sbin/ringprofd --reload \\\$MAINPID" <(prop ExecReload) \
	"ExecReload= is ringprofd --reload (no /bin/kill, which minimal images lack)"
notes0=$(in_ct journalctl -u ringprofd --no-pager -o cat | grep -c 'note: ' || true)
# Busy CPUs: one workload per CPU (each burns about one CPU; at most 16), still running when
# the ten reloads are done, and the CPUs' busy share over the reloads read from /proc/stat.
ncpu=$(nproc)
nwl=$((ncpu < 2 ? 2 : (ncpu > 16 ? 16 : ncpu)))
RL_PIDS=""
for _ in $(seq 1 "$nwl"); do
	in_ct /run/rp-workload/rp-workload -d 40 -q >/dev/null 2>&1 &
	RL_PIDS="$RL_PIDS $!"
done
BG_PIDS="$BG_PIDS $RL_PIDS"
sleep 1
cpu_times() { # busy and total jiffies of all CPUs
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat
}
read -r busy0 total0 < <(cpu_times)
for i in $(seq 1 10); do
	hz=$((140 + i))
	in_ct sh -c "printf 'Frequency=$hz\nFlushInterval=0.5s\n' >/etc/ringprof/ringprofd.conf.d/test.conf"
	in_ct systemctl reload ringprofd 2>"$T/reload.err" ||
		{ in_ct journalctl -u ringprofd --no-pager -n 30 >&2; fail "systemctl reload $i: $(cat "$T/reload.err")"; }
	prop StatusText >"$T/st"
	grep -q " at $hz Hz" "$T/st" || fail "reload $i: systemctl reload returned before $hz Hz was in force (STATUS: $(cat "$T/st"))"
done
read -r busy1 total1 < <(cpu_times)
for p in $RL_PIDS; do kill -0 "$p" 2>/dev/null || fail "a workload of the reloads ended before the ten reloads did"; done
ok "the $nwl workloads ran through the ten reloads"
busy_pct=$(((busy1 - busy0) * 100 / (total1 - total0)))
check_range "$busy_pct" $((nwl * 75 / ncpu < 100 ? nwl * 75 / ncpu : 75)) 100 "the CPUs were busy during the reloads (busy share of all $ncpu CPUs, %)"
ok "ten reloads with busy CPUs: each in force (STATUS says its frequency) when systemctl reload returned"
for p in $RL_PIDS; do kill "$p" 2>/dev/null; done
in_ct pkill -x rp-workload
in_ct journalctl -u ringprofd --no-pager -o cat >"$T/journal"
check_eq "$(grep -c 'configuration reloaded' "$T/journal")" 10 "ten reloads in the journal"
echo "# reload durations (s): $(sed -n 's/.*configuration reloaded .* in \([0-9.]*\) s$/\1/p' "$T/journal" | tr '\n' ' ')"
check_eq "$(grep -c 'note: ' "$T/journal" || true)" "$notes0" "the recorder's notes (no hardware PMU, PID namespace) are logged once, not at each reload"
check_eq "$(prop MainPID)" "$MAIN" "reload keeps the process"

# A rejected reload fails `systemctl reload` and says why in STATUS until a reload succeeds.
in_ct sh -c 'printf "Frequency=fast\n" >/etc/ringprof/ringprofd.conf.d/test.conf'
in_ct systemctl reload ringprofd 2>"$T/reject.err" && fail "systemctl reload succeeded with Frequency=fast"
ok "a rejected reload makes systemctl reload fail"
check_grep ' at 150 Hz.*; last reload rejected: .*Frequency=fast' <(prop StatusText) "StatusText keeps 150 Hz and says why the reload was rejected"
in_ct journalctl -u ringprofd --no-pager -o cat >"$T/journal"
check_grep '^ringprofd: the reload was rejected and the running configuration kept: .*Frequency=fast' "$T/journal" "the journal has the reason from ExecReload="
# Journal priorities from the daemon's "<N>" prefixes (journald strips them): error 3,
# notice 5, info 6 (a warning, 4, below).
in_ct journalctl -u ringprofd --no-pager -o json >"$T/journal.json"
prio_of() { # MESSAGE-START: the PRIORITY of the first journal entry whose message starts so
	grep -F "\"MESSAGE\":\"$1" "$T/journal.json" | head -1 | grep -o '"PRIORITY":"[0-9]"' | tr -dc 0-9
}
check_eq "$(prio_of 'reload rejected: ')" 3 "journal: 'reload rejected' has PRIORITY 3 (err)"
check_eq "$(prio_of 'note: recording in a PID namespace')" 5 "journal: the PID namespace note has PRIORITY 5 (notice)"
check_eq "$(prio_of 'configuration reloaded')" 6 "journal: 'configuration reloaded' has PRIORITY 6 (info)"
check_no_grep '"MESSAGE":"<[0-7]>' "$T/journal.json" "no message keeps its <N> prefix"
check_eq "$(prop ActiveState)" active "the service stays active after a rejected reload"
in_ct sh -c 'printf "Frequency=149\nFlushInterval=0.5s\n" >/etc/ringprof/ringprofd.conf.d/test.conf'
in_ct systemctl reload ringprofd || fail "systemctl reload after fixing the configuration"
check_grep ' at 149 Hz' <(prop StatusText) "the fixed configuration is in force when systemctl reload returns"
check_no_grep 'reload rejected' <(prop StatusText) "a successful reload clears the rejection from StatusText"

# --- kill -9: restarted, the open file recovered ---
partial=$(files | grep '\.data\.partial$' | head -1)
in_ct kill -9 "$MAIN"
for _ in $(seq 1 200); do
	[ "$(prop ActiveState)" = active ] && [ "$(prop MainPID)" != "$MAIN" ] && [ "$(prop MainPID)" != 0 ] && break
	sleep 0.1
done
check_eq "$(prop ActiveState)" active "restarted after kill -9"
check_eq "$(prop NRestarts)" 1 "one restart"
sleep 1
files >"$T/files2"
check_no_grep "^${partial}\$" "$T/files2" "the file open at kill -9 is no longer partial"
check_grep "^${partial%.partial}\$" "$T/files2" "it was recovered under its final name"
MAIN=$(prop MainPID)

# --- the watchdog: a stopped daemon is aborted and restarted, its open file recovered ---
partial=$(files | grep '\.data\.partial$' | head -1)
[ -n "$partial" ] || fail "no open recording before SIGSTOP"
in_ct kill -STOP "$MAIN"
for _ in $(seq 1 200); do [ "$(prop MainPID)" != "$MAIN" ] && [ "$(prop ActiveState)" = active ] && break; sleep 0.1; done
check_eq "$(prop NRestarts)" 2 "the watchdog restarted a stopped daemon (WatchdogSec=4)"
in_ct journalctl -u ringprofd --no-pager >"$T/journal"
check_grep '[Ww]atchdog timeout' "$T/journal" "systemd says the watchdog fired"
check_grep "Killing process $MAIN \\(ringprofd\\) with signal SIGABRT" "$T/journal" "it sent SIGABRT to the stopped daemon"
check_grep 'Main process exited, code=(dumped|killed), status=6/ABRT' "$T/journal" "which died of it"
sleep 1
files >"$T/files-wd"
check_no_grep "^${partial}\$" "$T/files-wd" "the file open at SIGSTOP is no longer partial"
check_grep "^${partial%.partial}\$" "$T/files-wd" "it was recovered under its final name"
check_grep "recovered /var/lib/ringprof/${partial%.partial} " <(in_ct journalctl -u ringprofd --no-pager -o cat) "the restarted daemon says it recovered that file"

# --- attribution: a workload started as a systemd unit is reported under that unit ---
in_ct systemd-run --wait --quiet --unit=rp-attr-test /run/rp-workload/rp-workload -d 2 -q ||
	fail "systemd-run --unit=rp-attr-test ran the workload"
sleep 1 # a flush interval (0.5 s) for its last samples
in_ct ringprof report --dir /var/lib/ringprof --sort unit -n >"$T/units" 2>&1
check_grep '^ +([0-9.]+% +){1,2}[0-9]+ +rp-attr-test.service$' "$T/units" \
	"report --sort unit: the workload started with systemd-run --unit=rp-attr-test is under its unit"
in_ct ringprof report --dir /var/lib/ringprof --unit rp-attr-test.service --sort comm -n >"$T/attr" 2>&1
check_grep ' rp-workload$' "$T/attr" "--unit rp-attr-test.service: the workload's samples"
check_no_grep '^ +[0-9].* (ringprofd|systemd|systemd-journal)$' "$T/attr" "--unit rp-attr-test.service: nothing of other units"

# --- clean stop: the last file is finished ---
in_ct systemctl stop ringprofd
check_eq "$(prop ActiveState)" inactive "systemctl stop"
files >"$T/files3"
check_no_grep '\.partial$' "$T/files3" "no partial file after a clean stop"
last=$(tail -1 "$T/files3")
in_ct ringprof report --stats -i "/var/lib/ringprof/$last" >"$T/stats" 2>&1
check_grep '^  finished +yes' "$T/stats" "the last file ends with its finish record"

# --- the pusher unit: a dynamic user with no capabilities sends every closed recording ---
# The receiver (tests/push-receiver.py) runs on the host; the container shares its network.
push_receiver "$T/recv"
port=$(cat "$T/recv/port")
in_ct mkdir -p /etc/systemd/system/ringprof-push.service.d
in_ct sh -c "printf '[Service]\nEnvironment=RINGPROF_PUSH_URL=http://127.0.0.1:$port \"RINGPROF_PUSH_ARGS=--interval 1 -v\"\n' >/etc/systemd/system/ringprof-push.service.d/test.conf"
in_ct systemctl daemon-reload
in_ct systemctl start ringprof-push || { in_ct journalctl -u ringprof-push --no-pager | tail -20 >&2; fail "systemctl start ringprof-push"; }
nfiles=$(files | grep -c '\.data$')
# -v: a line per file, "NAME: sent (N samples, B bytes)" or "NAME: no samples, nothing to send"
done_files() {
	in_ct journalctl -u ringprof-push --no-pager -o cat | grep -cE '^ringprof push: ringprof-[^ ]+\.data: (sent|no samples)'
}
for _ in $(seq 1 300); do [ "$(done_files)" -ge "$nfiles" ] && break; sleep 0.1; done
in_ct journalctl -u ringprof-push --no-pager -o cat >"$T/push.journal"
check_eq "$(done_files)" "$nfiles" "the pusher unit took each of the $nfiles closed recordings once"
nsent=$(grep -cE '^ringprof push: ringprof-[^ ]+\.data: sent \([1-9]' "$T/push.journal")
check_range "$nsent" 1 "$nfiles" "recordings with samples were sent"
check_no_grep 'Permission denied|not sent|[Ff]ailed' "$T/push.journal" "the pusher's journal has no error"
PUSHPID=$(in_ct systemctl show -p MainPID --value ringprof-push)
in_ct grep -E '^(Uid|Groups|CapEff|CapBnd|NoNewPrivs|Seccomp):' "/proc/$PUSHPID/status" >"$T/push.caps"
uid=$(awk '$1 == "Uid:" { print $2 }' "$T/push.caps")
check_range "${uid:-0}" 61184 65519 "the pusher runs as a dynamic user (uid $uid)"
check_grep "^Groups:.*\b$(in_ct getent group ringprof | cut -d: -f3)\b" "$T/push.caps" "in the ringprof group, which reads the recordings"
check_grep '^CapEff:[[:space:]]+0+$' "$T/push.caps" "with no effective capability"
check_grep '^CapBnd:[[:space:]]+0+$' "$T/push.caps" "and none it could gain"
check_grep '^Seccomp:[[:space:]]+2$' "$T/push.caps" "under a seccomp filter"
check_range "$(ls "$T/recv/got" | grep -c '\.query$')" "$nsent" 100000 "the receiver got at least one profile per recording sent"
python3 -c 'import sys, urllib.parse as u
for f in sys.argv[1:]: print(u.unquote(open(f).read().strip()))' "$T/recv/got"/*.query >"$T/pushed.txt"
check_eq "$(grep -cvE '^/ingest\?name=ringprof\{host=[^,]+,unit=[^}]+\}&from=[0-9]+&until=[0-9]+&format=pprof$' "$T/pushed.txt")" 0 \
	"each request: a pprof body to /ingest, named with host and unit"
in_ct test -s /var/lib/private/ringprof-push/push.cursor || fail "the cursor is in the unit's StateDirectory"
check_eq "$(in_ct head -1 /var/lib/private/ringprof-push/push.cursor)" "$(files | grep '\.data$' | tail -1)" \
	"the cursor names the last recording"
in_ct systemctl stop ringprof-push
kill "$RECV" 2>/dev/null

# --- a warning's journal priority: /proc/kallsyms made inaccessible to the unit ---
in_ct sh -c 'printf "[Service]\nInaccessiblePaths=/proc/kallsyms\n" >/etc/systemd/system/ringprofd.service.d/nokallsyms.conf'
in_ct systemctl daemon-reload
in_ct systemctl start ringprofd || fail "systemctl start ringprofd without /proc/kallsyms"
check_eq "$(prop ActiveState)" active "the daemon records without /proc/kallsyms"
in_ct systemctl stop ringprofd
in_ct journalctl -u ringprofd --no-pager -o json >"$T/journal.json"
grep -E '"MESSAGE":"kernel symbols are (unavailable|hidden)' "$T/journal.json" | tail -1 >"$T/ksyms-warning"
check_grep '"PRIORITY":"4"' "$T/ksyms-warning" "journal: the hidden-kernel-symbols warning has PRIORITY 4 (warning)"
in_ct rm /etc/systemd/system/ringprofd.service.d/nokallsyms.conf
in_ct systemctl daemon-reload

# --- a seccomp filter without perf_event_open: the failure names the filter ---
in_ct sh -c 'printf "[Service]\nSystemCallFilter=~perf_event_open\n" >/etc/systemd/system/ringprofd.service.d/noperf.conf'
in_ct systemctl daemon-reload
in_ct systemctl start ringprofd 2>/dev/null
for _ in $(seq 1 50); do [ "$(prop ActiveState)" = failed ] && break; sleep 0.1; done
check_eq "$(prop ActiveState)" failed "a unit whose filter denies perf_event_open fails"
check_eq "$(prop ExecMainStatus)" 4 "with exit status 4 (NOPERMISSION), not restarted"
in_ct journalctl -u ringprofd --no-pager -o cat -n 20 >"$T/journal"
check_grep 'permission denied for system-wide recording by a seccomp filter .*this process has CAP_PERFMON' "$T/journal" "the journal names the seccomp filter, not a missing CAP_PERFMON"
check_no_grep 'lacks CAP_PERFMON' "$T/journal" "and does not claim CAP_PERFMON is missing"
in_ct rm /etc/systemd/system/ringprofd.service.d/noperf.conf
in_ct systemctl daemon-reload
in_ct systemctl reset-failed ringprofd

# --- a bad configuration: exit 78, no restart loop ---
in_ct sh -c 'printf "Frequency=often\n" >/etc/ringprof/ringprofd.conf.d/test.conf'
in_ct systemctl start ringprofd 2>/dev/null
sleep 2
check_eq "$(prop ActiveState)" failed "a bad configuration fails the service"
check_eq "$(prop ExecMainStatus)" 78 "with exit status 78 (EX_CONFIG)"
check_eq "$(prop NRestarts)" 0 "and no restart loop"
in_ct journalctl -u ringprofd --no-pager -o cat -n 20 >"$T/journal"
check_grep 'Frequency' "$T/journal" "the journal names the bad setting"

stop_container
echo "$n_checks checks passed"
