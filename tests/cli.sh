#!/bin/bash
# cli.sh — command-line behaviour: help texts, usage errors, clear messages for bad input files.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

"$RP" --help >"$T/help" || fail "ringprof --help exits non-zero"
check_grep '^  record ' "$T/help" "ringprof --help lists record"
check_grep '^  report ' "$T/help" "ringprof --help lists report"

"$RP" record --help >"$T/rhelp" || fail "record --help"
for opt in --all-cpus --cpu --pid --event --freq --count --call-graph --switch-events --mmap-pages \
	--output --duration --compression --flush-interval --quiet --list-events --help --version; do
	grep -q -- "$opt" "$T/rhelp" || fail "record --help does not document $opt"
done
ok "record --help documents every option"

"$RP" report --help >"$T/phelp" || fail "report --help"
for opt in --input --call-graph --no-children --show-nr-samples --sort --percent-limit --max-stack --folded \
	--stats --dump --pid --tid --comm --dso --cpu --since --until --symfs --inline --debuginfod \
	--debuginfod-timeout --help --version; do
	grep -q -- "$opt" "$T/phelp" || fail "report --help does not document $opt"
done
ok "report --help documents every option"

"$RP" record -l >"$T/events"
check_grep '^  cpu-clock ' "$T/events" "--list-events lists cpu-clock"

"$RP" bogus >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "unknown command exits 2"
check_grep "'bogus' is not a ringprof command" "$T/out" "unknown command is named"

"$RP" record >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "record without a target exits 2"
check_grep 'nothing to record: give -a, -p PID, -t TID or -- COMMAND' "$T/out" "record without a target explains"
"$RP" record -a -p 1 >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "two targets exit 2"
check_grep 'only one target' "$T/out" "two targets explained"
"$RP" record -e no-such-event -- true >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "unknown event exits 2"
check_grep "unknown event 'no-such-event'" "$T/out" "unknown event named"
"$RP" record -m 3 -- true >"$T/out" 2>&1; rc=$?
check_grep 'power of two' "$T/out" "-m 3 refused with a reason"
"$RP" record -F abc -- true >"$T/out" 2>&1
check_grep "invalid frequency 'abc'" "$T/out" "bad -F refused"
"$RP" record -q -e cpu-clock -o "$T/x.data" -- /nonexistent/cmd >"$T/out" 2>&1; rc=$?
check_eq "$rc" 127 "a command that cannot run exits 127"
check_grep "cannot run '/nonexistent/cmd': No such file or directory" "$T/out" "exec failure explained"
(cd "$T" && "$RP" record -q -e cpu-clock -o - -- true >"$T/out" 2>&1); rc=$?
check_eq "$rc" 2 "-o - (perf's pipe mode) exits 2"
check_grep "^ringprof record: -o - \(perf's pipe mode\) is not supported: recordings are written to a file; give a file name$" \
	"$T/out" "-o - says there is no pipe mode"
[ ! -e "$T/-" ] || fail "-o - wrote a file named '-'"
ok "-o - writes no file named '-'"
"$RP" record -q -e cpu-clock -o /nonexistent-dir/x.data -- true >"$T/out" 2>&1; rc=$?
check_eq "$rc" 1 "unwritable output exits 1"
check_grep 'cannot create /nonexistent-dir/x.data: No such file or directory' "$T/out" "unwritable output explained"

(cd "$T" && "$RP" report >"$T/out" 2>&1); rc=$?
check_eq "$rc" 1 "report without a recording exits 1"
check_grep '^ringprof report: ringprof.data: cannot open: No such file or directory$' "$T/out" "report reads ringprof.data by default and says it is missing"
"$RP" report -g sideways >"$T/out" 2>&1; rc=$?
check_eq "$rc" 2 "a bad -g mode exits 2"
check_grep "-g takes caller or callee, not 'sideways'" "$T/out" "a bad -g mode is explained"
"$RP" report -s comm,bogus >"$T/out" 2>&1; rc=$?
check_grep "invalid sort keys 'comm,bogus' \(choose from comm,pid,tid,dso,sym,cpu,unit,srcline\)" "$T/out" "a bad sort key is explained"
"$RP" report --stats -i "$T/missing.data" >"$T/out" 2>&1; rc=$?
check_eq "$rc" 1 "missing recording exits 1"
check_grep 'missing.data: cannot open: No such file or directory' "$T/out" "missing recording explained"
: >"$T/empty.data"
"$RP" report --stats -i "$T/empty.data" >"$T/out" 2>&1; rc=$?
check_eq "$rc" 1 "empty recording exits 1"
check_grep 'the file is empty' "$T/out" "empty recording explained"
"$RP" report --stats -i "$T" >"$T/out" 2>&1; rc=$?
check_eq "$rc" 1 "directory exits 1"
check_grep 'is a directory' "$T/out" "directory explained"
printf 'PERFILE2\0\0\0\0\0\0\0\0' >"$T/perf.data"
"$RP" report --stats -i "$T/perf.data" >"$T/out" 2>&1; rc=$?
check_eq "$rc" 1 "perf.data exits 1"
check_grep 'perf.data file, not a ringprof recording' "$T/out" "perf.data named"
head -c 5000 /dev/urandom >"$T/random.data"
"$RP" report --stats -i "$T/random.data" >"$T/out" 2>&1; rc=$?
check_eq "$rc" 1 "random bytes exit 1"
check_grep 'not a ringprof recording' "$T/out" "random bytes explained"
echo hello | zstd -q -c >"$T/plain.zst"
"$RP" report --stats -i "$T/plain.zst" >"$T/out" 2>&1; rc=$?
check_grep 'zstd file without ringprof frames' "$T/out" "plain zstd file named"
# A report that cannot be written (a full disk) fails and says so instead of exiting 0.
if [ -w /dev/full ] && "$RP" record -q -e cpu-clock -o "$T/w.data" -- "$WL" -d 0.2 -q >/dev/null 2>&1; then
	"$RP" report -i "$T/w.data" >/dev/full 2>"$T/full.err"; rc=$?
	check_eq "$rc" 1 "report > /dev/full exits 1"
	check_grep '^ringprof report: writing the report failed: No space left on device$' "$T/full.err" "and names the reason"
	"$RP" report -i "$T/w.data" --stats >/dev/full 2>"$T/full.err"; rc=$?
	check_eq "$rc" 1 "report --stats > /dev/full exits 1"
fi
exit 0
