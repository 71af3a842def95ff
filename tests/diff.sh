#!/bin/bash
# diff.sh — `ringprof diff`: two runs of a workload whose CPU shares move by a known amount
# (rp-shares: 70/30/0 then 40/40/20 % in share_a/share_b/share_c) show that movement within
# 3 points, share_c only on the new side; identical recordings diff to zero; --folded gives
# both counts per stack; --dir windows per side; perf diff on perf recordings of the same two
# runs agrees.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
SH="$top_builddir/tests/workload/rp-shares"
[ -x "$SH" ] || fail "$SH is not built (make check builds it)"

mkdir -p "$T/dir"
"$RP" record -q -e cpu-clock -g -o "$T/dir/a.data" -- "$SH" -d 1 70 30 0 || fail "record a"
sleep 2 # a gap of whole seconds between the two, for the --dir windows below
"$RP" record -q -e cpu-clock -g -o "$T/dir/b.data" -- "$SH" -d 1 40 40 20 || fail "record b"

"$RP" diff --no-pager "$T/dir/a.data" "$T/dir/b.data" >"$T/d.txt" 2>"$T/d.err" ||
	fail "ringprof diff: $(cat "$T/d.err")"
check_grep "^# baseline: .*a\.data: [0-9]+ samples" "$T/d.txt" "the header names the baseline"
check_grep "^# new: .*b\.data: [0-9]+ samples" "$T/d.txt" "the header names the new side"
check_grep "^# shares: Self, of each side's own total" "$T/d.txt" "the header says how shares are normalised"
check_grep "^# Baseline +New +Delta +Ratio +Shared Object +Symbol$" "$T/d.txt" "perf diff's columns"

# row SYM: "baseline new delta ratio" of the symbol's row (an absent share is "-").
row() {
	awk -v s="$1" '$NF == s && $(NF-1) == "[.]" {
		line = $0; b = substr(line, 1, 10); n = substr(line, 11, 10); rest = substr(line, 21)
		gsub(/[ %]/, "", b); gsub(/[ %]/, "", n); split(rest, r, " ")
		print (b == "" ? "-" : b), (n == "" ? "-" : n), r[1], (r[2] == "only" ? r[2] "_" r[3] : r[2])
		exit }' "$T/d.txt"
}
# points X: X (a decimal, signed) in hundredths, as an integer.
points() { awk -v x="$1" 'BEGIN { printf "%d", (x < 0 ? x * 100 - 0.5 : x * 100 + 0.5) }'; }

read -r b n delta ratio <<<"$(row share_a)"
check_range "$(points "$delta")" -3300 -2700 "share_a moved by -30 points (70 % -> 40 %)"
check_range "$(points "$b")" 6500 7300 "share_a's baseline share near 70 %"
read -r b n delta ratio <<<"$(row share_b)"
check_range "$(points "$delta")" 700 1300 "share_b moved by +10 points (30 % -> 40 %)"
check_range "$(points "$ratio")" 118 150 "share_b's ratio near 4/3"
read -r b n delta ratio <<<"$(row share_c)"
check_eq "$b $ratio" "- only_new" "share_c is only in the new recording, and says so"
check_range "$(points "$delta")" 1700 2300 "share_c moved by +20 points (0 % -> 20 %)"
# Largest change first: share_a, then share_c, then share_b.
check_eq "$(grep -E '\[\.\] share_' "$T/d.txt" | awk '{ print $NF }' | tr '\n' ' ')" \
	"share_a share_c share_b " "rows sorted by absolute delta"

# The other way round, share_c is only in the baseline.
"$RP" diff --no-pager "$T/dir/b.data" "$T/dir/a.data" >"$T/d.txt" 2>"$T/d.err" || fail "diff b a"
check_grep "^ +[0-9.]+% +-[0-9.]+ +only base +rp-shares +\[\.\] share_c$" "$T/d.txt" \
	"share_c only in the baseline, and says so"

# Identical recordings: every delta is zero, nothing is on one side only.
"$RP" diff --no-pager "$T/dir/a.data" "$T/dir/a.data" >"$T/same.txt" 2>"$T/d.err" || fail "diff a a"
check_grep "share_a$" "$T/same.txt" "the identical diff lists the entries"
check_no_grep "^ .* [+-]0*[1-9][0-9]*\.[0-9]{2} |^ .* [+-]0\.(0[1-9]|[1-9][0-9]) |only" "$T/same.txt" \
	"identical recordings diff to zero"

# --sort keys as report's: comm,sym pairs by command name too.
"$RP" diff --no-pager -s comm,sym "$T/dir/a.data" "$T/dir/b.data" >"$T/cs.txt" 2>"$T/d.err" ||
	fail "diff -s comm,sym: $(cat "$T/d.err")"
check_grep "^# Baseline +New +Delta +Ratio +Command +Symbol$" "$T/cs.txt" "-s comm,sym: its columns"
check_grep "^ +[0-9.]+% +[0-9.]+% +-[0-9.]+ +[0-9.]+ +rp-shares +\[\.\] share_a$" "$T/cs.txt" \
	"-s comm,sym: share_a's row under its command"

