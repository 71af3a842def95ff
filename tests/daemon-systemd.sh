#!/bin/bash
# daemon-systemd.sh — ringprofd's installed unit under a real systemd PID 1: this machine's own
# OS booted with systemd-nspawn on a throw-away overlay, the tree installed into it with
# `make install`, and systemctl driving the daemon as it does in production: readiness,
# STATUS, reload, rotation by signal, recovery after kill -9, the watchdog, a bad
# configuration (exit 78, no restart loop), the sandbox's capabilities and seccomp, and
# recordings with kernel and user frames made from inside it.
. "${top_srcdir:-.}/tests/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (systemd-nspawn)"
command -v systemd-nspawn >/dev/null || skip "systemd-nspawn is not installed (package systemd-container; setup.sh installs it)"
case " ${CFLAGS:-} $(grep -m1 '^CFLAGS = ' "$top_builddir/Makefile" 2>/dev/null) " in
*fsanitize*) skip "it builds and installs a plain tree of its own, so it runs once: in the plain build tree" ;;
esac
require_perf_events

ROOT="$T/root"
DEST="$T/dest"
NSPID=""
P1=""
mkdir -p "$ROOT" "$DEST"

# The tree as a distribution would install it.
(cd "$T" && mkdir build && cd build &&
	"$top_srcdir/configure" -q --prefix=/usr --sysconfdir=/etc --localstatedir=/var >/dev/null &&
	make -j2 -s >/dev/null 2>&1 && make -s install DESTDIR="$DEST" >/dev/null 2>&1) ||
	fail "configure, build and make install DESTDIR of the tree"
[ -x "$DEST/usr/sbin/ringprofd" ] && [ -f "$DEST/usr/lib/systemd/system/ringprofd.service" ] ||
	fail "make install put ringprofd and its unit in place"

# Leftovers of nspawn without a host systemd: cgroups it made and its runtime directory.
nspawn_cleanup() {
	local d s
	for d in systemd unified; do
		for s in payload supervisor; do
			[ -d "/sys/fs/cgroup/$d/$s" ] || continue
			find "/sys/fs/cgroup/$d/$s" -depth -type d -exec rmdir {} \; 2>/dev/null
		done
	done
	rm -rf /run/systemd/nspawn
}

stop_container() {
	[ -n "$NSPID" ] || return 0
	if kill -0 "$NSPID" 2>/dev/null; then
		[ -n "$P1" ] && nsenter -t "$P1" -a systemctl poweroff >/dev/null 2>&1
		for _ in $(seq 1 200); do kill -0 "$NSPID" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$NSPID" 2>/dev/null
	fi
	wait "$NSPID" 2>/dev/null
	NSPID=""
	nspawn_cleanup
}
trap 'stop_container; cleanup' EXIT

# Boot: the host's root bound (in a private mount namespace) and overlaid by tmpfs; the
# installed tree bound read-only, copied in once systemd runs.
cat >"$T/boot.sh" <<EOF
mount --bind / "$ROOT" || exit 1
exec systemd-nspawn -D "$ROOT" --volatile=overlay --boot --register=no --keep-unit \\
	--console=read-only --capability=CAP_PERFMON,CAP_SYSLOG,CAP_IPC_LOCK \\
	--system-call-filter=perf_event_open --bind-ro="$DEST":/run/rp-dest \\
	--bind-ro="$top_builddir/tests/workload":/run/rp-workload \\
	--machine=rp-$$ -- systemd.unit=basic.target
EOF
nspawn_cleanup
unshare -m --propagation private sh "$T/boot.sh" >"$T/boot.log" 2>&1 &
NSPID=$!
for _ in $(seq 1 300); do
	P1=$(pgrep -P "$NSPID" -x systemd | head -1)
	[ -n "$P1" ] && nsenter -t "$P1" -a systemctl is-system-running 2>/dev/null | grep -Eq '^(running|degraded)$' && break
	if ! kill -0 "$NSPID" 2>/dev/null; then
		tail -5 "$T/boot.log" >&2
		skip "systemd-nspawn could not boot this machine's OS: $(grep -m1 -iE 'fail|error' "$T/boot.log")"
	fi
	sleep 0.1
done
in_ct() { nsenter -t "$P1" -a "$@"; }
in_ct systemctl is-system-running 2>/dev/null | grep -Eq '^(running|degraded)$' || fail "the container's systemd came up (within 30 s)"
ok "a real systemd PID 1 booted ($(in_ct systemctl --version | head -1))"

in_ct cp -a /run/rp-dest/. / || fail "copying the installed tree into the container"
# What a package's postinst does: the ringprof group from sysusers.d. One reader in it, one
# user outside it.
in_ct systemd-sysusers || fail "systemd-sysusers in the container"
in_ct getent group ringprof >/dev/null || fail "sysusers.d/ringprof.conf made the ringprof group"
in_ct useradd -M -G ringprof rpreader && in_ct useradd -M rpother || fail "useradd in the container"
# Short intervals so that the test sees each behaviour quickly; everything else as shipped.
in_ct mkdir -p /etc/systemd/system/ringprofd.service.d /etc/ringprof/ringprofd.conf.d
in_ct sh -c 'printf "[Service]\nWatchdogSec=4\n" >/etc/systemd/system/ringprofd.service.d/test.conf'
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
in_ct grep -E '^(CapEff|CapPrm|CapBnd|Seccomp|NoNewPrivs):' "/proc/$MAIN/status" >"$T/caps"
capeff=$(awk '/^CapEff/ { print $2 }' "$T/caps")
caps=$(capsh --decode="$capeff" 2>/dev/null | sed 's/^.*=//')
[ -n "$caps" ] || caps=$capeff
# CAP_DAC_READ_SEARCH 2, CAP_SYS_PTRACE 19, CAP_SYSLOG 34, CAP_PERFMON 38, CAP_IPC_LOCK 14
check_eq "$capeff" "0000004400084004" "effective capabilities are exactly the five of the unit ($caps)"
check_grep '^Seccomp:[[:space:]]+2$' "$T/caps" "a seccomp filter is in force"
check_grep '^NoNewPrivs:[[:space:]]+1$' "$T/caps" "no_new_privs is set"

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

