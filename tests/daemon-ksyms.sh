#!/bin/bash
# daemon-ksyms.sh — hidden kernel symbols (kernel.kptr_restrict=1 and no CAP_SYSLOG: /proc/kallsyms
# shows zeros): ringprof record and ringprofd warn at start saying why and what to do, and the
# report's header says why kernel frames are [unknown]. With CAP_SYSLOG nothing is said.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/daemon-lib.sh"
require_root
require_perf_events
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
KPTR=/proc/sys/kernel/kptr_restrict
old=$(cat "$KPTR") || skip "cannot read $KPTR"
echo 1 >"$KPTR" 2>/dev/null || skip "cannot write $KPTR here (read-only /proc/sys)"
# kptr_restrict is the whole machine's: back as it was as soon as the runs below are done,
# and at exit in any case.
trap 'echo "$old" >"$KPTR"; cleanup' EXIT
nosyslog() { setpriv --bounding-set -syslog -- "$@"; }

nosyslog sh -c 'grep -m1 " T " /proc/kallsyms' >"$T/ks"
check_grep '^0{16} T ' "$T/ks" "without CAP_SYSLOG and kptr_restrict=1, /proc/kallsyms shows zeros"

nosyslog "$RP" record -a -g -e cpu-clock -d 1 -o "$T/hidden.data" 2>"$T/rec.err" || fail "record without CAP_SYSLOG: $(cat "$T/rec.err")"
setpriv --bounding-set -syslog -- "$RPD" -c /dev/null -D "$D" $FAST 2>"$DLOG" &
DPID=$!
BG_PIDS="$BG_PIDS $DPID"
has_partial() { [ -n "$(partial_files 2>/dev/null)" ]; }
wait_until 20 "ringprofd without CAP_SYSLOG started" has_partial
"$RP" record -a -g -e cpu-clock -d 1 -o "$T/visible.data" 2>"$T/rec2.err" || fail "record with CAP_SYSLOG: $(cat "$T/rec2.err")"
stop_daemon
echo "$old" >"$KPTR"
check_eq "$DRC" 0 "ringprofd stopped cleanly"

check_grep '^ringprof record: note: kernel symbols are hidden: /proc/kallsyms shows no addresses because kernel.kptr_restrict is 1 and this process lacks CAP_SYSLOG; kernel frames will show as \[unknown\]: run as root with CAP_SYSLOG, or set kernel.kptr_restrict=0$' \
	"$T/rec.err" "record warns at start: why kernel symbols are hidden and what to do"
check_grep '^ringprofd: warning: kernel symbols are hidden: .*kernel.kptr_restrict is 1 and this process lacks CAP_SYSLOG' \
	"$DLOG" "ringprofd logs the same as a warning"
check_no_grep 'kernel symbols' "$T/rec2.err" "with CAP_SYSLOG, nothing is said"

"$RP" report -i "$T/hidden.data" --stdio >"$T/rep" 2>&1 || fail "report of the hidden-symbols recording: $(cat "$T/rep")"
check_grep '^# note: kernel symbols were hidden from the recorder \(kernel.kptr_restrict without CAP_SYSLOG\): kernel frames are \[unknown\]$' \
	"$T/rep" "the report header says why kernel frames are [unknown]"
check_grep '\[k\] \[unknown\]' "$T/rep" "and they are"
"$RP" report -i "$(ls "$D"/*.data | head -1)" --stdio >"$T/drep" 2>&1
check_grep '^# note: kernel symbols were hidden' "$T/drep" "so does the report of ringprofd's file"
"$RP" report -i "$T/visible.data" --stdio >"$T/rep2" 2>&1
check_no_grep 'kernel symbols were hidden' "$T/rep2" "a recording with kernel symbols has no such note"
echo "$n_checks checks passed"
