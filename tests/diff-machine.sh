#!/bin/bash
# diff-machine.sh — diff's machine-readable outputs on the golden recordings (v2 against v2.2,
# the same workload): -t/--field-separator is the padded table's rows joined, not padded,
# the separator turned into '.' in names; --json holds the same rows, in the same order, with
# the same shares, deltas and ratios, and each side's totals as report --json's header.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
G="$top_srcdir/tests/golden"
D=("$RP" diff --no-pager --symfs "$G/v2/symfs" "$G/v2/workload.rpd" "$G/v2.2/workload.rpd")

"${D[@]}" >"$T/pad" 2>"$T/err" || fail "diff: $(cat "$T/err")"
"${D[@]}" -t , >"$T/comma" 2>"$T/err" || fail "diff -t ,: $(cat "$T/err")"
# The padded table's rows, by its columns (" %8.2f%%" twice, " %+9.2f", " %9s", then the keys
# two blanks apart), joined by commas.
awk '!/^#/ { t = substr($0, 43); i = index(t, "  "); d = substr(t, 1, i - 1); s = substr(t, i)
	sub(/^ +/, "", s); sub(/ +$/, "", d)
	c[1] = substr($0, 1, 10); c[2] = substr($0, 11, 10); c[3] = substr($0, 21, 10); c[4] = substr($0, 31, 10)
	for (k = 1; k <= 4; k++) gsub(/ /, "", c[k]); sub(/^only/, "only ", c[4])
	print c[1] "," c[2] "," c[3] "," c[4] "," d "," s }' "$T/pad" >"$T/pad.rows"
grep -v '^#' "$T/comma" >"$T/comma.rows"
[ "$(wc -l <"$T/comma.rows")" -gt 10 ] || fail "diff -t , printed $(wc -l <"$T/comma.rows") rows"
diff -u "$T/pad.rows" "$T/comma.rows" >&2 || fail "diff -t , differs from the padded table"
ok "-t ,: the padded table's $(wc -l <"$T/comma.rows") rows, joined by commas"
check_grep '^# Baseline,New,Delta,Ratio,Shared Object,Symbol$' "$T/comma" "-t ,: the titles, joined"
check_grep '^[0-9.]+%,[0-9.]+%,[-+][0-9.]+,[0-9.]+,rp-workload,\[\.\] hot_leaf$' "$T/comma" "-t ,: hot_leaf on both sides"
check_grep '^,[0-9.]+%,\+[0-9.]+,only new,\[kernel\.kallsyms\],\[k\] ' "$T/comma" "-t ,: an entry of the new side only"
diff <(grep '^# [a-z]' "$T/pad") <(grep '^# [a-z]' "$T/comma") >&2 || fail "-t changed the header"
ok "-t: the header is the same"

"${D[@]}" --field-separator _ -s comm,sym >"$T/us" 2>/dev/null || fail "diff --field-separator _"
check_eq "$(grep -v '^#' "$T/us" | awk -F_ 'NF != 6' | wc -l)" 0 "-t _: six columns in every row"
check_grep '_rp-worker_\[\.\] worker\.spin$' "$T/us" "-t _: worker_spin is worker.spin"

"${D[@]}" --json >"$T/json" 2>"$T/err" || fail "diff --json: $(cat "$T/err")"
python3 - "$T/json" "$T/pad.rows" "$T/pad" <<'PY' >"$T/py.out" 2>&1 || fail "diff --json: $(tail -3 "$T/py.out")"
import json, re, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["ringprof"] == "diff" and d["schema"] == 1, (d["ringprof"], d["schema"])
assert d["keys"] == ["dso", "sym"] and d["shares"] == "self", (d["keys"], d["shares"])
head = open(sys.argv[3]).read()
for side, name in (("baseline", "v2"), ("new", "v2.2")):
    m = re.search(r"^# %s: (\S+): (\d+) samples" % side, head, re.M)
    assert d[side]["inputs"] == [m.group(1)], (d[side]["inputs"], m.group(1))
    assert d[side]["samples"] == int(m.group(2)), (side, d[side]["samples"], m.group(2))
    assert d[side]["event"] == "cpu-clock" and d[side]["lost"] == 0
pct = lambda v: "" if v is None else "%.2f%%" % v
rows = []
for r in d["rows"]:
    ratio = "only " + r["only"] if r["only"] else "%.2f" % r["ratio"]
    assert (r["only"] == "base") == (r["new"] is None) and (r["only"] == "new") == (r["baseline"] is None), r
    assert (r["baseline"] is None) == (r["baseline_period"] == 0), r
    sym = ("[k] " if r["kernel"] else "[.] ") + r["sym"]
    rows.append("%s,%s,%+.2f,%s,%s,%s" % (pct(r["baseline"]), pct(r["new"]), r["delta"], ratio, r["dso"], sym))
want = open(sys.argv[2]).read().splitlines()
for i, (a, b) in enumerate(zip(rows, want)):
    assert a == b, "row %d: json %s, table %s" % (i, a, b)
assert len(rows) == len(want), (len(rows), len(want))
# The shares are of each side's period: the baseline shares add up to 100.
s = sum(r["baseline"] or 0 for r in d["rows"])
assert abs(s - 100) < 0.01, s
print("rows", len(rows))
PY
ok "--json: the table's $(sed -n 's/^rows //p' "$T/py.out") rows, same order, shares, deltas, ratios; both sides' totals"

for o in "--json --folded" "--json -t ," "-t , --html $T/x.html"; do
	# shellcheck disable=SC2086
	"${D[@]}" $o >/dev/null 2>"$T/err"
	check_eq $? 2 "diff $o exits 2"
	check_grep '^ringprof diff: --html, --folded, --json and -t are different outputs: choose one$' \
		"$T/err" "diff $o: why"
done
"${D[@]}" -t ab >/dev/null 2>"$T/err"
check_eq $? 2 "-t ab exits 2"
check_grep "^ringprof diff: -t takes one character to put between the columns" "$T/err" "-t ab: why"
"$RP" diff --help >"$T/help"
check_grep '^  -t, --field-separator C ' "$T/help" "--help: -t"
check_grep '^      --json ' "$T/help" "--help: --json"
exit 0
