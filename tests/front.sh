#!/bin/bash
# front.sh — the ringprof front command: its help, `ringprof help CMD`, the man page, option
# errors named `ringprof record:`, and the name ps shows for a recorder started through it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

"$RP" --help >"$T/help" || fail "ringprof --help exits non-zero"
for cmd in record report script diff help; do
	check_grep "^  $cmd " "$T/help" "ringprof --help lists $cmd"
done
check_grep 'flat profile' "$T/help" "the help describes report's flat profile"
check_grep 'call graphs' "$T/help" "the help describes report's call graphs"
check_grep 'folded stacks' "$T/help" "the help describes report's folded output"
check_grep '[-]-stats' "$T/help" "the help names --stats"
check_grep '[-]-dump' "$T/help" "the help names --dump"
check_grep 'like perf script' "$T/help" "the help describes script"

# The overview page names every command the front knows, and formats cleanly.
M="$top_srcdir/man/ringprof.1"
for cmd in record report script diff help; do
	grep -Eq "^\.BI? \"?$cmd" "$M" || fail "ringprof.1 does not describe $cmd"
done
ok "ringprof.1 describes every command"
if command -v groff >/dev/null; then
	groff -man -Tutf8 -ww -z "$M" >"$T/groff" 2>&1
	[ ! -s "$T/groff" ] || fail "ringprof.1: $(head -3 "$T/groff")"
	ok "ringprof.1 formats without warnings"
fi

# help CMD: the manual page (from the source tree, since this ringprof runs from the build
# tree), or the command's --help where man is missing.
if command -v man >/dev/null; then
	MANPAGER=cat PAGER=cat MANWIDTH=80 "$RP" help record >"$T/hrec" 2>&1 || fail "ringprof help record: $(head -3 "$T/hrec")"
	check_grep '^RINGPROF-RECORD\(1\) ' "$T/hrec" "ringprof help record shows the man page"
	check_grep 'sample +CPU +activity +of +a +command' "$T/hrec" "... ringprof-record(1)'s NAME line"
	MANPAGER=cat PAGER=cat "$RP" help ringprof >"$T/hrp" 2>&1 || fail "ringprof help ringprof"
	check_grep '^RINGPROF\(1\) ' "$T/hrp" "ringprof help ringprof shows ringprof(1)"
fi
PATH=/nonexistent "$RP" help record >"$T/hnoman" 2>&1 || fail "ringprof help record without man: $(head -3 "$T/hnoman")"
check_grep '^Usage: ringprof record \[OPTIONS\] -- COMMAND' "$T/hnoman" "without man, help record prints record --help"
"$RP" help bogus >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "help of an unknown command exits 2"
check_grep "^ringprof: 'bogus' is not a ringprof command" "$T/out" "help of an unknown command names it"
# A typo is answered with the command it most likely meant, in one line.
"$RP" reprot >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "a mistyped command exits 2"
check_grep "^ringprof: 'reprot' is not a ringprof command; did you mean 'report'\?" "$T/out" "reprot: did you mean 'report'?"
check_eq "$(wc -l <"$T/out")" 1 "reprot: one line, not the whole usage"
"$RP" tpo >"$T/out" 2>&1
check_grep "did you mean 'top'\?" "$T/out" "tpo: did you mean 'top'?"
"$RP" frobnicate >"$T/out" 2>&1
check_no_grep "did you mean" "$T/out" "frobnicate: no guess for what is not near a command"

# Option errors carry the command's name as the user typed it, never getopt's argv[0].
opt_error() { # opt_error EXPECTED-LINE ARGS...
	local want=$1
	shift
	"$RP" record "$@" >"$T/out" 2>&1 && fail "record $* succeeded"
	check_grep "^$want\$" "$T/out" "record $*: $want"
	check_no_grep '^(record|ringprof-record):' "$T/out" "record $*: no getopt prefix"
}
opt_error "ringprof record: unknown option '--bogus'" --bogus -- true
opt_error "ringprof record: unknown option '--outptu'; did you mean '--output'\\?" --outptu x -- true
opt_error "ringprof record: unknown option '-Y'" -Y -- true
opt_error "ringprof record: option '--output' needs an argument" --output
opt_error "ringprof record: option '-o' needs an argument" -o
opt_error "ringprof record: option '--quiet' does not take an argument" --quiet=1 -- true
opt_error "ringprof record: option '--s' is ambiguous; it could be .*--switch-events.*" --s -- true
check_grep "^Try 'ringprof record --help'.$" "$T/out" "an option error points to --help"

# ps shows ringprof-record as the command and at the start of the arguments.
require_perf_events
"$RP" record -q -e cpu-clock -o "$T/ps.data" -- sleep 3 &
pid=$!
BG_PIDS="$pid"
for _ in $(seq 50); do
	comm=$(ps -o comm= -p "$pid")
	[ "$comm" = ringprof-record ] && break
	sleep 0.1
done
ps -o comm=,args= -p "$pid" >"$T/ps"
check_grep '^ringprof-record +ringprof-record -q -e cpu-clock -o ' "$T/ps" "ps shows ringprof-record (comm and args)"
kill -INT "$pid"
wait "$pid"
BG_PIDS=""
"$RP" report -i "$T/ps.data" --stats >"$T/stats" 2>&1 || fail "report --stats: $(head -3 "$T/stats")"
check_grep 'ringprof record -q -e cpu-clock -o ' "$T/stats" "the header's command line says 'ringprof record'"
exit 0
