#!/bin/bash
# report-html-spike.sh — a spike found on the page's timeline: an hour of a continuous
# profiler's data (tests/rp-craft hour: 12 recordings of 5 minutes named as ringprofd names
# them, 20 samples a second of rp_idle, rp_parse and rp_compress, and from 30:00 to 31:00 200
# a second, 9 in 10 in rp_spike_hot) opened with report --dir --html in headless chromium
# (tests/web/report-html.cjs --spike). The timeline's tallest bucket is in the spike's minute;
# dragging over it and its neighbours at half its height or more selects that minute; then
# the flame graph has rp_spike_hot on top and the table first by Self, with the shares of
# report --dir --since/--until of the same range; over the whole hour something else is on top.
# A function of 0.2 % (rp_rare) is a sliver on the page's canvas: pointed at, its tooltip says
# what report says. The same hour with a budget of counts (--html-counts 1000, a quarter of
# what the hour has): the timeline still draws every bucket, the selection snaps to whole steps
# of 50 s and its totals are report's for those times.
# Screenshots go to tests/report-html-spike.shots/ beside this test's log.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

require_browser
CRAFT="$top_builddir/tests/rp-craft"
SHOTS="$top_builddir/tests/report-html-spike.shots"
rm -rf "$SHOTS"
mkdir -p "$SHOTS" "$T/d"

"$CRAFT" hour "$T/d" >"$T/craft.out" || fail "rp-craft hour"
read -r word spike_since spike_until <"$T/craft.out"
[ "$word" = spike ] && [ -n "$spike_until" ] || fail "rp-craft hour said: $(cat "$T/craft.out")"
check_range "$(ls "$T/d" | grep -c '^ringprof-[0-9]\{8\}T[0-9]\{6\}Z-[0-9]\{4\}\.data$')" 10 100 "ringprofd's file names, 10 or more"
"$RP" report --dir "$T/d" --no-children >"$T/all" 2>"$T/all.err" || fail "report --dir: $(cat "$T/all.err")"
first=$(sed -n 's/^# recorded: \(.*\), \([0-9.]*\) s of samples$/\2/p' "$T/all")
check_range "${first%.*}" 3500 3600 "the recordings span an hour ($first s)"

"$RP" report --dir "$T/d" --html "$T/page.html" 2>"$T/html.err" || fail "report --dir --html: $(cat "$T/html.err")"
cp "$T/page.html" "$SHOTS/page.html"
timeout 180 node "$WEB/report-html.cjs" --spike "$T/page.html" "$SHOTS" rp_spike_hot rp_rare >"$T/page.out" 2>"$T/page.err" || {
	cat "$T/page.out" "$T/page.err" >&2
	fail "driving the page in chromium failed"
}
cat "$T/page.out"
check_no_grep '^(request|pageerror|console-error|error) ' "$T/page.out" "no request, no script error while the page is used"
val() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$T/page.out"; }

# near A B TOLERANCE WHAT: two decimals within TOLERANCE.
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }' ||
		fail "$4: page $1, report $2 (tolerance $3)"
	ok "$4 (page $1, report $2)"
}
# top FILE: "symbol command share" of the first row of a report.
top() { awk '$1 !~ /^#/ && NF { v = $1; sub("%", "", v); print $NF, $2, v; exit }' "$1"; }
# children COMM SYM: the Children of COMM's SYM in the report of the range.
children() { awk -v c="$1" -v s="$2" '$1 !~ /^#/ && $3 == c && $NF == s { v = $1; sub("%", "", v); print v; exit }' "$T/children"; }

# Over the whole hour: rp_idle on top, as the text says.
read -r sym comm pct <<<"$(top "$T/all")"
check_eq "$sym" rp_idle "report --dir: rp_idle has the largest Self over the hour"
read -r psym pcomm pchildren pself <<<"$(val full_table_top)"
check_eq "$psym $pcomm" "$sym $comm" "the page's table, by Self, starts with the report's first row"
near "$pself" "$pct" 0.01 "its Self is the report's"
read -r fsym fpct <<<"$(val full_flame_top)"
check_eq "$fsym" rp_idle "over the hour the flame graph's widest plateau is rp_idle, not the spike"

# rp_rare, 0.2 % of the hour: a sliver on the canvas, no element; pointed at, its tooltip gives
# its share as report does.
check_range "$(val sliver_px_rp_rare | cut -d. -f1)" 0 3 "rp_rare is narrower than 4 px ($(val sliver_px_rp_rare) px)"
check_eq "$(val sliver_elements_rp_rare)" 0 "rp_rare is drawn on the canvas, not as an element"
"$RP" report --dir "$T/d" >"$T/all-children" 2>/dev/null || fail "report --dir (children)"
rare=$(awk '$1 !~ /^#/ && $3 == "server" && $NF == "rp_rare" { v = $1; sub("%", "", v); print v; exit }' "$T/all-children")
[ -n "$rare" ] || fail "rp_rare is not in the text report"
tip=$(val sliver_tooltip_rp_rare)
case "$tip" in
rp_rare\ \|*) ok "pointing at the sliver names it: $tip" ;;
*) fail "pointing at rp_rare's sliver shows: $tip" ;;
esac
near "$(printf '%s\n' "$tip" | sed -n 's/.*samples: [0-9]* (\([0-9.]*\)% of the range.*/\1/p')" "$rare" 0.01 "its tooltip's share is report's Children"