# --- a workload in the container, then rotation by signal ---
# The build tree may be under /tmp, which the container replaces: the workload is bound in.
in_ct /run/rp-workload/rp-workload -d 2 -q >/dev/null || fail "the workload ran in the container"
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

# The container is a PID namespace of its own: host tasks come as pid 0. No side-band of
# theirs is stored (it would rename and map the idle task), and both log and header say why.
closed=$(files | grep '\.data$' | head -1)
in_ct ringprof report -i "/var/lib/ringprof/$closed" --dump >"$T/dump" 2>&1
check_range "$(grep -c '^SAMPLE ' "$T/dump")" 1 100000000 "the closed recording has samples"
check_no_grep '^(COMM|MMAP2?|FORK|EXIT) .* pid=0 tid=0 ' "$T/dump" "no pid-0 side-band records from tasks outside the container"
in_ct journalctl -u ringprofd --no-pager -o cat >"$T/journal"
check_grep 'recording in a PID namespace other than the host.s' "$T/journal" "the journal says the daemon records in a PID namespace"
check_grep '^# note: recorded inside a PID namespace' "$T/report" "the report header says so too"

# Recordings belong to the ringprof group: its members report, nobody else reads them.
in_ct sh -c "stat -c '%U:%G %a %n' /var/lib/ringprof /var/lib/ringprof/*" >"$T/owners"
check_range "$(grep -c '/var/lib/ringprof/ringprof-' "$T/owners")" 2 100 "recordings listed with their owners"
check_grep '^root:ringprof 750 /var/lib/ringprof$' "$T/owners" "the state directory is root:ringprof 0750"
check_no_grep '^[^ ]+ [0-9]+ /var/lib/ringprof/' <(grep -v '^root:ringprof 640 \|/var/lib/ringprof/symbols$' "$T/owners") "every recording is root:ringprof 0640"
# The symbol tables captured beside them, likewise readable by the group only.
in_ct sh -c "stat -c '%U:%G %a %n' /var/lib/ringprof/symbols /var/lib/ringprof/symbols/*" >"$T/sym-owners"
check_grep '^root:ringprof 750 /var/lib/ringprof/symbols$' "$T/sym-owners" "the symbols directory is root:ringprof 0750"
check_range "$(grep -c '\.sym$' "$T/sym-owners")" 1 100000 "symbol tables captured under the unit"
check_no_grep '\.sym$' <(grep -v '^root:ringprof 640 ' "$T/sym-owners") "every symbol table is root:ringprof 0640"
in_ct runuser -u rpreader -- ringprof report --dir /var/lib/ringprof --comm rp-workload -s sym >"$T/reader" 2>&1
check_grep 'hot_leaf' "$T/reader" "a member of the ringprof group runs reports"
in_ct runuser -u rpother -- ringprof report --dir /var/lib/ringprof >"$T/other" 2>&1 &&
	fail "a user outside the ringprof group read the recordings"
check_grep '[Pp]ermission denied' "$T/other" "a user outside the group is told permission is denied"

# --- reload: synchronous, ten times in a row with busy CPUs ---
check_grep "^\\{ path=/usr/sbin/ringprofd ; argv\\[\\]=/usr/sbin/ringprofd --reload \\\$MAINPID" <(prop ExecReload) \
	"ExecReload= is ringprofd --reload (no /bin/kill, which minimal images lack)"
notes0=$(in_ct journalctl -u ringprofd --no-pager -o cat | grep -c 'note: ' || true)
for _ in 1 2; do
	in_ct /run/rp-workload/rp-workload -d 25 -q >/dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
done
for i in $(seq 1 10); do
	hz=$((140 + i))
	in_ct sh -c "printf 'Frequency=$hz\nFlushInterval=0.5s\n' >/etc/ringprof/ringprofd.conf.d/test.conf"
	in_ct systemctl reload ringprofd 2>"$T/reload.err" ||
		{ in_ct journalctl -u ringprofd --no-pager -n 30 >&2; fail "systemctl reload $i: $(cat "$T/reload.err")"; }
	prop StatusText >"$T/st"
	grep -q " at $hz Hz" "$T/st" || fail "reload $i: systemctl reload returned before $hz Hz was in force (STATUS: $(cat "$T/st"))"
done
ok "ten reloads with busy CPUs: each in force (STATUS says its frequency) when systemctl reload returned"
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

# --- the watchdog: a stopped daemon is aborted and restarted ---
in_ct kill -STOP "$MAIN"
for _ in $(seq 1 200); do [ "$(prop MainPID)" != "$MAIN" ] && [ "$(prop ActiveState)" = active ] && break; sleep 0.1; done
check_eq "$(prop NRestarts)" 2 "the watchdog restarted a stopped daemon (WatchdogSec=4)"
in_ct journalctl -u ringprofd --no-pager >"$T/journal"
check_grep '[Ww]atchdog timeout' "$T/journal" "systemd says the watchdog fired"

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
