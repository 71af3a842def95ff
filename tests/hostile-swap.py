# hostile-swap.py DIR ROUNDS — what a user does to a recorder that reaches mapped files by
# their path (issue 24 item 1): maps a copy of /usr/bin/true from DIR, unmaps it at once and
# puts in its place, in turn, a FIFO (an open waits for a writer), a link to /dev/zero (a
# device's driver asked to open) and a link to a pseudo-terminal of its own (a tty that would
# become the controlling one of a process without one). inotify sees every real open of the
# FIFOs and of the terminal (IN_OPEN; an O_PATH resolution is not one): the script counts
# them, with a control open that must be seen. Prints
# "fifos N opened N control N ttys N ttyopened N".
import ctypes, mmap, os, select, shutil, struct, sys, time

IN_OPEN = 0x20
libc = ctypes.CDLL(None, use_errno=True)
ino = libc.inotify_init1(os.O_NONBLOCK)
d, rounds = sys.argv[1], int(sys.argv[2])
fifo_wds = set()
master, slave = os.openpty()
tty = os.ttyname(slave)
tty_wd = libc.inotify_add_watch(ino, tty.encode(), IN_OPEN)
ttys = 0
for i in range(rounds):
    p = os.path.join(d, "lib%d.so" % i)
    shutil.copyfile("/usr/bin/true", p)
    fd = os.open(p, os.O_RDONLY)
    m = mmap.mmap(fd, 0, prot=mmap.PROT_READ | mmap.PROT_EXEC, flags=mmap.MAP_PRIVATE)
    os.close(fd)
    m.close()  # unmapped at once: the recorder can only reach the file by its path
    if i % 3 == 0:
        # A FIFO made under a fresh name, watched, then renamed over the binary's name.
        t = os.path.join(d, "fifo%d" % i)
        os.mkfifo(t)
        wd = libc.inotify_add_watch(ino, t.encode(), IN_OPEN)
        if wd >= 0:
            fifo_wds.add(wd)
        os.rename(t, p)
    elif i % 3 == 1:
        os.unlink(p)
        os.symlink("/dev/zero", p)
    else:
        os.unlink(p)
        os.symlink(tty, p)
        ttys += 1
    time.sleep(0.05)
# The control: a FIFO this script opens itself must be seen.
c = os.path.join(d, "control")
os.mkfifo(c)
cwd = libc.inotify_add_watch(ino, c.encode(), IN_OPEN)
time.sleep(2)  # the recorder's attempts on the last ones
os.close(os.open(c, os.O_RDONLY | os.O_NONBLOCK))
time.sleep(0.2)
opened, control, ttyopened = 0, 0, 0
while select.select([ino], [], [], 0)[0]:
    buf = os.read(ino, 65536)
    off = 0
    while off + 16 <= len(buf):
        wd, mask, cookie, ln = struct.unpack_from("iIII", buf, off)
        off += 16 + ln
        if wd == cwd:
            control += 1
        elif wd == tty_wd and mask & IN_OPEN:
            ttyopened += 1
        elif wd in fifo_wds and mask & IN_OPEN:
            opened += 1
print("fifos %d opened %d control %d ttys %d ttyopened %d"
      % (len(fifo_wds), opened, control, ttys, ttyopened if tty_wd >= 0 else -1))
