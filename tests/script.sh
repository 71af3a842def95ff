#!/bin/bash
# script.sh — `ringprof script`: one symbolized sample after another, as perf script prints
# them; every report filter selects exactly the samples `report -n` counts with it; perf
# script on the same workload names the same functions.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
SCRIPT="$top_builddir/ringprof-script"

"$RP" record -q -e cpu-clock -F 499 --call-graph fp -o "$T/rp.data" -- "$WL" -d 2 >"$T/wl.out" ||
	fail "ringprof record"
pid=$(sed -n 's/.*main [0-9.]* (pid \([0-9]*\)).*/\1/p' "$T/wl.out")
[ -n "$pid" ] || fail "no pid in the workload's output: $(cat "$T/wl.out")"

"$RP" script -i "$T/rp.data" >"$T/all.txt" 2>"$T/all.err" || fail "ringprof script: $(cat "$T/all.err")"
# The sample line: comm pid/tid [cpu] seconds: period event:
check_grep "^rp-workload +$pid/$pid +\[00[01]\] +[0-9]+\.[0-9]{6}: +[0-9]+ cpu-clock: $" "$T/all.txt" \
	"a main-thread sample line: comm, pid/tid, [cpu], time, period, event"
check_grep "^rp-worker +$pid/[0-9]+ +\[" "$T/all.txt" "the worker thread: its process's pid, its own tid"
check_grep "^	 *[0-9a-f]+ worklib_spin\+0x[0-9a-f]+ \(/.*/librp-worklib\.so\)$" "$T/all.txt" \
	"a frame: address, symbol+0xoffset, (object path)"

# Leaf first: the frame after hot_leaf is its caller, then run_main; the worker's leaf is
# worker_spin, called by worker_main.
awk '/^[^\t]/ { n = 0; next } /^\t/ { n++; sub(/\+0x.*/, ""); f[n] = $2; if (n == 3 && f[1] == "hot_leaf") print f[1], f[2], f[3] }' \
	"$T/all.txt" | sort | uniq -c >"$T/hot.txt"
check_grep "hot_leaf hot_outer_a run_main" "$T/hot.txt" "hot_leaf <- hot_outer_a <- run_main"
check_grep "hot_leaf hot_outer_b run_main" "$T/hot.txt" "hot_leaf <- hot_outer_b <- run_main"
# With frame pointers a sample taken on hot_leaf's first instructions (before it pushed rbp)
# reads its caller's caller as its caller: perf's fp chains do the same. Such samples are rare
# (one in a few hundred of hot_leaf's): at most 2 % of them, never the usual stack.
read -r skipped all_hot < <(awk '{ t += $1; if ($3 == "run_main" || $3 == "main") s += $1 } END { print s + 0, t + 0 }' "$T/hot.txt")
check_range "$((skipped * 100))" 0 "$((all_hot * 2))" \
	"hot_leaf straight under run_main or main in at most 2 % of its samples ($skipped of $all_hot: fp at a function's entry)"
awk '/^rp-worker / { w = 1; n = 0; next } /^[^\t]/ { w = 0 } w && /^\t/ { n++; sub(/\+0x.*/, ""); if (n <= 2) printf "%s%s", $2, n == 2 ? "\n" : " " }' \
	"$T/all.txt" | sort | uniq -c | sort -rn | head -1 >"$T/worker.txt"
check_grep "worker_spin worker_main$" "$T/worker.txt" "the worker's usual stack: worker_spin <- worker_main"

# Time order.
awk '/^[^\t]/ { t = $4; sub(":", "", t); if (t + 0 < last) { print "back in time:", last, t; exit 1 } last = t + 0 }' \
	"$T/all.txt" || fail "samples are not in time order"
ok "samples in time order"

# count FILE: sample lines; report_n ARGS: the Samples column of report -n, summed.
count() { grep -Ec ' cpu-clock: $' "$1"; }
report_n() {
	"$RP" report -i "$T/rp.data" -n --no-children -s comm "$@" |
		awk '$1 ~ /%$/ { n += $2 } END { print n + 0 }'
}
check_eq "$(count "$T/all.txt")" "$(report_n)" "every sample: script's count = report -n's"

