#!/bin/bash
# daemon-systemd-hostile.sh — issue 24's attacks on ringprofd as shipped: its unit under a real
# systemd PID 1 (this machine's OS booted with systemd-nspawn, tests/nspawn-lib.sh), the
# attacks made by unprivileged users inside the container while an innocent user's workload
# runs: mapped paths replaced by a FIFO, a link to /dev/zero and a link to a tty
# (tests/hostile-swap.py); a binary forging the build-id of a program not seen yet, then a
# daemon restart, then the real program, run and deleted; the helpers killed over and over; a
# FUSE file whose server never answers an open (when FUSE can work in the container). After
# each: the innocent workload's samples kept arriving in the daemon's files (bounded by the CPU
# time it used) with its own function names, the daemon was never stuck (the watchdog never
# fired), and each helper death was logged as a warning and shown in STATUS.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
. "$top_srcdir/tests/nspawn-lib.sh"

nspawn_require
require_perf_events
command -v gcc >/dev/null || skip "gcc is missing"

# Host side: the programs the users run, bound into the container read-only.
# A build-id of this run's own: other runs of this test on the machine (a system-wide
# recording sees their programs) claim others.
BID=0x5eedf00d$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
BIN="$T/bin"
mkdir -p "$BIN"
gcc -O2 -fomit-frame-pointer -Wl,--build-id=$BID -o "$BIN/real" "$top_srcdir/tests/forged-prog.c" ||
	fail "cannot build the real program"
sed 's/real_/other_/g; s/sink += (unsigned long)i \* 7/sink ^= i/' "$top_srcdir/tests/forged-prog.c" >"$T/other.c"
gcc -O1 -fno-asynchronous-unwind-tables -fno-unwind-tables -fomit-frame-pointer \
	-Wl,--build-id=$BID -o "$BIN/forged" "$T/other.c" || fail "cannot build the forged program"
cp "$top_srcdir/tests/hostile-swap.py" "$BIN/"
FUSE_WHY=""
if ! pkg-config --exists fuse3 2>/dev/null; then
	FUSE_WHY="libfuse3 (Debian: libfuse3-dev) is missing on the host"
elif ! gcc -O1 -o "$BIN/fuse-stall" "$top_srcdir/tests/fuse-stall.c" $(pkg-config --cflags --libs fuse3); then
	fail "cannot build tests/fuse-stall.c"
fi
chmod -R a+rX "$BIN"

nspawn_install
nspawn_boot --bind-ro="$top_builddir/tests/workload":/run/rp-workload --bind-ro="$BIN":/run/rp-bin
in_ct systemd-sysusers || fail "systemd-sysusers in the container"
RPUID=$(in_ct id -u ringprof)
in_ct useradd -M rpattacker && in_ct useradd -M rpvictim || fail "useradd in the container"
in_ct sh -c 'mkdir -p /var/tmp/atk /var/tmp/vic && chown rpattacker: /var/tmp/atk &&
	chown rpvictim: /var/tmp/vic && chmod 755 /var/tmp/atk /var/tmp/vic' || fail "the users' directories"
# A watchdog shorter than shipped, so that a daemon stuck in any phase is caught in it.
in_ct mkdir -p /etc/systemd/system/ringprofd.service.d /etc/ringprof/ringprofd.conf.d
in_ct sh -c 'printf "[Service]\nWatchdogSec=10\n" >/etc/systemd/system/ringprofd.service.d/test.conf'
in_ct sh -c 'printf "Frequency=199\nFlushInterval=0.5s\n" >/etc/ringprof/ringprofd.conf.d/test.conf'
in_ct systemctl daemon-reload
prop() { in_ct systemctl show -p "$1" --value ringprofd; }
in_ct systemctl start ringprofd || { in_ct journalctl -u ringprofd --no-pager | tail -20 >&2; fail "systemctl start ringprofd"; }
MAIN=$(prop MainPID)
HZ=199

# as USER CMD...: CMD as USER, no supplementary group, no capability.
as() {
	local u=$1
	shift
	in_ct setpriv --reuid="$u" --regid="$u" --clear-groups --inh-caps=-all --bounding-set=-all -- "$@"
}

# innocent_start NAME SECONDS: the innocent user's workload; its pid and the CPU time it used
# (user and system seconds, as bash's time counts its child) in /var/tmp/vic/NAME.{pid,cpu}.
innocent_start() {
	as rpvictim bash -c 'TIMEFORMAT="%U %S"; { time sh -c "echo \$\$ >/var/tmp/vic/$1.pid; exec /run/rp-workload/rp-workload -d $2 -q"; } 2>/var/tmp/vic/$1.cpu' \
		sh "$1" "$2" >/dev/null 2>&1 &
	INNOCENT=$!
	BG_PIDS="$BG_PIDS $INNOCENT"
}

