#!/bin/bash
# unwind-perf.sh — `ringprof record --call-graph dwarf` against `perf record --call-graph dwarf`
# on programs built without frame pointers (issue 11): our own C and C++ workloads
# (tests/workload/rp-unwind*.c*, -O2 -fomit-frame-pointer, stacks through libc and libstdc++) and
# Debian's python3. Each program runs once, recorded by both tools at once (ringprof records
# perf's record, which runs the program; cpu-clock, 999 Hz), and both recordings are folded
# into user stacks (outermost first, kernel frames dropped).
# Checked per case: (i) the share of samples whose stack reaches a root frame (_start,
# __libc_start_*, main; start_thread, clone3 for threads): ringprof's >= perf's - 3 points, and
# >= 95 % on rp-unwind qsort; (ii) each hot function's direct callers, its chain of frames from
# the root down (a pattern per hot function), and perf's most common path to it, all found in
# ringprof's stacks in about the same shares; (iii) deep recursion (40 frames of 512 bytes):
# with the default 8 KB stack copy the stacks are cut and ringprof's report header says so (or
# ringprof completed them), with dwarf,65528 all 40 frames are there.
# Environment: RP_UNWIND_MODE=fp runs the same cases with ringprof's frame-pointer callchains, to
# check the plumbing: the ringprof assertions are then reported as "not ok (fp)" and do not fail
# the test (low root shares are expected there). UNWIND_SECS: seconds per recording (default 2).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

UW="$top_builddir/tests/workload/rp-unwind"
UWX="$top_builddir/tests/workload/rp-unwind-cxx"
PY=/usr/bin/python3 # Debian's own (a python3 earlier in PATH may be a locally built one)
MODE=${RP_UNWIND_MODE:-dwarf}
SECS=${UNWIND_SECS:-2}
# Root frames: where a complete user stack starts (outermost frame), main thread and threads.
ROOTS='_start|__libc_start_main|__libc_start_main_impl|__libc_start_call_main|main|start_thread|clone3|__clone3|__GI___clone3|clone|__clone|__GI___clone'

command -v perf >/dev/null || skip "perf (linux-perf) is not installed"
case $MODE in
dwarf)
	# The assumed interface (issue 11): ringprof record --call-graph fp|dwarf[,SIZE]
	"$RP" record --help 2>&1 | grep -q -- '--call-graph.*dwarf' ||
		skip "ringprof record does not know --call-graph dwarf (not in 'ringprof record --help'): record-time unwinding is not built"
	;;
fp) ;;
*) fail "RP_UNWIND_MODE must be dwarf or fp, got '$MODE'" ;;
esac
for w in "$UW" "$UWX"; do
	[ -x "$w" ] || fail "$w is missing: 'make' builds it"
done
require_perf_events

# rp_cg [SIZE]: ringprof's call-graph option
rp_cg() {
	if [ "$MODE" = dwarf ]; then
		echo "--call-graph dwarf${1:+,$1}"
	elif "$RP" record --help 2>&1 | grep -q -- '--call-graph.*fp'; then
		echo "--call-graph fp"
	else
		echo "-g" # before issue 11: -g/--call-graph took no argument
	fi
}

