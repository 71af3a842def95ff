#!/bin/bash
# diff-html.sh — `ringprof diff --html` in a real browser: two runs of rp-shares whose CPU
# shares move by a known amount (70/30/0 then 40/40/20 % in share_a/share_b/share_c); the page's
# table is `ringprof diff`'s, row for row (shares, deltas, ratios); in the differential flame
# graph share_a (shrank) is blue, share_b and share_c (grew) red, each frame's change that of
# `diff --children` (the weight of the stacks through it), its width its share of the side
# drawn; the legend gives both totals; identical recordings colour nothing; no request leaves
# the page. Screenshots go to tests/diff-html.shots/ beside this test's log.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

require_browser
require_perf_events
SH="$top_builddir/tests/workload/rp-shares"
[ -x "$SH" ] || fail "$SH is not built (make check builds it)"
node --check "$top_srcdir/report/html/diff.js" 2>"$T/check.err" || fail "report/html/diff.js: $(cat "$T/check.err")"
ok "report/html/diff.js parses (node --check)"
check_no_grep '(^|[^A-Za-z0-9_$])(fetch|XMLHttpRequest|WebSocket|EventSource|importScripts|eval|Function|Worker|SharedWorker)\(|\.(sendBeacon|open|write)\(|import\(|\.(src|href) *=|https?:' \
	"$top_srcdir/report/html/diff.js" "diff.js: no request, no code loaded or evaluated at run time"
SHOTS="$top_builddir/tests/diff-html.shots"
rm -rf "$SHOTS"
mkdir -p "$SHOTS"

"$RP" record -q -e cpu-clock -g -o "$T/a.data" -- "$SH" -d 1 70 30 0 || fail "record a"
"$RP" record -q -e cpu-clock -g -o "$T/b.data" -- "$SH" -d 1 40 40 20 || fail "record b"
"$RP" diff --no-pager "$T/a.data" "$T/b.data" >"$T/d.txt" 2>"$T/d.err" || fail "ringprof diff: $(cat "$T/d.err")"
"$RP" diff --no-pager --children "$T/a.data" "$T/b.data" >"$T/c.txt" 2>/dev/null || fail "ringprof diff --children"
"$RP" diff --html "$T/d.html" "$T/a.data" "$T/b.data" >"$T/html.out" 2>"$T/html.err" ||
	fail "diff --html: $(cat "$T/html.err")"
[ -s "$T/d.html" ] || fail "diff --html wrote nothing"
[ -s "$T/html.out" ] && fail "diff --html also wrote to stdout: $(head -3 "$T/html.out")"
ok "diff --html wrote $(wc -c <"$T/d.html") bytes, nothing else"
cp "$T/d.html" "$SHOTS/diff.html"
check_no_grep '<(script|link|img|iframe)[^>]*(src|href)=' "$T/d.html" "no external script, style, image or frame"
check_grep "Content-Security-Policy\" content=\"default-src 'none'" "$T/d.html" "a policy that forbids every request"
"$RP" diff --html - "$T/a.data" "$T/b.data" 2>/dev/null | cmp -s - "$T/d.html" || fail "--html - differs from --html FILE"
ok "--html - writes the same page to stdout"
"$RP" diff --html "$T/x.html" --folded "$T/a.data" "$T/b.data" 2>"$T/both.err" && fail "--html with --folded accepted"
check_grep 'different outputs' "$T/both.err" "--html with --folded: a usage error"

timeout 180 node "$WEB/report-html.cjs" --diff "$T/d.html" "$SHOTS" share_a,share_b,share_c >"$T/page.out" 2>"$T/page.err" || {
	cat "$T/page.out" "$T/page.err" >&2
	fail "driving the diff page in chromium failed"
}
cat "$T/page.out"
check_no_grep '^(request|pageerror|console-error|error) ' "$T/page.out" "no request, no script error while the page is used"
val() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$T/page.out"; }

# The table: each text row as "baseline|new|delta|ratio|keys" (keys' spaces collapsed), and the
# page's rows the same way (their keys cut at 40 characters, as the text cuts them).
awk '!/^#/ && NF { b = substr($0, 1, 10); n = substr($0, 11, 10); rest = substr($0, 21)
	gsub(/[ ]/, "", b); gsub(/[ ]/, "", n); split(rest, w, " "); d = w[1]
	if (w[2] == "only") { r = w[2] " " w[3]; k = 4 } else { r = w[2]; k = 3 }
	keys = ""; for (i = k; i in w; i++) keys = keys (keys == "" ? "" : " ") w[i]
	print b "|" n "|" d "|" r "|" keys }' "$T/d.txt" >"$T/text.rows"
awk '$1 == "diff_row" { sub(/^diff_row [a-z]+\|/, ""); n = split($0, c, "|"); line = c[1] "|" c[2] "|" c[3] "|" c[4] "|"
	keys = ""; for (i = 5; i <= n; i++) keys = keys (keys == "" ? "" : " ") substr(c[i], 1, 40); gsub(/ +/, " ", keys); print line keys }' \
	"$T/page.out" >"$T/page.rows"
