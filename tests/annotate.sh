#!/bin/bash
# annotate.sh — `ringprof annotate` on rp-annotate, whose hot loop is one known source line
# (ANNOTATE-HOT) and whose rp_mix (rp-annotate-inl.h, ANNOTATE-INLINE) is inlined into two
# callers: the hottest line is the loop's, the hottest instruction lies in the loop (addr2line
# says so, not our own line reading), the inlined loop counts on the header's line in both
# callers; perf annotate --stdio on a perf recording of the same program agrees (hottest line
# within a few points; its heavy instructions have samples here, their sum within 8 points); a rebuilt and a deleted binary give one note
# and no instructions or lines; a source missing on this host gives line numbers without
# text, and --prefix/--prefix-strip find it elsewhere; --comm filters; a kernel function gets
# its instructions from /proc/kcore, or a note where that cannot be read.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
W="$top_builddir/tests/workload/rp-annotate"
[ -x "$W" ] || fail "$W is not built (make check builds it)"
SRC="$top_srcdir/tests/workload"
HOT=$(grep -n '/\* ANNOTATE-HOT \*/' "$SRC/rp-annotate.c" | cut -d: -f1)
INL=$(grep -n '/\* ANNOTATE-INLINE \*/' "$SRC/rp-annotate-inl.h" | cut -d: -f1)

"$RP" record -q -e cpu-clock -o "$T/r.data" -- "$W" 2 || fail "record"
"$RP" annotate --stdio --no-pager -i "$T/r.data" >"$T/a.txt" 2>"$T/a.err" ||
	fail "ringprof annotate: $(cat "$T/a.err")"

# section FILE FUNC: the lines of FUNC's section.
section() { awk -v f="$2" '/^# [^ ]+ \(.*\): [0-9]+ samples/ { on = ($2 == f) } on' "$1"; }
# hot_line FILE FUNC: "PATH LINE PCT" of the line marked hottest.
hot_line() {
	section "$1" "$2" | awk '/^# Instructions/ { exit } /^#   \// { p = $2 } /^>>/ { print p, $3, $2; exit }'
}
# hot_insn FILE FUNC: "ADDR PCT SOURCE" of the instruction marked hottest.
hot_insn() {
	section "$1" "$2" | awk '/^# Instructions/ { on = 1 } on && /^>>/ {
		a = $3; sub(/:$/, "", a); s = ""
		for (i = 4; i <= NF; i++) if ($i ~ /^[^ ]+:[0-9]+$/) s = $i
		print a, $2, s; exit }'
}
# points X: X (a decimal) in hundredths, as an integer.
points() { awk -v x="$1" 'BEGIN { printf "%d", x * 100 + 0.5 }'; }

check_grep '^# hot_loop \(rp-annotate\): [0-9]+ samples, [0-9.]+% of all$' "$T/a.txt" \
	"the header names hot_loop, its object, samples and share"
read -r path line pct <<<"$(hot_line "$T/a.txt" hot_loop)"
check_eq "$line" "$HOT" "hot_loop's hottest line is the loop's ($HOT)"
case "$path" in */rp-annotate.c) ok "in rp-annotate.c ($path)" ;; *) fail "hottest line's file: '$path'" ;; esac
check_grep "^>> +[0-9.]+ +$HOT[[:space:]]+for \(uint64_t i = 0; i < n; i\+\+\) x = x \* 6364136223846793005ULL" \
	"$T/a.txt" "the hot line's source text is shown"
read -r addr ipct isrc <<<"$(hot_insn "$T/a.txt" hot_loop)"
check_eq "$isrc" "rp-annotate.c:$HOT" "hot_loop's hottest instruction is on the loop's line"
a2l=$(addr2line -e "$W" "0x$addr" | sed 's/ .*//')
check_eq "${a2l##*/}" "rp-annotate.c:$HOT" "addr2line puts 0x$addr in the loop too"
# The loop's address range: every instruction shown on the loop's line; the hottest in it.
section "$T/a.txt" hot_loop | awk -v l="rp-annotate.c:$HOT" '/^# Instructions/ { on = 1 }
	on && $0 ~ l { a = $3; sub(/:$/, "", a); print a }' >"$T/loop.addrs"
