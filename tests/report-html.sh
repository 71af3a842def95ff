#!/bin/bash
# report-html.sh — report --html in a real browser: the bundled workload (shares known by
# construction, tests/workload/README) recorded, its page opened in Debian's chromium,
# headless, driven by tests/web/report-html.cjs (playwright-core, which setup.sh installs),
# and what the page shows compared with the text report of the same recording: a function's
# frame width and its Children, the zoom, the search's shares, the table, the sandwich's
# callers, a range of the timeline against report --since/--until (of one recording and of a
# directory of them), stacks cut short; no request leaves the page. Screenshots of each view go to tests/report-html.shots/ beside this test's log.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

require_browser
require_perf_events

# The page's own code (report/html/): valid script, nothing that fetches, loads or evaluates.
node --check "$top_srcdir/report/html/page.js" 2>"$T/check.err" || fail "report/html/page.js: $(cat "$T/check.err")"
ok "report/html/page.js parses (node --check)"
check_no_grep '(^|[^A-Za-z0-9_$])(fetch|XMLHttpRequest|WebSocket|EventSource|importScripts|eval|Function|Worker|SharedWorker)\(|\.(sendBeacon|open|write)\(|import\(|\.(src|href) *=|https?:' \
	"$top_srcdir/report/html/page.js" "page.js: no request, no code loaded or evaluated at run time"
node --check "$top_srcdir/report/html/common.js" 2>"$T/check.err" || fail "report/html/common.js: $(cat "$T/check.err")"
check_no_grep '(^|[^A-Za-z0-9_$])(fetch|XMLHttpRequest|WebSocket|EventSource|importScripts|eval|Function|Worker|SharedWorker)\(|\.(sendBeacon|open|write)\(|import\(|\.(src|href) *=|https?:' \
	"$top_srcdir/report/html/common.js" "common.js (before both pages' scripts): parses; no request, nothing loaded or evaluated"
check_no_grep 'https?:|url\(|@import|@font-face' "$top_srcdir/report/html/page.css" "page.css: no font, image or style from elsewhere"
# The pages print shares as the text does (C's printf, ties to the even digit: 0.125 -> 0.12):
# every share of k in 4000 samples, and the same negated (a delta).
awk 'BEGIN { for (k = 1; k <= 4000; k++) printf "%.2f %.2f\n", 100 * k / 4000, -100 * k / 4000 }' >"$T/fixed.c"
node -e 'const vm = require("vm"), fs = require("fs"); const c = {}; vm.createContext(c);
	vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), c);
	const out = []; for (let k = 1; k <= 4000; k++) out.push(c.fixed(100 * k / 4000, 2) + " " + c.fixed(-100 * k / 4000, 2));
	fs.writeFileSync(process.argv[2], out.join("\n") + "\n");' "$top_srcdir/report/html/common.js" "$T/fixed.js" ||
	fail "common.js's fixed() did not run"
cmp -s "$T/fixed.c" "$T/fixed.js" || { diff "$T/fixed.c" "$T/fixed.js" | head -5 >&2; fail "common.js's fixed() differs from printf's %.2f"; }
ok "common.js's fixed(): every share of k/4000 as printf's %.2f writes it (0.125 -> 0.12)"

SHOTS="$top_builddir/tests/report-html.shots"
rm -rf "$SHOTS"
mkdir -p "$SHOTS"

"$RP" record -q -e cpu-clock -F 999 -g -o "$T/w.data" -- "$WL" -d 3 >"$T/wl.out" || fail "recording"
"$RP" report -i "$T/w.data" --html "$T/page.html" 2>"$T/html.err" || fail "report --html: $(cat "$T/html.err")"
[ -s "$T/page.html" ] || fail "report --html wrote nothing"
cp "$T/page.html" "$SHOTS/page.html"
ok "report --html wrote $(wc -c <"$T/page.html") bytes"
"$RP" report -i "$T/w.data" --html - >"$T/stdout.html" 2>/dev/null || fail "report --html -"
cmp -s "$T/page.html" "$T/stdout.html" || fail "--html - differs from --html FILE"
ok "--html - writes the same page to stdout"

# Self-contained: no script, style, font or frame from elsewhere, a policy that forbids
# requests, and the page's code does not make any.
check_no_grep '<(script|link|img|iframe)[^>]*(src|href)=' "$T/page.html" "no external script, style, image or frame"
check_no_grep '(fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon|importScripts)\(|import\(' "$T/page.html" "the page's script makes no request"
check_grep "Content-Security-Policy\" content=\"default-src 'none'" "$T/page.html" "a policy that forbids every request"

