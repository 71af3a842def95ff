# lib.sh — shared helpers for ringprof's shell tests (sourced, not run).
set -u

: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
RP="$top_builddir/ringprof"
WL="$top_builddir/tests/workload/rp-workload"
TEST_NAME=$(basename "$0" .sh)

T=$(mktemp -d "${TMPDIR:-/tmp}/rp-$TEST_NAME.XXXXXX")
# record keeps unwind tables in the user's cache directory: each test starts cold, on its own.
export XDG_CACHE_HOME="$T/xdg-cache"
BG_PIDS=""
cleanup() {
	for p in $BG_PIDS; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

n_checks=0
fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	exit 1
}
skip() {
	echo "SKIP: $TEST_NAME: $*" >&2
	exit 77
}
ok() {
	n_checks=$((n_checks + 1))
	echo "ok $n_checks - $*"
}

# check_grep PATTERN FILE WHAT: FILE must contain a line matching the extended regex.
check_grep() {
	grep -Eq -- "$1" "$2" || { echo "--- $2:" >&2; head -c 3000 "$2" >&2; fail "$3 (no line matches /$1/ in $(basename "$2"))"; }
	ok "$3"
}
# check_no_grep PATTERN FILE WHAT: FILE must exist and have no line matching the regex (a
# missing or unreadable file, or a pattern grep refuses, fails: it proves nothing).
check_no_grep() {
	local rc
	[ -e "$2" ] || fail "$3 ($(basename "$2") was not written)"
	grep -Eq -- "$1" "$2"
	rc=$?
	[ "$rc" != 0 ] || { grep -E -m5 -- "$1" "$2" >&2; fail "$3 (unexpected /$1/ in $(basename "$2"))"; }
	[ "$rc" = 1 ] || fail "$3 (grep failed on $(basename "$2"): status $rc)"
	ok "$3"
}
# within A B D: whether numbers A and B (a trailing % is dropped) differ by at most D.
within() { awk -v a="${1%\%}" -v b="${2%\%}" -v d="$3" 'BEGIN { x = a - b; exit !(x <= d && x >= -d) }'; }
# check_heavy_insns WHAT PERF OURS TOL: each instruction `perf annotate --stdio` (its output in
# file PERF) gives 5 % or more has samples (1 % or more) in OURS (`ringprof annotate --stdio`'s
# lines of the same function), and their shares summed agree within TOL points. Not each one
# within TOL: how a tight loop's samples split between its instructions is where each sampler's
# timer interrupt lands in the pipeline (on an AMD EPYC guest two instructions of one loop went
# 58/37 % in one run and 38/62 % in another, also between two samplers of one run), so only
# the addresses and the sum say whether the samples are where perf sees them.
check_heavy_insns() {
	local what=$1 perf=$2 ours=$3 tol=$4 a p r psum=0 rsum=0
	awk '/^ +[0-9.]+ : +[0-9a-f]+:/ && $1 >= 5 { a = $3; sub(/:$/, "", a); print a, $1 }' "$perf" >"$perf.heavy"
	check_range "$(wc -l <"$perf.heavy")" 1 20 "$what: perf annotate shows its heavy instructions"
	while read -r a p; do
		r=$(awk -v a="$a:" '{ sub(/^>>/, "") } /^ +[0-9.]+ +[0-9a-f]+: / && $2 == a { print $1; exit }' "$ours")
		[ -n "$r" ] || fail "$what: perf's instruction $a is not in ringprof's"
		awk -v r="$r" 'BEGIN { exit !(r >= 1) }' || fail "$what: instruction $a: perf $p %, ringprof only $r %"
		psum=$(awk -v a="$psum" -v b="$p" 'BEGIN { printf "%.2f", a + b }')
		rsum=$(awk -v a="$rsum" -v b="$r" 'BEGIN { printf "%.2f", a + b }')
	done <"$perf.heavy"
	within "$psum" "$rsum" "$tol" || fail "$what: perf's heavy instructions: perf $psum %, ringprof $rsum %"
	ok "$what: the $(wc -l <"$perf.heavy") instructions perf annotate gives 5 % or more have samples here, together $rsum % (perf $psum %, within $tol points)"
}
# check_range VALUE LO HI WHAT (integers)
check_range() {
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ] || fail "$4: $1 not in [$2, $3]"
	ok "$4 ($1 in [$2, $3])"
}
check_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
	ok "$3"
}

# stat_field NAME FILE: the first number after "NAME" in a --stats output.
stat_field() {
	awk -v k="$1" '$1 == k { print $2; exit }' "$2"
}

