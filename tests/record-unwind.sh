#!/bin/bash
# record-unwind.sh — `ringprof record --call-graph dwarf` end to end (issue 11), on rp-unwind (built
# without frame pointers): the option's spelling and errors; complete stacks through libc's qsort
# (and what fp mode loses); the user-stacks counts of the report header and --stats; unprivileged
# recording; the helper ringprof-unwind killed during a recording; binaries with a corrupt or
# missing .eh_frame; samples kept while their tables are built; ringprofd's tables on disk.
# Content assertions that fail do not stop the test ("not ok"): every check runs, the test fails
# at the end. Environment: KEEP=1 keeps $T.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

UW="$top_builddir/tests/workload/rp-unwind"
RPD="$top_builddir/ringprofd"
[ -x "$UW" ] || fail "$UW is missing: 'make' builds it"
"$RP" record --help 2>&1 | grep -q -- '--call-graph.*dwarf' || fail "ringprof record --help does not mention --call-graph dwarf"
require_perf_events
# Where a complete user stack starts (its outermost frame).
ROOTS='_start|__libc_start_main[^;]*|__libc_start_call_main|main|start_thread|clone3|__clone3|__GI___clone3|clone|__clone'

n_bad=0
# soft_check STATUS WHAT: ok, or "not ok" counted (the test fails at its end).
soft_check() {
	if [ "$1" = 0 ]; then
		ok "$2"
	else
		n_checks=$((n_checks + 1))
		n_bad=$((n_bad + 1))
		echo "not ok $n_checks - $2"
		echo "FAIL (continuing): $TEST_NAME: $2" >&2
	fi
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# rec NAME ARGS...: ringprof record -e cpu-clock ARGS -o $T/NAME.data; stdout/stderr in NAME.out,
# NAME.err; its exit status in $REC_RC.
rec() {
	local name=$1
	shift
	"$RP" record -e cpu-clock -o "$T/$name.data" "$@" >"$T/$name.out" 2>"$T/$name.err"
	REC_RC=$?
}
# heads NAME [FILTER...]: the report's header lines into NAME.head, --folded into NAME.folded.
heads() {
	local name=$1 f=$T/$1
	shift
	[ -f "$T/$name.data" ] || f=$T/${name%%.*}
	"$RP" report -i "$f.data" "$@" --no-children 2>"$T/$name.rerr" | grep '^#' >"$T/$name.head"
	"$RP" report -i "$f.data" "$@" --folded >"$T/$name.folded" 2>>"$T/$name.rerr"
}
# upct WHAT HEAD: a share from "# user stacks: X% complete; incomplete: A% stack copy exhausted,
# B% no unwind information, C% table pending, D% bad frame" (WHAT: complete, no unwind
# information, ...); 0 when not printed (the header leaves the incomplete part out at 100 %).
upct() {
	awk -v w="$1" '/^# user stacks:/ {
		n = split($0, p, /[:;,] */)
		for (i = 1; i <= n; i++) if (p[i] ~ ("^[0-9.]+% " w "$")) { sub(/%.*/, "", p[i]); print p[i]; f = 1 }
	} END { if (!f) print 0 }' "$2"
}
# share FOLDED COMM HOT CHAIN: percent of COMM's samples with a frame matching HOT (ERE, whole
# name) whose path from the outermost frame to the outermost HOT frame matches CHAIN (ERE over
# "a;b;c", symbol versions stripped). "root" as HOT: percent of COMM's samples whose outermost
# frame is a root. Kernel frames are left out.
share() {
	awk -v comm="^($2)\$" -v hot="^($3)\$" -v chain="${4:-}" -v root="^($ROOTS)\$" -v op="$3" '{
		n = $NF; line = substr($0, 1, length($0) - length($NF) - 1)
		k = 0; m = split(line, g, ";")
		if (g[1] !~ comm) next
		for (i = 2; i <= m; i++) if (g[i] !~ /_\[k\]$/) { sub(/@@?[A-Za-z0-9_.]+$/, "", g[i]); f[++k] = g[i] }
		if (op == "root") { tot += n; if (k >= 1 && f[1] ~ root) hit += n; next }
		for (i = 1; i <= k && f[i] !~ hot; i++);
		if (i > k) next
		tot += n; p = f[1]
		for (j = 2; j <= i; j++) p = p ";" f[j]
		if (p ~ chain) hit += n
	} END { printf "%.1f\n", tot ? 100 * hit / tot : 0 }' "$1"
}
# samples_of FOLDED COMM: the samples of COMM in a --folded output.
samples_of() {
	awk -v comm="^($2)\$" '{ split($1, g, ";") } g[1] ~ comm { s += $NF } END { print s + 0 }' "$1"
}
# copy_with_build_id SRC DST BYTE: SRC copied to DST with the build-id's last byte set to BYTE
# (hex): a binary of its own for the recorder's table caches, still with a build-id.
copy_with_build_id() {
	local off
	cp "$1" "$2"
	off=$(readelf -SW "$2" | awk '$0 ~ /\.note\.gnu\.build-id/ { for (i = 1; i <= NF; i++) if ($i == "NOTE") { print $(i + 2); exit } }')
	[ -n "$off" ] || fail "no .note.gnu.build-id in $1"
	# Elf64_Nhdr (12 bytes), "GNU\0", then the 20 bytes of the id: its last is at +35.
	printf '%b' "\\x$3" | dd of="$2" bs=1 seek=$((0x$off + 35)) conv=notrunc status=none
}