# innocent_check NAME WHAT: once the workload ended and a flush interval passed, its samples
# in the daemon's files: at least half what its CPU time gives at $HZ (cpu-clock samples CPU
# time), and nearly all of them under its own functions: main;run_main; then hot_outer_a,
# hot_outer_b or warm_func, or its thread's worker_main;worker_spin.
innocent_check() {
	local name=$1 what=$2 pid cpu want got named
	wait "$INNOCENT" || fail "$what: the innocent workload failed"
	sleep 1.5
	pid=$(in_ct cat "/var/tmp/vic/$name.pid")
	cpu=$(in_ct cat "/var/tmp/vic/$name.cpu")
	want=$(awk -v c="$cpu" -v hz=$HZ 'BEGIN { split(c, a, " "); printf "%d", (a[1] + a[2]) * hz / 2 }')
	in_ct ringprof report --dir /var/lib/ringprof --pid "$pid" --folded >"$T/$name.folded" 2>"$T/$name.err" ||
		fail "$what: report --dir --pid $pid: $(cat "$T/$name.err")"
	got=$(awk '{ n += $NF } END { print n + 0 }' "$T/$name.folded")
	named=$(awk '/;main;run_main;(hot_outer_[ab]|warm_func)( |;)|;worker_main;worker_spin( |;)/ { n += $NF } END { print n + 0 }' "$T/$name.folded")
	check_range "$got" "$((want > 0 ? want : 1))" 1000000 "$what: the innocent workload's samples arrived (it used $cpu s of CPU: at least $want)"
	check_range "$named" "$((got * 9 / 10))" "$got" "$what: its samples under its own names (main;run_main;hot_outer_a/hot_outer_b/warm_func, worker_main;worker_spin)"
	check_no_grep 'other_|real_' "$T/$name.folded" "$what: no name of another program on its stacks"
}

# daemon_fine WHAT: the daemon is the same process, active, and the watchdog never fired.
daemon_fine() {
	check_eq "$(prop ActiveState) $(prop MainPID) $(prop NRestarts)" "active $MAIN 0" "$1: ringprofd is still active, the same process ($MAIN), never restarted"
	in_ct journalctl -u ringprofd --no-pager >"$T/journal"
	check_no_grep '[Ww]atchdog timeout' "$T/journal" "$1: the watchdog never fired"
}

# --- 0. the detector: the innocent workload alone ---
innocent_start base 3
innocent_check base "alone"

# --- 1. mapped paths replaced by a FIFO, a link to /dev/zero, a link to a tty ---
innocent_start paths 8
as rpattacker /usr/bin/python3 /run/rp-bin/hostile-swap.py /var/tmp/atk 60 >"$T/swap.out" 2>&1 ||
	{ cat "$T/swap.out" >&2; fail "the mapping script failed"; }
read -r _ fifos _ opened _ control _ ttys _ ttyopened <"$T/swap.out"
check_range "$control" 1 10 "paths: the control open of a FIFO is seen (the detector works)"
check_range "$fifos" 15 20 "paths: FIFOs put at mapped paths"
check_eq "$opened" 0 "paths: opens of the FIFOs by ringprofd"
check_eq "$ttys" 20 "paths: links to the attacker's terminal put at mapped paths"
check_eq "$ttyopened" 0 "paths: opens of the terminal by ringprofd"
check_eq "$(in_ct awk '{ print $7 }' "/proc/$MAIN/stat")" 0 "paths: ringprofd has no controlling terminal"
innocent_check paths "paths"
daemon_fine "paths"

# --- 2. a forged build-id, a restart, then the real program, run and deleted ---
innocent_start forged 9
as rpattacker /run/rp-bin/forged 2
in_ct systemctl restart ringprofd || fail "systemctl restart ringprofd"
MAIN=$(prop MainPID)
in_ct cp /run/rp-bin/real /var/tmp/vic/real3
in_ct chown rpvictim: /var/tmp/vic/real3
as rpvictim /var/tmp/vic/real3 2
in_ct rm /var/tmp/vic/real3
innocent_check forged "forged build-id"
in_ct sh -c "ls /var/lib/ringprof/symbols/${BID#0x}-*.sym" >"$T/syms" 2>/dev/null
check_eq "$(grep -c . "$T/syms")" 2 "forged build-id: two symbol tables under the shared build-id, one per digest"
in_ct ringprof report --dir /var/lib/ringprof --comm real3 --stdio -g caller --no-children >"$T/real.tree" 2>&1 ||
	fail "report --dir --comm real3"
check_grep '\[\.\] real_d(\.constprop\.0)?$' "$T/real.tree" "forged build-id: the deleted real program is named from its own symbols"
check_no_grep 'other_' "$T/real.tree" "forged build-id: none of the forged program's names on it"
c=$(sed -n 's/^# user stacks: \([0-9]*\)\.[0-9]*% complete.*/\1/p' "$T/real.tree" | head -1)
check_range "${c:-0}" 90 100 "forged build-id: % of the real program's user stacks complete (the forged table would cut them)"
daemon_fine "forged build-id"

# --- 3. the helpers killed over and over ---
# Under the unit the helpers run as the user ringprof (without capabilities), so only that
# uid or a file that crashes them can end them: the killer runs as ringprof, no capability.
innocent_start deaths 8
sleep 1
as ringprof sh -c 'for i in 1 2 3 4 5 6 7; do
	h=$(pgrep -P "$1" -x ringprof-unwind); [ -n "$h" ] && kill -9 $h; sleep 0.5; done' sh "$MAIN" ||
	fail "the killer (as ringprof) failed"
