#!/bin/bash
# record-crash.sh — kill -9 of the recorder: the file stays readable up to the last closed
# frame, which is at most the flush interval (1 s) old.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

F=999
"$RP" record -e cpu-clock -F $F -g -o "$T/crash.data" -- "$WL" -d 10 >/dev/null 2>&1 &
rp=$!
BG_PIDS="$rp"
sleep 3.2
wl=$(pgrep -P $rp -f rp-workload | head -1)
BG_PIDS="$BG_PIDS $wl"
killed_at=$(uptime_s)
kill -9 $rp
wait $rp 2>/dev/null

[ -s "$T/crash.data" ] || fail "nothing written before the crash"
"$RP" report -i "$T/crash.data" --stats >"$T/stats" 2>"$T/stats.err" || fail "stats on a crashed recording failed: $(cat "$T/stats.err")"
check_grep '^  finished +no' "$T/stats" "an unfinished recording is recognised"
"$RP" report -i "$T/crash.data" --dump >"$T/dump" 2>/dev/null || fail "dump on a crashed recording"
check_grep '^SAMPLE ' "$T/dump" "samples before the crash are readable"
check_grep '^MMAP2 .*/rp-workload$' "$T/dump" "side-band before the crash is readable"

# The newest sample is at most about a second older than the kill.
last=$(awk '/^SAMPLE/ { t = $2 } END { print t }' "$T/dump")
gap_ms=$(awk -v a="$killed_at" -v b="$last" 'BEGIN { printf "%d", (a - b) * 1000 }')
check_range "$gap_ms" -100 1600 "data older than the flush interval survives kill -9 (gap ${gap_ms} ms)"
# The first seconds are kept whole: from the first sample to the newest, at least 1.5 s (3.2 s
# ran, at most 1.6 s may be lost) and no hole of 0.5 s (a lost frame is a flush interval of
# samples). Bounded by the samples' own times, not by a count: on a busy machine the workload
# gets less CPU, and cpu-clock samples CPU time.
awk '/^SAMPLE/ { print $2 }' "$T/dump" | sort -g >"$T/times"
span_ms=$(awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%d", (b - a) * 1000 }' "$T/times")
check_range "$span_ms" 1500 3300 "the samples of the first seconds are kept (they span ${span_ms} ms)"
hole_ms=$(awk 'NR > 1 && $1 - p > h { h = $1 - p } { p = $1 } END { printf "%d", h * 1000 }' "$T/times")
check_range "$hole_ms" 0 499 "no frame of samples is missing before the crash (largest hole ${hole_ms} ms)"
samples=$(stat_field samples "$T/stats")
check_eq "$samples" "$(wc -l <"$T/times")" "--stats counts the $samples samples --dump reads"
exit 0
