#!/bin/bash
# report-focus.sh — focus filters: -S (perf's: the samples of these leaf symbols; with
# --no-children -g caller, who calls them) against perf's -S on the same run; --focus and
# --ignore (pprof's) keep and drop stacks and add up; --symbol-filter hides entries only; the
# same filters in script, --folded, --pprof and diff; annotate's functions and shares change
# as report's do; top's rows are report's on the recordings it made (--keep).
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
	within "$pa" "$ra" 6 ||
		fail "hot_outer_a's part of hot_leaf: perf $pa %, ringprof $ra %"
	ok "hot_outer_a's part of hot_leaf's samples: perf $pa %, ringprof $ra % (75 % by design)"
else
	echo "ok # SKIP perf -S cross-check: perf could not record"
fi

# ---- -S 0xADDR (perf's): the samples taken at that address ---------------------------------
# script prints each sample's own address, in the process's address space, as perf script.
"$RP" script -i "$T/rp.data" $C 2>/dev/null | awk '/^ *rp-workload / { getline; print $1, $2 }' |
	sort | uniq -c | sort -rn >"$T/ips"
read -r n_ip ip sym_ip <<<"$(awk '$3 ~ /^hot_leaf\+/' "$T/ips" | head -1)"
[ -n "$ip" ] || fail "script shows no sample in hot_leaf"
"$RP" report -i "$T/rp.data" $C --no-children -n -s sym -S "0x$ip" >"$T/sa" 2>"$T/err" || fail "report -S 0x$ip: $(cat "$T/err")"
check_grep "^# samples: $n_ip of [0-9]+ \(filtered\)" "$T/sa" "report -S 0x$ip keeps the $n_ip samples script shows at $ip ($sym_ip)"
check_eq "$(awk '$1 ~ /%$/ { print $1, $2, $NF }' "$T/sa")" "100.00% $n_ip hot_leaf" "-S 0x$ip: one entry, hot_leaf"
"$RP" report -i "$T/rp.data" $C --no-children -n -s sym -S "$ip" >"$T/sa2" 2>/dev/null || fail "report -S $ip"
check_eq "$(grep '^# samples:' "$T/sa2")" "$(grep '^# samples:' "$T/sa")" "-S $ip without 0x: the same, as perf's"
check_eq "$("$RP" script -i "$T/rp.data" $C -S "0x$ip" 2>/dev/null | awk '/^ *rp-workload / { getline; print $1 }' | sort -u)" \
	"$ip" "script -S 0x$ip: only the samples at $ip"
"$RP" report -i "$T/rp.data" $C -S "hot_leaf,0x$ip" >/dev/null 2>"$T/err" && fail "-S with a name and an address was taken"
check_grep "^ringprof report: -S 'hot_leaf,0x$ip': give -S symbol names or addresses \(0xADDR\), not both" \
	"$T/err" "a name and an address in -S: refused, saying why"
"$RP" report -i "$T/rp.data" $C -S cafe >"$T/cafe" 2>&1 || fail "report -S cafe"
check_grep "^# focus: -S cafe: kept 0 " "$T/cafe" "-S cafe (hex letters, no digit): a name, not an address"

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

# ---- annotate: the functions' samples and shares change as report's -------------------------
# fns FILE: "NAME SAMPLES SHARE" of each function annotate shows.
fns() { sed -n 's/^# \([^ ]*\) ([^)]*): \([0-9]*\) samples, \([0-9.]*\)% of all$/\1 \2 \3/p' "$1" | sort; }
# rep FILTER...: "NAME SAMPLES SHARE" of report --no-children -n -s sym's entries of 5 samples
# or more (fewer may tie, and ties are ordered by each program its own way).
rep() {
	"$RP" report -i "$T/rp.data" $C --no-children -n -s sym "$@" 2>/dev/null |
		awk '$1 ~ /%$/ && $2 >= 5 { s = $1; sub("%", "", s); print $4, $2, s }' | sort
}
"$RP" annotate --stdio -i "$T/rp.data" $C -S hot_leaf >"$T/a.s" 2>"$T/err" || fail "annotate -S: $(cat "$T/err")"
check_eq "$(fns "$T/a.s")" "hot_leaf $leaf_n 100.00" "annotate -S hot_leaf: hot_leaf alone, its $leaf_n samples, all of them"
check_grep "^# focus: -S hot_leaf: kept $leaf_n of $total_n samples \(" "$T/a.s" "annotate -S: the header says so, as report's"
for f in "--ignore outer_b\$" "--focus outer_b\$" "--focus hot_outer_a --ignore hot_leaf"; do
	# shellcheck disable=SC2086
	"$RP" annotate --stdio -i "$T/rp.data" $C -n 50 $f >"$T/a.f" 2>"$T/err" || fail "annotate $f: $(cat "$T/err")"
	# shellcheck disable=SC2086
	rep $f >"$T/r.f"
	check_eq "$(fns "$T/a.f" | awk '$2 >= 5')" "$(cat "$T/r.f")" "annotate $f: each function's samples and share are report's"