# The CPU the worker ran on most (on a busy machine the scheduler may keep it on either).
wcpu=$(awk '/^rp-(worker|child) / { c[$3]++ } END { for (k in c) if (c[k] > m) { m = c[k]; b = k } print b }' \
	"$T/all.txt" | tr -d '[]' | sed 's/^0*\([0-9]\)/\1/')
for f in "--pid $pid" "--tid $pid" "--comm rp-worker" "--cpu 0" "--since +1 --until +1.5s" \
	"--dso librp-worklib.so" "--comm rp-child,rp-worker --cpu ${wcpu:-1}"; do
	# shellcheck disable=SC2086
	"$RP" script -i "$T/rp.data" $f >"$T/f.txt" || fail "script $f"
	n=$(count "$T/f.txt")
	[ "$n" -gt 0 ] || fail "script $f selected nothing"
	# shellcheck disable=SC2086
	check_eq "$n" "$(report_n $f)" "script $f: $n samples, as report -n counts"
done
"$RP" script -i "$T/rp.data" --pid "$pid" | awk '/^[^\t]/ && $2 !~ "^'"$pid"'/" { print; exit 1 }' ||
	fail "--pid $pid printed another process's sample"
ok "--pid: only that process's samples"
"$RP" script -i "$T/rp.data" --cpu 0 | awk '/^[^\t]/ && $3 != "[000]" { print; exit 1 }' ||
	fail "--cpu 0 printed another CPU's sample"
ok "--cpu 0: only CPU 0's samples"
"$RP" script -i "$T/rp.data" --comm rp-worker | awk '/^[^\t]/ && $1 != "rp-worker" { print; exit 1 }' ||
	fail "--comm rp-worker printed another command's sample"
ok "--comm: only that command's samples"
"$RP" script -i "$T/rp.data" --dso librp-worklib.so |
	awk '/^[^\t]/ { n = 0; next } /^\t/ && ++n == 1 && $NF !~ /librp-worklib\.so\)$/ { print; exit 1 }' ||
	fail "--dso: a leaf frame outside librp-worklib.so"
ok "--dso: every leaf frame in librp-worklib.so"
"$RP" script -i "$T/rp.data" --max-stack 2 | awk '/^[^\t]/ { n = 0; next } /^\t/ && ++n > 2 { exit 1 }' ||
	fail "--max-stack 2 printed a third frame"
ok "--max-stack 2: at most two frames"

# FlameGraph's stackcollapse-perf.pl grammar (tests/perf-script-fold.pl): every line is
# recognized, and the stacks it folds are report --folded's, count for count.
perl "$top_srcdir/tests/perf-script-fold.pl" --kernel "$T/all.txt" >"$T/collapsed.txt" 2>"$T/collapsed.err" ||
	fail "a line stackcollapse-perf.pl would not recognize: $(head -3 "$T/collapsed.err")"
# report --folded names a frame in no known object "[unknown] 0xADDRESS", where script prints
# "ADDRESS [unknown] ([unknown])", which stackcollapse folds as "[unknown]": the same stacks
# once the addresses are dropped (and the stacks that then read alike added up).
"$RP" report -i "$T/rp.data" --folded | sed 's/\[unknown\] 0x[0-9a-f]*/[unknown]/g' |
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); c[$0] += n } END { for (k in c) print k, c[k] }' |
	LC_ALL=C sort >"$T/folded.txt" || fail "report --folded"
LC_ALL=C sort -o "$T/collapsed.txt" "$T/collapsed.txt"
[ -s "$T/folded.txt" ] || fail "report --folded printed nothing"
diff -u "$T/folded.txt" "$T/collapsed.txt" >"$T/collapsed.diff" ||
	fail "stackcollapse's stacks differ from report --folded's: $(head -20 "$T/collapsed.diff")"