check_grep "^$addr$" "$T/loop.addrs" "the hottest instruction lies in the loop's range"

for f in caller_a caller_b; do
	read -r path line pct <<<"$(hot_line "$T/a.txt" $f)"
	case "$path:$line" in
	*/rp-annotate-inl.h:"$INL") ok "$f: the hottest line is rp_mix's loop, rp-annotate-inl.h:$INL" ;;
	*) fail "$f: hottest line '$path:$line', not rp-annotate-inl.h:$INL" ;;
	esac
	check_range "$(points "$pct")" 8000 10000 "$f: most of its samples on the inlined loop ($pct %)"
	section "$T/a.txt" $f >"$T/$f.txt"
	check_grep "^>> +[0-9.]+ +$INL[[:space:]]+.*ANNOTATE-INLINE.*\[inlined rp_mix\]$" "$T/$f.txt" \
		"$f: the line says it is rp_mix's, inlined"
done

# perf on the same program, its own recording: same hottest line and instruction. Without
# --buildid-mmap perf 6.1 aborts in util/build-id.c while another session on the machine asks
# the kernel for build-ids (tests/perf-neighbour.sh); 3 tries all the same.
perf_rec() {
	local _
	for _ in 1 2 3; do
		perf record --buildid-mmap -q -e cpu-clock -o "$T/p.data" -- "$W" 2 2>"$T/perf.err" && return 0
	done
	return 1
}
if perf_rec; then
	perf annotate -i "$T/p.data" --stdio -l hot_loop >"$T/pl.txt" 2>/dev/null
	pl=$(awk '/^Sorted summary/ { on = 1 } on && /^ +[0-9.]+ [^ ]+:[0-9]+$/ { print $2, $1; exit }' "$T/pl.txt")
	check_eq "${pl%% *}" "rp-annotate.c:$HOT" "perf annotate -l: the same hottest line"
	read -r path line pct <<<"$(hot_line "$T/a.txt" hot_loop)"
	d=$(($(points "$pct") - $(points "${pl##* }")))
	check_range "${d#-}" 0 300 "the hot line's share within 3 points of perf's ($pct vs ${pl##* })"
	# Instructions: perf's heavy ones have samples here, their sum within 8 points (not the
	# same hottest one: two near-equal instructions of the loop, perf's own hottest flips
	# between them from run to run).
	for f in hot_loop caller_a; do
		perf annotate -i "$T/p.data" --stdio $f >"$T/p-$f.txt" 2>/dev/null
		section "$T/a.txt" $f >"$T/ours-$f"
		check_heavy_insns "$f" "$T/p-$f.txt" "$T/ours-$f" 8
	done
else
	echo "# perf record failed ($(head -1 "$T/perf.err")): perf's cross-check skipped"
fi

# A copy built here, its source then moved away: line numbers without text, and the note;
# --prefix-strip and --prefix find it in its new place; edited after the build, a note.
mkdir -p "$T/src" "$T/moved"
cp "$SRC/rp-annotate.c" "$SRC/rp-annotate-inl.h" "$T/src/"
(cd "$T/src" && ${CC:-cc} -std=gnu11 -g -O2 -Wl,--build-id -o "$T/rpa" rp-annotate.c) || fail "cc"
"$RP" record -q -e cpu-clock -o "$T/c.data" -- "$T/rpa" 1 || fail "record the copy"
mv "$T/src/rp-annotate.c" "$T/src/rp-annotate-inl.h" "$T/moved/"
"$RP" annotate --no-pager -i "$T/c.data" hot_loop >"$T/c.txt" 2>&1 || fail "annotate: $(cat "$T/c.txt")"
check_grep "^#   \(source not on this host: $T/src/rp-annotate.c: No such file or directory; line numbers only" \
	"$T/c.txt" "a missing source is said"