done
check_eq "$(fns "$T/a.f" | awk '$2 >= 5 { print $1 }' | tr '\n' ' ')" "hot_outer_a " \
	"annotate --focus hot_outer_a --ignore hot_leaf: hot_outer_a's own samples only"
"$RP" annotate --stdio -i "$T/rp.data" $C -n 3 >"$T/a.all" 2>"$T/err" || fail "annotate: $(cat "$T/err")"
check_no_grep '^# focus:' "$T/a.all" "annotate without a filter: no focus line"
"$RP" annotate --stdio -i "$T/rp.data" $C -n 3 --symbol-filter hot_ >"$T/a.sf" 2>"$T/err" ||
	fail "annotate --symbol-filter: $(cat "$T/err")"
fns "$T/a.sf" | awk '{ print $1 }' >"$T/a.sf.names"
check_grep '^hot_leaf$' "$T/a.sf.names" "annotate --symbol-filter hot_: hot_leaf is there"
check_eq "$(grep -vc '^hot_' "$T/a.sf.names")" 0 "annotate --symbol-filter hot_: no function without hot_"
check_eq "$(fns "$T/a.sf" | grep '^hot_leaf ')" "$(fns "$T/a.all" | grep '^hot_leaf ')" \
	"annotate --symbol-filter: hot_leaf's samples and share as without it"

# ---- top: -S, --focus, --ignore as report's on the recordings top made ----------------------
"$WL" -d 30 -q >/dev/null 2>&1 &
W=$!
BG_PIDS="$W"
sleep 0.3
# top_rows FILE: "NAME SAMPLES" of the last refresh's user rows.
top_rows() { awk '/^# ringprof top, refresh / { delete r; n = 0 } !/^#/ && $4 == "[.]" { r[++n] = $5 " " $2 }
	END { for (i = 1; i <= n; i++) print r[i] }' "$1" | sort; }
i=0
for f in "-S hot_leaf,hot_outer_a" "--ignore outer_b\$" "--focus outer_b\$"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$RP" top -p "$W" -e cpu-clock -g -d 1 -n 2 --stdio --keep "$T/keep$i" $f >"$T/t.out" 2>"$T/t.err" ||
		fail "top $f: status $? ($(tail -2 "$T/t.err"))"
	k=$(sed -n 's/^# ringprof top, refresh 2: .* in \([0-9]*\) recordings\{0,1\},.*/\1/p' "$T/t.out")
	[ -n "$k" ] || fail "top $f: no second refresh"
	inputs=$(ls "$T/keep$i"/top-*.data | head -"$k" | sed 's/^/-i /')
	# shellcheck disable=SC2086
	"$RP" report $inputs --no-children -n -s sym $f 2>/dev/null >"$T/t.rep" || fail "report $f of top's recordings"
	desc=$(sed -n 's/^# focus: \(.*\): kept .*/\1/p' "$T/t.rep")
	check_grep "^# focus: $(printf '%s' "$desc" | sed 's/[][\.*^$()+?{}|]/\\&/g'): only the samples kept are counted" \
		"$T/t.out" "top $f: the header names the filters as report's does"
	check_eq "$(top_rows "$T/t.out")" \
		"$(awk '$1 ~ /%$/ && $3 == "[.]" { print $4, $2 }' "$T/t.rep" | sort)" \
		"top $f: the rows and their samples are report's on the same recordings"
done
top_rows "$T/t.out" | awk '{ print $1 }' >"$T/t.names"
check_grep '^hot_leaf$' "$T/t.names" "top --focus outer_b\$: hot_leaf, called by hot_outer_b, is a row"
# What hot_leaf calls (its CPU clock reads) may have samples too; nothing of another path may.
check_eq "$(grep -cE '^(hot_outer_a|warm_func|run_main|main|worker_.*|child_.*)$' "$T/t.names")" 0 \
	"top --focus outer_b\$: no row of another path (hot_outer_a, warm_func, the worker)"
exit 0
