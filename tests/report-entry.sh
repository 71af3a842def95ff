#!/bin/bash
# report-entry.sh — a stripped program's entry point is named "_start" (issue 22): a stripped
# executable (Debian's dash is one: every `sh` stack ended in "[unknown] dash+0x4780") keeps
# only .dynsym, without _start; its complete stacks end in the entry code, whose .eh_frame rows
# say "no caller". The report (from the file) and the symbols captured at record time (the file
# removed before the report) name that code _start, its FDE's extent only: main and the other
# unnamed functions of the program stay [unknown]. A program with its symbols keeps its own
# _start (one, not two). The fixture is built here (gcc, strip). Environment: KEEP=1 keeps $T.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

command -v gcc >/dev/null || skip "gcc is not installed"
command -v strip >/dev/null || skip "strip (binutils) is not installed"
require_perf_events
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

cat >"$T/spin.c" <<'C'
#include <stdlib.h>
#include <time.h>
static volatile double sink;
__attribute__((noipa)) static void spin_leaf(int n)
{
	for (int i = 0; i < n; i++)
		sink = sink * 1.0000001 + 1e-9;
}
int main(int argc, char **argv)
{
	struct timespec a, b;
	long ns = (long)(atof(argv[1]) * 1e9);

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		spin_leaf(100000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
	return 0;
}
C
gcc -O2 -fomit-frame-pointer -Wl,--build-id -o "$T/rp-spin" "$T/spin.c" || fail "cannot build the fixture"
cp "$T/rp-spin" "$T/rp-spin-stripped"
strip --strip-all "$T/rp-spin-stripped" || fail "strip failed"
readelf -s "$T/rp-spin-stripped" | grep -q ' _start$' && fail "the stripped fixture still has _start in a symbol table"
entry=$(readelf -h "$T/rp-spin-stripped" | awk '/Entry point/ { print $NF }')

# share FOLDED COMM RE: percent of COMM's samples whose user stack (outermost first) matches RE
share() {
	awk -v comm="$2" -v re="$3" '{ n = $NF; line = substr($0, 1, length($0) - length($NF) - 1)
		if (substr(line, 1, length(comm) + 1) != comm ";") next
		t += n; if (line ~ re) h += n } END { printf "%.1f\n", t ? 100 * h / t : 0 }' "$1"
}

# ---- the stripped program, named from its file -------------------------------------------------
"$RP" record -q -g -e cpu-clock -F 999 -o "$T/s.data" -- "$T/rp-spin-stripped" 0.6 >"$T/s.out" 2>"$T/s.err" ||
	fail "record -g of the stripped fixture: $(tail -2 "$T/s.err")"
"$RP" report -i "$T/s.data" --no-children 2>/dev/null | grep '^#' >"$T/s.head"
c=$(awk '/^# user stacks:/ && match($0, /[0-9.]+% complete/) { print substr($0, RSTART, RLENGTH - 10) + 0; f = 1 } END { if (!f) print 0 }' "$T/s.head")
ge "$c" 90 || { cat "$T/s.head" >&2; fail "the stripped program's user stacks are $c % complete (< 90): nothing to name"; }
"$RP" report -i "$T/s.data" --folded 2>"$T/s.ferr" | ufold >"$T/s.folded" || fail "report --folded: $(cat "$T/s.ferr")"
r=$(share "$T/s.folded" rp-spin-strippe '^rp-spin-strippe;_start;__libc_start_main;__libc_start_call_main;')
ge "$r" 90 || { sort -k2 -nr "$T/s.folded" | head -5 >&2; fail "$r % of the stripped program's stacks start _start;__libc_start_main;__libc_start_call_main (< 90)"; }
ok "$r % of the stripped program's stacks start at _start (its entry $entry), then libc's start-up"
# _start covers the entry code only: main and spin_leaf (no symbols) stay unknown, never _start+off.
check_no_grep ';_start(\+0x[0-9a-f]+)?;(.*;)?_start' "$T/s.folded" "_start appears once per stack, as the outermost frame"
r=$(share "$T/s.folded" rp-spin-strippe ';__libc_start_call_main;\[unknown\] rp-spin-stripped\+0x[0-9a-f]+(;\[unknown\] rp-spin-stripped\+0x[0-9a-f]+)?$')
ge "$r" 80 || { sort -k2 -nr "$T/s.folded" | head -5 >&2; fail "only $r % of the stacks keep main and spin_leaf as [unknown] rp-spin-stripped+0x...: the entry's name spread"; }
ok "$r % of the stacks keep the program's unnamed main and spin_leaf as [unknown] rp-spin-stripped+0x..."

# ---- the same recording, the file removed: the symbols captured at record time -------------------
mv "$T/rp-spin-stripped" "$T/rp-spin-stripped.away"
"$RP" report -i "$T/s.data" --no-children 2>/dev/null | grep '^#' >"$T/s2.head"
check_grep 'named from symbols captured at record time' "$T/s2.head" "the file removed: the report names it from the captured symbols"
"$RP" report -i "$T/s.data" --folded 2>/dev/null | ufold >"$T/s2.folded"
r=$(share "$T/s2.folded" rp-spin-strippe '^rp-spin-strippe;_start;__libc_start_main;__libc_start_call_main;')
ge "$r" 90 || { sort -k2 -nr "$T/s2.folded" | head -5 >&2; fail "captured symbols: $r % of the stacks start at _start (< 90)"; }
ok "captured symbols: $r % of the stacks start at _start, as from the file"
check_no_grep ';_start(\+0x[0-9a-f]+)?;(.*;)?_start' "$T/s2.folded" "captured symbols: _start once per stack"
mv "$T/rp-spin-stripped.away" "$T/rp-spin-stripped"

# ---- the program with its symbols: its own _start, main and spin_leaf ---------------------------
"$RP" record -q -g -e cpu-clock -F 999 -o "$T/n.data" -- "$T/rp-spin" 0.4 >/dev/null 2>"$T/n.err" ||
	fail "record -g of the fixture: $(tail -2 "$T/n.err")"
"$RP" report -i "$T/n.data" --folded 2>/dev/null | ufold >"$T/n.folded"
r=$(share "$T/n.folded" rp-spin '^rp-spin;_start;__libc_start_main;__libc_start_call_main;main;spin_leaf$')
ge "$r" 80 || { sort -k2 -nr "$T/n.folded" | head -5 >&2; fail "with symbols: $r % of the stacks are _start;...;main;spin_leaf (< 80)"; }
ok "with symbols: $r % of the stacks are _start;__libc_start_main;__libc_start_call_main;main;spin_leaf"
exit 0