"$RP" report -i "$T/w.data" >"$T/children" 2>/dev/null || fail "report"
"$RP" report -i "$T/w.data" --no-children >"$T/self" 2>/dev/null || fail "report --no-children"

timeout 180 node "$WEB/report-html.cjs" "$T/page.html" "$SHOTS" hot_outer_a hot_leaf hot_leaf,hot_outer_a '/^hot_outer_[ab]$/' \
	>"$T/page.out" 2>"$T/page.err" || {
	cat "$T/page.out" "$T/page.err" >&2
	fail "driving the page in chromium failed"
}
cat "$T/page.out"
val() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$T/page.out"; }
check_no_grep '^(request|pageerror|console-error|error) ' "$T/page.out" "no request, no script error while the page is used"

# near A B TOLERANCE WHAT: two decimals within TOLERANCE.
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }' ||
		fail "$4: page $1, report $2 (tolerance $3)"
	ok "$4 (page $1, report $2)"
}
# col FILE COMM SYM N: column N (a share without %) of the report row of COMM's SYM.
col() {
	awk -v c="$2" -v s="$3" -v n="$4" '$1 !~ /^#/ && $3 == c && $NF == s { v = $n; sub("%", "", v); print v; exit }' "$1"
}
children=$(col "$T/children" rp-workload hot_outer_a 1)
self=$(col "$T/children" rp-workload hot_outer_a 2)
[ -n "$children" ] || fail "hot_outer_a is not in the text report"

near "$(val flame_pct)" "$children" 0.5 "flame graph: hot_outer_a's width is its Children share"
near "$(val zoom_pct)" 100 0.01 "a click on it zooms: it takes the full width"
dimmed=$(val zoom_dimmed)
check_range "${dimmed:-0}" 4 100 "its callers stay below it, dimmed"
check_grep '^tooltip hot_outer_a \| object: rp-workload \| kind: user \| samples: [0-9]+ ' "$T/page.out" "the tooltip names it, its object and samples"
# The frames are painted on a canvas: what is zoomed and selected is said in words beside it.
check_grep "^zoom_text zoomed into hot_outer_a \\(rp-workload\\), [0-9]+ frames drawn; selected: hot_outer_a \\(rp-workload\\): Children $children%, Self $self% of the range$" \
	"$T/page.out" "the graph's text names the zoomed and selected function and its shares"
# Zoomed into the frame that draws the most rows, then out: the graph its own height again.
read -r deep full zoomed <<<"$(val deep_zoom)"
read -r rows height <<<"$(val unzoomed)"
[ "$deep" = none ] && echo "# no frame's zoom draws more rows in this recording: the zoom-out height check runs without one"
check_eq "$rows $height" "$full $full" \
	"zoomed into ${deep:-?} ($full rows, $zoomed zoomed) and out: as many rows as before, the graph as tall as they"
near "$(val resized_pct)" "$children" 0.5 "in a narrower window: hot_outer_a's width is still its Children share"
check_grep '^resized_tooltip hot_outer_a \| ' "$T/page.out" "in a narrower window: pointing at it names it"
near "$(val table_children)" "$children" 0.01 "the table's Children of hot_outer_a is the report's"
near "$(val table_self)" "$self" 0.01 "the table's Self of hot_outer_a is the report's"

# Search "hot_leaf": samples with a matching frame (its Children: one command has it), and with
# a matching leaf (the sum of --no-children's matching rows).
leaf_children=$(awk '$1 !~ /^#/ && $NF == "hot_leaf" { v = $1; sub("%", "", v); s += v } END { printf "%.2f", s }' "$T/children")
leaf_self=$(awk '$1 !~ /^#/ && $NF == "hot_leaf" { v = $1; sub("%", "", v); s += v } END { printf "%.2f", s }' "$T/self")
near "$(val search_total)" "$leaf_children" 0.02 "search: the share with a matching frame"
near "$(val search_self)" "$leaf_self" 0.02 "search: the share in matching frames (report --no-children)"
check_range "$(val search_matches)" 2 50 "search highlights hot_leaf under both callers"
# A regular expression: hot_outer_a and hot_outer_b, on paths of their own.
outer_children=$(awk '$1 !~ /^#/ && $NF ~ /^hot_outer_[ab]$/ { v = $1; sub("%", "", v); s += v } END { printf "%.2f", s }' "$T/children")
outer_self=$(awk '$1 !~ /^#/ && $NF ~ /^hot_outer_[ab]$/ { v = $1; sub("%", "", v); s += v } END { printf "%.2f", s }' "$T/self")
near "$(val search2_total)" "$outer_children" 0.02 "search /^hot_outer_[ab]$/: the share with a matching frame"
near "$(val search2_self)" "$outer_self" 0.02 "search /^hot_outer_[ab]$/: the share in matching frames (report --no-children)"

