#!/bin/bash
# top.sh — `ringprof top`: a live flat profile (issue 28). Its refreshes name the busy functions
# of a running workload, its shares are those of a report of the same recordings (--keep),
# -- COMMAND ends with the command, and a recorder that cannot start is an error that says why.
. "$(dirname "$0")/lib.sh"
require_perf_events

"$RP" --help | grep -q '^  top ' || fail "ringprof --help does not list top"
ok "ringprof --help lists top"
"$RP" top --help >"$T/help" || fail "ringprof top --help"
for o in --pid --event --freq --call-graph --sort --filter --dir --delay --iterations --entries --zero --stdio --keep --comm --dso; do
	grep -q -- "$o" "$T/help" || fail "top --help does not describe $o"
done
ok "top --help describes its options"

# rows FILE N: the rows of the Nth refresh ("SHARE SAMPLES OBJECT SYMBOL").
rows() {
	awk -v n="$2" '/^# ringprof top, refresh / { r++ } r == n && !/^#/ && NF >= 5 { print $1, $2, $3, $5 }' "$1"
}

# 1. -p a running workload: three refreshes, its busy functions on top.
"$WL" -d 30 >/dev/null 2>&1 &
W=$!
BG_PIDS="$W"
sleep 0.3
"$RP" top -p "$W" -e cpu-clock -d 1 -n 3 -E 10 --keep "$T/keep" >"$T/top.out" 2>"$T/top.err" ||
	fail "top -p: status $? ($(tail -2 "$T/top.err"))"
check_eq "$(grep -c '^# ringprof top, refresh ' "$T/top.out")" 3 "-n 3: three refreshes (stdout is not a terminal: printed)"
check_grep '^# ringprof top, refresh 3: [1-9][0-9]* samples of cpu-clock \(1000 Hz, -p\) in [1-9][0-9]* recordings?, since the start' "$T/top.out" \
	"the header says the samples, event, rate and target"
rows "$T/top.out" 3 >"$T/r3"
top3=$(head -4 "$T/r3" | awk '{ print $4 }' | sort | tr '\n' ' ')
for f in worker_spin warm_func hot_leaf; do
	case " $top3" in *" $f "*) ;; *) cat "$T/top.out" >&2; fail "$f is not among the top rows of refresh 3 ($top3)" ;; esac
done
ok "refresh 3: worker_spin, warm_func and hot_leaf are among the top rows"

# 2. The same recordings in a report: the same shares. --keep holds the recordings refresh 3
# counted (one a refresh, unless a slow refresh took two) and the one the recorder finished
# when top stopped it (the newest, not shown).
k=$(sed -n 's/^# ringprof top, refresh 3: .* in \([0-9]*\) recordings.*/\1/p' "$T/top.out")
n=$(ls "$T"/keep/top-*.data | wc -l)
check_range "$n" $((k + 1)) $((k + 2)) "--keep: the $k recordings shown and the last one"
inputs=$(ls "$T"/keep/top-*.data | head -"$k" | sed 's/^/-i /')
# shellcheck disable=SC2086
"$RP" report $inputs --no-children --stdio -s dso,sym >"$T/rep" 2>"$T/rep.err" || fail "report of top's recordings"
samples=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$T/rep")
check_eq "$(sed -n 's/^# ringprof top, refresh 3: \([0-9]*\) samples.*/\1/p' "$T/top.out")" "$samples" \
	"refresh 3 counts the samples of its $k recordings ($samples)"
for f in worker_spin hot_leaf; do
	a=$(awk -v f="$f" '$4 == f { sub("%", "", $1); print $1; exit }' "$T/r3")
	b=$(awk -v f="$f" '!/^#/ && $NF == f { sub("%", "", $1); print $1; exit }' "$T/rep")
	[ -n "$a" ] && [ -n "$b" ] || fail "$f: top says '$a', report says '$b'"
	within "$a" "$b" 0.5 ||
		fail "$f: top $a % against report $b % of the same recordings"
	ok "$f: top's share $a % is report's ($b %)"
done

# 3. -z: each refresh counts only its own interval.
"$RP" top -p "$W" -e cpu-clock -d 1 -n 2 -z >"$T/z.out" 2>"$T/z.err" || fail "top -z"
check_grep '^# ringprof top, refresh 2: [1-9][0-9]* samples .*, since the last refresh' "$T/z.out" "-z: refresh 2 counts since the last one"

# 4. -- COMMAND: top ends when the command does, with status 0.
"$RP" top -e cpu-clock -d 1 -E 5 -- "$WL" -d 1 >"$T/cmd.out" 2>"$T/cmd.err"
check_eq $? 0 "-- COMMAND: top exits 0 when the command ends"
check_grep '\[\.\] (worker_spin|hot_leaf|warm_func|worklib_spin)$' "$T/cmd.out" "-- COMMAND: the workload's functions shown"

