#!/bin/bash
# report-speedscope.sh — report --speedscope FILE: a file speedscope's published schema accepts
# (tests/speedscope/, from the speedscope package, MIT), one profile per command whose stacks
# are report --folded's stacks and whose weights add up to the report's period.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
command -v python3 >/dev/null || skip "python3 is needed to read the file"
R="$RP report"
SCHEMA="${top_srcdir:-$(dirname "$0")/..}/tests/speedscope/file-format-schema.json"

"$RP" record -q -e cpu-clock -F 499 -g -o "$T/r.data" -- "$WL" -d 1 -q || fail "ringprof record"
$R -i "$T/r.data" --speedscope "$T/r.speedscope.json" >"$T/out" 2>"$T/err" || fail "report --speedscope: $(cat "$T/err")"
check_eq "$(wc -c <"$T/out")" 0 "--speedscope prints nothing on stdout"
$R -i "$T/r.data" --folded >"$T/r.folded" 2>/dev/null || fail "report --folded"
$R -i "$T/r.data" --json >"$T/r.json" 2>/dev/null || fail "report --json"

# An interpreter with jsonschema (setup.sh installs Debian's python3-jsonschema for
# /usr/bin/python3; another python3 first on PATH may have its own).
PY=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import jsonschema' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || fail "no python3 with jsonschema (Debian: python3-jsonschema): the schema cannot be checked"
"$PY" - "$T/r.speedscope.json" "$T/r.folded" "$T/r.json" "$SCHEMA" >"$T/py.out" 2>"$T/py.err" <<'PY' || { cat "$T/py.err" >&2; fail "the speedscope file is wrong: $(tail -1 "$T/py.err")"; }
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
import jsonschema
jsonschema.validate(d, json.load(open(sys.argv[4])))
print("schema: valid")
frames = d["shared"]["frames"]
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
stacks, total, names = {}, 0, []
for p in d["profiles"]:
    assert p["type"] == "sampled" and p["unit"] == "nanoseconds" and p["startValue"] == 0
    assert len(p["samples"]) == len(p["weights"]) and sum(p["weights"]) == p["endValue"], p["name"]
    names.append(p["name"])
    total += p["endValue"]
    for st in p["samples"]:
        key = ";".join([p["name"]] + [frames[i]["name"] for i in st])
        stacks[key] = True
assert names[0] == "rp-workload" and sorted(names) == ["rp-child", "rp-worker", "rp-workload"], names
folded = {}
for line in open(sys.argv[2]):
    stack = line.rsplit(" ", 1)[0]
    folded[";".join(f[:-4] if f.endswith("_[k]") else f for f in stack.split(";"))] = True
assert set(stacks) == set(folded), (set(stacks) ^ set(folded))
period = json.load(open(sys.argv[3]))["header"]["period"]
assert total == period, (total, period)
print("stacks", len(stacks), "period", period)
PY
check_grep '^schema: valid$' "$T/py.out" "the file is valid against speedscope's schema"
check_grep '^stacks [0-9]+ period [0-9]+$' "$T/py.out" \
	"one profile per command, the busiest first; --folded's stacks, root first; the report's period"

$R -i "$T/r.data" --speedscope "$T/x.json" --json >/dev/null 2>"$T/err"
check_eq $? 2 "--speedscope with --json exits 2"
check_grep '^ringprof report: --speedscope writes the stacks to its file: not with another output' "$T/err" "and says why"
$R -i "$T/r.data" --speedscope "$T/no/such/dir/x.json" >/dev/null 2>"$T/err"
check_eq $? 1 "an output that cannot be created exits 1"
check_grep "^ringprof report: --speedscope: cannot create $T/no/such/dir/x.json: No such file or directory$" "$T/err" "and says why"
