#!/bin/bash
# report-noinfo-cfi.sh — the header's "no unwind information" note says whether the object's
# .eh_frame covers the code its walks stopped in (issue 22, true diagnoses): it said "it has
# .eh_frame, but no table was used for this code while recording (not built, or not covering
# it: the recording does not say which)" for chromium, whose table was built and whose
# .eh_frame covers little of its code. The report now checks the stop addresses (the first
# distinct ones per object) against the file's CFI. Fixture built here: main with unwind
# tables, its hot leaf compiled -fno-asynchronous-unwind-tables -fno-unwind-tables (rbp zeroed
# inside, so no frame-pointer fallback finds a caller either): the note says the .eh_frame
# does not cover that code, gives no frame-pointer advice (the file keeps none), and the old
# undecided wording is gone. Environment: KEEP=1 keeps $T.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

command -v gcc >/dev/null || skip "gcc is not installed"
require_perf_events

cat >"$T/hot.c" <<'C'
__attribute__((noipa)) double hot(long n)
{
	double x = 1;

	__asm__ volatile("xor %%ebp, %%ebp" ::: "rbp");
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}
C
cat >"$T/main.c" <<'C'
#include <stdlib.h>
#include <time.h>
double hot(long n);
int main(int argc, char **argv)
{
	struct timespec a, b;
	double s = 0;
	long ns = (long)(atof(argv[1]) * 1e9);

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		s += hot(200000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
	return s == 0;
}
C
gcc -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables -c -o "$T/hot.o" "$T/hot.c" &&
	gcc -O2 -o "$T/rp-nocfi" "$T/main.c" "$T/hot.o" || fail "cannot build the fixture"
readelf -SW "$T/rp-nocfi" | grep -q ' \.eh_frame ' || fail "the fixture has no .eh_frame (main's should be there)"

"$RP" record -q -g -e cpu-clock -F 999 -o "$T/n.data" -- "$T/rp-nocfi" 0.5 >"$T/n.out" 2>"$T/n.err" ||
	fail "record -g: $(tail -2 "$T/n.err")"
"$RP" report -i "$T/n.data" --no-children 2>/dev/null | grep '^#' >"$T/n.head"
check_grep '^# user stacks: .*[0-9.]+% no unwind information' "$T/n.head" "the header counts the stops for want of unwind information"
check_grep '^# note: [0-9]+% of the user stacks stop in rp-nocfi for want of unwind information: its \.eh_frame does not cover the code they stop in \([0-9]+ address(es)? checked in the file\): that code was built without unwind tables$' \
	"$T/n.head" "the note says the file's .eh_frame does not cover the code the walks stopped in, no frame-pointer advice"
check_no_grep 'the recording does not say which' "$T/n.head" "the undecided wording is gone for this object"
exit 0