# an OP FILE COMM HOT [CHAIN]: over the user stacks in FILE of the samples of COMM (an ERE),
#   root     percent of the samples whose outermost frame is a root (ROOTS)
#   hot      percent of the samples with a frame matching HOT (an ERE, whole name)
#   chain    percent of HOT's samples whose path (outermost frame to the outermost HOT frame,
#            "a;b;c") matches the ERE CHAIN
#   callers  "PCT CALLER" per direct caller of the outermost HOT frame, percent of HOT's samples
#   paths    "PCT PATH" per path to HOT, with recursion collapsed and [unknown] frames left out
# callers and paths compare names between the tools: one function may have several names (glibc's
# aliases: __GI___qsort_r, __qsort_r, qsort_r), so there they lose a "__GI_" prefix and a leading
# "__" (or more): both tools' names the same way.
an() {
	awk -v op="$1" -v comm="^($3)\$" -v hot="^(${4:-})\$" -v chain="${5:-}" -v root="^($ROOTS)\$" '
	function canon(s) { sub(/^__GI_/, "", s); sub(/^__+/, "", s); return s }
	{
		n = $NF; line = substr($0, 1, length($0) - length($NF) - 1)
		k = split(line, f, ";")
		if (f[1] !~ comm) next
		tot += n
		if (op == "root") { if (k >= 2 && f[2] ~ root) hit += n; next }
		for (i = 2; i <= k && f[i] !~ hot; i++);
		if (i > k) next
		hn += n
		if (op == "callers") { cnt[i > 2 ? canon(f[i - 1]) : "(none)"] += n; next }
		p = f[2]
		for (j = 3; j <= i; j++) p = p ";" f[j]
		if (op == "chain") { if (p ~ chain) hit += n; next }
		p = ""; last = ""
		for (j = 2; j <= i; j++) {
			if (f[j] ~ /^\[unknown\]/ || f[j] == last) continue
			p = p (p == "" ? "" : ";") canon(f[j]); last = f[j]
		}
		cnt[p] += n
	}
	END {
		if (op == "root") printf "%.1f\n", tot ? 100 * hit / tot : 0
		else if (op == "hot") printf "%.1f\n", tot ? 100 * hn / tot : 0
		else if (op == "chain") printf "%.1f\n", hn ? 100 * hit / hn : 0
		else for (c in cnt) printf "%.1f %s\n", 100 * cnt[c] / hn, c
	}' "$2" | if [ "$1" = callers ] || [ "$1" = paths ]; then sort -k1,1 -g -r; else cat; fi
}
# share_of KEY LIST: the percent given for KEY (the rest of the line) in a "PCT KEY" list; 0 when
# KEY is not listed (a listed KEY prints as at least 0.1)
share_of() {
	awk -v k="$1" '{ key = substr($0, index($0, " ") + 1) } key == k { print ($1 > 0 ? $1 : 0.1); f = 1; exit }
		END { if (!f) print 0 }' "$2"
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
sub1() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }

# judge COND-STATUS WHAT: an assertion on ringprof's stacks. With RP_UNWIND_MODE=fp a failure is
# reported ("not ok (fp)") and counted, not fatal.
n_fp_missed=0
judge() {
	if [ "$1" = 0 ]; then
		ok "$2"
	elif [ "$MODE" = fp ]; then
		n_fp_missed=$((n_fp_missed + 1))
		echo "not ok (fp, expected) - $2"
	else
		fail "$2"
	fi
}

# rec_rp NAME SIZE CMD...: ringprof's recording on its own (fold_rp makes the rest).
rec_rp() {
	local name=$1 size=$2 cg
	shift 2
	cg=$(rp_cg "$size")
	# shellcheck disable=SC2086 # cg is one or two words, RP_EXTRA none or more
	"$RP" record -q -e cpu-clock -F 999 $cg ${RP_EXTRA:-} -o "$T/$name.rp" -- "$@" >"$T/$name.rp.out" 2>"$T/$name.rp.err" ||
		fail "$name: ringprof record $cg failed: $(tail -3 "$T/$name.rp.err")"
	fold_rp "$name"
}
# fold_rp NAME: ringprof's recording NAME.rp folded into NAME.rp.u; its report header in
# NAME.rp.head and --stats in NAME.rp.stats.
fold_rp() {
	local name=$1
	"$RP" report -i "$T/$name.rp" --folded --no-demangle >"$T/$name.rp.folded" 2>"$T/$name.rp.ferr" ||
		fail "$name: ringprof report --folded: $(cat "$T/$name.rp.ferr")"
	ufold <"$T/$name.rp.folded" >"$T/$name.rp.u"
	"$RP" report -i "$T/$name.rp" --no-children 2>/dev/null | grep '^#' >"$T/$name.rp.head"
	"$RP" report -i "$T/$name.rp" --stats >"$T/$name.rp.stats" 2>&1
	[ -s "$T/$name.rp.u" ] || fail "$name: ringprof report --folded printed no stacks"
}
# fold_perf NAME: perf's recording NAME.perf folded into NAME.perf.u (the data file is removed:
# dwarf,65528 writes ~65 KB per sample).
fold_perf() {
	perf_fold "$T/$1.perf" | ufold >"$T/$1.perf.u"
	rm -f "$T/$1.perf"
	[ -s "$T/$1.perf.u" ] || fail "$1: perf script printed no stacks"
}

