#!/bin/bash
# record-cold.sh — unwind tables in time (issue 22): a short `record -a -g` beside a process
# that was already running gets that process's callers from its first samples (tables are
# asked for in the order samples need them, and samples wait for them); a second recording
# of the same binaries takes their tables from the user's disk cache; --unwind-cache no keeps
# none.
. "$(dirname "$0")/lib.sh"
require_root
require_perf_events

# user_complete FILE PID: the "user stacks: X% complete" share of PID's samples, as an integer
# percent (report --pid's header).
user_complete() {
	"$RP" report -i "$1" --pid "$2" --stdio >"$T/rep.$2" 2>&1 || fail "report --pid $2 of $(basename "$1")"
	sed -n 's/^# user stacks: \([0-9]*\)\.[0-9]*% complete.*/\1/p' "$T/rep.$2" | head -1
}

# user_share FILE PID WHAT: the "N% WHAT" share of PID's user stacks (WHAT: complete, table
# pending, ...) as an integer percent; 0 when the header does not name it.
user_share() {
	"$RP" report -i "$1" --pid "$2" --stdio >"$T/rep.$2" 2>&1 || fail "report --pid $2 of $(basename "$1")"
	awk -v w="$3" '/^# user stacks:/ { n = split($0, p, /[:;,] */)
		for (i = 1; i <= n; i++) if (p[i] ~ ("^[0-9.]+% " w "$")) { sub(/\..*/, "", p[i]); print p[i]; f = 1 } }
		END { if (!f) print 0 }' "$T/rep.$2"
}

# 1. Beside a busy process started before the recording: its tables were not asked for when
# its mappings were read from /proc; its samples wait for them instead of being cut. First -p:
# the helper builds this process's tables only, however busy the machine (none kept on disk:
# the -a recording below starts cold too).
"$WL" -d 30 >/dev/null 2>&1 &
busy=$!
BG_PIDS="$busy"
sleep 0.5
"$RP" record -p "$busy" -g --unwind-cache no -e cpu-clock -o "$T/p.rp" -- sleep 1 2>"$T/p.err" ||
	{ cat "$T/p.err" >&2; fail "record -p -g of a running process"; }
c=$(user_complete "$T/p.rp" "$busy")
[ -n "$c" ] || { cat "$T/rep.$busy" >&2; fail "-p: no user-stacks line for the busy process"; }
check_range "$c" 95 100 "-p: % of the running process's user stacks complete (was 0 with a fixed hold limit)"
# Its callers are read, not guessed: the workload's main is reached from __libc_start_main.
"$RP" report -i "$T/p.rp" --pid "$busy" --stdio -g caller --no-children >"$T/p.tree" 2>&1
check_grep '__libc_start_call_main' "$T/p.tree" "-p: the running process's stacks reach libc's start"

# Then -a: every process of the machine wants its tables, and the helper builds them first
# needed first; the recorder waits for them at the end (10 s at most). What the busy process
# gets is bounded by what the recording says came in time: when no sample was cut because its
# table came too late, >= 95 % complete; else complete or said cut where a table was missing
# (never guessed).
"$RP" record -a -g -e cpu-clock -o "$T/a.rp" -- sleep 1 2>"$T/a.err" ||
	{ cat "$T/a.err" >&2; fail "record -a -g beside a running process"; }
check_grep '^\[ user stacks: ' "$T/a.err" "-a: the user-stacks summary line"
n=$("$RP" report -i "$T/a.rp" --pid "$busy" --stdio 2>/dev/null | sed -n 's/^# samples: \([0-9]*\) of.*/\1/p')
[ -n "$n" ] && [ "$n" -ge 100 ] || fail "-a: the busy process has $n samples (want >= 100)"
ok "-a: the busy process has $n samples"
c=$(user_share "$T/a.rp" "$busy" complete)
late=$(sed -n 's/.* \([0-9.]*\)% cut because their table came too late.*/\1/p' "$T/a.err")
if [ -z "$late" ] || [ "$late" = 0.0 ]; then
	check_range "$c" 95 100 "-a: % of the busy process's user stacks complete, all tables in time"
else
	# A table that came too late leaves the stacks in its object "table pending", or "no unwind
	# information" when the walk ended in an object (libc) whose table was not used: the
	# report's note says the recording does not tell which.
	p=$(user_share "$T/a.rp" "$busy" "table pending")
	u=$(user_share "$T/a.rp" "$busy" "no unwind information")
	check_range $((c + p + u)) 94 100 "-a: the busy process's user stacks complete ($c %) or said cut where a table was missing ($p % pending, $u % none used; $late % of all cut: tables came too late)"
fi
kill "$busy" 2>/dev/null

