#!/bin/bash
# top-follow.sh — how `ringprof top --dir` reads ringprofd's active file: as it grows, only
# what was appended. A recording of many frames (--flush-interval 0.1: stacks defined once,
# used by later frames) is handed to tests/test-follow, which copies it into a .partial file a
# few hundred bytes at a time, reads it on after each append, and wants the report and the
# streamed samples of one read of the whole file, with no warning while it grows.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

"$RP" record -q -e cpu-clock -F 999 --call-graph fp --flush-interval 0.1 -o "$T/r.data" -- "$WL" -d 2 -q ||
	fail "ringprof record"
frames=$("$RP" report -i "$T/r.data" --stats 2>/dev/null | sed -n 's/^ *frames *\([0-9]*\) read.*/\1/p')
check_range "${frames:-0}" 10 100000 "the recording has many frames ($frames)"
"$top_builddir/tests/test-follow" "$T/r.data" >"$T/follow.out" 2>&1 ||
	fail "read as it grows, the recording differs from one read whole: $(grep -m3 FAILED "$T/follow.out")"
ok "read as it grows ($frames frames, cut anywhere), the same report and samples as read whole"
exit 0