# Sandwiches: hot_leaf's callers are those of report --children -g callee, hot_outer_a's
# callee that of report -g caller, with their shares (of all samples; the page draws them as
# shares of the function's width).
"$RP" report -i "$T/w.data" --children -g callee >"$T/callee" 2>/dev/null || fail "report -g callee"
"$RP" report -i "$T/w.data" -g caller >"$T/caller" 2>/dev/null || fail "report -g caller"
tree_share() { # tree_share FILE FUNC NEXT: the share the tree under FUNC's entry gives NEXT
	awk -v fn="$2" -v f="$3" '$1 !~ /^#/ && $NF == fn && /\[\.\] / { on = 1; next } on && /\[[.k]\] / { exit }
		on && $0 ~ ("%--" f "$") { s = $0; sub("%--" f "$", "", s); sub(/.*--/, "", s); print s; exit }' "$1"
}
# sandwich_check FUNC WHICH NEXT TREE: NEXT among FUNC's callers or callees (WHICH) at the share
# TREE (a report's output) gives it.
sandwich_check() {
	local list w children page_share
	list=$(val "sandwich_$2_$1")
	w=$(printf '%s\n' "$list" | tr ',' '\n' | awk -F: -v f="$3" '$1 == f { print $2 }')
	[ -n "$w" ] || fail "sandwich: $3 is not among $1's $2 ($list)"
	children=$(col "$T/children" rp-workload "$1" 1)
	page_share=$(awk -v w="$w" -v t="$children" 'BEGIN { printf "%.2f", w * t / 100 }')
	near "$page_share" "$(tree_share "$4" "$1" "$3")" 0.05 "sandwich of $1: $3 among its $2, as the text report's tree says"
}
sandwich_check hot_leaf callers hot_outer_a "$T/callee"
sandwich_check hot_leaf callers hot_outer_b "$T/callee"
sandwich_check hot_outer_a callers run_main "$T/callee"
sandwich_check hot_outer_a callees hot_leaf "$T/caller"

# Timeline: the range dragged is the report of --since/--until its times.
when() { # epoch ns -> local "YYYY-MM-DD HH:MM:SS.NNNNNNNNN", as --since takes it
	printf '%s.%09d' "$(date -d "@$(($1 / 1000000000))" '+%F %T')" $(($1 % 1000000000))
}
# check_window OUT WHAT INPUT...: the range the driver dragged (its output OUT) against the
# report of INPUT... --since/--until the range's times.
check_window() {
	local out=$1 what=$2 since until n
	shift 2
	since=$(when "$(awk '$1 == "range_since_ns" { print $2 }' "$out")")
	until=$(when "$(awk '$1 == "range_until_ns" { print $2 }' "$out")")
	"$RP" report "$@" --since "$since" --until "$until" >"$T/range" 2>"$T/range.err" ||
		fail "report --since/--until: $(cat "$T/range.err")"
	n=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$T/range")
	check_range "${n:-0}" 100 100000 "$what: the range holds samples ($since to $until)"
	check_eq "$(awk '$1 == "range_samples" { print $2 }' "$out")" "$n" "$what: the range's samples are those of report --since/--until"
	near "$(awk '$1 == "range_flame_pct" { print $2 }' "$out")" "$(col "$T/range" rp-workload hot_outer_a 1)" 0.5 \
		"$what: the range's flame graph: hot_outer_a's width is its Children in that window"
}
check_window "$T/page.out" "one recording" -i "$T/w.data"

# A directory of recordings, one a second (as ringprofd writes them): the timeline spans them
# all, and a range across a file boundary is again the report of its times.
mkdir -p "$T/dir"
"$RP" record -q -g -e cpu-clock -F 999 --switch-output=1s -o "$T/dir/sw.data" -- "$WL" -d 3 >"$T/sw.out" ||
	fail "recording with --switch-output"