# 5. A recorder that cannot start: its reason, then a non-zero status.
"$RP" top -e no-such-event -n 1 >"$T/bad.out" 2>"$T/bad.err"
rc=$?
[ "$rc" != 0 ] || fail "top -e no-such-event exited 0"
ok "an unknown event: non-zero exit ($rc)"
check_grep "unknown event 'no-such-event'" "$T/bad.err" "the recorder's reason is shown"
"$RP" top -d 0 >/dev/null 2>"$T/d0.err"
check_eq $? 2 "-d 0 is a usage error"
check_grep "^ringprof top: invalid -d '0'" "$T/d0.err" "and says so"
# 6. -g: each row's callers, as shares of the row. hot_leaf is called from hot_outer_a and
# hot_outer_b (3:1 by design); top's shares are those of the same recordings' stacks.
"$RP" top -p "$W" -e cpu-clock -g -d 1 -n 2 -E 8 --keep "$T/keepg" >"$T/g.out" 2>"$T/g.err" ||
	fail "top -g: status $? ($(tail -2 "$T/g.err"))"
awk '/^# ringprof top, refresh / { r++ } r == 2 && /^ +\| / && cur == "hot_leaf" { print $3, $2 }
	r == 2 && !/^#/ && !/^ +\| / && NF >= 5 { cur = $NF }' "$T/g.out" >"$T/callers"
