#!/bin/bash
# diff-folded-norm.sh — `diff --folded` normalises as FlameGraph's difffolded.pl -n: the
# baseline's counts scaled to the new side's total, floor(count * NEW / BASE), said on stderr;
# --no-normalize keeps the raw counts and notes totals more than 5 % apart. On the golden v2
# recording against itself, the baseline windowed to its first half (about half the samples).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
G="$top_srcdir/tests/golden"
D=("$RP" diff --folded --symfs "$G/v2/symfs" --baseline-until +0.5 "$G/v2/workload.rpd" "$G/v2/workload.rpd")

"${D[@]}" --no-normalize >"$T/raw" 2>"$T/raw.err" || fail "diff --folded --no-normalize: $(cat "$T/raw.err")"
"${D[@]}" >"$T/norm" 2>"$T/norm.err" || fail "diff --folded: $(cat "$T/norm.err")"
read -r tb tn <<<"$(awk '{ b += $(NF-1); n += $NF } END { print b + 0, n + 0 }' "$T/raw")"
[ "$tb" -gt 0 ] && [ "$tn" -gt 0 ] || fail "raw totals $tb and $tn: nothing to normalise"
# The window must make the totals differ, or this test proves nothing.
check_range "$((tb * 100 / tn))" 30 70 "the windowed baseline holds about half the samples ($tb of $tn)"

# The expected normalised lines, from the raw ones, in integer arithmetic as difffolded.pl -n.
awk -v tb="$tb" -v tn="$tn" '{ b = $(NF-1); n = $NF; s = $0; sub(/ [0-9]+ [0-9]+$/, "", s)
	printf "%s %d %d\n", s, int(b * tn / tb), n }' "$T/raw" >"$T/want"
diff -u "$T/want" "$T/norm" >&2 || fail "normalised counts are not floor(baseline * $tn / $tb)"
ok "every baseline count is floor(count * $tn / $tb), the new side's unchanged ($(wc -l <"$T/norm") stacks)"
hot=$(awk '{ if ($(NF-1) > m) m = $(NF-1) } END { print m }' "$T/raw")
hotn=$(awk '{ if ($(NF-1) > m) m = $(NF-1) } END { print m }' "$T/norm")
check_range "$((hotn * 100 / hot))" 150 300 "the hottest baseline stack about doubled ($hot -> $hotn)"
read -r nb nn <<<"$(awk '{ b += $(NF-1); n += $NF } END { print b + 0, n + 0 }' "$T/norm")"
check_range "$nb" "$((tn - $(wc -l <"$T/norm")))" "$tn" "the normalised baseline sums to the new total, less rounding ($nb of $tn)"

check_eq "$(cat "$T/norm.err")" \
	"ringprof diff: note: the baseline's counts ($tb in all) are scaled to the new side's total ($tn), as difffolded.pl -n; --no-normalize for raw counts" \
	"the scaling is said on stderr, with both totals"
check_eq "$(cat "$T/raw.err")" \
	"ringprof diff: note: raw counts whose totals differ by more than 5 % ($tb and $tn): widths compare volumes, not shares" \
	"--no-normalize: totals more than 5 % apart are noted"

# Equal totals: nothing scaled, nothing said, the same lines as --no-normalize.
E=("$RP" diff --folded --symfs "$G/v2/symfs" "$G/v2/workload.rpd" "$G/v2/workload.rpd")
"${E[@]}" >"$T/same" 2>"$T/same.err" || fail "diff --folded v2 v2"
"${E[@]}" --no-normalize >"$T/same.raw" 2>&1 || fail "diff --folded --no-normalize v2 v2"
check_eq "$(wc -c <"$T/same.err")" 0 "equal totals: no note"
cmp -s "$T/same" "$T/same.raw" || fail "equal totals: normalised output differs from the raw"
ok "equal totals: the counts are left as they are"

"$RP" diff --no-normalize "$G/v2/workload.rpd" "$G/v2/workload.rpd" >/dev/null 2>"$T/use.err"
check_eq "$?" 2 "--no-normalize without --folded is a usage error"
check_grep "^ringprof diff: --no-normalize is of --folded's counts" "$T/use.err" "and says why"
"$RP" diff --help | grep -q -- '--no-normalize' || fail "--help does not list --no-normalize"
ok "--help lists --no-normalize"