# The tallest bucket of the timeline lies in the spike's minute, and so does the range dragged.
read -r b0 b1 <<<"$(val range_buckets | tr '-' ' ')"
top_b=$(val spike_top_bucket)
check_range "$top_b" "$b0" $((b1 - 1)) "the tallest bucket is in the range selected"
since=$(val range_since_ns) until=$(val range_until_ns)
check_range "$since" "$spike_since" "$spike_until" "the range starts in the spike's minute"
check_range "$until" "$spike_since" "$spike_until" "the range ends in the spike's minute"
check_range $(((until - since) / 1000000000)) 9 60 "the range is the spike, 10 to 60 s of it"

# The range against report --dir --since/--until its times.
when() { # epoch ns -> local "YYYY-MM-DD HH:MM:SS.NNNNNNNNN", as --since takes it
	printf '%s.%09d' "$(date -d "@$(($1 / 1000000000))" '+%F %T')" $(($1 % 1000000000))
}
"$RP" report --dir "$T/d" --no-children --since "$(when "$since")" --until "$(when "$until")" >"$T/self" 2>"$T/w.err" ||
	fail "report --since/--until: $(cat "$T/w.err")"
"$RP" report --dir "$T/d" --since "$(when "$since")" --until "$(when "$until")" >"$T/children" 2>/dev/null ||
	fail "report --children --since/--until"
n=$(sed -n 's/^# samples: \([0-9]*\)[ ,].*/\1/p' "$T/self")
check_eq "$(val range_samples)" "$n" "the range's samples are those of report --since/--until"
read -r sym comm pct <<<"$(top "$T/self")"
check_eq "$sym $comm" "rp_spike_hot server" "report --since/--until: rp_spike_hot of server has the largest Self"
read -r psym pcomm pchildren pself <<<"$(val range_table_top)"
check_eq "$psym $pcomm" "rp_spike_hot server" "the range's table, by Self, starts with rp_spike_hot"
near "$pself" "$pct" 0.5 "its Self in the range is report --no-children's"
near "$pchildren" "$(children server rp_spike_hot)" 0.5 "its Children in the range is report's"
read -r fsym fpct <<<"$(val range_flame_top)"
check_eq "$fsym" rp_spike_hot "the range's flame graph has rp_spike_hot on top"
near "$fpct" "$pct" 0.5 "its plateau is its Self"
near "$(val range_flame_pct)" "$(children server rp_spike_hot)" 0.5 "its frame's width is its Children in the range"
for v in spike-hour spike-range spike-range-inverted; do
	[ -s "$SHOTS/$v.png" ] || fail "no screenshot of $v"
done
ok "screenshots in $SHOTS"

# The same hour, its stacks' counts kept per step of 5 buckets: dragged over the same spike.
first_page="$(val timeline_buckets) $(val spike_top_bucket) $(val spike_tooltip)"
"$RP" report --dir "$T/d" --html-counts 1000 >/dev/null 2>"$T/c.err" && fail "--html-counts without --html was taken"
check_grep 'html-counts is a setting of --html' "$T/c.err" "--html-counts without --html: said"
"$RP" report --dir "$T/d" --html-counts 1000 --html "$T/step.html" 2>"$T/html.err" || fail "report --html-counts 1000: $(cat "$T/html.err")"
mkdir -p "$SHOTS/step"
timeout 180 node "$WEB/report-html.cjs" --spike "$T/step.html" "$SHOTS/step" rp_spike_hot >"$T/page.out" 2>"$T/page.err" || {
	cat "$T/page.out" "$T/page.err" >&2
	fail "driving the stepped page in chromium failed"
}
sed 's/^/step: /' "$T/page.out"
check_no_grep '^(request|pageerror|console-error|error) ' "$T/page.out" "stepped page: no request, no script error"
check_eq "$(val timeline_buckets) $(val spike_top_bucket) $(val spike_tooltip)" "$first_page" "the stepped page's timeline keeps every bucket: as many, the tallest the same, its tooltip the same"
step_s=$(val range_text | sed -n 's/.* in steps of \([0-9.]*\) s$/\1/p')
check_eq "$step_s" 50 "the page says its range is chosen in steps of 50 s: $(val range_text)"
s2=$(val range_since_ns) u2=$(val range_until_ns)
check_eq "$((s2 % 50000000000)) $(((u2 + 1) % 50000000000))" "0 0" "the range starts and ends at multiples of 50 s"
check_range "$s2" 0 "$since" "the snapped range starts at or before the dragged buckets"
check_range "$u2" "$until" $((until + 50000000000)) "the snapped range ends at or after them"
"$RP" report --dir "$T/d" --no-children --since "$(when "$s2")" --until "$(when "$u2")" >"$T/self" 2>"$T/w.err" ||
	fail "report --since/--until: $(cat "$T/w.err")"
n=$(sed -n 's/^# samples: \([0-9]*\)[ ,].*/\1/p' "$T/self")
check_eq "$(val range_samples)" "$n" "the stepped range's samples are those of report --since/--until of its times"
read -r sym comm pct <<<"$(top "$T/self")"
read -r psym pcomm pchildren pself <<<"$(val range_table_top)"
check_eq "$psym $pcomm" "$sym $comm" "the stepped range's table starts with report's first row ($sym)"
near "$pself" "$pct" 0.01 "its Self in the stepped range is report --no-children's"
