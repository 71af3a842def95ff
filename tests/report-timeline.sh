#!/bin/bash
# report-timeline.sh — `report --timeline[=N]` (issue 28): samples per time bucket by command.
# A recording with a quiet second between two busy ones: the buckets add up to the header's
# samples, each command's column to its own --comm report, and the quiet second shows.
. "$(dirname "$0")/lib.sh"
require_perf_events

"$RP" record -e cpu-clock -F 999 -o "$T/r.data" -- sh -c "'$WL' -d 1 >/dev/null; sleep 1.5; '$WL' -d 1 >/dev/null" \
	>/dev/null 2>"$T/rec.err" || fail "record: $(tail -2 "$T/rec.err")"
"$RP" report -i "$T/r.data" --timeline=40 >"$T/tl" 2>"$T/tl.err" || fail "report --timeline=40: $(cat "$T/tl.err")"
check_grep '^# Timeline: [0-9]+ buckets of [0-9.]+ s from [0-9-]+ [0-9:.]+ to [0-9-]+ [0-9:.]+ \(local time\), samples per bucket by command$' \
	"$T/tl" "the timeline's head says buckets, width and span"
n=$(sed -n 's/^# Timeline: \([0-9]*\) buckets.*/\1/p' "$T/tl")
check_range "$n" 5 40 "at most 40 buckets"
check_eq "$(grep -c '^[0-9]' "$T/tl")" "$n" "one line per bucket"
samples=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$T/tl")
check_eq "$(awk '/^[0-9]/ { s += $2 } END { print s + 0 }' "$T/tl")" "$samples" "the buckets add up to the header's $samples samples"
# Each line: time, samples, the commands' columns, others: they add up to the bucket's samples.
awk '/^[0-9]/ { t = 0; for (i = 3; i <= NF; i++) if ($i ~ /^[0-9]+$/) t += $i; if (t != $2) bad++ } END { exit bad > 0 }' "$T/tl" ||
	fail "a bucket's columns do not add up to its samples"
ok "each bucket's columns add up to its samples"
# The rp-workload column against report --comm rp-workload of the same file.
col=$(awk '/^# +Time +Samples/ { for (i = 1; i <= NF; i++) if ($i == "rp-workload") c = i - 1 } END { print c + 0 }' "$T/tl")
[ "$col" -gt 2 ] || { cat "$T/tl" >&2; fail "no rp-workload column"; }
sum=$(awk -v c="$col" '/^[0-9]/ { s += $c } END { print s + 0 }' "$T/tl")
want=$("$RP" report -i "$T/r.data" --comm rp-workload 2>/dev/null | sed -n 's/^# samples: \([0-9]*\) of.*/\1/p')
check_eq "$sum" "$want" "the rp-workload column adds up to report --comm rp-workload"
# The quiet 1.5 s: three buckets in a row, neither first nor last, with <= 5 % of the busiest.
awk '/^[0-9]/ { v[++n] = $2; if ($2 > m) m = $2 } END {
	for (i = 2; i + 2 < n; i++) if (v[i] * 20 <= m && v[i + 1] * 20 <= m && v[i + 2] * 20 <= m) exit 0
	exit 1 }' "$T/tl" || { cat "$T/tl" >&2; fail "the quiet second does not show"; }
ok "the quiet 1.5 s shows as buckets with <= 5 % of the busiest"
# Wrong uses.
"$RP" report -i "$T/r.data" --timeline --folded >/dev/null 2>"$T/bad"
check_eq $? 2 "--timeline with --folded is a usage error"
check_grep "^ringprof report: --timeline and --folded are different outputs" "$T/bad" "and says so"
"$RP" report -i "$T/r.data" --timeline=0 >/dev/null 2>"$T/bad"
check_eq $? 2 "--timeline=0 is a usage error"
check_grep "^ringprof report: invalid --timeline '0'" "$T/bad" "and says so"

# perf's --time: START,END in the seconds script prints; percentage slices of the span.
"$RP" script -i "$T/r.data" >"$T/script"
t0=$(awk 'NF > 4 && $4 ~ /^[0-9.]+:$/ { sub(":", "", $4); print $4; exit }' "$T/script")
a=$(awk -v t="$t0" 'BEGIN { printf "%.6f", t + 0.3 }')
b=$(awk -v t="$t0" 'BEGIN { printf "%.6f", t + 0.8 }')
want=$(awk -v a="$a" -v b="$b" 'NF > 4 && $4 ~ /^[0-9.]+:$/ { sub(":", "", $4); if ($4 + 0 >= a && $4 + 0 <= b) n++ } END { print n + 0 }' "$T/script")
got=$("$RP" report -i "$T/r.data" --time "$a,$b" 2>/dev/null | sed -n 's/^# samples: \([0-9]*\).*/\1/p')
check_eq "$got" "$want" "--time $a,$b: the samples script prints in that range ($want)"
"$RP" script -i "$T/r.data" --time "$a,$b" | awk -v a="$a" -v b="$b" 'NF > 4 && $4 ~ /^[0-9.]+:$/ {
	sub(":", "", $4); if ($4 + 0 < a || $4 + 0 > b) bad++ } END { exit bad > 0 }' ||
	fail "script --time printed samples outside $a,$b"
ok "script --time prints only samples inside the range"
# (the header's "N of M" counts M over the frames read: those the window reaches)
"$RP" report -i "$T/r.data" --time 0%-50% >"$T/h1" 2>&1
h1=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$T/h1")
h2=$("$RP" report -i "$T/r.data" --time 50%/2 2>/dev/null | sed -n 's/^# samples: \([0-9]*\).*/\1/p')
check_no_grep 'did not finish' "$T/h1" "a window that ends before the file does not call it unfinished"
check_range $((h1 + h2)) "$samples" $((samples + 1)) "--time 0%-50% and 50%/2 cover the recording ($h1 + $h2)"
"$RP" report -i "$T/r.data" --time 10%/2 --since +1 >/dev/null 2>"$T/bad"
check_eq $? 2 "--time with --since is a usage error"
"$RP" report -i "$T/r.data" --time 60%/2 >/dev/null 2>"$T/bad"
check_eq $? 2 "--time 60%/2 (past the end) is a usage error"
check_grep "^ringprof report: invalid --time '60%/2'" "$T/bad" "and says what --time takes"
echo "# $n_checks checks"
