#!/bin/bash
# report-workload.sh — the symbolized report on the bundled workload, whose shares are known by
# construction (tests/workload/README): top functions and shares, callers, the library's
# function in the library, the forked child and the thread under their own pid/tid and comm,
# folded output adding up, separate debug info, a rebuilt binary, kernel frames.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

# A private copy of the workload, so it can be stripped and replaced below.
W="$T/w"
mkdir -p "$W"
cp "$WL" "$top_builddir/tests/workload/librp-worklib.so" "$W/"
"$RP" record -q -e cpu-clock -F 999 -g -o "$T/w.data" -- "$W/rp-workload" -d 3 >"$T/wl.out" || fail "recording"
main_pid=$(sed -n 's/.*main [0-9.]* (pid \([0-9]*\)).*/\1/p' "$T/wl.out")
worker_tid=$(sed -n 's/.*worker [0-9.]* (tid \([0-9]*\)).*/\1/p' "$T/wl.out")
child_pid=$(sed -n 's/.*child [0-9.]* (pid \([0-9]*\)).*/\1/p' "$T/wl.out")

"$RP" report -i "$T/w.data" --no-children >"$T/self" 2>"$T/self.err" || fail "report: $(cat "$T/self.err")"
check_grep '^# samples: [0-9]+, lost: 0 \(0\.00%\), unresolved frames: [0-9.]+%$' "$T/self" "header: samples, lost, unresolved"
check_grep '^# event: cpu-clock, 999 Hz, callchains unwound while recording .dwarf.' "$T/self" "header: event and rate"
check_grep '^# host: .*, Linux ' "$T/self" "header: host and kernel"

# share COMM DSO SYM: the Self share of one entry, 0 when absent.
share() {
	awk -v c="$1" -v d="$2" -v s="$3" -v f="${4:-$T/self}" '
		$1 !~ /^#/ && $2 == c && $3 == d && $5 == s { sub("%", "", $1); print int($1 * 100 + 0.5); found = 1; exit }
		END { if (!found) print 0 }' "${4:-$T/self}"
}
# expect_share COMM DSO SYM PERCENT TOLERANCE (in points)
expect_share() {
	local got
	got=$(share "$1" "$2" "$3")
	check_range "$got" $(($4 * 100 - $5 * 100)) $(($4 * 100 + $5 * 100)) "$3 in $2 ($1) has about $4 % self (x100)"
}
expect_share rp-workload rp-workload warm_func 20 4
expect_share rp-workload rp-workload hot_leaf 20 4
expect_share rp-workload rp-workload hot_outer_a 10 3
expect_share rp-worker rp-workload worker_spin 25 4
expect_share rp-child librp-worklib.so worklib_spin 25 4

# Callers of hot_leaf: a (15 %) and b (5 %), and the whole path up to main.
"$RP" report -i "$T/w.data" --no-children -g callee >"$T/callee" || fail "report -g callee"
awk '/\[\.\] hot_leaf$/ { on = 1; next } on && /\[[.k]\] / { exit } on' "$T/callee" >"$T/leaf.tree"
check_grep '^ +\|--1[2-8]\.[0-9]+%--hot_outer_a$' "$T/leaf.tree" "hot_leaf is called from hot_outer_a (~15 %)"
check_grep '^ +`--[2-8]\.[0-9]+%--hot_outer_b$' "$T/leaf.tree" "hot_leaf is called from hot_outer_b (~5 %)"
check_grep '^ +\|   `--1[2-8]\.[0-9]+%--run_main$' "$T/leaf.tree" "then from run_main"
check_grep '^ +\|       `--1[2-8]\.[0-9]+%--main$' "$T/leaf.tree" "then from main"
awk '/\[\.\] worklib_spin$/ { on = 1; next } on && /\[[.k]\] / { exit } on' "$T/callee" >"$T/lib.tree"
check_grep '^ +`--2[0-9]\.[0-9]+%--child_main$' "$T/lib.tree" "worklib_spin is called from child_main"

# Children: main and run_main hold the main thread's half.
"$RP" report -i "$T/w.data" >"$T/children" || fail "report with children"
check_grep '^# Children +Self +Command' "$T/children" "Children and Self columns with callchains"
ch=$(awk '$3 == "rp-workload" && $6 == "run_main" { sub("%", "", $1); print int($1 + 0.5) }' "$T/children" | head -1)
check_range "${ch:-0}" 44 56 "run_main's children share is the main thread's half"
"$RP" report -i "$T/w.data" -g caller >"$T/caller" || fail "report -g caller"
awk '$3 == "rp-workload" && $6 == "hot_outer_a" { on = 1; next } on && /\[[.k]\] / { exit } on' "$T/caller" >"$T/a.tree"
check_grep '^ +`--1[2-8]\.[0-9]+%--hot_leaf$' "$T/a.tree" "-g caller: hot_outer_a calls hot_leaf"

