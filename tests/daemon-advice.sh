#!/bin/bash
# daemon-advice.sh — the report's advice names the settings of the program that recorded: for a
# ringprofd recording whose stack copy was too small, UserStackSize=, not record's
# --call-graph flag (issue 28). The workload keeps no frame pointers (rp-unwind climb: 40 frames
# of 512 bytes), so the kernel's frame-pointer chain continues none of its cut stacks.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events

UW="$top_builddir/tests/workload/rp-unwind"
"$UW" climb 30 >/dev/null 2>&1 &
BG_PIDS="$BG_PIDS $!"
start_listener
# A 512-byte stack copy: most of rp-unwind climb's stacks are deeper.
start_daemon -c /dev/null -D "$D" $FAST --call-graph=dwarf,512 --unwind-cache no
wait_until 30 "samples recorded" samples_at_least 300
stop_daemon
check_eq "$DRC" 0 "ringprofd stops with status 0"
"$RP" report --dir "$D" --stdio >"$T/rep" 2>&1 || fail "report --dir: $(tail -3 "$T/rep")"
check_grep '^# note: [0-9]+% of the user stacks were deeper than the 512-byte stack copy: give ringprofd a larger one \(UserStackSize=2048\)$' \
	"$T/rep" "the advice names ringprofd's UserStackSize="
check_no_grep '[-]-call-graph dwarf' "$T/rep" "and not record's flag"
# The same shortfall in a recording of ringprof record names record's flag.
"$RP" record -q -e cpu-clock -F 499 --call-graph dwarf,512 -o "$T/r.data" -- "$UW" climb 0.5 >/dev/null 2>&1 ||
	fail "record --call-graph dwarf,512"
"$RP" report -i "$T/r.data" --stdio >"$T/rep2" 2>&1
check_grep 'stack copy: record with a larger one \(--call-graph dwarf,2048\)$' "$T/rep2" "a record file: record's flag"
echo "# $n_checks checks"