check_range "$(wc -l <"$T/text.rows")" 3 100000 "the text has rows"
diff -u "$T/text.rows" "$T/page.rows" >"$T/rows.diff" || { cat "$T/rows.diff" >&2; fail "the page's table differs from ringprof diff's"; }
ok "the page's table is ringprof diff's, row for row ($(wc -l <"$T/text.rows") rows: shares, deltas, ratios)"
# The rows' colours follow their deltas' signs.
check_no_grep '^diff_row grew\|[^|]*\|[^|]*\|-|^diff_row shrank\|[^|]*\|[^|]*\|\+' "$T/page.out" "a row that grew is red, one that shrank blue"

# c_row SYM: "baseline new delta" of diff --children's row of SYM.
c_row() { awk -v s="$1" '$NF == s && $(NF-1) == "[.]" { b = substr($0, 1, 10); n = substr($0, 11, 10); split(substr($0, 21), w, " ")
	gsub(/[ %]/, "", b); gsub(/[ %]/, "", n); print (b == "" ? 0 : b), (n == "" ? 0 : n), w[1]; exit }' "$T/c.txt"; }
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }' ||
		fail "$4: page $1, text $2 (tolerance $3)"
	ok "$4 (page $1, text $2)"
}
for fn in share_a share_b share_c; do
	read -r cb cn cd <<<"$(c_row $fn)"
	[ -n "$cd" ] || fail "$fn is not in diff --children's output"
	read -r delta cls rgb width pixel <<<"$(val "diff_frame_$fn")"
	check_eq "$pixel" "$rgb" "$fn's frame is painted in its colour on the canvas"
	check_eq "$(printf '%+.2f' "$delta")" "$cd" "$fn's frame: its change is diff --children's ($cd points)"
	r=$(echo "$rgb" | sed 's/rgb(\([0-9]*\),.*/\1/') b=$(echo "$rgb" | sed 's/.*,\([0-9]*\))/\1/')
	case "$cd" in
	-*) check_eq "$cls" shrank "$fn shrank" && [ "$b" -gt "$r" ] || fail "$fn shrank but is not blue: $rgb"; ok "$fn is blue ($rgb)" ;;
	*) check_eq "$cls" grew "$fn grew" && [ "$r" -gt "$b" ] || fail "$fn grew but is not red: $rgb"; ok "$fn is red ($rgb)" ;;
	esac
	near "$width" "$cn" 0.05 "$fn's width is its share of the new side"
	read -r _ _ _ bwidth _ <<<"$(val "diff_frame_base_$fn")"
	[ "$cb" = 0 ] && check_eq "$(val "diff_frame_base_$fn")" none "$fn, absent from the baseline, has no frame in its widths" ||
		near "$bwidth" "$cb" 0.05 "$fn's width with the baseline's widths is its baseline share"
done
check_range "$(val diff_frame_share_a | awk '{ print -$1 * 100 }' | cut -d. -f1)" 2400 3600 "share_a lost about 30 points"
read -r cb cn cda <<<"$(c_row share_a)"
near "$(val diff_search_base)" "$cb" 0.01 "search share_a: the baseline's share"
near "$(val diff_search_new)" "$cn" 0.01 "search share_a: the new side's share"
check_eq "$(val diff_matched)" share_a "search share_a: its frame, and no other, in the search's colour"
check_grep "^diff_tooltip_share_a share_a \| object: .* \| change: $cda points \(shrank\)\$" "$T/page.out" \
	"pointing at share_a's frame: its tooltip names it and gives diff's change ($cda points)"
check_eq "$(val diff_marked_share_a)" share_a "share_a's row clicked marks its frame"
check_eq "$(val diff_zoom_share_a)" 100.00 "a click on its frame zooms into it"
sb=$(sed -n 's/^# baseline: .*: \([0-9]*\) samples over.*/\1/p' "$T/d.txt")
sn=$(sed -n 's/^# new: .*: \([0-9]*\) samples over.*/\1/p' "$T/d.txt")
check_grep "^diff_legend .*red: grew.*blue: shrank.*Totals: baseline $sb samples, new $sn samples" "$T/page.out" \
	"the legend says the colours and both totals ($sb, $sn)"
check_grep "^diff_header # baseline: .*a\.data: $sb samples .* \| # new: .*b\.data: $sn samples .* \| # shares: Self" "$T/page.out" \
	"the page's header is the text's"

# The same recording on both sides: nothing grew or shrank.
"$RP" diff --html "$T/same.html" "$T/a.data" "$T/a.data" 2>/dev/null || fail "diff --html of one recording twice"
timeout 180 node "$WEB/report-html.cjs" --diff "$T/same.html" "$T" share_a,share_b >"$T/same.out" 2>&1 ||
	{ cat "$T/same.out" >&2; fail "driving the page of one recording twice"; }
check_no_grep '^diff_row (grew|shrank)' "$T/same.out" "one recording twice: no row grew or shrank"
check_grep '^diff_frame_share_a 0\.00 same rgb\(245,245,245\) [0-9.]+ rgb\(245,245,245\)$' "$T/same.out" "and share_a's frame is neither red nor blue"
for v in diff-flame diff-flame-baseline diff-search; do
	[ -s "$SHOTS/$v.png" ] || fail "no screenshot of $v"
done
ok "screenshots in $SHOTS"