SUMMARY=""
# root_check NAME COMM [MIN]: (i) the root shares side by side; ringprof's >= perf's - 3 (and >= MIN)
root_check() {
	local name=$1 comm=$2 min=${3:-0} p r
	p=$(an root "$T/$name.perf.u" "$comm")
	r=$(an root "$T/$name.rp.u" "$comm")
	printf '# %-14s stacks reaching a root: ringprof %5.1f %%  perf %5.1f %%\n' "$name" "$r" "$p"
	SUMMARY+=$(printf '#   %-14s %8.1f %% %8.1f %%' "$name" "$r" "$p")$'\n'
	ge "$r" "$(sub1 "$p" 3)"
	judge $? "$name: ringprof's stacks reach a root at least as often as perf's - 3 points ($r % vs $p %)"
	[ "$min" = 0 ] && return 0
	ge "$r" "$min"
	judge $? "$name: ringprof's stacks reach a root in >= $min % of the samples ($r %)"
}

# hot_check NAME COMM HOT CHAIN [paths]: (ii) for the hot function HOT (ERE): present in both;
# perf's main callers (>= 10 %) are ringprof's too, ringprof's main callers are perf's; the chain
# CHAIN (ERE over the path from the root to HOT) holds for >= 80 % of perf's and about as many of
# ringprof's; with "paths", perf's most common path to HOT is as common in ringprof's stacks.
hot_check() {
	local name=$1 comm=$2 hot=$3 chain=$4 p r c pc rc top
	p=$(an hot "$T/$name.perf.u" "$comm" "$hot")
	r=$(an hot "$T/$name.rp.u" "$comm" "$hot")
	ge "$p" 20 || fail "$name: /$hot/ is in only $p % of perf's samples: the workload is not what this test expects"
	ge "$r" "$(sub1 "$p" 10)"
	judge $? "$name: /$hot/ in ringprof's stacks as in perf's ($r % vs $p % of the samples)"

	an callers "$T/$name.perf.u" "$comm" "$hot" >"$T/$name.perf.callers"
	an callers "$T/$name.rp.u" "$comm" "$hot" >"$T/$name.rp.callers"
	echo "# $name: callers of /$hot/ (percent of its samples): perf: $(head -4 "$T/$name.perf.callers" | paste -sd, -)"
	echo "# $name:   ringprof: $(head -4 "$T/$name.rp.callers" | paste -sd, -)"
	while read -r pc c; do
		ge "$pc" 10 || break
		rc=$(share_of "$c" "$T/$name.rp.callers")
		ge "$rc" "$(awk -v a="$pc" 'BEGIN { print a / 2 }')"
		judge $? "$name: /$hot/ is called from $c in ringprof's stacks too ($rc % vs perf $pc %)"
	done <"$T/$name.perf.callers"
	while read -r rc c; do
		ge "$rc" 10 || break
		[ "$(share_of "$c" "$T/$name.perf.callers")" != 0 ]
		judge $? "$name: ringprof's caller $c of /$hot/ ($rc %) is one of perf's"
	done <"$T/$name.rp.callers"

	if [ -n "$chain" ]; then
		p=$(an chain "$T/$name.perf.u" "$comm" "$hot" "$chain")
		r=$(an chain "$T/$name.rp.u" "$comm" "$hot" "$chain")
		ge "$p" 80 || fail "$name: only $p % of perf's stacks to /$hot/ match /$chain/ (the workload or perf changed?)"
		ge "$r" "$(sub1 "$p" 5)"
		judge $? "$name: ringprof's stacks to /$hot/ match /$chain/ ($r % vs perf $p %)"
	fi
	[ "${5:-}" = paths ] || return 0
	an paths "$T/$name.perf.u" "$comm" "$hot" >"$T/$name.perf.paths"
	an paths "$T/$name.rp.u" "$comm" "$hot" >"$T/$name.rp.paths"
	read -r pc top <"$T/$name.perf.paths"
	rc=$(share_of "$top" "$T/$name.rp.paths")
	ge "$rc" "$(sub1 "$pc" 10)"
	judge $? "$name: perf's most common path to /$hot/ ($pc %) is in ringprof's stacks ($rc %): $top"
}