# ---- 1. the option ---------------------------------------------------------------------------
"$RP" record --call-graph bogus -- true >"$T/cg.out" 2>&1
check_eq $? 2 "--call-graph bogus exits 2"
check_grep "unknown call-graph mode 'bogus'.*'dwarf\[,SIZE\]'.*'fp'" "$T/cg.out" "--call-graph bogus names dwarf[,SIZE] and fp"
for a in dwarf,70000 dwarf,abc "dwarf,"; do
	"$RP" record --call-graph "$a" -- true >"$T/cg.out" 2>&1
	check_eq $? 2 "--call-graph $a exits 2"
	check_grep "invalid stack copy size '${a#dwarf,}' \(bytes, 8 to 65528" "$T/cg.out" "--call-graph $a: the size message"
done
"$RP" record --call-graph lbr -- true >"$T/cg.out" 2>&1
check_eq $? 2 "--call-graph lbr exits 2"
check_grep 'lbr needs a hardware PMU' "$T/cg.out" "--call-graph lbr mentions a hardware PMU"
"$RP" record --help >"$T/help" 2>&1
check_grep '^ +--call-graph MODE +' "$T/help" "--help documents --call-graph MODE"
check_grep "'dwarf\[,SIZE\]'" "$T/help" "--help names dwarf[,SIZE]"

rec cg-dwarf --call-graph dwarf -- true
check_eq "$REC_RC" 0 "--call-graph dwarf -o F -- true exits 0"
[ -s "$T/cg-dwarf.data" ] || fail "--call-graph dwarf -o F did not write F (is 'dwarf' taken as something else?)"
ok "--call-graph dwarf -o F writes F"
heads cg-dwarf
check_grep '^# event: .*callchains unwound while recording \(dwarf\)' "$T/cg-dwarf.head" "--call-graph dwarf: header says so"
rec cg-g -g -- true
heads cg-g
check_grep '^# event: .*callchains unwound while recording \(dwarf\)' "$T/cg-g.head" "-g means dwarf (header line)"
rec cg-fp --call-graph fp -- "$UW" qsort 0.2
check_eq "$REC_RC" 0 "--call-graph fp records"
heads cg-fp
check_grep '^# event: .*frame-pointer callchains' "$T/cg-fp.head" "--call-graph fp: header says frame-pointer callchains"
check_no_grep '^# user stacks' "$T/cg-fp.head" "--call-graph fp: no user-stacks header line"
check_no_grep '^\[ user stacks' "$T/cg-fp.err" "--call-graph fp: no user-stacks summary line"

