#!/bin/bash
# report-advice.sh — the header's advice for user stacks that stop for want of unwind
# information applies to the object it names: "build it with frame pointers" only for an
# object that has neither unwind information nor frame pointers; one that keeps frame pointers
# is told to record with --call-graph fp; one with .eh_frame or .debug_frame is not told to
# rebuild at all.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
command -v gcc >/dev/null && command -v objcopy >/dev/null || skip "gcc and objcopy are needed"

cat >"$T/adv.c" <<'EOS'
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void leaf(void)
{
	for (unsigned long i = 0; i < 100000; i++)
		sink += i;
}
__attribute__((noinline)) void mid(void) { leaf(); sink++; }
__attribute__((noinline)) void top(void) { mid(); sink++; }
int main(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		top();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 500000000L);
	return 0;
}
EOS
# Without .eh_frame (renamed, as a stripped one): with and without frame pointers. With
# .debug_frame only (and crt's .eh_frame): its table is the helper's business, not a rebuild.
gcc -O1 -fno-omit-frame-pointer -o "$T/adv-fp.tmp" "$T/adv.c" &&
	objcopy --rename-section .eh_frame=.xx_frame "$T/adv-fp.tmp" "$T/adv-fp" &&
	gcc -O1 -fomit-frame-pointer -o "$T/adv-nofp.tmp" "$T/adv.c" &&
	objcopy --rename-section .eh_frame=.xx_frame "$T/adv-nofp.tmp" "$T/adv-nofp" &&
	gcc -O1 -fomit-frame-pointer -fno-asynchronous-unwind-tables -g -o "$T/adv-dbg" "$T/adv.c" ||
	fail "building the fixtures"

for b in adv-fp adv-nofp adv-dbg; do
	"$RP" record -q -e cpu-clock -F 999 -g -o "$T/$b.data" -- "$T/$b" || fail "recording $b"
	"$RP" report -i "$T/$b.data" --no-children >"$T/$b.rep" 2>&1 || fail "report of $b"
done

ni=$(sed -nE 's/^# user stacks: .* ([0-9.]+)% no unwind information.*/\1/p' "$T/adv-nofp.rep")
check_range "${ni%.*}" 50 100 "adv-nofp: % of user stacks stopped for want of unwind information"
check_grep '^# note: [0-9]+% of the user stacks stop in adv-nofp for want of unwind information: it has no \.eh_frame or \.debug_frame and no frame pointers: build it with frame pointers \(-fno-omit-frame-pointer\) to see its callers$' \
	"$T/adv-nofp.rep" "no unwind information, no frame pointers: the advice names the object"

ni=$(sed -nE 's/^# user stacks: .* ([0-9.]+)% no unwind information.*/\1/p' "$T/adv-fp.rep")
check_range "${ni%.*}" 50 100 "adv-fp: % of user stacks stopped for want of unwind information"
check_grep '^# note: [0-9]+% of the user stacks stop in adv-fp for want of unwind information: it has no \.eh_frame or \.debug_frame but keeps frame pointers: record with --call-graph fp$' \
	"$T/adv-fp.rep" "frame pointers kept: record with --call-graph fp"
check_no_grep 'build it with frame pointers' "$T/adv-fp.rep" "no frame-pointer advice for an object that has them"
# ... and that advice holds: --call-graph fp reaches main from the hot leaf.
"$RP" record -q -e cpu-clock -F 999 --call-graph fp -o "$T/fp.data" -- "$T/adv-fp" || fail "recording adv-fp with --call-graph fp"
"$RP" report -i "$T/fp.data" --folded >"$T/fp.folded" 2>&1 || fail "report --folded"
check_grep '^adv-fp;(.*;)?main;top;(mid;)?leaf [0-9]+$' "$T/fp.folded" "--call-graph fp walks adv-fp from leaf to main"

# .debug_frame: whatever the helper made of it, no rebuild is advised.
check_no_grep 'build it with frame pointers' "$T/adv-dbg.rep" "no frame-pointer advice for an object with unwind information"
if grep -q '^# note: .* stop in adv-dbg ' "$T/adv-dbg.rep"; then
	check_grep '^# note: [0-9]+% of the user stacks stop in adv-dbg for want of unwind information: (it has \.(eh|debug)_frame, but no table was used for this code while recording|its \.eh_frame covers the code they stop in \([0-9]+ address(es)? checked in the file\), but no table was used for it while recording)' \
		"$T/adv-dbg.rep" "unwind information in the file, none used: said so"
else
	echo "# adv-dbg's .debug_frame was used: no note"
fi
