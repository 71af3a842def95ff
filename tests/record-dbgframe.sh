#!/bin/bash
# record-dbgframe.sh — `ringprof record -g` of programs whose code has .debug_frame only (issue
# 22): C built -O2 -g -fno-asynchronous-unwind-tables (tests/workload/rp-dbgframe) and Go
# (rp-go, when a Go compiler built it). The helper builds their tables from .debug_frame under
# its seccomp filter (libdw's dwarf_begin_elf calls readlink, which once killed it: 0 %
# complete). Checked per program: the report header's share of complete user stacks (>= 90 %),
# the share of the hot leaf's samples under main;outer;inner (>= 90 %), and, when perf is
# installed, that share against perf --call-graph dwarf's on the same program (ringprof's >=
# perf's - 5 points; Debian 12's perf 6.1 unwinds with libunwind, which reads .eh_frame only: it
# finds no caller of inner in either program, 0 %). Shares only: the test holds on a loaded
# machine. Environment: KEEP=1 keeps $T, DBGFRAME_SECS the seconds per recording (1.5).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

DF="$top_builddir/tests/workload/rp-dbgframe"
GO="$top_builddir/tests/workload/rp-go"
SECS=${DBGFRAME_SECS:-1.5}
[ -x "$DF" ] || fail "$DF is missing: 'make check' builds it"
require_perf_events

ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
# upct HEAD: the complete share of "# user stacks: X% complete; ..." (0 when absent).
upct() {
	awk '/^# user stacks:/ { if (match($0, /[0-9.]+% complete/)) { print substr($0, RSTART, RLENGTH - 10) + 0; f = 1 } }
		END { if (!f) print 0 }' "$1"
}
# chain_share FOLDED COMM HOT CHAIN: percent of COMM's samples with the user frame HOT whose
# user frames from the outermost to the outermost HOT end with CHAIN (";"-separated, EREs).
chain_share() {
	ufold <"$1" | awk -v comm="^($2)\$" -v hot="^($3)\$" -v chain="(^|;)($4)\$" '{
		n = $NF; line = substr($0, 1, length($0) - length($NF) - 1)
		k = split(line, f, ";")
		if (f[1] !~ comm) next
		for (i = 2; i <= k && f[i] !~ hot; i++);
		if (i > k) next
		tot += n; p = f[2]
		for (j = 3; j <= i; j++) p = p ";" f[j]
		if (p ~ chain) hit += n
	} END { printf "%.1f\n", tot ? 100 * hit / tot : 0 }'
}

# one NAME PROGRAM COMM HOT CHAIN: record PROGRAM with ringprof (and perf), check the shares.
one() {
	local name=$1 prog=$2 comm=$3 hot=$4 chain=$5 c s p
	"$RP" record -g -e cpu-clock -F 999 -o "$T/$name.data" -- "$prog" "$SECS" >"$T/$name.out" 2>"$T/$name.err"
	check_eq $? 0 "$name: ringprof record -g exits 0"
	"$RP" report -i "$T/$name.data" --no-children 2>"$T/$name.rerr" | grep '^#' >"$T/$name.head"
	"$RP" report -i "$T/$name.data" --folded >"$T/$name.folded" 2>>"$T/$name.rerr"
	c=$(upct "$T/$name.head")
	ge "$c" 90 || { cat "$T/$name.head" "$T/$name.err" >&2; fail "$name: user stacks $c % complete (< 90)"; }
	ok "$name: user stacks $c % complete (>= 90)"
	s=$(chain_share "$T/$name.folded" "$comm" "$hot" "$chain")
	ge "$s" 90 || { sort -k2 -nr -t' ' "$T/$name.folded" | head -5 >&2; fail "$name: $s % of $hot's samples under $chain (< 90)"; }
	ok "$name: $s % of $hot's samples under $chain (>= 90)"
	command -v perf >/dev/null || { echo "# $name: perf not installed, not compared"; return; }
	perf record -q -e cpu-clock -F 999 --call-graph dwarf -o "$T/$name.perf" -- "$prog" "$SECS" \
		>"$T/$name.pout" 2>"$T/$name.perr" || { echo "# $name: perf record failed, not compared: $(tail -1 "$T/$name.perr")"; return; }
	perf_fold "$T/$name.perf" >"$T/$name.pfolded"
	p=$(chain_share "$T/$name.pfolded" "$comm" "$hot" "$chain")
	ge "$s" "$(awk -v p="$p" 'BEGIN { print p - 5 }')" || fail "$name: ringprof $s % of $hot's samples under $chain, perf $p %"
	ok "$name: $hot under $chain: ringprof $s %, perf --call-graph dwarf $p %"
}

# The fixture is what it claims: its own functions only in .debug_frame.
readelf -SW "$DF" | grep -q ' \.debug_frame ' || fail "$DF has no .debug_frame"
readelf -wf "$DF" 2>/dev/null | grep -q 'FDE' || fail "$DF: readelf shows no FDE"
one c "$DF" rp-dbgframe inner 'main;outer;inner'
if [ -x "$GO" ]; then
	one go "$GO" rp-go 'main\.inner' 'main\.main;main\.outer;main\.inner'
else
	echo "# $GO not built (no Go compiler): Go not checked"
fi