# ---- 2. content: complete stacks through libc's qsort; fp loses them --------------------------
rec qs -F 999 --call-graph dwarf -- "$UW" qsort 2
[ "$REC_RC" = 0 ] || fail "record --call-graph dwarf of rp-unwind qsort 2: $(tail -3 "$T/qs.err")"
heads qs
"$RP" report -i "$T/qs.data" --stats >"$T/qs.stats" 2>&1
"$RP" report -i "$T/qs.data" --dump >"$T/qs.dump" 2>&1
c=$(upct complete "$T/qs.head")
ge "$c" 95
soft_check $? "qsort: report header: user stacks $c % complete (>= 95)"
check_grep '^\[ user stacks: [0-9.]+% complete, [0-9.]+% cut by the 8192-byte stack copy' "$T/qs.err" "qsort: record prints the user-stacks summary (no joining part without --join-cut-stacks)"
line=$(grep '^  user stacks ' "$T/qs.stats")
[ -n "$line" ] || fail "qsort: no 'user stacks' line in --stats"
read -r tot parts < <(echo "$line" | awk '{
	sub(/^ *user stacks +/, ""); tot = $1; s = 0; n = 0
	m = split($0, p, /[:,] +/)
	for (i = 2; i <= m; i++) { split(p[i], w, " "); s += w[1]; n++ }
	print tot, s "/" (n >= 7 ? "7+" : n) }')
with_user=$(grep -c '^SAMPLE .*chain=.*user,' "$T/qs.dump")
check_eq "$parts" "$tot/7+" "qsort: --stats' user-stacks counts (seven at least) add up to the unwound ($line)"
check_eq "$tot" "$with_user" "qsort: --stats' unwound stacks = samples with a user chain ($with_user)"
s=$(share "$T/qs.folded" rp-unwind cmp_records '(^|;)main;sort_phase;[^;]*qsort[^;]*(;msort_with_tmp[^;]*)+;cmp_records$')
ge "$s" 95
soft_check $? "qsort: $s % of cmp_records' stacks go main;sort_phase;qsort*;msort_with_tmp... (>= 95)"
r=$(share "$T/qs.folded" rp-unwind root)
# "complete" means the walk reached the outermost frame: such stacks start at a root.
ge "$r" "$(awk -v c="$c" 'BEGIN { print c - 1 }')"
soft_check $? "qsort: stacks reaching a root ($r %) as many as the complete ones ($c %)"
# --dso keeps the samples whose own (leaf) object it names: the user-stacks line counts only those.
"$RP" report -i "$T/qs.data" --no-children --dso libc.so.6 2>/dev/null | grep '^#' >"$T/qs.libc.head"
check_grep '^# user stacks: ' "$T/qs.libc.head" "--dso libc.so.6 (msort_with_tmp's samples): a user-stacks line"
rec qs-fp -F 999 --call-graph fp -- "$UW" qsort 1
heads qs-fp
f=$(share "$T/qs-fp.folded" rp-unwind cmp_records '(^|;)main;.*msort_with_tmp')
lt "$f" 5
soft_check $? "qsort with --call-graph fp: $f % of cmp_records' stacks reach main above msort_with_tmp (< 5; dwarf: $s %)"

# ---- 2b. two callers, identical frames: a cut stack is never given the wrong one ------------
# path_a and path_b call two_f with the same frame sizes; path_a goes 10 levels of 3 KB down
# and works there (deeper than the 8 KB copy), path_b works 2 levels down and takes most of the
# samples. A two_burn with 3 or more two_descend frames above it is path_a's: under path_b it
# was given a caller that is not its own (the old join put 84-91 % of them there).
rec twopath -F 999 --call-graph dwarf -- "$UW" twopath 3
[ "$REC_RC" = 0 ] || fail "record of rp-unwind twopath 3: $(tail -3 "$T/twopath.err")"
heads twopath
read -r deep wrong marked < <(awk '{
	n = $NF; d = gsub(/;two_descend/, "&"); if ($0 !~ /;two_burn [0-9]+$/ || d < 3) next
	deep += n; if ($0 ~ /;path_b;/) wrong += n; if ($0 ~ /;path_a;/) right += n
} END { print deep + 0, wrong + 0, right + 0 }' "$T/twopath.folded")
# (3 s of wall time give ~600 such samples on an idle machine, under 100 beside other jobs:
# 40 are enough for the 2 % bound below to mean something.)
ge "$deep" 40 || fail "twopath: only $deep samples of two_burn 3+ levels down: not the workload this test expects"
lt "$wrong" "$(awk -v d="$deep" 'BEGIN { print d * 0.02 + 1 }')"
soft_check $? "twopath: $wrong of $deep deep two_burn samples under path_b, which never goes that deep (<= 2 %; $marked under path_a)"
c=$(upct "stack copy exhausted" "$T/twopath.head")
ge "$c" 20
soft_check $? "twopath: the stacks that could not be completed are said to be cut by the copy ($c %)"