# Skip (77) only when this kernel or sandbox really refuses perf events to us.
require_perf_events() {
	if ! "$RP" record -q -e cpu-clock -o "$T/probe.data" -- true 2>"$T/probe.err"; then
		if grep -Eq 'permission denied|not supported|Function not implemented' "$T/probe.err"; then
			skip "perf_event_open is unavailable here: $(cat "$T/probe.err")"
		fi
		fail "a trivial recording failed: $(cat "$T/probe.err")"
	fi
}

# require_browser: the headless browser the page tests drive (Debian's chromium and
# playwright-core in tests/web/, which setup.sh installs), exported as CHROMIUM, with WEB set to
# tests/web. The browser is those tests' subject: missing, the test fails, unless Debian has
# no package for it.
require_browser() {
	WEB="$top_srcdir/tests/web"
	CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
	if [ ! -x "$CHROMIUM" ]; then
		apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [0-9]' ||
			skip "no chromium package in this system's archive (apt-cache policy chromium)"
		fail "chromium is not installed: run setup.sh (it installs chromium, nodejs, npm and playwright-core)"
	fi
	command -v node >/dev/null || fail "node is not installed: run setup.sh"
	[ -f "$WEB/node_modules/playwright-core/package.json" ] ||
		fail "playwright-core is not installed in $WEB/node_modules: run setup.sh"
	export CHROMIUM
}


require_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
}

# The build id of an ELF file as lowercase hex, via readelf (binutils) or eu-readelf.
build_id_of() {
	if command -v eu-readelf >/dev/null; then
		eu-readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'
	else
		readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'
	fi
}

# Monotonic-ish seconds now (CLOCK_BOOTTIME == CLOCK_MONOTONIC on a host that never suspended).
uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

# wait_for_file FILE: until the recorder has created its output (events are enabled right
# after), at most 10 s.
wait_for_file() {
	for _ in $(seq 100); do
		[ -e "$1" ] && { sleep 0.2; return 0; }
		sleep 0.1
	done
	fail "$1 did not appear"
}

# check_buildid FILE DUMP WHAT: DUMP (report --dump) holds a BUILDID record giving FILE's inode
# its build-id (the recorder reads build-ids in user space; MMAP2 names files by inode).
check_buildid() {
	local dev ino id
	dev=$(stat -L -c '%d' "$1") ino=$(stat -L -c '%i' "$1") id=$(build_id_of "$1")
	[ -n "$id" ] || fail "$3 (no build-id in $1)"
	check_grep "^BUILDID .* maj=$((dev >> 8)) min=$((dev & 255)) ino=$ino gen=[0-9]+ build_id=$id$" "$2" "$3"
}

# check_pprof_report PB WHAT ARGS...: the real pprof ($PPROF) reads the profile PB with the
# figures of `ringprof report ARGS`: the same number of samples, and each of the report's (up
# to) 5 largest named symbols at pprof's flat share of that function within 1 point (pprof
# names an address without a symbol after its mapping, ringprof says [unknown]). Sets
# PB_SAMPLES to the profile's samples and leaves the report's entries, "NAME PCT" a line, in
# PB.top (in $T).
check_pprof_report() {
	local pb=$1 what=$2 base n name pct p
	shift 2
	base="$T/$(basename "$pb")"
	"$RP" report "$@" --no-children -s sym >"$base.flat" 2>&1 ||
		fail "$what: ringprof report $*: $(tail -1 "$base.flat")"
	"$PPROF" -top -nodecount=60 -nodefraction=0 "$pb" >"$base.pprof" 2>&1 ||
		fail "$what: pprof -top cannot read $pb: $(tail -1 "$base.pprof")"
	"$PPROF" -top -sample_index=samples -nodecount=1 "$pb" >"$base.count" 2>&1 ||
		fail "$what: pprof -top -sample_index=samples: $(tail -1 "$base.count")"
	n=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$base.flat")
	PB_SAMPLES=$(sed -n 's/.* of \([0-9]*\) total$/\1/p' "$base.count")
	[ -n "$n" ] && [ "$n" -gt 0 ] || fail "$what: ringprof report $* has no samples"
	check_eq "$PB_SAMPLES" "$n" "$what: pprof counts the report's $n samples"
	awk '/^ +[0-9.]+% \[[^]]\] / && $3 != "[unknown]" { pct = $1; sub(/%/, "", pct); $1 = ""; $2 = ""; sub(/^ +/, "");
		print $0, pct; if (++n == 5) exit }' "$base.flat" >"$base.top"
	[ -s "$base.top" ] || fail "$what: no entries in ringprof's report"
	while read -r name pct; do
		p=$(awk -v n="$name" 'started && NF >= 6 { v = $2; sub(/%/, "", v); $1 = $2 = $3 = $4 = $5 = "";
			sub(/^ +/, ""); if ($0 == n) { print v; exit } } / flat +flat% / { started = 1 }' "$base.pprof")
		[ -n "$p" ] || { cat "$base.pprof" >&2; fail "$what: pprof -top has no $name"; }
		within "$pct" "$p" 1 ||
			fail "$what: $name: ringprof ${pct}%, pprof ${p}%: more than 1 point apart"
	done <"$base.top"
	ok "$what: pprof's flat shares of $(wc -l <"$base.top") top functions within 1 point of ringprof's ($(head -1 "$base.top"))"
}