check_grep "^>> +[0-9.]+ +$HOT *$" "$T/c.txt" "and its hot line given by number, without text"
check_no_grep "ANNOTATE-HOT" "$T/c.txt" "no source text from anywhere else"
# Where the source was, a FIFO (the name is the binary's DWARF's to choose): not waited on.
mkfifo "$T/src/rp-annotate.c"
timeout 30 "$RP" annotate --no-pager -i "$T/c.data" hot_loop >"$T/cf.txt" 2>&1
check_eq $? 0 "a FIFO at the source's path: annotate is not blocked (exit 0 within 30 s)"
check_grep "^#   \(source not on this host: $T/src/rp-annotate.c: not a regular file; line numbers only" \
	"$T/cf.txt" "and the FIFO is not read as the source, and the note says why"
timeout 60 "$RP" report --no-pager -i "$T/c.data" --html "$T/cf.html" >/dev/null 2>&1
check_eq $? 0 "report --html with a FIFO at the source's path is not blocked"
rm -f "$T/src/rp-annotate.c"
strip=$(echo "$T/src" | tr -cd / | wc -c)
"$RP" annotate --no-pager -i "$T/c.data" --prefix "$T/moved" --prefix-strip "$strip" hot_loop \
	>"$T/cp.txt" 2>&1 || fail "annotate --prefix: $(cat "$T/cp.txt")"
check_grep "^>> +[0-9.]+ +$HOT[[:space:]]+.*ANNOTATE-HOT" "$T/cp.txt" "--prefix, --prefix-strip: the text found"
check_no_grep "modified after the binary" "$T/cp.txt" "a source older than its binary: no note"
# The source edited after the build: the text shown may not be what was compiled, and a note
# says so (perf annotate shows it without a word).
sed -i 's/ANNOTATE-HOT/ANNOTATE-HOT, edited/' "$T/moved/rp-annotate.c"
touch -d '+1 min' "$T/moved/rp-annotate.c"
"$RP" annotate --no-pager -i "$T/c.data" --prefix "$T/moved" --prefix-strip "$strip" hot_loop \
	>"$T/ce.txt" 2>&1 || fail "annotate, source edited: $(cat "$T/ce.txt")"
check_grep "^#   \(modified after the binary: source [0-9: -]+, $T/rpa [0-9: -]+; the text may not be what was compiled, the line numbers are the binary's\)\$" \
	"$T/ce.txt" "a source modified after its binary: the note says its text may not be what was compiled"

# No debug info (strip -g): the note says how to get it; the instructions all the same.
cp "$T/rpa" "$T/rpa-nodebug" && strip -g "$T/rpa-nodebug" || fail "strip"
"$RP" record -q -e cpu-clock -o "$T/s.data" -- "$T/rpa-nodebug" 1 || fail "record the stripped copy"
"$RP" annotate --no-pager -i "$T/s.data" hot_loop >"$T/s.txt" 2>&1 || fail "annotate: $(cat "$T/s.txt")"
check_grep "^#   none: $T/rpa-nodebug has no line information \(DWARF\): build with -g, or install its debug symbols" \
	"$T/s.txt" "no debug info: the note"
check_grep '^>> +[0-9.]+ +[0-9a-f]+:  [a-z]' "$T/s.txt" "no debug info: the hottest instruction still shown"
check_no_grep 'rp-annotate\.c:[0-9]' "$T/s.txt" "no debug info: no line guessed"