# twostraight: path_a goes straight down 3 levels and works only there, so no walk of path_a
# reads the top frame's caller: only path_b's do. No check on what the recording holds can
# tell the two callers apart. By default the cut stacks stay cut; --join-cut-stacks gives them
# path_b's callers, and every such stack says where its inferred callers start ([joined]).
# (3 s with two callers in turn: ~800 deep samples idle; 40 are enough to mean something.)
twostraight() { # NAME [RECORD OPTIONS...]: deep, under path_b, under path_a, of those [joined]
	local name=$1
	shift
	rec "$name" -F 999 --call-graph dwarf "$@" -- "$UW" twostraight 3
	[ "$REC_RC" = 0 ] || fail "record of rp-unwind twostraight 3: $(tail -3 "$T/$name.err")"
	heads "$name"
	awk '{ n = $NF; d = gsub(/;two_descend/, "&"); if ($0 !~ /;two_burn [0-9]+$/ || d < 3) next
		deep += n; if ($0 ~ /;path_b;/) b += n; if ($0 ~ /;path_a;/) a += n; if ($0 ~ /\[joined\]/) j += n
	} END { print deep + 0, b + 0, a + 0, j + 0 }' "$T/$name.folded"
}
read -r deep wrong right joined < <(twostraight straight)
ge "$deep" 40 || fail "twostraight: only $deep samples of two_burn 3 levels down: not the workload this test expects"
check_eq "$wrong/$joined" "0/0" "twostraight: none of the $deep deep two_burn samples under path_b, none joined ($right under path_a)"
c=$(upct "stack copy exhausted" "$T/straight.head")
ge "$c" 20
soft_check $? "twostraight: the deep stacks are said to be cut by the copy ($c %)"
read -r deep wrong right joined < <(twostraight straight-join --join-cut-stacks)
ge "$deep" 40 || fail "twostraight --join-cut-stacks: only $deep deep samples"
check_eq "$joined" "$wrong" "twostraight --join-cut-stacks: each of the $wrong deep samples given path_b's callers is marked [joined] ($joined marked, $deep deep)"
check_grep '^# user stacks: .*completed by joining' "$T/straight-join.head" \
	"twostraight --join-cut-stacks: the header counts the joined stacks apart"

# ---- 3. unprivileged: the recorder and its helper as nobody ---------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	U="$T/u"
	mkdir -p "$U"
	cp "$top_builddir"/ringprof "$top_builddir"/ringprof-record "$top_builddir"/ringprof-report \
		"$top_builddir"/ringprof-unwind "$UW" "$U/"
	chmod 755 "$T"
	chmod 777 "$U"
	(cd "$U" && setpriv --reuid=65534 --regid=65534 --clear-groups -- "$U/ringprof" record -e cpu-clock \
		-F 999 --call-graph dwarf -o "$U/u.data" -- "$U/rp-unwind" qsort 1) >"$T/u.out" 2>"$T/u.err"
	check_eq $? 0 "unprivileged --call-graph dwarf -- rp-unwind qsort 1 exits 0"
	[ -f "$U/u.data" ] || fail "unprivileged: no recording: $(tail -3 "$T/u.err")"
	check_no_grep 'frame pointers only' "$T/u.err" "unprivileged: the helper starts (no frame-pointer-only note)"
	"$RP" report -i "$U/u.data" --no-children | grep '^#' >"$T/u.head"
	"$RP" report -i "$U/u.data" --folded >"$T/u.folded"
	c=$(upct complete "$T/u.head")
	ge "$c" 95
	soft_check $? "unprivileged: user stacks $c % complete (>= 95)"
	s=$(share "$T/u.folded" rp-unwind cmp_records '(^|;)main;sort_phase;')
	ge "$s" 95
	soft_check $? "unprivileged: $s % of cmp_records' stacks have main;sort_phase callers (>= 95)"