# --folded: "stack countA countB", the difffolded format; counts are samples of each side.
"$RP" diff --folded "$T/dir/a.data" "$T/dir/b.data" >"$T/f.txt" 2>"$T/d.err" || fail "diff --folded"
check_grep "^rp-shares;.*;main;share_a [0-9]+ [0-9]+$" "$T/f.txt" "a folded line with both counts"
check_grep "^rp-shares;.*;main;share_c 0 [1-9][0-9]*$" "$T/f.txt" "share_c: 0 in the baseline"
check_no_grep "^[^ ]+ [0-9]+$|^[^ ]+ [0-9]+ [0-9]+ " "$T/f.txt" "every folded line has exactly two counts"
ca=$(awk '/;main;share_a / { a += $2; b += $3 } END { printf "%d %d", a, b }' "$T/f.txt")
read -r fa fb <<<"$ca"
[ "$fa" -gt "$fb" ] || fail "share_a should lose samples: $ca"
ok "share_a's samples fall from baseline to new ($ca)"

# --dir windows per side: the same directory, the baseline's window the first recording, the
# new one's the last two seconds (the second recording).
"$RP" diff --no-pager --baseline-until +2 --since -2 "$T/dir" "$T/dir" >"$T/w.txt" 2>"$T/w.err" ||
	fail "diff with windows: $(cat "$T/w.err")"
check_grep "^# baseline: .*/dir/a\.data and 1 more recording" "$T/w.txt" "the baseline reads the directory"
cp "$T/w.txt" "$T/d.txt"
read -r b n delta ratio <<<"$(row share_a)"
check_range "$(points "$delta")" -3300 -2700 "windows of one directory: share_a moved by -30 points"
read -r b n delta ratio <<<"$(row share_c)"
check_eq "$ratio" "only_new" "windows of one directory: share_c only in the later window"

# Usage errors say what to do.
"$RP" diff "$T/dir/a.data" >"$T/u.out" 2>"$T/u.err" && fail "one operand should be refused"
check_grep "^ringprof diff: too few operands: give two recordings" "$T/u.err" "one operand: the message"
"$RP" diff -i "$T/dir/a.data" "$T/dir/a.data" "$T/dir/b.data" >"$T/u.out" 2>"$T/u.err" &&
	fail "-i should be refused"
check_grep "^ringprof diff: give the two recordings .* as operands" "$T/u.err" "-i: the message"
"$RP" diff "$T/dir/a.data" "$T/nope.data" >"$T/u.out" 2>"$T/u.err" && fail "a missing file should fail"
check_grep "^ringprof diff: .*nope\.data: " "$T/u.err" "a missing recording is named"

# perf diff on perf's own recordings of the same two runs shows the same movement.
command -v perf >/dev/null || fail "perf is not installed (setup.sh installs linux-perf)"
perf record -q -e cpu-clock -o "$T/pa.data" -- "$SH" -d 1 70 30 0 2>"$T/perf.err" ||
	fail "perf record: $(cat "$T/perf.err")"
perf record -q -e cpu-clock -o "$T/pb.data" -- "$SH" -d 1 40 40 20 2>"$T/perf.err" ||
	fail "perf record: $(cat "$T/perf.err")"
perf diff "$T/pa.data" "$T/pb.data" >"$T/pd.txt" 2>"$T/perf.err" || fail "perf diff: $(cat "$T/perf.err")"
pdelta=$(awk '$NF == "share_a" { for (i = 1; i <= NF; i++) if ($i ~ /^[+-][0-9.]+%$/) { sub("%", "", $i); print $i; exit } }' "$T/pd.txt")
[ -n "$pdelta" ] || { cat "$T/pd.txt" >&2; fail "no share_a row in perf diff"; }
"$RP" diff --no-pager "$T/dir/a.data" "$T/dir/b.data" >"$T/d.txt" 2>"$T/d.err" || fail "diff again"
read -r b n delta ratio <<<"$(row share_a)"
gap=$(($(points "$delta") - $(points "$pdelta")))
check_range "${gap#-}" 0 300 "ringprof diff's share_a delta ($delta) within 3 points of perf diff's ($pdelta)"

# No operands: ringprof.data.old against ringprof.data, as perf diff (record keeps the old one).
mkdir "$T/cwd"
(cd "$T/cwd" && "$RP" diff) >"$T/none.out" 2>&1
check_eq $? 2 "diff without operands and without ringprof.data.old: usage error"
check_grep "no operands, and no ringprof.data.old to compare with ringprof.data" "$T/none.out" "and says what is missing"
cp "$T/dir/a.data" "$T/cwd/ringprof.data.old"
cp "$T/dir/b.data" "$T/cwd/ringprof.data"
(cd "$T/cwd" && "$RP" diff --no-pager) >"$T/none.out" 2>&1 || fail "diff without operands: $(tail -2 "$T/none.out")"
check_grep '^# baseline: ringprof\.data\.old: ' "$T/none.out" "no operands: the baseline is ringprof.data.old"
check_grep '^# new: ringprof\.data: ' "$T/none.out" "no operands: the new side is ringprof.data"
