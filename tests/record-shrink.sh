#!/bin/bash
# record-shrink.sh — a user maps a large binary of their own and truncates it while the
# recorder's helper reads it (libelf reads through a mapping: reading past the new end raises
# SIGBUS). Before, the helper died of it (2 deaths in each of 2 runs of this scenario with the
# previous build), and a user repeating it paused the helper for everyone (issue 24). Now that
# request fails saying the file changed, and the helper goes on: the recording's summary names
# no death, and a program run afterwards still gets its tables.
. "$(dirname "$0")/lib.sh"
require_root
require_perf_events
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"

# The largest shared object here: the helper should still be reading it when it shrinks.
big=$(ls -S /usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null | head -1)
[ -n "$big" ] || skip "no shared object in /usr/lib/x86_64-linux-gnu"
size=$(stat -c %s "$big")
[ "$size" -ge 20000000 ] || skip "the largest shared object here ($big) has only $size bytes"
U="$T/u"
mkdir -p "$U"
chmod 755 "$T"
chown nobody "$U"
# nobody runs the script from $T: the source tree may be a directory only root can enter
# (mktemp -d makes one 0700).
cp "$top_srcdir/tests/shrink-map.py" "$T/" && chmod 644 "$T/shrink-map.py"

"$RP" record -a -g --unwind-cache no -e cpu-clock -F 99 -o "$T/s.rp" -- sh -c \
	"setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 '$T/shrink-map.py' '$big' '$U' 8 >'$T/shrink.out'; '$WL' -d 1" \
	>/dev/null 2>"$T/s.err" || { cat "$T/s.err" >&2; fail "record -a -g beside the shrinking files"; }
check_grep '^shrunk 8$' "$T/shrink.out" "8 copies of $(basename "$big") mapped, then shrunk"
check_no_grep 'helper died' "$T/s.err" "no helper death (before: died of signal 7, Bus error)"
"$RP" report -i "$T/s.rp" --comm rp-workload --stdio -g caller --no-children >"$T/s.tree" 2>&1 ||
	fail "report of the recording"
check_grep '__libc_start_call_main' "$T/s.tree" "the program run afterwards reaches libc's start"
echo "# $n_checks checks"