else
	echo "# unprivileged: skipped (needs root and setpriv)"
fi

# ---- 4. the helper killed during a recording ------------------------------------------------
# The command runs, after each go file, a binary whose table nobody has built yet (rp-unwind with
# another build-id), /bin/true and sort: each kill is followed by new table requests.
for i in 1 2 3; do copy_with_build_id "$UW" "$T/rp-crash$i" "e$i"; done
cat >"$T/crash.sh" <<EOF
#!/bin/sh
for i in 1 2 3; do
	n=0
	while [ ! -e "$T/go\$i" ] && [ \$n -lt 50 ]; do sleep 0.1; n=\$((n + 1)); done
	"$T/rp-crash\$i" qsort 0.4 >/dev/null
	/bin/true
	sort </dev/null
	: >"$T/done\$i"
done
EOF
chmod +x "$T/crash.sh"
"$RP" record -e cpu-clock -F 999 --call-graph dwarf -o "$T/crash.data" -- "$T/crash.sh" >"$T/crash.out" 2>"$T/crash.err" &
recpid=$!
BG_PIDS="$BG_PIDS $recpid"
wait_for_file "$T/crash.data"
# helper_of PID: the live ringprof-unwind child of the recorder not killed yet (a killed one may
# linger as a zombie until the recorder notices), waiting up to 2 s for one.
helper_of() {
	local h _
	for _ in $(seq 20); do
		for h in $(pgrep -P "$1" -x ringprof-unwind); do
			case " $gone " in *" $h "*) continue ;; esac
			[ "$(awk '{ print $3 }' "/proc/$h/stat" 2>/dev/null)" = Z ] && continue
			echo "$h"
			return 0
		done
		sleep 0.1
	done
	return 1
}
# Each kill hits an idle helper (its tables built: 0.5 s after the last new binary), then a new
# binary starts. (A helper that dies is started again at once, UHELPER_BUDGET times a minute;
# record-helper-deaths.sh tests the budget and what is said of each death.)
gone=""
killed=0
sleep 0.5
for i in 1 2 3; do
	if h=$(helper_of "$recpid"); then
		if [ "$i" = 1 ]; then
			uid=$(awk '/^Uid:/ { print $2 }' "/proc/$h/status")
			sec=$(awk '/^Seccomp:/ { print $2 }' "/proc/$h/status")
			check_eq "$uid/$sec" "65534/2" "the helper runs as uid 65534 under a seccomp filter"
		fi
		kill -9 "$h" && killed=$((killed + 1))
		gone="$gone $h"
		sleep 0.2
	else
		soft_check 1 "helper killed: a new helper runs before kill $i (killed so far:$gone)"
	fi
	: >"$T/go$i"
	for _ in $(seq 50); do [ -e "$T/done$i" ] && break; sleep 0.1; done
	sleep 0.5
done
wait "$recpid"
rc=$?
check_eq "$rc" 0 "helper killed $killed times: the recording exits 0"
! grep -q 'no unwind-table helper' "$T/crash.err"
soft_check $? "helper killed: no object left without a helper [$(grep -m1 'stop in' "$T/crash.err")]"
check_grep '^\[ ringprof record: [0-9]+ samples' "$T/crash.err" "helper killed: summary line"
check_grep '^\[ user stacks: ' "$T/crash.err" "helper killed: user-stacks summary line"
"$RP" report -i "$T/crash.data" --stats >"$T/crash.stats" 2>&1 || fail "helper killed: --stats of the recording failed"
check_grep '^  finished +yes' "$T/crash.stats" "helper killed: the recording is finished"
# Every sample the recorder drained from the rings is in the file, whatever the helper did: the
# count is bounded by what the recording says the kernel delivered, not by wall time (three
# 0.4 s runs give ~1 200 samples on an idle machine, a few hundred beside other jobs).
n=$(stat_field samples "$T/crash.stats")
d=$(drained_samples "$T/crash.data")
check_range "${n:-0}" 100 100000 "helper killed: samples recorded"
check_eq "${n:-0}" "${d:-none}" "helper killed: all $d samples drained from the rings are stored"
for i in 1 2 3; do
	heads "crash.$i" --comm "rp-crash$i"
	c=$(upct complete "$T/crash.$i.head")
	m=$(samples_of "$T/crash.$i.folded" "rp-crash$i")
	ge "$c" 90 && [ "$m" -ge 20 ]
	soft_check $? "helper killed: rp-crash$i (started after kill $i): $m samples (>= 20), $c % complete stacks (>= 90) [$(grep -m1 '^# incomplete' "$T/crash.$i.head")]"
