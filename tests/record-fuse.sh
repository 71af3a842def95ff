#!/bin/bash
# record-fuse.sh — a user mounts a FUSE file system whose server never answers an open (any
# user can, with fusermount3; allow_other where /etc/fuse.conf has user_allow_other), maps a
# file from it and runs. A process that opens that file waits in the kernel, unkillable, until
# the server answers: the recorder must never be that process. Mapped files are opened by a
# worker thread (never in the drain loop), and one on a FUSE file system mounted by another
# user than root is not opened at all (procfs_open_mapped_from). The attack runs in a mount
# namespace of its own (a container's view), where fuse.conf allows allow_other.
. "$(dirname "$0")/lib.sh"
require_root
require_perf_events
command -v fusermount3 >/dev/null || skip "fusermount3 (Debian: fuse3) is missing"
pkg-config --exists fuse3 2>/dev/null || skip "libfuse3 (Debian: libfuse3-dev) is missing"
[ -c /dev/fuse ] || skip "no /dev/fuse on this kernel"
command -v unshare >/dev/null && command -v setpriv >/dev/null || skip "util-linux's unshare or setpriv is missing"

gcc -O1 -o "$T/fuse-stall" "$top_srcdir/tests/fuse-stall.c" $(pkg-config --cflags --libs fuse3) ||
	fail "cannot build tests/fuse-stall.c"
chmod 755 "$T" "$T/fuse-stall"
mkdir -p "$T/mnt"
chown nobody "$T/mnt"
echo user_allow_other >"$T/fuse.conf"
# /dev/fuse as a stock Debian system has it (0666; some VMs make it 0600), in that namespace only.
mknod "$T/fuse-dev" c 10 229 && chmod 666 "$T/fuse-dev" || skip "cannot make a device node in $T"
cat >"$T/victim.py" <<'PY'
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 0, prot=mmap.PROT_READ | mmap.PROT_EXEC, flags=mmap.MAP_PRIVATE)
os.close(fd)
end = time.time() + 6
while time.time() < end:
    sum(range(10000))
PY
# In a mount namespace of its own: fuse.conf with user_allow_other, /dev/fuse open to users (as
# on a stock Debian system), the server as nobody, then
# the victim, who maps the file (its one open) and keeps a CPU busy for 6 s.
cat >"$T/attack.sh" <<SH
#!/bin/sh
mount --bind "$T/fuse.conf" /etc/fuse.conf || exit 1
mount --bind "$T/fuse-dev" /dev/fuse || exit 1
setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/fuse-stall" /usr/bin/true 1 "$T/mnt" \
	-f -o allow_other 2>"$T/fuse.log" &
echo \$! >"$T/fuse.pid"
for i in \$(seq 50); do [ -e "$T/mnt/lib.so" ] && break; sleep 0.1; done
[ -e "$T/mnt/lib.so" ] || { echo "the FUSE file system did not come up" >&2; exit 1; }
: >"$T/up"
exec setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 "$T/victim.py" "$T/mnt/lib.so"
SH
chmod 755 "$T/attack.sh" "$T/victim.py"
unshare -m --propagation private "$T/attack.sh" >"$T/attack.out" 2>&1 &
attack=$!
BG_PIDS="$attack"
for i in $(seq 100); do [ -e "$T/up" ] && break; sleep 0.1; done
BG_PIDS="$BG_PIDS $(cat "$T/fuse.pid" 2>/dev/null)" # killing the server frees whoever waits on it
[ -e "$T/up" ] || { cat "$T/attack.out" "$T/fuse.log" >&2 2>/dev/null; fail "the attack did not start"; }
sleep 0.5

"$RP" record -a -g -e cpu-clock -d 3 -o "$T/f.rp" 2>"$T/f.err" &
rec=$!
BG_PIDS="$BG_PIDS $rec"
for i in $(seq 200); do
	kill -0 "$rec" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$rec" 2>/dev/null; then
	state=$(awk '{ print $3 }' "/proc/$rec/stat" 2>/dev/null)
	fail "record -a -d 3 still runs after 20 s (state $state): it opened the FUSE file"
fi
wait "$rec" || { cat "$T/f.err" >&2; fail "record -a -g beside the stalling FUSE file"; }
ok "record -a -d 3 ended on time beside a mapped file whose server never answers an open"
n=$(grep -c "^fuse-stall: open [0-9]* by process $rec\b" "$T/fuse.log")
check_eq "$n" 0 "opens of the FUSE file by the recorder (process $rec)"
check_grep '^fuse-stall: open 1 by process [0-9]+$' "$T/fuse.log" "the victim's own open was served"
"$RP" report -i "$T/f.rp" --comm python3 --stdio --no-children >"$T/f.rep" 2>&1 ||
	fail "report of the recording"
check_grep '^# samples: [0-9]+' "$T/f.rep" "the victim was recorded"
wait "$attack" 2>/dev/null
echo "# $n_checks checks"
