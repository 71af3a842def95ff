#!/bin/bash
# report-focus.sh — focus filters: -S (perf's: the samples of these leaf symbols; with
# --no-children -g caller, who calls them) against perf's -S on the same run; --focus and
# --ignore (pprof's) keep and drop stacks and add up; --symbol-filter hides entries only; the
# same filters in script, --folded, --pprof and diff.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

perf_ok=
if command -v perf >/dev/null; then
	# --buildid-mmap: ringprof's MMAP2 records are mislabelled otherwise (README, known issues).
	perf record -q --buildid-mmap -e cpu-clock -F 999 -g -o "$T/perf.data" -- \
		"$RP" record -q -e cpu-clock -F 999 -g -o "$T/rp.data" -- "$WL" -d 2 -q 2>"$T/perf.err" &&
		perf_ok=1
fi
if [ -z "$perf_ok" ]; then
	echo "# perf is missing or failed ($(tail -1 "$T/perf.err" 2>/dev/null)): no cross-check"
	"$RP" record -q -e cpu-clock -F 999 -g -o "$T/rp.data" -- "$WL" -d 2 -q || fail "ringprof record"
fi
C="--comm rp-workload"

# ---- -S: one entry, its callers --------------------------------------------------------------
"$RP" report -i "$T/rp.data" $C --no-children -n -s sym >"$T/all" || fail "report"
leaf_n=$(awk '$NF == "hot_leaf" { print $2 }' "$T/all")
total_n=$(sed -n 's/^# samples: \([0-9]*\) .*/\1/p' "$T/all")
[ -n "$leaf_n" ] && [ -n "$total_n" ] || fail "no hot_leaf count or total in the plain report"
"$RP" report -i "$T/rp.data" $C --no-children -g caller -S hot_leaf >"$T/s" 2>"$T/err" ||
	fail "report -S: $(cat "$T/err")"
check_eq "$(awk '$1 ~ /%$/' "$T/s" | awk '{ print $NF }' | sort -u | tr '\n' ' ')" "hot_leaf " \
	"-S hot_leaf: hot_leaf is the one entry"
check_grep "^# focus: -S hot_leaf: kept $leaf_n of $total_n samples \(" "$T/s" \
	"the header says -S is active and kept hot_leaf's $leaf_n of $total_n samples"
grep -oE -- '--[0-9.]+%--[A-Za-z_]+$' "$T/s" | sed 's/--\([0-9.]*\)%--\(.*\)/\2 \1/' >"$T/callers"
check_grep '^hot_outer_a ' "$T/callers" "the caller tree has hot_outer_a"
check_grep '^hot_outer_b ' "$T/callers" "the caller tree has hot_outer_b"

if [ -n "$perf_ok" ]; then
	perf report -i "$T/perf.data" --stdio --no-children -g caller -S hot_leaf --comms rp-workload \
		2>/dev/null >"$T/perf.s"
	# perf prints a chain without branches as bare names: every frame name of its tree.
	grep -E '^ +[-|` ]*(--[0-9.]+%--)?[A-Za-z_]+ *$' "$T/perf.s" | sed 's/.*[- |`]//' |
		sort -u >"$T/perf.names"
	grep -oE -- '--[0-9.]+%--[A-Za-z_]+$' "$T/perf.s" | sed 's/--\([0-9.]*\)%--\(.*\)/\2 \1/' >"$T/perf.callers"
	check_eq "$(cut -d' ' -f1 "$T/perf.callers" | sort -u | tr '\n' ' ')" "hot_outer_a hot_outer_b " \
		"perf's -S tree branches at hot_leaf's callers, hot_outer_a and hot_outer_b"
	cut -d' ' -f1 "$T/callers" | sort -u >"$T/rp.names"
	check_eq "$(comm -23 "$T/perf.names" "$T/rp.names" | grep -v '^hot_leaf$' | tr '\n' ' ')" "" \
		"each frame of perf's -S tree ($(tr '\n' ' ' <"$T/perf.names")) is in ringprof's"
	# perf's shares are of all samples: hot_outer_a's part of hot_leaf's, both ways.
	pa=$(awk '$1 == "hot_outer_a" { a = $2 } $1 == "hot_outer_b" { b = $2 } END { printf "%.1f", 100 * a / (a + b) }' "$T/perf.callers")
	ra=$(awk '$1 == "hot_outer_a" { a = $2 } $1 == "hot_outer_b" { b = $2 } END { printf "%.1f", 100 * a / (a + b) }' "$T/callers")
	awk -v a="$pa" -v b="$ra" 'BEGIN { d = a - b; exit !(d <= 6 && d >= -6) }' ||
		fail "hot_outer_a's part of hot_leaf: perf $pa %, ringprof $ra %"
	ok "hot_outer_a's part of hot_leaf's samples: perf $pa %, ringprof $ra % (75 % by design)"