k=$(sed -n 's/^# ringprof top, refresh 2: .* in \([0-9]*\) recordings\{0,1\},.*/\1/p' "$T/g.out")
inputs=$(ls "$T"/keepg/top-*.data | head -"$k" | sed 's/^/-i /')
# shellcheck disable=SC2086
"$RP" report $inputs --folded 2>/dev/null >"$T/g.folded" || fail "report --folded of top -g's recordings"
n_leaf=$(awk '$1 ~ /;hot_leaf$/ { n += $2 } END { print n + 0 }' "$T/g.folded")
[ "$n_leaf" -gt 20 ] || fail "hot_leaf has $n_leaf samples in top -g's recordings"
for c in hot_outer_a hot_outer_b; do
	a=$(awk -v c="$c" '$1 == c { sub("%", "", $2); print $2 }' "$T/callers")
	b=$(awk -v c=";$c;hot_leaf" -v t="$n_leaf" 'index($1, c) && substr($1, length($1) - length(c) + 1) == c { n += $2 }
		END { printf "%.2f", 100 * n / t }' "$T/g.folded")
	[ -n "$a" ] || { cat "$T/g.out" >&2; fail "top -g shows no caller $c under hot_leaf"; }
	within "$a" "$b" 2 ||
		fail "hot_leaf called from $c: top -g $a %, the recordings' stacks $b %"
	ok "-g: hot_leaf called from $c in $a % of its samples, as in the recordings ($b %)"
done
a=$(awk '$1 == "hot_outer_a" { sub("%", "", $2); print int($2) }' "$T/callers")
check_range "$a" 60 90 "-g: hot_outer_a is hot_leaf's main caller (3:1 by design)"

# 7. -s and --filter (the s and / keys): rows by command agree with report -s comm of the same
# recordings; a comm= filter shows what report --comm counts, and -s pid names the process.
"$RP" top -p "$W" -e cpu-clock -s comm -d 1 -n 2 --keep "$T/keepc" >"$T/c.out" 2>"$T/c.err" ||
	fail "top -s comm: status $? ($(tail -2 "$T/c.err"))"
check_grep '^# rows by comm$' "$T/c.out" "-s comm: the header says what a row is"
check_grep '^# Overhead   Samples  Command$' "$T/c.out" "-s comm: the column"
k=$(sed -n 's/^# ringprof top, refresh 2: .* in \([0-9]*\) recordings\{0,1\},.*/\1/p' "$T/c.out")
inputs=$(ls "$T"/keepc/top-*.data | head -"$k" | sed 's/^/-i /')
# shellcheck disable=SC2086
"$RP" report $inputs --no-children --stdio -s comm >"$T/c.rep" 2>/dev/null || fail "report -s comm"
for c in rp-worker rp-workload; do
	a=$(awk -v c="$c" '/^# ringprof top, refresh / { r++ } r == 2 && $3 == c { sub("%", "", $1); print $1 }' "$T/c.out")
	b=$(awk -v c="$c" '!/^#/ && $2 == c { sub("%", "", $1); print $1 }' "$T/c.rep")
	[ -n "$a" ] && [ -n "$b" ] || fail "$c: top -s comm says '$a', report -s comm '$b'"
	within "$a" "$b" 0.5 ||
		fail "$c: top -s comm $a % against report -s comm $b %"
	ok "-s comm: $c $a %, as report -s comm ($b %)"
done
"$RP" top -p "$W" -e cpu-clock -s pid --filter comm=rp-worker -d 1 -n 2 --keep "$T/keepf" >"$T/f.out" 2>"$T/f.err" ||
	fail "top --filter: status $? ($(tail -2 "$T/f.err"))"
k=$(sed -n 's/^# ringprof top, refresh 2: .* in \([0-9]*\) recordings\{0,1\},.*/\1/p' "$T/f.out")
inputs=$(ls "$T"/keepf/top-*.data | head -"$k" | sed 's/^/-i /')
# shellcheck disable=SC2086
n=$("$RP" report $inputs --no-children --stdio --comm rp-worker 2>/dev/null | sed -n 's/^# samples: \([0-9]*\) of .*/\1/p')
check_grep "^# rows by pid; filter comm=rp-worker: $n of the samples shown \\(shares are of all\\)$" "$T/f.out" \
	"--filter comm=rp-worker: the samples report --comm rp-worker counts ($n)"
awk '/^# ringprof top, refresh / { r++ } r == 2 && !/^#/ && NF' "$T/f.out" >"$T/f.rows"
check_eq "$(awk '{ print $3 }' "$T/f.rows" | tr '\n' ' ')" "$W:rp-worker " "-s pid --filter comm=: one row, PID:COMMAND"
"$RP" top -s foo >/dev/null 2>"$T/s.err"
check_eq $? 2 "-s foo is a usage error"
check_grep "^ringprof top: unknown -s key 'foo'" "$T/s.err" "and names the key"

# 8. --dir: ringprofd's directory followed without a recorder of top's own. A closed file
# there before top started is not read; the active .data.partial is read at each refresh,
# then, once closed (renamed to .data, as the daemon does), read once: never counted twice.
mkdir -p "$T/dd"
cp "$(ls "$T"/keep/top-*.data | head -1)" "$T/dd/ringprof-20000101T000000Z-0001.data"
act="$T/dd/ringprof-20991231T000000Z-0002.data.partial"
"$RP" record -q -e cpu-clock -F 499 -o "$act" -- "$WL" -d 2 -q >/dev/null 2>&1 &
rec=$!
"$RP" top --dir "$T/dd" -d 1 -E 8 >"$T/dir.out" 2>"$T/dir.err" &
topp=$!
BG_PIDS="$W $rec $topp"
wait "$rec"
mv "$act" "$T/dd/ringprof-20991231T000000Z-0002.data"
# Until a refresh has read the closed file (a busy machine makes refreshes late), then one more.
for _ in $(seq 300); do
	[ "$(grep -c '(1 closed recording and' "$T/dir.out")" -ge 2 ] && break
	sleep 0.1
done
kill -INT "$topp"
wait "$topp" || fail "top --dir: status $? ($(tail -2 "$T/dir.err"))"
check_grep '^# ringprof top, refresh 1: [0-9]+ samples of .* in '"$T/dd"' \([01] closed recordings? and the active one\), since top started$' \
	"$T/dir.out" "--dir: the header names the directory and what was read"
check_no_grep '\(2 closed recordings' "$T/dir.out" "--dir: the file closed before top started is not read"
last=$(grep -c '^# ringprof top, refresh ' "$T/dir.out")
check_grep "^# ringprof top, refresh $last: [1-9][0-9]* samples of cpu-clock in .* \\(1 closed recording and the active one\\)" \
	"$T/dir.out" "--dir: the active file, once closed, is one closed recording"
rows "$T/dir.out" "$last" | awk '{ print $4 }' >"$T/dir.syms"
grep -qx worker_spin "$T/dir.syms" && grep -qx hot_leaf "$T/dir.syms" ||
	{ cat "$T/dir.out" >&2; fail "--dir: the workload's functions are not shown"; }
ok "--dir: the workload's functions, from the daemon's active file"
n8=$(sed -n "s/^# ringprof top, refresh $last: \\([0-9]*\\) samples.*/\\1/p" "$T/dir.out")
nmax=$(sed -n 's/^# ringprof top, refresh [0-9]*: \([0-9]*\) samples.*/\1/p' "$T/dir.out" | sort -n | tail -1)
nfile=$("$RP" report -i "$T/dd/ringprof-20991231T000000Z-0002.data" 2>/dev/null | sed -n 's/^# samples: \([0-9]*\),.*/\1/p')
check_eq "$nmax" "$n8" "--dir: no refresh counted more than the last (the closed file is not counted twice)"
check_range "$n8" 1 "$nfile" "--dir: at most the samples the file holds ($nfile)"
check_eq "$(ls "$T/dd" | wc -l)" 2 "--dir leaves the daemon's files alone"
"$RP" top --dir "$T/dd" -p 1 >/dev/null 2>"$T/err"
check_eq $? 2 "--dir with -p is a usage error"
check_grep '^ringprof top: --dir reads the recordings ringprofd writes' "$T/err" "and says why"
"$RP" top --dir "$T/no-such-dir" -n 1 >/dev/null 2>"$T/err"
check_eq $? 1 "--dir of a missing directory exits 1"
check_grep "^ringprof top: --dir $T/no-such-dir: No such file or directory$" "$T/err" "and says so"

echo "# $n_checks checks"
