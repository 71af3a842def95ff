#!/bin/bash
# record-fpchain.sh — `record -g` of code that keeps frame pointers, whose stacks are deeper
# than the stack copy (issue 22): where the walk of the copy stops, the kernel's frame-pointer
# chain of the same sample goes on when it agrees with every return address the walk read,
# after a "[frame pointers]" frame (format 2.5). rp-unwind's twostraight (two callers with
# identical frames; path_a works only 3 levels of 3-KB frames down, deeper than the 8-KB copy,
# path_b never does) built with frame pointers: its deep samples get path_a, their real caller,
# and none gets path_b; the header counts them. The same program built without frame pointers
# (the tree's rp-unwind) gets no "[frame pointers]" frame: its chain agrees with nothing.
# Environment: KEEP=1 keeps $T.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

require_perf_events
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
SRC=$top_srcdir/tests/workload/rp-unwind.c
command -v gcc >/dev/null || skip "no gcc to build the workload with frame pointers"
gcc -std=gnu11 -O2 -g -fno-omit-frame-pointer -fasynchronous-unwind-tables -Wl,--build-id \
	-pthread -o "$T/rp-unwind-fp" "$SRC" 2>"$T/cc.err" || fail "gcc: $(tail -3 "$T/cc.err")"

# deep NAME PROGRAM: record twostraight 3; prints: deep two_burn samples, under path_b, under
# path_a, of those through "[frame pointers]".
deep() {
	"$RP" record -q -e cpu-clock -F 999 -g -o "$T/$1.data" -- "$2" twostraight 3 \
		>"$T/$1.out" 2>"$T/$1.err" || fail "record of $2 twostraight 3: $(tail -3 "$T/$1.err")"
	"$RP" report -i "$T/$1.data" --no-children 2>"$T/$1.rerr" | grep '^#' >"$T/$1.head"
	"$RP" report -i "$T/$1.data" --folded >"$T/$1.folded" 2>>"$T/$1.rerr" ||
		fail "report --folded: $(cat "$T/$1.rerr")"
	awk '{ n = $NF; d = gsub(/;two_descend/, "&"); if ($0 !~ /;two_burn [0-9]+$/ || d < 3) next
		deep += n; if ($0 ~ /;path_b;/) b += n
		if ($0 ~ /;path_a;/) { a += n; if ($0 ~ /\[frame pointers\]/) f += n }
	} END { print deep + 0, b + 0, a + 0, f + 0 }' "$T/$1.folded"
}

read -r n wrong right fp < <(deep fp "$T/rp-unwind-fp")
ge "$n" 40 || fail "only $n samples of two_burn 3 levels down: not the workload this test expects"
check_eq "$wrong" 0 "with frame pointers: none of the $n deep two_burn samples under path_b"
r=$(awk -v a="$fp" -v b="$n" 'BEGIN { printf "%.1f\n", 100 * a / b }')
ge "$r" 90 || { grep two_burn "$T/fp.folded" | sort -k2 -nr | head -3 >&2; fail "only $r % of the deep samples reach path_a through [frame pointers] (< 90)"; }
ok "with frame pointers: $r % of the $n deep samples reach path_a, their caller, through [frame pointers]"
check_grep '^# user stacks: .*% continued by frame pointers' "$T/fp.head" "the header counts the stacks frame pointers continued"
# libc keeps no frame pointers: the kernel's chain ends in __libc_start_call_main, as perf's.
check_grep '^rp-unwind-fp;(_start;__libc_start_main[^;]*;)?__libc_start_call_main;main;twopath_phase;path_a;\[frame pointers\];two_descend;' \
	"$T/fp.folded" "a continued stack: main's caller, main, path_a, [frame pointers], the frames read"

read -r n wrong right fp < <(deep nofp "$top_builddir/tests/workload/rp-unwind")
ge "$n" 40 || fail "without frame pointers: only $n deep samples"
check_eq "$wrong/$fp" "0/0" "without frame pointers: none of the $n deep samples under path_b or continued by frame pointers"
check_no_grep '\[frame pointers\]' "$T/nofp.folded" "without frame pointers: no stack continued by them"
exit 0
