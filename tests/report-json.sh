#!/bin/bash
# report-json.sh — report --json: one JSON object (header, keys, rows) whose rows are the table's
# (the same entries, shares and samples as -t of the same recording), whose totals are the
# header's, with names escaped (a command named with a quote and a backslash).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
command -v python3 >/dev/null || skip "python3 is needed to parse the JSON"
R="$RP report"

# The workload under a name with a quote and a backslash (a link: $ORIGIN finds its library).
ln -s "$(readlink -f "$WL")" "$T/a\"b\\c" || fail "link the workload"
"$RP" record -q -e cpu-clock -F 499 -g -o "$T/r.data" -- "$T/a\"b\\c" -d 1 -q || fail "ringprof record"
$R -i "$T/r.data" --json >"$T/r.json" 2>"$T/err" || fail "report --json: $(cat "$T/err")"
$R -i "$T/r.data" -n -t "$(printf '\t')" -q >"$T/r.tsv" 2>/dev/null || fail "report -t TAB"
$R -i "$T/r.data" >"$T/r.txt" 2>/dev/null || fail "report"
# The JSON's rows as -t prints them (tab-joined, shares to 2 decimals), and its totals.
python3 - "$T/r.json" >"$T/json.tsv" 2>"$T/py.err" <<'PY' || { cat "$T/py.err" >&2; fail "the JSON does not parse or lacks a member"; }
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["ringprof"] == "report" and d["schema"] == 1, "ringprof/schema"
assert d["keys"] == ["comm", "dso", "sym"] and d["children"] is True, "keys/children"
h = d["header"]
print("#samples", h["samples"], h["event"], len(h["inputs"]), sum(r["self_samples"] for r in d["rows"]))
for r in d["rows"]:
    # the shares from the periods, computed as the table computes them (no double rounding)
    assert abs(r["self"] - 100.0 * r["self_period"] / h["shares_of"]) < 1e-3, "self"
    print("%.2f%%\t%.2f%%\t%d\t%s\t%s\t[%s] %s" % (100.0 * r["children_period"] / h["shares_of"],
          100.0 * r["self_period"] / h["shares_of"], r["children_samples"],
          r["comm"], r["dso"], "k" if r["kernel"] else ".", r["sym"]))
PY
diff -u "$T/r.tsv" <(grep -v '^#' "$T/json.tsv") >&2 || fail "--json's rows differ from -t's"
ok "--json: the table's $(wc -l <"$T/r.tsv") rows, shares and samples"
n=$(sed -n 's/^# samples: \([0-9]*\),.*/\1/p' "$T/r.txt")
check_eq "$(grep '^#samples' "$T/json.tsv")" "#samples $n cpu-clock 1 $n" \
	"header: the report's samples ($n), the event, the input; the rows' Self samples add up to them"
check_grep '"comm": "a\\"b\\\\c"' "$T/r.json" "a quote and a backslash in a name are escaped"
check_grep '^\{$' "$T/r.json" "one object"

# The keys, --no-children and a filter apply; outputs that are not the table are refused.
$R -i "$T/r.data" --json --no-children -s pid,sym --comm 'a"b\c' >"$T/p.json" 2>/dev/null || fail "report --json -s pid,sym"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["keys"] == ["pid", "sym"] and d["children"] is False
assert all(isinstance(r["pid"], int) and "children" not in r and "comm" not in r for r in d["rows"])
assert d["header"]["samples"] < d["header"]["samples_before_filters"]
' "$T/p.json" || fail "--json -s pid,sym --no-children --comm: keys, members or totals wrong"
ok "--json -s pid,sym --no-children --comm: pid numbers, no Children, the filtered totals"
$R -i "$T/r.data" --json --folded >/dev/null 2>"$T/err"
check_eq $? 2 "--json --folded exits 2"
check_grep '^ringprof report: --json is the header and the flat table as JSON: not with --folded$' "$T/err" "and says why"