ok "stackcollapse-perf.pl's grammar folds script into report --folded's $(wc -l <"$T/folded.txt") stacks"

# layout FILE: each line of FILE printed again with perf script's formats (perf 6.1, -F
# comm,pid,tid,cpu,time,period,event,ip,sym,symoff,dso, an event with callchains): a line that
# differs is printed and the status is 1.
layout() {
	perl -ne 'chomp; next if $_ eq "";
		if (/^\t/) { /^\t *([0-9a-f]+) (\S.*) \((.*)\)$/ or die "frame? $_\n";
			$want = sprintf("\t%16s %s (%s)", $1, $2, $3); }
		else { /^(\S.*?) +(\d+)\/(\d+) +\[(\d+)\] +(\d+\.\d{6}): +(\d+) +(\S+): $/
				or die "sample? $_\n";
			$want = sprintf("%s %5d/%-5d [%03d] %12s: %10d %s: ", $1, $2, $3, $4, $5, $6, $7); }
		$want eq $_ or die "layout:\n$_\nperf:\n$want\n"; $n++;
		END { print $n + 0, "\n" }' "$1"
}
n=$(layout "$T/all.txt") || fail "script is not laid out as perf script: $n"
ok "script's $n lines laid out byte for byte as perf script's formats"
# -F +unit: the unit after the event, one more space, where perf's -F +cgroup goes.
"$RP" script -i "$T/rp.data" -F +unit >"$T/unit.txt" || fail "script -F +unit"
check_eq "$(grep -Ec '^[^	].* cpu-clock:  [^ ]+$' "$T/unit.txt")" "$(count "$T/all.txt")" \
	"script -F +unit: every sample line ends in its unit"

# The same workload under perf: perf script names the same functions in its frames, and its
# lines are laid out as ours (perf records the CPU with --sample-cpu).
if command -v perf >/dev/null; then
	perf record -q --no-buildid --sample-cpu -e cpu-clock -F 499 -g -o "$T/perf.data" -- "$WL" -d 2 -q \
		>/dev/null 2>"$T/perf.err" || fail "perf record: $(cat "$T/perf.err")"
	perf script -i "$T/perf.data" -F comm,pid,tid,cpu,time,period,event,ip,sym,symoff,dso \
		2>/dev/null >"$T/perf.txt"
	n=$(layout "$T/perf.txt") || fail "the layout check does not hold for perf script itself: $n"
	ok "perf script's own $n lines follow the same formats"
	perl "$top_srcdir/tests/perf-script-fold.pl" --kernel "$T/perf.txt" >/dev/null 2>"$T/collapsed.err" ||
		fail "the fold check rejects perf script's own lines: $(head -3 "$T/collapsed.err")"
	for fn in warm_func hot_leaf hot_outer_a hot_outer_b run_main main worker_spin worker_main \
		worklib_spin child_main; do
		grep -Eq "^	 *[0-9a-f]+ $fn\+0x" "$T/perf.txt" ||
			fail "perf script has no $fn frame in $(grep -c ' cpu-clock:' "$T/perf.txt") samples"
		grep -Eq "^	 *[0-9a-f]+ $fn\+0x" "$T/all.txt" || fail "ringprof script has no $fn frame (perf has)"
	done
	ok "perf script and ringprof script name the workload's functions alike"
	# perf's leaf-first order: its hot_leaf samples are called by hot_outer_a/b as ours.
	awk '/^[^\t]/ { n = 0; next } /^\t/ { n++; sub(/\+0x.*/, ""); f[n] = $2; if (n == 2 && f[1] == "hot_leaf") print f[2] }' \
		"$T/perf.txt" | sort -u >"$T/perf-hot.txt"
	check_eq "$(tr '\n' ' ' <"$T/perf-hot.txt")" "hot_outer_a hot_outer_b " "perf: hot_leaf's callers are ours"
else
	echo "# perf is not installed: no cross-check against perf script"
fi
exit 0