else
	echo "ok # SKIP perf -S cross-check: perf could not record"
fi

# ---- --focus and --ignore: kept + dropped = total --------------------------------------------
kept() { sed -n 's/^# focus: .*: kept \([0-9]*\) of .*/\1/p' "$1"; }
"$RP" report -i "$T/rp.data" $C --focus 'outer_b$' >"$T/f" || fail "--focus"
"$RP" report -i "$T/rp.data" $C --ignore 'outer_b$' >"$T/i" || fail "--ignore"
fk=$(kept "$T/f")
ik=$(kept "$T/i")
check_eq "$((fk + ik))" "$total_n" "--focus keeps $fk, --ignore keeps $ik: together all $total_n"
check_range "$fk" 1 "$((total_n / 5))" "--focus outer_b\$ keeps hot_outer_b's stacks (5 % by design)"
"$RP" report -i "$T/rp.data" $C --focus 'outer_b$' --folded >"$T/f.folded" || fail "--focus --folded"
"$RP" report -i "$T/rp.data" $C --ignore 'outer_b$' --folded >"$T/i.folded" || fail "--ignore --folded"
check_eq "$(grep -vc ';hot_outer_b[; ]' "$T/f.folded")" 0 "--focus: every folded stack goes through hot_outer_b"
check_no_grep 'hot_outer_b' "$T/i.folded" "--ignore: no folded stack goes through hot_outer_b"
check_eq "$(awk '{ n += $NF } END { print n }' "$T/f.folded")" "$fk" "--folded counts what --focus kept"
"$RP" report -i "$T/rp.data" $C --focus '(' 2>"$T/err" && fail "a bad --focus regex was taken"
check_grep "^ringprof report: --focus '\(': " "$T/err" "a bad --focus regex is refused with regerror's words"

# ---- --symbol-filter: entries hidden, shares unchanged ---------------------------------------
"$RP" report -i "$T/rp.data" $C --children >"$T/c" || fail "report --children"
"$RP" report -i "$T/rp.data" $C --children --symbol-filter hot >"$T/sf" || fail "--symbol-filter"
awk '$1 ~ /%$/ { print $NF }' "$T/sf" | sort >"$T/sf.names"
check_eq "$(tr '\n' ' ' <"$T/sf.names")" "hot_leaf hot_outer_a hot_outer_b " "--symbol-filter hot: the hot_ entries only"
check_eq "$(awk '$1 ~ /%$/ && $NF == "hot_outer_a" { print $1, $2 }' "$T/sf")" \
	"$(awk '$1 ~ /%$/ && $NF == "hot_outer_a" { print $1, $2 }' "$T/c")" \
	"--symbol-filter leaves hot_outer_a's Children and Self as they are"

# ---- script, --pprof, diff --------------------------------------------------------------------
"$RP" script -i "$T/rp.data" $C -S hot_leaf >"$T/script" || fail "script -S"
check_eq "$(grep -c '^rp-workload ' "$T/script")" "$leaf_n" "script -S prints hot_leaf's $leaf_n samples"
check_eq "$(awk '/^rp-workload / { getline; print $2 }' "$T/script" | sed 's/+0x.*//' | sort -u)" hot_leaf \
	"each sample script -S prints has hot_leaf as its leaf"
PPROF=/usr/lib/go-1.19/pkg/tool/linux_amd64/pprof
if [ -x "$PPROF" ]; then
	export PPROF_TMPDIR="$T/pprof-home" HOME="$T"
	"$RP" report -i "$T/rp.data" $C --ignore 'outer_b$' --pprof "$T/i.pb.gz" || fail "--ignore --pprof"
	"$PPROF" -traces "$T/i.pb.gz" >"$T/traces" 2>&1 || fail "pprof -traces: $(cat "$T/traces")"
	check_no_grep 'hot_outer_b' "$T/traces" "--pprof with --ignore: no stack through hot_outer_b"
	check_grep 'hot_outer_a' "$T/traces" "--pprof with --ignore keeps the other stacks"
else
	echo "ok # SKIP pprof: $PPROF is missing (golang-1.19-go)"
fi
"$RP" diff $C -S hot_leaf "$T/rp.data" "$T/rp.data" >"$T/diff" || fail "diff -S"
check_eq "$(awk '$1 ~ /%$/ { print $NF }' "$T/diff" | sort -u)" hot_leaf "diff -S: hot_leaf alone"
exit 0
