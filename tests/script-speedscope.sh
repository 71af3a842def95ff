#!/bin/bash
# script-speedscope.sh — `ringprof script` text opened in speedscope (its npm package's own page,
# tests/web/speedscope-import.cjs): speedscope picks its perf script importer for it, makes one
# profile per thread, and the first thread's frames are those report --folded gives that
# thread. The same text with the command padded to 16 columns (the old layout) is refused.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
require_browser
[ -f "$WEB/node_modules/speedscope/dist/release/index.html" ] ||
	fail "speedscope is not installed in $WEB/node_modules: run setup.sh"

"$RP" record -q -e cpu-clock -F 499 --call-graph fp -o "$T/r.data" -- "$WL" -d 1 -q ||
	fail "ringprof record"
"$RP" script -i "$T/r.data" >"$T/s.txt" 2>"$T/s.err" || fail "ringprof script: $(cat "$T/s.err")"
node "$WEB/speedscope-import.cjs" "$T/s.txt" ringprof-script.txt "$T" >"$T/ss.out" 2>"$T/ss.err" ||
	fail "speedscope-import.cjs: $(cat "$T/ss.err")"
check_no_grep '^error ' "$T/ss.out" "speedscope opens the file without an error"
check_grep '^importer Importing from linux perf script output$' "$T/ss.out" \
	"speedscope reads it with its perf script importer"

# One profile per thread, the first one seen first.
threads=$(awk '/^[^\t]/ { print $1, $2 }' "$T/s.txt" | sort -u | wc -l)
check_eq "$(sed -n 's/^profiles //p' "$T/ss.out")" "$threads" "one speedscope profile per thread ($threads)"
read -r comm pidtid _ <"$T/s.txt"
pid=${pidtid%/*} tid=${pidtid#*/}
check_eq "$(sed -n 's/^profile //p' "$T/ss.out")" "$comm pid: $pid tid: $tid" "the first profile is the first sample's thread"

# Its frames: those of report --folded --tid (without the kernel's _[k] marks), unknown ones
# aside (speedscope names them "??? (OBJECT)", the report "[OBJECT]").
"$RP" report -i "$T/r.data" --tid "$tid" --folded >"$T/tid.folded" 2>/dev/null || fail "report --tid --folded"
# (The count is after the last space: a C++ frame's name may hold spaces, "(unsigned long)".)
awk '{ sub(/^[^;]*;/, ""); sub(/ [0-9]+$/, ""); print }' "$T/tid.folded" | tr ';' '\n' | sed 's/_\[k\]$//' |
	grep -v '^\[' | sort -u >"$T/want"
sed -n 's/^sym //p' "$T/ss.out" | grep -v '^??? ' | sort -u >"$T/got"
[ -s "$T/want" ] || fail "report --tid $tid --folded has no frame"
diff -u "$T/want" "$T/got" >"$T/names.diff" ||
	fail "speedscope's frames of thread $tid differ from the report's: $(head -20 "$T/names.diff")"
ok "speedscope's $(wc -l <"$T/got") frame names of thread $tid are the report's"
# The function with the most self time: among the report's two first leaves for the thread
# (speedscope weighs a sample by the time to the next one, the report counts samples).
awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); s[f[k]] += n } END { for (x in s) print s[x], x }' \
	"$T/tid.folded" | sed 's/_\[k\]$//' | sort -rn | head -2 | cut -d' ' -f2 >"$T/top2"
top=$(sed -n 's/^top_self //p' "$T/ss.out")
grep -qxF "$top" "$T/top2" || fail "speedscope's top self function $top is not among the report's two first: $(tr '\n' ' ' <"$T/top2")"
ok "speedscope's top self function, $top, is one of the report's two first"

# The old layout, the command padded to 16 columns: speedscope finds no perf script in it.
awk '/^[^\t]/ { printf "%16s %s\n", $1, substr($0, length($1) + 2); next } { print }' "$T/s.txt" >"$T/padded.txt"
node "$WEB/speedscope-import.cjs" "$T/padded.txt" ringprof-script.txt "$T" >"$T/pad.out" 2>&1
check_no_grep '^importer Importing from linux perf script output$' "$T/pad.out" \
	"the padded layout is not read as perf script (the check can fail)"
exit 0
