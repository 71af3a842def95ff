#!/bin/bash
# record-perf-opts.sh — perf's record spellings that mean something else in ringprof are told
# apart, not swallowed: -d (perf's --data) never takes the command or an option for a duration,
# -z takes perf's optional level, -v says the set-up as perf's -v does.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
R="$RP record"

# --- -d: a duration here; perf's -d (--data) takes no argument ---
for next in -- -g ./prog; do
	$R -d "$next" -o "$T/d.data" -- true >"$T/out" 2>&1; rc=$?
	check_eq "$rc" 2 "-d $next exits 2"
	check_grep "^ringprof record: -d takes a duration in seconds \\(e\\.g\\. -d 10\\), not '$next'; perf record's -d \\(--data, sample data addresses\\) is not supported$" \
		"$T/out" "-d $next: says what -d is and that perf's -d is not supported"
	[ ! -e "$T/d.data" ] || fail "-d $next recorded"
done
$R -d 1x -- true >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "-d 1x exits 2"
check_grep "^ringprof record: invalid duration '1x' \\(seconds, e\\.g\\. 10 or 0\\.5\\)$" "$T/out" "-d 1x: a bad number"
$R --data -- true >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "--data exits 2"
check_grep "^ringprof record: --data \\(perf's -d: sample data addresses\\) is not supported" "$T/out" "--data: why"

# --- -z[N]: the level is optional, and a number given apart is the level, not the command ---
# level OPTS...: the zstd level -v reports for record OPTS -- WL.
level() {
	$R -q -v -e cpu-clock -F 99 -o "$T/z.data" "$@" -- "$WL" -d 0.1 -q >"$T/z.out" 2>"$T/z.err" ||
		fail "record $*: $(cat "$T/z.err")"
	[ -s "$T/z.data" ] || fail "record $* wrote no file"
	sed -n 's/^ringprof record: output: .*, zstd level \([0-9]*\), .*/\1/p' "$T/z.err"
}
check_eq "$(level)" 6 "the default level"
check_eq "$(level -z)" 6 "-z alone keeps the default level"
check_eq "$(level -z3)" 3 "-z3"
check_eq "$(level -z 4)" 4 "-z 4: 4 is the level"
check_eq "$(level --compression=5)" 5 "--compression=5"
check_eq "$(level --compression 7)" 7 "--compression 7"
check_eq "$(level --compression-level=9)" 9 "--compression-level=9 (perf's name)"
check_eq "$(level -z -g)" 6 "-z -g: -g is not taken for a level"
check_grep '^ringprof record: call graph: dwarf, 8192-byte user stack copies$' "$T/z.err" "-z -g: -g still records callchains"
$R -z25 -- true >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "-z25 exits 2"
check_grep "^ringprof record: invalid compression level '25' \\(zstd levels 1-19" "$T/out" "-z25: the range"
$R --compression-level=fast -- true >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "--compression-level=fast exits 2"
ok "-z: perf's optional level, never the command"

# --- -v: the set-up, on stderr ---
$R -v -e cpu-clock -F 199 --call-graph dwarf,16384 -o "$T/v.data" -- "$WL" -d 0.3 -q >"$T/v.out" 2>"$T/v.err" ||
	fail "record -v: $(cat "$T/v.err")"
check_grep '^ringprof record: event 0: cpu-clock$' "$T/v.err" "-v: the event"
check_grep '^ringprof record: sampling: 199 Hz per CPU$' "$T/v.err" "-v: the frequency"
check_grep '^ringprof record: call graph: dwarf, 16384-byte user stack copies$' "$T/v.err" "-v: the call graph"
check_grep '^ringprof record: mmap pages: the default \(see -m\)$' "$T/v.err" "-v: the ring size, not guessed"
check_no_grep '^ringprof record: duration: ' "$T/v.err" "-v: no duration line without -d"
n=$(sed -n 's/^ringprof record: target: a command and its children, events open on \([0-9]*\) CPUs$/\1/p' "$T/v.err")
check_range "${n:-0}" 1 "$(nproc)" "-v: the CPUs the events are open on"
check_grep '^\[ ringprof record: [0-9]+ samples' "$T/v.err" "-v keeps the summary"
# -d 0.2 ends the 1-second workload: its status (SIGTERM's) is record's, as documented.
$R -e cpu-clock -m 64 -c 100000 -d 0.2 -o "$T/v2.data" -v -q -- "$WL" -d 1 -q >/dev/null 2>"$T/v2.err"
[ -s "$T/v2.data" ] || fail "record -v -q wrote nothing: $(cat "$T/v2.err")"
check_grep '^ringprof record: sampling: every 100000 events$' "$T/v2.err" "-v: a period"
check_grep '^ringprof record: mmap pages: 64 per CPU$' "$T/v2.err" "-v: -m"
check_grep '^ringprof record: call graph: none$' "$T/v2.err" "-v: no call graph"
check_grep '^ringprof record: duration: 0.20 s$' "$T/v2.err" "-v: -d"
check_no_grep '^\[ ringprof record:' "$T/v2.err" "-v -q: no summary"
$R -q -e cpu-clock -o "$T/q.data" -- "$WL" -d 0.1 -q >/dev/null 2>"$T/q.err" || fail "record without -v"
check_no_grep 'ringprof record: (event 0|sampling):' "$T/q.err" "without -v: no set-up lines"
$R --help >"$T/help"
check_grep '^  -v, --verbose ' "$T/help" "--help: -v"
check_grep '^  -z, --compression\[=N\] ' "$T/help" "--help: -z's optional level"