# A file a second of the wall time the workload ran (3 s, or more on a busy machine).
wall=$(sed -n 's/^rp-workload: cpu seconds: .*; wall \([0-9]*\)\.[0-9]*$/\1/p' "$T/sw.out")
[ -n "$wall" ] || fail "the workload said no wall time: $(cat "$T/sw.out")"
check_range "$(ls "$T/dir" | wc -l)" 3 $((wall + 3)) "--switch-output wrote several recordings"
"$RP" report --dir "$T/dir" --html "$T/dir.html" 2>/dev/null || fail "report --dir --html"
timeout 180 node "$WEB/report-html.cjs" "$T/dir.html" "$T" hot_outer_a hot_leaf hot_leaf >"$T/dir.out" 2>&1 ||
	{ cat "$T/dir.out" >&2; fail "driving the page of a directory"; }
check_no_grep '^(request|pageerror|console-error|error) ' "$T/dir.out" "no request, no script error on the page of a directory"
"$RP" report --dir "$T/dir" >"$T/dir.txt" 2>/dev/null || fail "report --dir"
near "$(awk '$1 == "flame_pct" { print $2 }' "$T/dir.out")" "$(col "$T/dir.txt" rp-workload hot_outer_a 1)" 0.5 \
	"--dir: hot_outer_a's width is its Children over the directory"
check_window "$T/dir.out" "--dir" --dir "$T/dir"

# Stacks cut short (a 512-byte stack copy): each ends in a [cut: stack copy exhausted] frame
# right above its command, never passing for a whole stack; as wide as the header's share.
"$RP" record -q -e cpu-clock -F 999 --call-graph dwarf,512 -o "$T/cut.data" -- "$WL" -d 1 -q || fail "recording with a small stack copy"
"$RP" report -i "$T/cut.data" --html "$T/cut.html" 2>/dev/null || fail "report --html of cut stacks"
"$RP" report -i "$T/cut.data" --header-only >"$T/cut.hdr" 2>/dev/null || fail "report --header-only"
cut_share=$(sed -n 's/.*incomplete: \([0-9.]*\)% stack copy exhausted.*/\1/p' "$T/cut.hdr")
[ -n "$cut_share" ] || fail "the header gives no share of stacks cut by the stack copy: $(cat "$T/cut.hdr")"
timeout 120 node "$WEB/report-html.cjs" --marks "$T/cut.html" "$SHOTS" "[cut: stack copy exhausted]" \
	>"$T/cut.out" 2>"$T/cut.err" || { cat "$T/cut.out" "$T/cut.err" >&2; fail "driving the page of cut stacks"; }
cat "$T/cut.out"
check_no_grep '^(request|pageerror|console-error|error) ' "$T/cut.out" "no request, no script error on the page of cut stacks"
rows=$(awk '$1 == "mark_rows" { print $2 }' "$T/cut.out")
[ -n "$rows" ] || fail "no [cut: stack copy exhausted] frame drawn"
[ -z "$(printf '%s\n' "$rows" | tr ',' '\n' | grep -vx 1)" ] || fail "a cut mark not right above its command: rows $rows"
ok "every [cut: stack copy exhausted] frame is the outermost of its stack, above its command"
near "$(awk '$1 == "mark_pct" { print $2 }' "$T/cut.out")" "$cut_share" 3 "the cut stacks' share is the header's"

# Code without a symbol: rp-jit's generated loop with its perf map gone. The text call graph
# keeps each address apart ("[unknown] 0xADDR"); the page draws one [unknown] frame for the
# object at that place in the stack, as wide as the Children of the flat report's [unknown] row.
"$RP" record -q -e cpu-clock -F 999 -g -o "$T/jit.data" -- "$top_builddir/tests/workload/rp-jit" 1 >"$T/jit.run" ||
	fail "recording rp-jit"
jpid=$(sed -n 's/^rp-jit: pid //p' "$T/jit.run")
[ -n "$jpid" ] || fail "rp-jit said no pid: $(cat "$T/jit.run")"
rm -f "/tmp/perf-$jpid.map"
"$RP" report -i "$T/jit.data" --folded >"$T/jit.folded" 2>/dev/null || fail "report --folded of rp-jit"
addrs=$(grep -o '\[unknown\] 0x[0-9a-f]*' "$T/jit.folded" | sort -u | wc -l)
check_range "$addrs" 2 1000 "the text call graph keeps rp-jit's unknown addresses apart"
"$RP" report -i "$T/jit.data" --comms rp-jit >"$T/jit.flat" 2>/dev/null || fail "report of rp-jit"
jit_children=$(awk -v o="[JIT] pid $jpid" '$1 !~ /^#/ && index($0, " " o " ") && $NF == "[unknown]" { v = $1; sub("%", "", v); print v; exit }' "$T/jit.flat")
[ -n "$jit_children" ] || fail "no [unknown] row of [JIT] pid $jpid in the flat report of rp-jit: $(cat "$T/jit.flat")"
"$RP" report -i "$T/jit.data" --comms rp-jit --html "$T/jit.html" 2>/dev/null || fail "report --html of rp-jit"
timeout 120 node "$WEB/report-html.cjs" --marks "$T/jit.html" "$SHOTS" "[unknown]" \
	>"$T/jit.out" 2>"$T/jit.err" || { cat "$T/jit.out" "$T/jit.err" >&2; fail "driving the page of rp-jit"; }
