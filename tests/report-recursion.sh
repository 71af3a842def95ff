#!/bin/bash
# report-recursion.sh — a function that burns CPU at every level of its own recursion is the
# leaf of all its samples and, in most, its own caller too. Its --no-children caller tree must
# hold every sample it has Self (the tree's first branches add up to its Self share), as perf's
# does; before, a sample whose leaf entry also stood higher on its stack was left out of the
# tree (rec's tree showed about one sample in nine). With Children, the tree starts from the
# outermost place.
. "$(dirname "$0")/lib.sh"
require_perf_events

cat >"$T/rp-rec.c" <<'C'
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The same work at each of its DEPTH + 1 levels: samples fall evenly on every depth. */
__attribute__((noinline)) static void rec(int depth)
{
	for (int i = 0; i < 200000; i++)
		sink = sink * 6364136223846793005UL + 1;
	if (depth > 0)
		rec(depth - 1);
	__asm__ volatile("" ::: "memory"); /* no tail call: every level keeps its frame */
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1);

	while (now() < end)
		rec(8);
	return 0;
}
C
${CC:-cc} -std=gnu11 -g -O1 -fno-inline -fno-optimize-sibling-calls -o "$T/rp-rec" "$T/rp-rec.c" ||
	fail "cc rp-rec.c"
"$RP" record -q -e cpu-clock -F 999 -g -o "$T/r.rp" -- "$T/rp-rec" 1 2>"$T/r.err" ||
	fail "record: $(cat "$T/r.err")"

# share_of TABLE SYMBOL: the first column of SYMBOL's entry.
share_of() { awk -v s="$2" '$1 ~ /%$/ && $NF == s { sub("%", "", $1); print $1; exit }' "$1"; }
# branches TABLE SYMBOL: the sum of the first branches of SYMBOL's tree (12 spaces, then |-- or
# `--), up to the next entry ([.] or [k]).
branches() {
	awk -v s="$2" '$1 ~ /%$/ && /\[[.k]\]/ { on = ($NF == s) } on && /^            [|`]--[0-9.]+%--/ {
		x = $0; sub(/^ +[|`]--/, "", x); sub(/%--.*/, "", x); t += x } END { printf "%.2f", t }' "$1"
}

"$RP" report -i "$T/r.rp" --comm rp-rec --no-children -g caller,0 --stdio >"$T/self.txt" 2>"$T/self.err" ||
	fail "report --no-children -g caller: $(cat "$T/self.err")"
self=$(share_of "$T/self.txt" rec)
[ -n "$self" ] || fail "no entry for rec"
awk -v s="$self" 'BEGIN { exit !(s >= 90) }' || fail "rec's Self is $self %, not nearly all"
ok "rec is the leaf of $self % of the samples"
sum=$(branches "$T/self.txt" rec)
within "$sum" "$self" 1 || fail "rec's --no-children caller tree holds $sum %, its Self $self %"
ok "rec's --no-children caller tree holds $sum %, its Self $self %"
check_grep '[|`]--[0-9.]+%--main$' "$T/self.txt" "the tree reaches main"

"$RP" report -i "$T/r.rp" --comm rp-rec --children -g caller,0 --stdio >"$T/all.txt" 2>"$T/all.err" ||
	fail "report --children -g caller: $(cat "$T/all.err")"
# With Children, rec's tree draws its callees from its outermost place: the 8 levels of rec
# below it, each a branch.
levels=$(awk '$1 ~ /%$/ && /\[[.k]\]/ { on = ($NF == "rec") } on && /%--rec$/ { n++ } END { print n + 0 }' "$T/all.txt")
check_eq "$levels" 8 "rec's Children tree goes down the 8 levels of rec below its outermost place"
echo "# $n_checks checks"
