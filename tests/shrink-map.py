#!/usr/bin/python3
# shrink-map.py SRC DIR N: N times, copy SRC (a large ELF file) into DIR, map it executable (a
# recorder that follows MMAP2 records asks its helper to read it), wait a little, truncate it
# to one page while the helper may be reading it through a mapping (a SIGBUS there), then
# unmap and delete it. Prints "shrunk N".
import mmap
import os
import shutil
import sys
import time

src, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    p = os.path.join(d, 'big%d.so' % i)
    shutil.copyfile(src, p)
    with open(p, 'r+b') as f:
        m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ | mmap.PROT_EXEC,
                      flags=mmap.MAP_PRIVATE)
        time.sleep(0.05 + 0.05 * (i % 4))
        os.ftruncate(f.fileno(), 4096)
        time.sleep(0.3)
        m.close()
    os.unlink(p)
print('shrunk %d' % n)