cat "$T/jit.out"
# The [unknown] frames drawn, one line each: object, width. (Other objects may have their own:
# the sanitizer's threads in the ASan tree.)
paste -d'|' <(awk '$1 == "mark_objs" { $1 = ""; sub(/^ /, ""); print }' "$T/jit.out" | tr ',' '\n') \
	<(awk '$1 == "mark_widths" { print $2 }' "$T/jit.out" | tr ',' '\n') >"$T/jit.frames"
[ "$(grep -c "^\[JIT\] pid $jpid|" "$T/jit.frames")" = 1 ] ||
	fail "rp-jit's $addrs unknown addresses are not one [unknown] frame on the page: $(tr '\n' ' ' <"$T/jit.frames")"
ok "rp-jit's $addrs unknown addresses are one [unknown] frame on the page"
near "$(grep "^\[JIT\] pid $jpid|" "$T/jit.frames" | cut -d'|' -f2)" "$jit_children" 0.5 \
	"the [unknown] frame is as wide as its row's Children"
# The differential page of the recording against itself draws it so too.
"$RP" diff --html "$T/jit-diff.html" "$T/jit.data" "$T/jit.data" 2>/dev/null || fail "diff --html of rp-jit"
timeout 120 node "$WEB/report-html.cjs" --diff "$T/jit-diff.html" "$T" "[unknown]" >"$T/jit-diff.out" 2>&1 ||
	{ cat "$T/jit-diff.out" >&2; fail "driving the diff page of rp-jit"; }
awk '$1 == "diff_frames_[unknown]" { $1 = ""; sub(/^ /, ""); print }' "$T/jit-diff.out" | tr ',' '\n' >"$T/jit-diff.frames"
[ "$(grep -c "^\[JIT\] pid $jpid|" "$T/jit-diff.frames")" = 1 ] ||
	fail "rp-jit's unknown addresses are not one [unknown] frame on the diff page: $(tr '\n' ' ' <"$T/jit-diff.frames")"
ok "rp-jit's unknown addresses are one [unknown] frame on the diff page"

# Units: two services of a slice of our own (cgroup v2, as root), the timeline stacked by
# them on demand.
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
units_shot=""
if [ "$(id -u)" = 0 ] && [ -n "$CG" ] && mkdir "$CG/rp-html-$$.slice" 2>/dev/null; then
	S="$CG/rp-html-$$.slice"
	mkdir "$S/rp-a.service" "$S/rp-b.service"
	"$RP" record -q -a -g -e cpu-clock -F 999 -o "$T/units.data" -- sleep 2.5 &
	rec=$!
	sleep 0.5
	(echo $BASHPID >"$S/rp-a.service/cgroup.procs" && exec "$WL" -d 1 -q) &
	(echo $BASHPID >"$S/rp-b.service/cgroup.procs" && exec "$WL" -d 1 -q) &
	wait
	rmdir "$S/rp-a.service" "$S/rp-b.service" "$S" 2>/dev/null
	"$RP" report -i "$T/units.data" --html "$T/units.html" 2>/dev/null || fail "report --html of units"
	timeout 120 node "$WEB/report-html.cjs" --units "$T/units.html" "$SHOTS" >"$T/units.out" 2>&1 ||
		{ cat "$T/units.out" >&2; fail "driving the page of units"; }
	cat "$T/units.out"
	check_grep '^units_offered true$' "$T/units.out" "the page offers the timeline by unit"
	check_grep '^units_legend .*rp-a\.service' "$T/units.out" "the timeline by unit shows rp-a.service"
	check_grep '^units_legend .*rp-b\.service' "$T/units.out" "and rp-b.service"
	units_shot=timeline-by-unit
else
	echo "# not root or no cgroup v2 to make units in: the timeline by unit is not checked"
fi

for v in flame flame-zoomed flame-narrow search inverted sandwich-hot_leaf sandwich-hot_outer_a timeline-range cut-stacks $units_shot; do
	[ -s "$SHOTS/$v.png" ] || fail "no screenshot of $v"
done
ok "screenshots of each view in $SHOTS"
