#!/bin/bash
# record-hostile-paths.sh — a user maps a binary, unmaps it and puts a FIFO or a link to a
# device where it was (issue 24 item 1). The recorder, reaching the file by its path once the
# mapping is gone, must not open either: no hang (a FIFO's open waits for a writer), no
# device driver asked to open, no tty taken as the controlling one. Only regular files are
# opened; the name is first resolved to an O_PATH descriptor, which opens nothing. inotify
# sees every real open of a watched FIFO (IN_OPEN; an O_PATH resolution is not one), so the
# test counts the recorder's opens of the FIFOs, with a control open that must be seen.
. "$(dirname "$0")/lib.sh"
require_root
require_perf_events
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"

U="$T/u"
mkdir -p "$U"
chmod 755 "$T"
chown nobody "$U"
cat >"$U/../swap.py" <<'PY'
import ctypes, mmap, os, select, shutil, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
ino = libc.inotify_init1(os.O_NONBLOCK)
d, rounds = sys.argv[1], int(sys.argv[2])
fifo_wds = set()
for i in range(rounds):
    p = os.path.join(d, "lib%d.so" % i)
    shutil.copyfile("/usr/bin/true", p)
    fd = os.open(p, os.O_RDONLY)
    m = mmap.mmap(fd, 0, prot=mmap.PROT_READ | mmap.PROT_EXEC, flags=mmap.MAP_PRIVATE)
    os.close(fd)
    m.close()  # unmapped at once: the recorder can only reach the file by its path
    if i % 2 == 0:
        # A FIFO made under a fresh name, watched, then renamed over the binary's name.
        t = os.path.join(d, "fifo%d" % i)
        os.mkfifo(t)
        wd = libc.inotify_add_watch(ino, t.encode(), 0x20)  # IN_OPEN
        if wd >= 0:
            fifo_wds.add(wd)
        os.rename(t, p)
    else:
        os.unlink(p)
        os.symlink("/dev/zero", p)
    time.sleep(0.05)
# The control: a FIFO this script opens itself must be seen.
c = os.path.join(d, "control")
os.mkfifo(c)
cwd = libc.inotify_add_watch(ino, c.encode(), 0x20)
time.sleep(2)  # the recorder's attempts on the last ones
os.close(os.open(c, os.O_RDONLY | os.O_NONBLOCK))
time.sleep(0.2)
opened, control = 0, 0
while select.select([ino], [], [], 0)[0]:
    buf = os.read(ino, 65536)
    off = 0
    while off + 16 <= len(buf):
        wd, mask, cookie, ln = struct.unpack_from("iIII", buf, off)
        off += 16 + ln
        if wd == cwd:
            control += 1
        elif wd in fifo_wds and mask & 0x20:
            opened += 1
print("fifos %d opened %d control %d" % (len(fifo_wds), opened, control))
PY

"$RP" record -a -g -e cpu-clock -d 5 -o "$T/h.rp" 2>"$T/h.err" &
rec=$!
BG_PIDS="$rec"
sleep 1
setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 "$T/swap.py" "$U" 60 >"$T/swap.out" 2>&1 ||
	{ cat "$T/swap.out" >&2; fail "the mapping script failed"; }
for i in $(seq 1 300); do
	kill -0 "$rec" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$rec" 2>/dev/null; then
	kill -9 "$rec"
	fail "record -a -d 5 still runs 30 s after it started: blocked on a FIFO or device"
fi
wait "$rec" || { cat "$T/h.err" >&2; fail "record -a -g beside the swapped files"; }
ok "record -a -d 5 ended on time beside 60 binaries replaced by FIFOs and links to /dev/zero"
read -r _ fifos _ opened _ control <"$T/swap.out"
check_range "$control" 1 10 "the control open of a FIFO is seen (the detector works)"
check_range "$fifos" 25 30 "FIFOs watched"
check_eq "$opened" 0 "opens of the FIFOs by the recorder"
"$RP" report -i "$T/h.rp" --stdio >"$T/h.rep" 2>&1 || fail "report of the recording"
check_grep '^# samples: [0-9]+' "$T/h.rep" "the recording reads"
echo "# $n_checks checks"