innocent_check deaths "helper deaths"
in_ct journalctl -u ringprofd --no-pager -o json >"$T/journal.json"
grep -E '"MESSAGE":"[^"]*helper died or hung' "$T/journal.json" >"$T/deaths"
check_range "$(grep -c . "$T/deaths")" 1 100 "helper deaths: logged in the journal"
check_eq "$(grep -vc '"PRIORITY":"4"' "$T/deaths")" 0 "helper deaths: every one at warning priority (4)"
check_grep 'paused for [0-9]+ s' "$T/deaths" "helper deaths: the journal says the helper is paused after 6 in a minute"
in_ct systemctl status ringprofd --no-pager --full >"$T/status" 2>&1
check_grep '^ +Status: ".*helper died or hung [0-9]+ times \(last: died of signal 9' "$T/status" \
	"helper deaths: systemctl status shows them in STATUS"
daemon_fine "helper deaths"

# --- 4. a FUSE file whose server never answers an open ---
# As on a Debian system whose fuse.conf has user_allow_other (else no other user, root
# included, can reach the file at all): /dev/fuse open to users (nspawn's /dev has none), the
# server as rpattacker in a mount namespace of its own, the victim maps the file and runs.
if [ -z "$FUSE_WHY" ] && ! in_ct sh -c '[ -c /dev/fuse ] || mknod -m 666 /dev/fuse c 10 229' 2>"$T/mknod.err"; then
	FUSE_WHY="no /dev/fuse can be made in the container ($(head -1 "$T/mknod.err"))"
fi
if [ -z "$FUSE_WHY" ]; then
	in_ct sh -c 'echo user_allow_other >/etc/fuse.conf; mkdir -p /var/tmp/atk/mnt; chown rpattacker: /var/tmp/atk/mnt'
	cat >"$T/victim.py" <<'PY'
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 0, prot=mmap.PROT_READ | mmap.PROT_EXEC, flags=mmap.MAP_PRIVATE)
os.close(fd)
end = time.time() + 5
while time.time() < end:
    sum(range(10000))
PY
	in_ct sh -c 'cat >/var/tmp/atk/victim.py' <"$T/victim.py"
	cat >"$T/fuse.sh" <<'SH'
setpriv --reuid=rpattacker --regid=rpattacker --clear-groups /run/rp-bin/fuse-stall /usr/bin/true 1 \
	/var/tmp/atk/mnt -f -o allow_other 2>/var/tmp/fuse.log &
for i in $(seq 50); do [ -e /var/tmp/atk/mnt/lib.so ] && break; sleep 0.1; done
[ -e /var/tmp/atk/mnt/lib.so ] || { echo "the FUSE file system did not come up: $(cat /var/tmp/fuse.log)"; exit 1; }
setpriv --reuid=rpattacker --regid=rpattacker --clear-groups /usr/bin/python3 /var/tmp/atk/victim.py /var/tmp/atk/mnt/lib.so
umount -l /var/tmp/atk/mnt
SH
	in_ct sh -c 'cat >/var/tmp/fuse.sh' <"$T/fuse.sh"
	innocent_start fuse 8
	if in_ct unshare -m --propagation private sh /var/tmp/fuse.sh >"$T/fuse.out" 2>&1; then
		in_ct cat /var/tmp/fuse.log >"$T/fuse.log"
		check_grep '^fuse-stall: open 1 by process [0-9]+$' "$T/fuse.log" "FUSE: the victim's own open was served"
		check_eq "$(grep -c '^fuse-stall: open' "$T/fuse.log")" 1 "FUSE: opens of the file (the victim's only: none by ringprofd)"
		vpid=$(sed -n 's/^fuse-stall: open 1 by process \([0-9]*\)$/\1/p' "$T/fuse.log")
		# Its samples reach the file within the flush interval, but any kept for a table
		# only when it comes or after 10 s (RECORDER_HOLD_MAX_NS): the helper may still be
		# paused after section 3's deaths. Looked for again for up to 15 s.
		victim_in() {
			in_ct ringprof report --dir /var/lib/ringprof --pid "${vpid:-0}" --stdio --no-children >"$T/fuse.rep" 2>&1
			grep -qE '^# samples: [1-9]' "$T/fuse.rep"
		}
		for _ in $(seq 30); do victim_in && break; sleep 0.5; done
		check_grep '^# samples: [1-9]' "$T/fuse.rep" "FUSE: the victim (pid $vpid) was recorded"
		innocent_check fuse "FUSE"
		daemon_fine "FUSE"
	else
		wait "$INNOCENT"
		FUSE_WHY="the FUSE file system cannot be mounted in the container: $(tail -1 "$T/fuse.out")"
	fi
fi
[ -z "$FUSE_WHY" ] || echo "# FUSE attack not run: $FUSE_WHY"

in_ct systemctl stop ringprofd
check_eq "$(prop ActiveState)" inactive "ringprofd stops cleanly after the attacks"
stop_container
echo "# $n_checks checks"