# Rebuilt, then deleted: the one note, no lines, no instructions, the name still given.
(cd "$T/moved" && ${CC:-cc} -std=gnu11 -g -O1 -Wl,--build-id -o "$T/rpa" rp-annotate.c) || fail "cc"
"$RP" annotate --no-pager -i "$T/c.data" hot_loop >"$T/rb.txt" 2>&1 || fail "annotate: $(cat "$T/rb.txt")"
check_grep "^# hot_loop \(rpa\): [0-9]+ samples" "$T/rb.txt" "rebuilt: the function still named"
check_grep "^# note: $T/rpa: build-id [0-9a-f]+ recorded, file on disk has [0-9a-f]+ \(rebuilt\?\); the instructions and lines of hot_loop are not available$" \
	"$T/rb.txt" "rebuilt: one note says why"
check_eq "$(grep -c '^# note' "$T/rb.txt")" 1 "rebuilt: one note only"
check_no_grep '^(>>|  ) +[0-9.]+ ' "$T/rb.txt" "rebuilt: no line and no instruction from the wrong file"
rm -f "$T/rpa"
"$RP" annotate --no-pager -i "$T/c.data" hot_loop >"$T/rm.txt" 2>&1 || fail "annotate: $(cat "$T/rm.txt")"
check_grep "^# note: $T/rpa: cannot open: No such file or directory; the instructions and lines of hot_loop are not available$" \
	"$T/rm.txt" "deleted: the note says so"
check_no_grep '^(>>|  ) +[0-9.]+ ' "$T/rm.txt" "deleted: no lines, no instructions"

# Asked for a function without samples: said, status 1.
if "$RP" annotate --no-pager -i "$T/r.data" main_not_there >"$T/n.txt" 2>"$T/n.err"; then
	fail "a function without samples succeeded"
fi
check_grep "^ringprof annotate: main_not_there: no samples were taken in it" "$T/n.err" \
	"a function without samples is said"

# Filters as report's: a --comm that matches nothing leaves no function.
"$RP" annotate --no-pager -i "$T/r.data" --comm no-such-comm >"$T/f.txt" 2>&1 || fail "annotate --comm: $(cat "$T/f.txt")"
check_grep '^# no samples in a known function$' "$T/f.txt" "--comm filters the samples"
check_no_grep '^# hot_loop ' "$T/f.txt" "--comm: no function of another command"

# A kernel function: its instructions from /proc/kcore when this kernel has one, else the
# note saying why; never source lines.
"$RP" record -q -e cpu-clock -o "$T/k.data" -- dd if=/dev/zero of=/dev/null bs=1M count=4000 2>/dev/null ||
	fail "record dd"
"$RP" annotate --no-pager -i "$T/k.data" -n 1 --dso '[kernel.kallsyms]' >"$T/k.txt" 2>&1 ||
	fail "annotate a kernel function: $(cat "$T/k.txt")"
kfn=$(awk '/^# [^ ]+ \(\[kernel\.kallsyms\]\): [0-9]+ samples/ { print $2; exit }' "$T/k.txt")
if [ -z "$kfn" ]; then
	echo "# no kernel samples in dd's recording (kernel sampling not allowed here?): kernel case skipped"
elif [ -r /proc/kcore ]; then
	check_grep "^# Instructions \(.*\), /proc/kcore 0x[0-9a-f]+-0x[0-9a-f]+:$" "$T/k.txt" \
		"kernel $kfn: instructions from /proc/kcore"
	read -r addr _ <<<"$(hot_insn "$T/k.txt" "$kfn")"
	ext=$(sed -n 's/^# Instructions .*, \/proc\/kcore 0x\([0-9a-f]*\)-0x\([0-9a-f]*\):$/\1 \2/p' "$T/k.txt")
	read -r lo hi <<<"$ext"
	in=0 # bash's signed 64 bits: kernel addresses are all negative alike, their order holds
	[ -n "$addr" ] && [ $((16#$addr)) -ge $((16#$lo)) ] && [ $((16#$addr)) -lt $((16#$hi)) ] && in=1
	check_eq "$in" 1 "kernel $kfn: the hottest instruction within its extent"
else
	check_grep "^# note: /proc/kcore: .*; the instructions and lines of $kfn are not available$" \
		"$T/k.txt" "kernel $kfn: without /proc/kcore, a note says why"
fi
