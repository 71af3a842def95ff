#!/bin/bash
# unwind-memory.sh — record-time unwinding keeps its tables within --unwind-memory: above it the
# tables used least recently are dropped, and one needed again is built again, so its program's
# stacks stay complete. Without a bound a host that runs ever new binaries keeps a table for each
# (ringprofd: UnwindMemory=). perl runs, then python3 (whose tables push the total over 1M,
# so perl's are dropped), then perl again.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
command -v perl >/dev/null || fail "perl is missing (perl-base is essential on Debian)"
command -v python3 >/dev/null || fail "python3 is missing: setup.sh installs it"

"$RP" record --unwind-memory 10 -- true >/dev/null 2>"$T/bad"
check_eq $? 2 "--unwind-memory below 1M is a usage error"
check_grep "^ringprof record: invalid --unwind-memory '10' \(bytes with a unit K, M or G, at least 1M\)$" "$T/bad" \
	"and says what it takes"
"$RP" record --help | grep -q -- '--unwind-memory SIZE' || fail "--help does not list --unwind-memory"

# Each runs 1.5 s whatever the build (ASan makes the recorder slower, not them): many drain
# passes, so that tables unused for two of them can be dropped.
PERL="perl -MTime::HiRes=time -e '\$e = time + 1.5; \$s = 0; while (time < \$e) { \$s += \$_ for 1 .. 10000 }'"
PY="python3 -c 'import time; e = time.time() + 1.5
while time.time() < e: sum(range(10000))'"
# record_runs NAME OPTIONS...: perl, python3, perl again, recorded with dwarf unwinding.
record_runs() {
	local name=$1
	shift
	"$RP" record -e cpu-clock -F 999 --call-graph dwarf --unwind-cache no "$@" -o "$T/$name.data" -- \
		sh -c "$PERL; $PY; $PERL" >/dev/null 2>"$T/$name.err" || fail "recording $name: $(cat "$T/$name.err")"
}
# perl_complete NAME: "SAMPLES COMPLETE" of each perl process, in the order they ran;
# a complete stack starts at _start.
perl_complete() {
	local pid
	for pid in $("$RP" report -i "$T/$1.data" --dump | awk '/^COMM / && / comm=perl$/ { sub("pid=", "", $4); print $4 }' | uniq); do
		"$RP" report -i "$T/$1.data" --pid "$pid" --folded |
			awk '{ n = $NF; split($1, f, ";"); t += n; if (f[2] == "_start") c += n } END { print t + 0, c + 0 }'
	done
}

record_runs free
record_runs bound --unwind-memory 1M
check_no_grep 'dropped to stay within' "$T/free.err" "with the default bound (64M) nothing is dropped here"
check_grep '; [0-9]+ tables? built, 0 from the disk cache \([0-9.]+ [KM]iB\), [1-9][0-9]* dropped to stay within 1\.0 MiB, [0-9]+ of them needed again(; [^]]*)? \]$' "$T/bound.err" \
	"with --unwind-memory 1M tables are dropped, and the summary says how many"
again=$(sed -n 's/.*, \([0-9]*\) of them needed again.*/\1/p' "$T/bound.err")
check_range "${again:-0}" 1 1000 "dropped tables were needed again (perl's, after python3)"
mapfile -t runs < <(perl_complete bound)
check_eq "${#runs[@]}" 2 "two perl runs in the recording"
read -r n1 c1 <<<"${runs[0]}"
read -r n2 c2 <<<"${runs[1]}"
check_range "$n2" 50 100000 "the second perl run has samples ($n2)"
check_range $((c2 * 100 / n2)) 80 100 \
	"and its stacks are complete after its tables were dropped and built again ($c2 of $n2 start at _start)"
check_range $((c1 * 100 / n1)) 80 100 "as are the first run's ($c1 of $n1)"
"$RP" report -i "$T/bound.data" --comm perl --no-children >"$T/bound.rep" 2>&1
check_grep '\[\.\] Perl_runops_standard|\[\.\] Perl_pp_' "$T/bound.rep" "perl's frames are named"

# ringprofd's key.
printf 'UnwindMemory=512K\n' >"$T/small.conf"
"$top_builddir/ringprofd" -c "$T/small.conf" --check-config >"$T/small.out" 2>&1
check_eq $? 78 "ringprofd refuses UnwindMemory= below 1M"
check_grep 'UnwindMemory=512K: expected a size of at least 1024K' "$T/small.out" "and names the key"
printf 'UnwindMemory=32M\n' >"$T/ok.conf"
"$top_builddir/ringprofd" -c "$T/ok.conf" --check-config >"$T/ok.out" 2>&1
check_grep '^UnwindMemory=32M$' "$T/ok.out" "ringprofd takes UnwindMemory=32M"
printf '\n' >"$T/default.conf"
"$top_builddir/ringprofd" -c "$T/default.conf" --check-config >"$T/default.out" 2>&1
check_grep '^UnwindMemory=64M$' "$T/default.out" "and 64M by default"
exit 0