# case_run NAME SIZE CMD...: both tools' recordings of one run of CMD: ringprof records
# `perf record -- CMD` (and so CMD, its child), perf records CMD; each tool's samples of CMD are
# compared (by command name: perf's own are left out). (The other way round, perf 6.1's
# unwinding of CMD, the recorder's exec'd child, stopped in libc's msort_with_tmp: none of
# its cmp_records stacks reached main.) perf 6.1 aborts in
# util/build-id.c when a system-wide ringprof record starts meanwhile (bench/lib.sh): then
# again, 3 tries.
case_run() {
	local name=$1 size=$2 cg _
	shift 2
	cg=$(rp_cg "$size")
	for _ in 1 2 3; do
		# shellcheck disable=SC2086 # cg is one or two words
		if "$RP" record -q -e cpu-clock -F 999 $cg -o "$T/$name.rp" -- \
			perf record -q -e cpu-clock -F 999 --call-graph "dwarf${size:+,$size}" -o "$T/$name.perf" -- "$@" \
			>"$T/$name.out" 2>"$T/$name.err"; then
			fold_perf "$name"
			fold_rp "$name"
			return 0
		fi
		grep -q 'util/build-id.c' "$T/$name.err" || break
	done
	fail "$name: perf record --call-graph dwarf${size:+,$size} -- ringprof record $cg failed: $(tail -3 "$T/$name.err")"
}

# ---- rp-unwind qsort: main -> sort_phase -> qsort (libc) -> ... -> cmp_records ----------------
case_run qsort "" "$UW" qsort "$SECS"
root_check qsort rp-unwind 95
# glibc's qsort tail-calls qsort_r: the frame is __GI___qsort_r or qsort_r, then msort_with_tmp.
hot_check qsort rp-unwind cmp_records '(^|;)main;sort_phase;[^;]*qsort[^;]*(;[^;]+)*;cmp_records$' paths

# ---- rp-unwind thread: clone3 -> start_thread -> thread_main -> work_in_thread -> hot loop ----
case_run thread "" "$UW" thread "$SECS"
root_check thread rp-unwind
hot_check thread rp-unwind thread_hot_loop '(^|;)start_thread;thread_main;work_in_thread;thread_hot_loop$' paths

# ---- rp-unwind deep, dwarf,65528: the 40 frames of 512 bytes all there ------------------------
deep_chain="(^|;)main;deep_phase$(printf ';deep_recurse%.0s' $(seq 40));deep_leaf_burn\$"
case_run deep-64k 65528 "$UW" deep 1
root_check deep-64k rp-unwind
hot_check deep-64k rp-unwind deep_leaf_burn "$deep_chain" paths

# ---- rp-unwind deep, default size: an 8 KB copy holds ~15 of the 40 frames --------------------
case_run deep-8k "" "$UW" deep 1.5
root_check deep-8k rp-unwind
hot_check deep-8k rp-unwind deep_leaf_burn ""
p=$(an root "$T/deep-8k.perf.u" rp-unwind)
ge 20 "$p" || fail "deep-8k: $p % of perf's stacks reach a root with an 8 KB copy: the workload's frames are not as deep as intended"
r=$(an root "$T/deep-8k.rp.u" rp-unwind)
if ge "$r" 50; then
	# ringprof completed the cut stacks (e.g. a per-thread cache of the callers already unwound)
	r=$(an chain "$T/deep-8k.rp.u" rp-unwind deep_leaf_burn "$deep_chain")
	ge "$r" 80
	judge $? "deep-8k: ringprof completed the cut stacks: all 40 frames in $r % of them (perf's reach a root in $p %)"
else
	# The report header: "# user stacks: N% complete; incomplete: N% stack copy exhausted, ..."
	grep -Eq '^#.*(user stack.*(incomplete|truncated)|(incomplete|truncated).*user stack)' "$T/deep-8k.rp.head"
	judge $? "deep-8k: ringprof's stacks are cut ($r % reach a root) and its report header says so"
	[ "$MODE" = dwarf ] || sed 's/^/# deep-8k header: /' "$T/deep-8k.rp.head"
fi

