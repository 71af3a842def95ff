#!/bin/bash
# record-hostile-paths.sh — a user maps a binary, unmaps it and puts a FIFO, a link to a
# device or a link to a tty where it was (issue 24 item 1). The recorder, reaching the file by
# its path once the mapping is gone, must not open any: no hang (a FIFO's open waits for a
# writer), no device driver asked to open, no tty taken as the controlling one. Only regular
# files are opened; the name is first resolved to an O_PATH descriptor, which opens nothing.
# tests/hostile-swap.py does it and counts, with inotify, the opens of the FIFOs and of the
# terminal (an O_PATH resolution is not one), with a control open that must be seen.
. "$(dirname "$0")/lib.sh"
require_root
require_perf_events
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"

U="$T/u"
mkdir -p "$U"
chmod 755 "$T"
chown nobody "$U"
# nobody runs the script from $T: the source tree may be a directory only root can enter
# (mktemp -d makes one 0700).
cp "$top_srcdir/tests/hostile-swap.py" "$T/" && chmod 644 "$T/hostile-swap.py"

"$RP" record -a -g -e cpu-clock -d 5 -o "$T/h.rp" 2>"$T/h.err" &
rec=$!
BG_PIDS="$rec"
sleep 1
setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 "$T/hostile-swap.py" "$U" 60 >"$T/swap.out" 2>&1 ||
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
ok "record -a -d 5 ended on time beside 60 binaries replaced by FIFOs and links to /dev/zero and a tty"
read -r _ fifos _ opened _ control _ ttys _ ttyopened <"$T/swap.out"
check_range "$control" 1 10 "the control open of a FIFO is seen (the detector works)"
check_range "$fifos" 15 20 "FIFOs watched"
check_eq "$opened" 0 "opens of the FIFOs by the recorder"
check_eq "$ttys" 20 "paths made links to a pseudo-terminal"
check_eq "$ttyopened" 0 "opens of the terminal by the recorder"
"$RP" report -i "$T/h.rp" --stdio >"$T/h.rep" 2>&1 || fail "report of the recording"
check_grep '^# samples: [0-9]+' "$T/h.rep" "the recording reads"
echo "# $n_checks checks"