# push_receiver DIR [PORT [CERT KEY]]: tests/push-receiver.py in the background (in BG_PIDS,
# its pid in RECV) keeping what it is sent under DIR/got; its port in DIR/port. Port 0 (the
# default) picks a free one.
push_receiver() {
	local d=$1
	shift
	mkdir -p "$d/got"
	rm -f "$d/port"
	python3 "$top_srcdir/tests/push-receiver.py" "$d" "${1:-0}" "${@:2}" 2>>"$d/receiver.log" &
	RECV=$!
	BG_PIDS="$BG_PIDS $RECV"
	for _ in $(seq 200); do
		[ -s "$d/port" ] && return 0
		kill -0 "$RECV" 2>/dev/null || break
		sleep 0.05
	done
	fail "the receiver did not start: $(cat "$d/receiver.log")"
}

# ufold: folded stacks ("comm;outer;...;inner COUNT") to user stacks: kernel frames ("_[k]")
# and ringprof's "[joined]" mark (callers above it inferred, not read)
# dropped, symbol versions (@@GLIBC_2.34) stripped, equal stacks merged.
ufold() {
	awk '{
		n = $NF; line = substr($0, 1, length($0) - length($NF) - 1)
		k = split(line, f, ";"); s = f[1]
		for (i = 2; i <= k; i++) {
			if (f[i] ~ /_\[k\]$/ || f[i] == "[joined]") continue
			sub(/@@?[A-Za-z0-9_.]+$/, "", f[i]); s = s ";" f[i]
		}
		c[s] += n
	} END { for (s in c) print s, c[s] }'
}

# perf script (leaf first, one sample per paragraph) to folded stacks, kernel frames as "_[k]".
# --no-inline: perf 6.1 otherwise adds the inlined functions it finds in debug info (libc6-dbg)
# as frames of their own; ringprof's report does not by default. --no-demangle on both sides:
# the C++ names are compared mangled (demangled ones have blanks, which the parsing splits on).
perf_fold() {
	perf script -i "$1" -F comm,ip,sym,dso --no-demangle --no-inline 2>/dev/null | awk '
		function flush() {
			if (comm != "") { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ }
			comm = ""; n = 0
		}
		/^[^ \t]/ { flush(); comm = $0; sub(/ +$/, "", comm); next }
		/^[ \t]*$/ { flush(); next }
		{
			l = $0; sub(/^[ \t]+[0-9a-f]+ /, "", l); d = ""
			if (match(l, / [(][^()]*[)]$/)) { d = substr(l, RSTART + 2, RLENGTH - 3); l = substr(l, 1, RSTART - 1) }
			if (d ~ /^\[kernel/) l = l "_[k]"
			f[++n] = l
		}
		END { flush(); for (s in c) print s, c[s] }'
}

# drained_samples FILE: the samples the recorder says it drained from the kernel's rings (the
# CPU_STATS records it writes when it finishes), to bound a recording's sample count by what
# the kernel delivered rather than by wall time; empty when the recording has none.
drained_samples() {
	"$RP" report -i "$1" --dump 2>/dev/null | awk '$1 == "CPU_STATS" {
		for (i = 3; i <= NF; i++) if ($i ~ /^samples=/) { sub(/^samples=/, "", $i); s += $i; n++ }
	} END { if (n) print s }'
}

# unit_slice NAME: a cgroup v2 slice of the test's own, $SLICE ($CG/NAME, CG the cgroup v2
# mount), to make units in (as root); the test is skipped, saying why, when there is no
# cgroup v2 hierarchy or the slice cannot be made. When the test ends, what still runs in the
# slice's units goes back to the root cgroup and the units and the slice are removed.
unit_slice() {
	CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$CG" ] || skip "no cgroup v2 hierarchy is mounted (ringprof names units from cgroup v2)"
	SLICE="$CG/$1"
	mkdir "$SLICE" 2>"$T/mkdir.err" || skip "cannot create a cgroup under $CG: $(cat "$T/mkdir.err")"
	trap 'remove_slice; cleanup' EXIT
}
remove_slice() {
	local d p
	for d in "$SLICE"/*/; do
		[ -d "$d" ] || continue
		while read -r p; do echo "$p" >"$CG/cgroup.procs" 2>/dev/null; done <"$d/cgroup.procs"
		rmdir "$d" 2>/dev/null
	done
	rmdir "$SLICE" 2>/dev/null
}