# ---- rp-unwind climb, default size: work at every level of 40 frames of 512 bytes --------------
# Most samples are deeper than an 8 KB copy reaches. perf cuts them, and so does ringprof by
# default. With --join-cut-stacks, ringprof joins a cut stack to the callers its earlier walks
# of the same thread found above the last frame it reached, and marks where they start.
climb_chain="(^|;)main;climb_phase(;climb_recurse)+(;climb_burn)?\$"
case_run climb "" "$UW" climb "$SECS"
root_check climb rp-unwind
hot_check climb rp-unwind climb_burn ""
r=$(awk '/\[joined\]/ { n += $NF } END { print n + 0 }' "$T/climb.rp.folded")
check_eq "$r" 0 "climb: by default no stack is joined (none marked [joined])"
[ "$MODE" = dwarf ] && grep -Eq '^# user stacks: .*[1-9][0-9.]*% stack copy exhausted' "$T/climb.rp.head"
judge $? "climb: by default the report says the stacks the copy cut: $(grep '^# user stacks' "$T/climb.rp.head")"
[ "$MODE" = dwarf ] && RP_EXTRA=--join-cut-stacks rec_rp climb-join "" "$UW" climb "$SECS"
p=$(an root "$T/climb.perf.u" rp-unwind)
r=$(an chain "$T/climb-join.rp.u" rp-unwind climb_burn "$climb_chain")
# How many joins are made depends on which walks of the thread were complete before (92 % of
# the stacks reach main on a quiet machine, 71-77 % at load 8-10 beside stress-ng --cpu 2):
# what is checked is that joining completes a good part of them; that none is wrong, below.
ge "$r" 60
judge $? "climb, --join-cut-stacks: $r % of ringprof's stacks to climb_burn go up to main (perf's reach a root in $p %)"
r=$(awk -F'[ ;]' '{ n = 0; for (i = 1; i <= NF; i++) n += $i == "climb_recurse"; if (n > m) m = n } END { print m + 0 }' "$T/climb-join.rp.u")
check_eq "$r" 40 "climb, --join-cut-stacks: the deepest joined stack has the 40 climb_recurse frames, no more"
# The callers a join added are marked: "[joined]" stands between them and those read.
r=$(awk '/;\[joined\];/ { n += $NF } { t += $NF } END { printf "%.1f\n", t ? 100 * n / t : 0 }' "$T/climb-join.rp.folded")
ge "$r" 10
judge $? "climb, --join-cut-stacks: the joined stacks ($r % of the samples) say where the inferred callers start ([joined])"

# ---- rp-unwind-cxx: std::sort with a comparator (templates), virtual calls --------------------
case_run cxx "" "$UWX" all "$SECS"
root_check cxx rp-unwind-cxx
# Names mangled (_ZNK10ByMixedKeyclERK4ItemS2_, _Z8run_sortd) or demangled: both match.
hot_check cxx rp-unwind-cxx '[^;]*ByMixedKey[^;]*' '(^|;)main;[^;]*run_sort[^;]*(;[^;]*__[^;]*)*;[^;]*ByMixedKey[^;]*$' paths
hot_check cxx rp-unwind-cxx '[^;]*(Circle|Square|Triangle)[^;]*area[^;]*' '(^|;)main;[^;]*run_virtual[^;]*;[^;]*(Circle|Square|Triangle)[^;]*area[^;]*$'

# ---- Debian's python3 running a pure-Python loop ----------------------------------------------
if [ -x "$PY" ]; then
	prog="import time
def f(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s
end = time.monotonic() + $SECS
while time.monotonic() < end:
    f(20000)"
	case_run python "" "$PY" -c "$prog"
	root_check python python3
	# Debian's main tail-calls Py_BytesMain: there is no main frame.
	hot_check python python3 _PyEval_EvalFrameDefault '(^|;)Py_BytesMain;Py_RunMain(;[^;]+)*;_PyEval_EvalFrameDefault$' paths
else
	echo "# python: skipped: $PY (Debian's python3) is not installed"
	SUMMARY+="#   python         skipped: no $PY"$'\n'
fi

echo "# share of samples whose user stack reaches a root (ringprof $(rp_cg) vs perf --call-graph dwarf):"
echo "#   case           ringprof       perf"
printf '%s' "$SUMMARY"
[ "$n_fp_missed" = 0 ] || echo "# RP_UNWIND_MODE=fp: $n_fp_missed ringprof assertions missed (expected with frame pointers)"
exit 0
