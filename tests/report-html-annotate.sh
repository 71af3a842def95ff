#!/bin/bash
# report-html-annotate.sh — the HTML page's source panel (issue 27) in a real browser: on
# rp-annotate (a hot loop on one known line, rp_mix inlined into two callers), a click on a hot
# function's frame shows its source lines with the shares `ringprof annotate` prints for the
# same recording, line by line, the loop's line marked hottest with its text, the inlined loop
# named as rp_mix's; a function the page did not annotate says so; a source not on this host
# gives the lines' numbers and shares with the reason, a binary without debug info annotate's
# note and no line. Screenshots go to
# tests/report-html-annotate.shots/ beside this test's log.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

require_browser
require_perf_events
W="$top_builddir/tests/workload/rp-annotate"
[ -x "$W" ] || fail "$W is not built (make check builds it)"
HOT=$(grep -n '/\* ANNOTATE-HOT \*/' "$top_srcdir/tests/workload/rp-annotate.c" | cut -d: -f1)
INL=$(grep -n '/\* ANNOTATE-INLINE \*/' "$top_srcdir/tests/workload/rp-annotate-inl.h" | cut -d: -f1)
SHOTS="$top_builddir/tests/report-html-annotate.shots"
rm -rf "$SHOTS"
mkdir -p "$SHOTS"

"$RP" record -q -e cpu-clock -g -o "$T/r.data" -- "$W" 2 || fail "record"
"$RP" annotate --stdio --no-pager -i "$T/r.data" hot_loop caller_a caller_b >"$T/a.txt" 2>"$T/a.err" ||
	fail "ringprof annotate: $(cat "$T/a.err")"
"$RP" report -i "$T/r.data" --html "$T/page.html" 2>"$T/html.err" || fail "report --html: $(cat "$T/html.err")"
cp "$T/page.html" "$SHOTS/page.html"
timeout 180 node "$WEB/report-html.cjs" --annotate "$T/page.html" "$SHOTS" hot_loop,caller_a,caller_b main \
	>"$T/page.out" 2>"$T/page.err" || {
	cat "$T/page.out" "$T/page.err" >&2
	fail "driving the page in chromium failed"
}
cat "$T/page.out"
check_no_grep '^(request|pageerror|console-error|error) ' "$T/page.out" "no request, no script error while the page is used"
val() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$T/page.out"; }