# The child under its own pid and comm, the thread under its tid.
"$RP" report -i "$T/w.data" --no-children --pid "$child_pid" >"$T/child"
check_grep "^ +[0-9.]+% +rp-child +librp-worklib.so +\[\.\] worklib_spin$" "$T/child" "--pid of the child: worklib_spin"
check_no_grep 'worker_spin|warm_func' "$T/child" "--pid of the child: nothing of the parent"
"$RP" report -i "$T/w.data" --no-children --tid "$worker_tid" -s tid,comm,sym >"$T/thread"
check_grep "^ +(9[0-9]\.[0-9]+|100\.00)% +$worker_tid +rp-worker +\[\.\] worker_spin$" "$T/thread" "--tid of the worker: worker_spin under its tid"
"$RP" report -i "$T/w.data" --no-children -s pid,comm -n >"$T/bypid"
check_grep "^ +[0-9.]+% +[0-9]+ +$child_pid +rp-child$" "$T/bypid" "-s pid,comm: the child has its own pid"
"$RP" report -i "$T/w.data" --no-children --dso librp-worklib.so >"$T/dso"
# (The library's own exit code, __do_global_dtors_aux, can take a sample as a process ends.)
check_grep '^ +(99\.[0-9]+|100\.00)% +rp-child +librp-worklib.so +\[\.\] worklib_spin$' "$T/dso" "--dso: the library's samples are the child's worklib_spin"
check_eq "$(awk '/^ +[0-9.]+%/ && $3 != "librp-worklib.so"' "$T/dso")" "" "--dso keeps the library's samples only (no other object's rows)"
"$RP" report -i "$T/w.data" --no-children --comm rp-worker --percent-limit 50 >"$T/comm"
check_grep '^ +(9[0-9]\.[0-9]+|100\.00)% +rp-worker +rp-workload +\[\.\] worker_spin$' "$T/comm" "--comm and --percent-limit"
check_eq "$(grep -vc '^#' "$T/comm")" 1 "--percent-limit hides the small entries"

# Folded output adds up to the same totals as the flat table.
"$RP" report -i "$T/w.data" --folded >"$T/folded" || fail "--folded"
check_grep '^rp-workload;.*main;run_main;hot_outer_a;hot_leaf [0-9]+$' "$T/folded" "folded: the full path to hot_leaf"
check_grep '^rp-child;.*child_main;worklib_spin [0-9]+$' "$T/folded" "folded: the child's path"
total=$(awk '{ n += $NF } END { print n }' "$T/folded")
samples=$(sed -n 's/^# samples: \([0-9]*\),.*/\1/p' "$T/self")
check_eq "$total" "$samples" "folded counts add up to the header's samples"
leaf=$(awk '{ n = split($1, a, ";"); if (a[n] == "worklib_spin") c += $NF } END { print c + 0 }' "$T/folded")
flat=$(share rp-child librp-worklib.so worklib_spin)
calc=$(( (leaf * 10000 + samples / 2) / samples ))
check_range "$calc" $((flat - 2)) $((flat + 2)) "folded leaf count of worklib_spin matches the flat self share"

# A stripped binary whose debug info lives in a separate file (found by build-id under --symfs).
S="$T/symfs"
bid=$(build_id_of "$W/rp-workload")
mkdir -p "$S$W" "$S/usr/lib/debug/.build-id/${bid:0:2}"
objcopy --only-keep-debug "$W/rp-workload" "$S/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
objcopy --strip-all "$W/rp-workload" "$S$W/rp-workload"
cp "$W/librp-worklib.so" "$S$W/"
! nm "$S$W/rp-workload" 2>/dev/null | grep -q warm_func || fail "the stripped copy still has symbols"
"$RP" report -i "$T/w.data" --no-children --symfs "$S" >"$T/symfs.out" 2>"$T/symfs.err"
check_grep '^ +[0-9.]+% +rp-workload +rp-workload +\[\.\] warm_func$' "$T/symfs.out" "stripped binary + separate debug info resolves"

# The binary rebuilt after recording: reported once, its frames not mis-named. Recordings
# carry the binaries' symbols (then the rebuilt one is named from them, see
# report-captured.sh): this one is made without them.
"$RP" record -q --no-symbols -e cpu-clock -F 999 -g -o "$T/wn.data" -- "$W/rp-workload" -d 1 >/dev/null ||
	fail "recording without symbols"
cp /bin/true "$W/rp-workload"
"$RP" report -i "$T/wn.data" --no-children >"$T/rebuilt" 2>"$T/rebuilt.err"
check_grep "rp-workload: build-id $bid" "$T/rebuilt.err" "the build-id mismatch is reported"
check_eq "$(grep -c 'build-id' "$T/rebuilt.err")" 1 "and reported once"
check_no_grep 'warm_func|hot_leaf|worker_spin' "$T/rebuilt" "no names from the wrong file"
check_grep '^ +[0-9.]+% +rp-workload +rp-workload +\[\.\] \[unknown\]$' "$T/rebuilt" "its frames are [unknown] in the binary"
check_grep '^ +[0-9.]+% +rp-child +librp-worklib.so +\[\.\] worklib_spin$' "$T/rebuilt" "the unchanged library still resolves"
"$RP" report -i "$T/w.data" --no-children >"$T/rebuilt-sym" 2>"$T/rebuilt-sym.err"
check_grep '^ +[0-9.]+% +rp-workload +rp-workload +\[\.\] warm_func$' "$T/rebuilt-sym" \
	"with the symbols the recording carries, the rebuilt binary is named from them"
check_grep '^# 1 object named from symbols captured at record time' "$T/rebuilt-sym" "and the header says so"

# JIT code: anonymous executable memory described by /tmp/perf-PID.map.
J="$top_builddir/tests/workload/rp-jit"
"$RP" record -q -e cpu-clock -F 999 -o "$T/jit.data" -- "$J" 0.5 >"$T/jit.out" || fail "JIT recording"
jpid=$(sed -n 's/^rp-jit: pid //p' "$T/jit.out")
"$RP" report -i "$T/jit.data" --no-children >"$T/jit" 2>&1 || fail "JIT report"
rm -f "/tmp/perf-$jpid.map"
check_grep '^ +(100\.00|[5-9][0-9]\.[0-9]+)% +rp-jit +\[JIT\] pid [0-9]+ +\[\.\] jitted loop::spin \(generated\)$' "$T/jit" \
	"JIT code is named from /tmp/perf-PID.map"
exit 0
