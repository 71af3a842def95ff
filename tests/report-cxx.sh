#!/bin/bash
# report-cxx.sh — C++ as perf shows it: rp-cxx (tests/workload/rp-cxx.cc and rp-cxx.h) burns
# its time in two instances of a template member, two callers of an always-inlined function
# and a lambda, all in a namespace. perf records ringprof recording it (one run, both tools):
# `report -s dso,sym` names every function perf names above 1 % verbatim (demangled, template
# arguments, the lambda's enclosing function), shares within 2 points; `-s sym,srcline` gives
# each function perf's heaviest file:line, the template's and the inlined function's lines in
# the header (rp-cxx.h), not in the .cc that instantiates or inlines them; annotate of each
# template instance shows the template's lines, its hottest line the loop's, perf annotate's
# heaviest instructions on the same run (their sum within 5 points); the inlined loop counts on
# the header's line, marked as the inlined function's. --full-source-path gives perf's paths.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare the C++ names and lines with"
W="$top_builddir/tests/workload/rp-cxx"
[ -x "$W" ] || fail "$W is not built (make check builds it)"
TPL=$(grep -n '/\* CXX-TEMPLATE \*/' "$top_srcdir/tests/workload/rp-cxx.h" | cut -d: -f1)
INL=$(grep -n '/\* CXX-INLINE \*/' "$top_srcdir/tests/workload/rp-cxx.h" | cut -d: -f1)
LAM=$(grep -n '/\* CXX-LAMBDA \*/' "$top_srcdir/tests/workload/rp-cxx.cc" | cut -d: -f1)
U32='rpcxx::Acc<unsigned int>::bar'
U64='rpcxx::Acc<unsigned long>::bar'

# --buildid-mmap: ringprof's MMAP2 records are mislabelled otherwise (README, known issues);
# perf 6.1 aborts now and then while another session asks the kernel for build-ids: 3 tries.
for _ in 1 2 3; do
	perf record -q --buildid-mmap -e cpu-clock -F 3999 -o "$T/perf.data" -- \
		"$RP" record -q -e cpu-clock -F 3999 -g -o "$T/rp.data" -- "$W" 3 2>"$T/perf.err" && break
done || fail "perf record of ringprof record: $(tail -3 "$T/perf.err")"

# rows FILE: "PCT<TAB>REST" of a table's entries, REST being what follows "[.] ".
rows() { awk '$1 ~ /%$/ && /\[\.\] / { p = $1; sub(/^.*\[\.\] +/, ""); sub(/ +$/, ""); print p "\t" $0 }' "$1"; }

# ---- names: every function perf shows above 1 % in rp-cxx, verbatim ------------------------
perf report -i "$T/perf.data" --stdio -q --no-children -g none -s dso,sym --comms rp-cxx \
	--percentage relative --percent-limit 1 2>/dev/null | awk '$2 == "rp-cxx"' >"$T/perf.sym"
"$RP" report --no-pager -i "$T/rp.data" --no-children -s dso,sym --comm rp-cxx >"$T/rp.sym" 2>"$T/err" ||
	fail "report -s dso,sym: $(cat "$T/err")"
rows "$T/perf.sym" >"$T/perf.rows"
rows "$T/rp.sym" >"$T/rp.rows"
check_eq "$(wc -l <"$T/perf.rows")" 5 "perf names rp-cxx's five hot functions"
for f in "$U32" "$U64" rpcxx::user_a rpcxx::user_b \
	'rpcxx::run(unsigned long, double)::{lambda(unsigned long, unsigned long)#2}::operator()'; do
	grep -qF "	$f" "$T/perf.rows" || fail "perf does not name '$f' (perf's rows: $(cut -f2 "$T/perf.rows" | tr '\n' '|'))"
done
while IFS=$'\t' read -r p name; do
	r=$(awk -F'\t' -v n="$name" '$2 == n { print $1; exit }' "$T/rp.rows")
	[ -n "$r" ] || { cat "$T/rp.sym" >&2; fail "perf names '$name'; ringprof's report does not"; }
	within "$p" "$r" 2 || fail "'$name': perf $p, ringprof $r"
	echo "ok - '$name': perf $p, ringprof $r"
done <"$T/perf.rows"
check_no_grep '\[\.\] _Z' "$T/rp.sym" "no mangled name in the flat report"

# ---- lines: each function's heaviest file:line is perf's ------------------------------------
perf report -i "$T/perf.data" --stdio -q --no-children -g none -s sym,srcline --comms rp-cxx \
	--percentage relative 2>/dev/null >"$T/perf.line"
"$RP" report --no-pager -i "$T/rp.data" --no-children -s sym,srcline --comm rp-cxx >"$T/rp.line" 2>"$T/err" ||
	fail "report -s sym,srcline: $(cat "$T/err")"