# section FUNC: FUNC's source lines in annotate's output, "LINE:PCT" each (lines with code).
section() {
	awk -v f="$1" '/^# [^ ]+ \(.*\): [0-9]+ samples/ { on = ($2 == f) } on && /^# Instructions/ { on = 0 }
		on && /^(>>|  ) +[0-9.]+ +[0-9]+/ { s = $0; sub(/^>>/, "", s); split(s, w, " "); printf "%s%s:%s", n++ ? "," : "", w[2], w[1] }
		END { print "" }' "$T/a.txt"
}
# hot FUNC: "LINE PCT" of annotate's line marked hottest.
hot() { awk -v f="$1" '/^# [^ ]+ \(.*\): [0-9]+ samples/ { on = ($2 == f) } on && /^# Instructions/ { on = 0 }
	on && /^>>/ { print $3, $2; exit }' "$T/a.txt"; }

for fn in hot_loop caller_a caller_b; do
	check_eq "$(val "source_shown_$fn")" true "$fn selected: the source panel is shown"
	[ -n "$(hot "$fn")" ] || fail "annotate marks no hottest line of $fn: $(cat "$T/a.txt")"
	check_eq "$(val "source_hot_$fn")" "$(hot "$fn")" "$fn: the page's hottest line and share are annotate's ($(hot "$fn"))"
	check_eq "$(val "source_all_$fn")" "$(section "$fn")" "$fn: every line's share is annotate's"
	check_eq "$(val "source_marker_$fn")" ">>" "$fn: the hottest line is marked"
	check_eq "$(val "source_marked_$fn")" 1 "$fn: one line marked"
	samples=$(awk -v f="$fn" '$1 == "#" && $2 == f && $3 ~ /:$/ { print $4; exit }' "$T/a.txt")
	check_grep "^source_note_$fn $samples samples of its own" "$T/page.out" "$fn: its samples are annotate's ($samples)"
done
read -r line _ <<<"$(val source_hot_hot_loop)"
check_eq "$line" "$HOT" "hot_loop's hottest line is the loop's ($HOT)"
check_grep '^source_text_hot_loop[[:space:]]+for \(uint64_t i = 0; i < n; i\+\+\) x = x \* 6364136223846793005ULL.*ANNOTATE-HOT' \
	"$T/page.out" "with the loop's source text"
check_grep '^source_file_hot_loop .*/tests/workload/rp-annotate\.c$' "$T/page.out" "in rp-annotate.c"
for fn in caller_a caller_b; do
	read -r line _ <<<"$(val "source_hot_$fn")"
	check_eq "$line" "$INL" "$fn: the hottest line is rp_mix's loop ($INL)"
	check_grep "^source_text_$fn .*ANNOTATE-INLINE.*\[inlined rp_mix\]$" "$T/page.out" "$fn: said to be rp_mix's, inlined"
	check_grep "^source_file_$fn .*/tests/workload/rp-annotate-inl\.h$" "$T/page.out" "$fn: in rp-annotate-inl.h"
done
check_grep '^source_cold_note Not annotated in this page: .* main is not one of them' "$T/page.out" \
	"main (no samples of its own) says it is not annotated"
check_eq "$(val source_cold_rows)" 0 "and shows no lines"
# A copy built here, its source then moved away: line numbers and shares without text, and
# the reason; stripped of its debug info: annotate's note, no line guessed.
mkdir -p "$T/src" "$T/moved" "$T/shots2" "$T/shots3"
cp "$top_srcdir/tests/workload/rp-annotate.c" "$top_srcdir/tests/workload/rp-annotate-inl.h" "$T/src/"
(cd "$T/src" && ${CC:-cc} -std=gnu11 -g -O2 -Wl,--build-id -o "$T/rpa" rp-annotate.c) || fail "cc"
cp "$T/rpa" "$T/rpa-nodebug" && strip -g "$T/rpa-nodebug" || fail "strip"
"$RP" record -q -e cpu-clock -g -o "$T/c.data" -- "$T/rpa" 1 || fail "record the copy"
"$RP" record -q -e cpu-clock -g -o "$T/s.data" -- "$T/rpa-nodebug" 1 || fail "record the stripped copy"
mv "$T/src/rp-annotate.c" "$T/src/rp-annotate-inl.h" "$T/moved/"
"$RP" annotate --no-pager -i "$T/c.data" hot_loop >"$T/c.txt" 2>&1 || fail "annotate: $(cat "$T/c.txt")"
"$RP" report -i "$T/c.data" --html "$T/c.html" 2>/dev/null || fail "report --html of the copy"
timeout 180 node "$WEB/report-html.cjs" --annotate "$T/c.html" "$T/shots2" hot_loop main >"$T/c.out" 2>&1 ||
	{ cat "$T/c.out" >&2; fail "driving the page of the copy"; }
check_grep "^source_file_hot_loop $T/src/rp-annotate\.c \(source not on this host: No such file or directory; line numbers only\)$" \
	"$T/c.out" "a source not on this host: said, with the reason"
hot_c=$(awk '/^>>/ { print $3, $2; exit }' "$T/c.txt")
check_eq "$(awk '$1 == "source_hot_hot_loop" { print $2, $3 }' "$T/c.out")" "$hot_c" "and the hot line and share are annotate's ($hot_c)"
check_grep '^source_text_hot_loop ?$' "$T/c.out" "no source text from anywhere else"
"$RP" annotate --no-pager -i "$T/s.data" hot_loop >"$T/s.txt" 2>&1 || fail "annotate: $(cat "$T/s.txt")"
why=$(sed -n 's/^#   none: //p' "$T/s.txt")
[ -n "$why" ] || fail "annotate gives no note for the stripped copy: $(cat "$T/s.txt")"
"$RP" report -i "$T/s.data" --html "$T/s.html" 2>/dev/null || fail "report --html of the stripped copy"
timeout 180 node "$WEB/report-html.cjs" --annotate "$T/s.html" "$T/shots3" hot_loop main >"$T/s.out" 2>&1 ||
	{ cat "$T/s.out" >&2; fail "driving the page of the stripped copy"; }
check_grep "^source_note_hot_loop .* No source lines: $(printf '%s' "$why" | sed 's/[][\.*^$()+?{}|]/\\&/g')\.$" "$T/s.out" \
	"no debug info: annotate's note ($why)"
check_eq "$(awk '$1 == "source_lines_hot_loop" { print $2 }' "$T/s.out")" 0 "and no line guessed"

for fn in hot_loop caller_a caller_b; do
	[ -s "$SHOTS/source-$fn.png" ] || fail "no screenshot of $fn's source"
done
ok "screenshots of the source panel in $SHOTS"