# 2. The same binaries again: their tables come from the disk cache ($XDG_CACHE_HOME).
"$RP" record -g -e cpu-clock -F 999 -o "$T/w1.rp" -- "$WL" -d 0.5 2>"$T/w1.err" >/dev/null ||
	fail "first record -g"
ls "$XDG_CACHE_HOME"/ringprof/unwind/*.utab >/dev/null 2>&1 ||
	fail "no table was kept in $XDG_CACHE_HOME/ringprof/unwind"
ok "the tables were kept in \$XDG_CACHE_HOME/ringprof/unwind ($(ls "$XDG_CACHE_HOME"/ringprof/unwind/*.utab | wc -l) files)"
"$RP" record -g -e cpu-clock -F 999 -o "$T/w2.rp" -- "$WL" -d 0.5 2>"$T/w2.err" >/dev/null ||
	fail "second record -g"
hits=$(sed -n 's/.* \([0-9]*\) from the disk cache.*/\1/p' "$T/w2.err")
[ -n "$hits" ] || { cat "$T/w2.err" >&2; fail "no 'from the disk cache' count in the summary"; }
# rp-workload, librp-worklib.so, libc and ld.so have build-ids: all four from the cache.
check_range "$hits" 4 100 "second run: tables from the disk cache"
c=$(sed -n 's/^\[ user stacks: \([0-9]*\)\.[0-9]*% complete.*/\1/p' "$T/w2.err")
# The whole summary line, so that a failure says where the other stacks went (74 % once, in
# the ASan tree of a quiet fresh-clone CI; not seen again in 6 runs).
echo "# second run: $(grep '^\[ user stacks: ' "$T/w2.err")"
check_range "$c" 95 100 "second run: % of user stacks complete with cached tables"
# What the cache is for: no stack waits for a table. (Stacks cut by the 8 KiB copy, 0.6-2 %
# under AddressSanitizer's larger frames, have nothing to do with it; nor has a pc whose
# mapping's record came later than the recorder waits for it: 3 of 517 samples "without unwind
# information" once, in the ASan tree beside stress-ng --cpu 2.)
check_grep ' 0\.0% waiting for a table' "$T/w2.err" "second run: no user stack waited for its table"
ni=$(sed -n 's/.*, \([0-9.]*\)% without unwind information.*/\1/p' "$T/w2.err")
awk -v n="${ni:-100}" 'BEGIN { exit !(n < 2) }' ||
	{ cat "$T/w2.err" >&2; fail "second run: $ni % of the user stacks without unwind information (< 2)"; }
ok "second run: $ni % of the user stacks without unwind information (< 2)"

# 3. --unwind-cache no: nothing read or kept; --unwind-cache DIR: that directory.
"$RP" record -g --unwind-cache no -e cpu-clock -F 999 -o "$T/n.rp" -- "$WL" -d 0.3 2>"$T/n.err" >/dev/null ||
	fail "record --unwind-cache no"
check_grep ' 0 from the disk cache' "$T/n.err" "--unwind-cache no: no table from the cache"
"$RP" record -g --unwind-cache "$T/mine" -e cpu-clock -F 999 -o "$T/d.rp" -- "$WL" -d 0.3 2>"$T/d.err" >/dev/null ||
	fail "record --unwind-cache DIR"
ls "$T"/mine/*.utab >/dev/null 2>&1 || fail "--unwind-cache DIR: no table in DIR"
ok "--unwind-cache DIR: tables kept in DIR"

# 4. Without the helper (not next to the recorder, not installed): nothing waits for a table
# that cannot come; user stacks are walked by frame pointers, and the note says why.
mkdir "$T/nohelper"
cp "$top_builddir"/ringprof "$top_builddir"/ringprof-record "$T/nohelper/"
libexec=$(grep -a -o -m1 '/[a-z/]*libexec/ringprof' "$top_builddir/ringprof-record" | head -1)
[ -n "$libexec" ] || fail "the recorder names no libexec directory for its helper"
if [ -x "$libexec/ringprof-unwind" ]; then
	echo "# 4: skipped: ringprof-unwind is installed, so the recorder always finds it"
else
	"$T/nohelper/ringprof" record -g -e cpu-clock -F 999 -o "$T/nh.rp" -- "$WL" -d 0.5 >/dev/null 2>"$T/nh.err" ||
		fail "record -g without the helper: $(tail -3 "$T/nh.err")"
	check_grep 'user stacks are walked by frame pointers only' "$T/nh.err" "no helper: the note says user stacks go by frame pointers"
	check_no_grep 'waiting up to' "$T/nh.err" "no helper: the stop does not wait for tables that cannot come"
	check_grep ' 0\.0% waiting for a table' "$T/nh.err" "no helper: no stack is stored as waiting for a table"
fi
echo "# $n_checks checks"