# top_line FILE NAME: the file:line of NAME's heaviest row (rows are sorted by share).
top_line() {
	awk -v n="$2" '$1 ~ /%$/ && /\[\.\] / { l = $NF; s = $0; sub(/^.*\[\.\] +/, "", s)
		sub(/ +[^ ]+ *$/, "", s); if (s == n) { print l; exit } }' "$1"
}
while IFS=$'\t' read -r _ name; do
	p=$(top_line "$T/perf.line" "$name")
	r=$(top_line "$T/rp.line" "$name")
	[ -n "$p" ] || fail "perf -s sym,srcline has no row for '$name'"
	check_eq "$r" "$p" "'$name': its heaviest line is perf's"
done <"$T/perf.rows"
check_eq "$(top_line "$T/rp.line" "$U32")" "rp-cxx.h:$TPL" "$U32: the template's loop, rp-cxx.h:$TPL"
check_eq "$(top_line "$T/rp.line" "$U64")" "rp-cxx.h:$TPL" "$U64: the same template line"
for f in user_a user_b; do
	check_eq "$(top_line "$T/rp.line" rpcxx::$f)" "rp-cxx.h:$INL" \
		"rpcxx::$f: the inlined rpcxx::mix's loop, rp-cxx.h:$INL"
done
check_grep "\{lambda\(unsigned long, unsigned long\)#2\}::operator\(\) rp-cxx\.cc:$LAM\$" "$T/rp.line" \
	"the lambda's loop, rp-cxx.cc:$LAM"
# --full-source-path (perf's): the whole path DWARF gives, as perf prints it.
perf report -i "$T/perf.data" --stdio -q --no-children -g none -s sym,srcline --comms rp-cxx \
	--percentage relative --full-source-path 2>/dev/null >"$T/perf.full"
"$RP" report --no-pager -i "$T/rp.data" --no-children -s sym,srcline --comm rp-cxx --full-source-path \
	>"$T/rp.full" 2>"$T/err" || fail "report --full-source-path: $(cat "$T/err")"
for f in "$U32" rpcxx::user_a; do
	p=$(top_line "$T/perf.full" "$f")
	case "$p" in /*/tests/workload/rp-cxx.h:*) ;; *) fail "perf --full-source-path gives '$p' for $f" ;; esac
	check_eq "$(top_line "$T/rp.full" "$f")" "$p" "--full-source-path: $f's heaviest line is perf's, $p"
done

# ---- annotate: a template instance's lines and instructions ---------------------------------
"$RP" annotate --stdio --no-pager -i "$T/rp.data" "$U32" "$U64" rpcxx::user_a >"$T/a.txt" 2>"$T/a.err" ||
	fail "ringprof annotate: $(cat "$T/a.err")"
# section FUNC: the lines of FUNC's section of a.txt.
section() { awk -v f="# $1 (rp-cxx):" 'index($0, f) == 1 { on = 1; next } /^# [^ ].* \(.*\): [0-9]+ samples/ { on = 0 } on' "$T/a.txt"; }
for f in "$U32" "$U64"; do
	section "$f" >"$T/sec"
	[ -s "$T/sec" ] || fail "annotate printed no section for $f"
	check_grep '^#   /.*/tests/workload/rp-cxx\.h$' "$T/sec" "$f: its source lines are the template's file"
	check_grep "^>> +[0-9.]+ +$TPL[[:space:]]+for \(T i = 0; i < n; i\+\+\) x = x \* static_cast<T>" "$T/sec" \
		"$f: the hottest line is the template's loop, with its text"
	# perf annotate on the same run: its heavy instructions here, their sum within 5 points.
	perf annotate --stdio -i "$T/perf.data" "$f" >"$T/perf.annotate" 2>/dev/null
	check_heavy_insns "$f" "$T/perf.annotate" "$T/sec" 5
done
section rpcxx::user_a >"$T/sec"
check_grep "^>> +[0-9.]+ +$INL[[:space:]]+.*CXX-INLINE.*\[inlined rpcxx::mix\]\$" "$T/sec" \
	"rpcxx::user_a: the hottest line is rpcxx::mix's, inlined"
check_grep '^#   /.*/tests/workload/rp-cxx\.cc$' "$T/sec" "rpcxx::user_a: its own lines are in rp-cxx.cc"
check_grep ' rp-cxx\.h:[0-9]+ \[inlined rpcxx::mix\]$' "$T/sec" "rpcxx::user_a: instructions name the file by its last component"
"$RP" annotate --stdio --no-pager -i "$T/rp.data" --full-source-path rpcxx::user_a >"$T/a.full" 2>"$T/a.err" ||
	fail "annotate --full-source-path: $(cat "$T/a.err")"
check_grep " $(top_line "$T/rp.full" rpcxx::user_a | sed 's/[.]/\\./g') \[inlined rpcxx::mix\]\$" "$T/a.full" \
	"annotate --full-source-path: instructions name the whole path, as report's"
exit 0