done

# ---- 5. hostile binaries: a corrupt .eh_frame, no .eh_frame ----------------------------------
# rp-bad: .eh_frame overwritten with random bytes; rp-noeh: .eh_frame renamed. Both with a
# build-id of their own (a copy with rp-unwind's would share its table).
copy_with_build_id "$UW" "$T/rp-bad" b1
read -r off size < <(readelf -SW "$T/rp-bad" | awk '$0 ~ /\] \.eh_frame / { for (i = 1; i <= NF; i++) if ($i == "PROGBITS") { print $(i + 2), $(i + 3); exit } }')
[ -n "$size" ] || fail "no .eh_frame in rp-unwind"
head -c $((0x$size)) /dev/urandom | dd of="$T/rp-bad" bs=1 seek=$((0x$off)) conv=notrunc status=none
copy_with_build_id "$UW" "$T/rp-noeh.tmp" b2
objcopy --rename-section .eh_frame=.xx_frame "$T/rp-noeh.tmp" "$T/rp-noeh" || fail "objcopy --rename-section"
{ "$T/rp-bad" qsort 0.01 && "$T/rp-noeh" qsort 0.01; } >/dev/null || fail "the damaged copies do not run"
cat >"$T/hostile.sh" <<EOF
#!/bin/sh
"$T/rp-bad" qsort 0.7 >/dev/null
"$T/rp-noeh" qsort 0.7 >/dev/null
"$UW" qsort 0.7 >/dev/null
EOF
chmod +x "$T/hostile.sh"
rec hostile -F 999 --call-graph dwarf -- "$T/hostile.sh"
check_eq "$REC_RC" 0 "hostile binaries: the recording exits 0"
check_grep '^\[ user stacks: ' "$T/hostile.err" "hostile binaries: user-stacks summary line"
for w in rp-bad rp-noeh rp-unwind; do heads "hostile.$w" --comm "$w"; done
# None of their samples is dropped: all that the recorder drained are stored. Each binary's
# count is what its 0.7 s got of the CPUs (~700 samples on an idle machine, a hundred beside
# other jobs): enough for the shares below, not a measure of time.
n=$("$RP" report -i "$T/hostile.data" --stats 2>/dev/null | awk '$1 == "samples" { print $2; exit }')
check_eq "${n:-0}" "$(drained_samples "$T/hostile.data")" "hostile binaries: all $n samples drained from the rings are stored"
m=$(samples_of "$T/hostile.rp-bad.folded" rp-bad)
check_range "$m" 30 100000 "rp-bad (corrupt .eh_frame): its samples are counted"
ni=$(upct 'no unwind information' "$T/hostile.rp-bad.head")
bf=$(upct 'bad frame' "$T/hostile.rp-bad.head")
c=$(upct complete "$T/hostile.rp-bad.head")
r=$(share "$T/hostile.rp-bad.folded" rp-bad root)
ge "$(awk -v a="$ni" -v b="$bf" 'BEGIN { print a + b }')" 50
soft_check $? "rp-bad: stacks end early: $ni % no unwind information + $bf % bad frame (>= 50)"
# Its walks cannot reach a root: what counts as complete must start at one. (lib/elf/utabbuild.c's
# entry_end() gives the 256 bytes from the entry point an END row when no FDE covers them: with
# the FDEs gone, that row covers the functions after _start, cmp_records' first 16 bytes too.)
ge "$(awk -v r="$r" 'BEGIN { print r + 2 }')" "$c"
soft_check $? "rp-bad: stacks counted complete ($c %) do reach a root ($r %)"
check_grep '^# incomplete stacks end most in: rp-bad' "$T/hostile.rp-bad.head" "rp-bad: the header names it"
m=$(samples_of "$T/hostile.rp-noeh.folded" rp-noeh)
check_range "$m" 30 100000 "rp-noeh (no .eh_frame): its samples are counted"
ni=$(upct 'no unwind information' "$T/hostile.rp-noeh.head")
ge "$ni" 90
soft_check $? "rp-noeh: $ni % of its stacks: no unwind information (>= 90)"
s=$(share "$T/hostile.rp-noeh.folded" rp-noeh cmp_records '(^|;)(\[unknown\][^;]*;)?sort_phase;')
echo "# rp-noeh: $s % of cmp_records' stacks reach sort_phase (libc unwound, then a frame-pointer step)"
c=$(upct complete "$T/hostile.rp-unwind.head")
ge "$c" 95
soft_check $? "rp-unwind beside them: $c % complete stacks (>= 95)"
s=$(share "$T/hostile.rp-unwind.folded" rp-unwind cmp_records '(^|;)main;sort_phase;[^;]*qsort[^;]*(;msort_with_tmp[^;]*)+;cmp_records$')
ge "$s" 95
soft_check $? "rp-unwind beside them: $s % of cmp_records' stacks through libc's msort_with_tmp to main (>= 95)"

