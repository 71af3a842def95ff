#!/bin/bash
# report-field-sep.sh — perf's report -t/--field-separator: the table's columns joined by one
# character, not padded, the character turned into '.' in names; the same entries and shares as
# the padded table of the same recording.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
R="$RP report"

"$RP" record -q -e cpu-clock -F 499 -g -o "$T/r.data" -- "$WL" -d 1 -q || fail "ringprof record"
$R -i "$T/r.data" --no-children -n -s comm,dso,sym >"$T/pad" 2>/dev/null || fail "report"
$R -i "$T/r.data" --no-children -n -s comm,dso,sym -t , >"$T/comma" 2>/dev/null || fail "report -t ,"
# The padded table's rows, joined as -t , joins them (the symbol, "[.] NAME", is the rest).
awk '!/^#/ && NF >= 5 { s = $5; for (i = 6; i <= NF; i++) s = s " " $i; print $1 "," $2 "," $3 "," $4 "," s }' \
	"$T/pad" >"$T/pad.rows"
grep -v '^#' "$T/comma" >"$T/comma.rows"
[ -s "$T/comma.rows" ] || fail "-t , printed no rows"
diff -u "$T/pad.rows" "$T/comma.rows" >&2 || fail "-t , differs from the padded table"
ok "-t ,: the padded table's $(wc -l <"$T/comma.rows") rows, joined by commas"
check_grep '^# Self,Samples,Command,Shared Object,Symbol$' "$T/comma" "-t ,: the titles, joined"
check_grep '^[0-9.]+%,[0-9]+,rp-workload,rp-workload,\[\.\] hot_leaf$' "$T/comma" "-t ,: hot_leaf's row"
diff <(grep '^#' "$T/pad" | sed '/^# *Self/d') <(grep '^#' "$T/comma" | sed '/^# Self/d') >&2 ||
	fail "-t changed the header"
ok "-t: the header is the same"

# The separator in a name becomes '.': every row has exactly its columns.
$R -i "$T/r.data" --no-children -s comm,sym -t _ -q >"$T/us" 2>/dev/null || fail "report -t _"
check_no_grep '^#' "$T/us" "-t _ -q: no '#' lines"
check_eq "$(awk -F_ 'NF != 3' "$T/us" | wc -l)" 0 "-t _: three columns in every row"
check_grep '^[0-9.]+%_rp-worker_\[\.\] worker\.spin$' "$T/us" "-t _: worker_spin is worker.spin"
check_eq "$(wc -l <"$T/us")" "$($R -i "$T/r.data" --no-children -s comm,sym -q 2>/dev/null | wc -l)" \
	"-t _: as many rows as without -t"

# --field-separator and --children.
$R -i "$T/r.data" --children --field-separator=';' >"$T/ch" 2>/dev/null || fail "report --field-separator"
check_grep '^# Children;Self;Command;Shared Object;Symbol$' "$T/ch" "--children: both shares"
check_grep '^[0-9.]+%;[0-9.]+%;rp-workload;rp-workload;\[\.\] run_main$' "$T/ch" "--children: run_main's row"

$R -i "$T/r.data" -t ab >/dev/null 2>"$T/err"
check_eq $? 2 "-t ab exits 2"
check_grep "^ringprof report: -t takes one character to put between the columns" "$T/err" "-t ab: why"
$R -i "$T/r.data" -t , -g >/dev/null 2>"$T/err"
check_eq $? 2 "-t with -g exits 2"
check_grep "^ringprof report: -t prints one line per entry, without call-graph trees" "$T/err" "-t -g: why"
$R --help >"$T/help"
check_grep '^  -t, --field-separator C ' "$T/help" "--help: -t"