# ---- 6. the first samples of a new process wait for their tables ----------------------------
rec pend -F 999 --call-graph dwarf -- "$UW" qsort 1
"$RP" report -i "$T/pend.data" --stats >"$T/pend.stats" 2>&1
read -r tot pend < <(awk '$1 == "user" && $2 == "stacks" { t = $3; for (i = 4; i < NF; i++) if ($(i + 1) == "table" && $(i + 2) == "pending,") p = $i; print t, p }' "$T/pend.stats")
{ [ -n "$pend" ] && [ "$tot" -gt 0 ]; } || fail "pending: no user stacks line: $(grep 'user stacks' "$T/pend.stats")"
[ $((pend * 50)) -lt "$tot" ]
soft_check $? "1 s of rp-unwind qsort: $pend of $tot user stacks 'table pending' (< 2 %)"

# ---- 7. ringprofd's tables on disk -----------------------------------------------------------
if [ "$(id -u)" = 0 ] && [ -x "$RPD" ]; then
	D="$T/rpd"
	UT="$D/unwind-tables"
	echo "UnwindCache=$UT" >"$T/rpd.conf"
	libc=/lib/x86_64-linux-gnu/libc.so.6
	libc_id=$(build_id_of "$libc")
	uw_id=$(build_id_of "$UW")
	[ -n "$libc_id" ] || fail "no build-id in $libc"
	# rpd N READY: ringprofd while rp-unwind qsort runs in it for 2.5 s, started once the daemon
	# records: at its start the daemon asks for the tables of every process running, and one
	# already running waits behind them (under ASan up to 12 % of a 2.5-s run's stacks were
	# 'table pending' that way). The daemon stops once READY (a command) holds after the
	# workload, 30 s at most: the window follows what the helper did, not the wall time of an
	# idle machine. Its log in rpd.N.log.
	rpd() {
		local dpid _
		mkdir -p "$D"
		timeout -s INT 90 "$RPD" -c "$T/rpd.conf" -D "$D" -e cpu-clock -F 199 >"$T/rpd.$1.log" 2>&1 &
		dpid=$!
		for _ in $(seq 100); do grep -q 'ringprofd: recording' "$T/rpd.$1.log" && break; sleep 0.1; done
		"$UW" qsort 2.5 >/dev/null
		for _ in $(seq 300); do $2 && break; sleep 0.1; done
		sleep 0.3
		kill -INT "$dpid"
		wait "$dpid"
	}
	both_tables() { ls "$UT/$uw_id"-*.utab "$UT/$libc_id"-*.utab >/dev/null 2>&1; }
	libc_repaired() { [ -f "$libc_tab" ] && ! cmp -s "$libc_tab" "$T/libc.damaged.utab"; }
	rpd 1 both_tables
	check_grep 'stopped: [0-9]+ samples' "$T/rpd.1.log" "ringprofd run 1 stops cleanly"
	# Tables are kept by build-id and the digest of what the file holds (BUILDID-DIGEST.utab).
	libc_tab=$(echo "$UT/$libc_id"-*.utab)
	[ -f "$libc_tab" ]
	soft_check $? "ringprofd: unwind-tables/$libc_id-DIGEST.utab (libc's build-id) is there"
	uw_tab=$(echo "$UT/$uw_id"-*.utab)
	[ -f "$uw_tab" ]
	soft_check $? "ringprofd: rp-unwind's table $uw_id-DIGEST.utab is there"
	bad_names=$(find "$UT" -maxdepth 1 -type f ! -name '.*' | sed 's|.*/||' | grep -Evc '^[0-9a-f]{40}-[0-9a-f]{32}\.utab$')
	check_eq "$bad_names" 0 "ringprofd: every file of unwind-tables/ is BUILDID-DIGEST.utab"
	"$RP" report --dir "$D" --comm rp-unwind --no-children | grep '^#' >"$T/rpd.1.head"
	c=$(upct complete "$T/rpd.1.head")
	ge "$c" 90 || grep '^# user stacks' "$T/rpd.1.head" >&2
	soft_check $? "ringprofd run 1: rp-unwind's stacks $c % complete (>= 90)"
	cp "$libc_tab" "$T/libc.utab"
	ino1=$(stat -c %i "$libc_tab")
	mt1=$(stat -c %.9Y "$libc_tab")
	rm -f "$D"/*.data
	sleep 1.1
	rpd 2 both_tables
	check_grep 'stopped: [0-9]+ samples' "$T/rpd.2.log" "ringprofd run 2 stops cleanly"
	ino2=$(stat -c %i "$libc_tab")
	mt2=$(stat -c %.9Y "$libc_tab")
	# Read from the cache, or (on a busy machine, when libc's build-id came after the wait for
	# it) built again and found there: the file is not written again either way.
	check_eq "$ino2" "$ino1" "ringprofd run 2: libc's table is the same file (not written again)"
	lt "$mt1" "$mt2"
	soft_check $? "ringprofd run 2: libc's table's mtime refreshed on use ($mt1 -> $mt2)"
	"$RP" report --dir "$D" --comm rp-unwind --no-children | grep '^#' >"$T/rpd.2.head"
	c=$(upct complete "$T/rpd.2.head")
	ge "$c" 90 || grep '^# user stacks' "$T/rpd.2.head" >&2
	soft_check $? "ringprofd run 2 (tables from disk): rp-unwind's stacks $c % complete (>= 90)"
	# A damaged table: bytes in the middle flipped.
	sz=$(stat -c %s "$libc_tab")
	printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of="$libc_tab" bs=1 seek=$((sz / 2)) conv=notrunc status=none
	cmp -s "$libc_tab" "$T/libc.utab" && fail "the table was not damaged"
	cp "$libc_tab" "$T/libc.damaged.utab"
	rm -f "$D"/*.data
	rpd 3 libc_repaired
	check_grep 'stopped: [0-9]+ samples' "$T/rpd.3.log" "ringprofd run 3 (a damaged table) stops cleanly"
	# (Not by inode: the file system may give the new file the inode the old one freed.)
	[ -f "$libc_tab" ] && ! cmp -s "$libc_tab" "$T/libc.damaged.utab"
	soft_check $? "ringprofd run 3: the damaged libc table was replaced"
	cmp -s "$libc_tab" "$T/libc.utab"
	soft_check $? "ringprofd run 3: the rebuilt table is the one of run 1"
	"$RP" report --dir "$D" --comm rp-unwind --no-children | grep '^#' >"$T/rpd.3.head"
	c=$(upct complete "$T/rpd.3.head")
	ge "$c" 90 || grep '^# user stacks' "$T/rpd.3.head" >&2
	soft_check $? "ringprofd run 3: rp-unwind's stacks $c % complete (>= 90)"
else
	echo "# ringprofd: skipped (needs root)"
fi

[ "$n_bad" = 0 ] || fail "$n_bad of $n_checks checks not ok (see 'not ok' above)"
exit 0
