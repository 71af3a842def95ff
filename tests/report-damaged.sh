#!/bin/bash
# report-damaged.sh — truncated and corrupted recordings: a warning that says what and where,
# the intact frames still read, exit status 0 while anything is usable.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

# record_good [ARGS]: 2 s of the workload into good.data with a short flush interval (many
# frames to damage); sets frames, samples and offs (the offsets of the frame descriptors: zstd
# skippable magic, size 64, "RPFD").
record_good() {
	"$RP" record -q -e cpu-clock -F 999 -g --flush-interval 0.1 "$@" -o "$T/good.data" -- "$WL" -d 2 >/dev/null \
		|| fail "recording failed"
	"$RP" report -i "$T/good.data" --stats >"$T/good.stats" || fail "stats of the intact file"
	frames=$(awk '$1 == "frames" { print $2 }' "$T/good.stats")
	samples=$(stat_field samples "$T/good.stats")
	offs=($(LC_ALL=C grep -obUaP '\x5e\x2a\x4d\x18\x40\x00\x00\x00RPFD' "$T/good.data" | cut -d: -f1))
}

record_good
check_range "$frames" 8 1000 "the recording has many frames"
size=$(stat -c %s "$T/good.data")
check_eq "${#offs[@]}" "$frames" "one descriptor per frame in the file"
mid=$((frames / 2))

# Truncated in the middle of the file.
head -c $((${offs[$mid]} + 100)) "$T/good.data" >"$T/trunc.data"
"$RP" report -i "$T/trunc.data" --stats >"$T/trunc.stats" 2>"$T/trunc.err"
check_eq "$?" 0 "a truncated recording is still usable"
check_grep 'warning: frame [0-9]+ at offset [0-9]+ is truncated|warning: file ends .* bytes into a frame descriptor' \
	"$T/trunc.err" "truncation is reported with its offset"
ts=$(stat_field samples "$T/trunc.stats")
check_range "$ts" $((samples / 5)) $((samples - 1)) "the frames before the cut are read"
check_grep '^  finished +no' "$T/trunc.stats" "a truncated recording is not finished"

# A corrupted byte in the middle of the compressed data.
cp "$T/good.data" "$T/corrupt.data"
printf '\xff\x00\xff\x00\xff\x00\xff\x00' | dd of="$T/corrupt.data" bs=1 seek=$((${offs[$mid]} + 90)) conv=notrunc status=none
"$RP" report -i "$T/corrupt.data" --stats >"$T/corrupt.stats" 2>"$T/corrupt.err"
check_eq "$?" 0 "a corrupted recording is still usable"
check_grep 'warning: (frame [0-9]+ at offset [0-9]+ is corrupt|damaged frame descriptor at offset [0-9]+)' \
	"$T/corrupt.err" "corruption is reported with its offset"
cs=$(stat_field samples "$T/corrupt.stats")
check_range "$cs" $((samples * (frames - 3) / frames)) $((samples - 1)) "only the damaged frame is lost"
check_grep '^  finished +yes' "$T/corrupt.stats" "frames after the damage are read (the finish record)"
"$RP" report -i "$T/corrupt.data" --dump >/dev/null 2>&1 || fail "dump of a corrupted recording"
ok "dump of a corrupted recording succeeds"

# Garbage at the start: the header frame is lost, the rest is read.
cp "$T/good.data" "$T/head.data"
dd if=/dev/urandom of="$T/head.data" bs=1 count=64 conv=notrunc status=none
"$RP" report -i "$T/head.data" --stats >"$T/head.stats" 2>"$T/head.err"
check_eq "$?" 0 "a recording without its first frame is still usable"
check_grep 'header +lost' "$T/head.stats" "the lost header is reported"
hs=$(stat_field samples "$T/head.stats")
check_range "$hs" $((samples / 2)) "$samples" "samples after the damaged header are read"

# Format 2: a frame that defines stacks is lost. Later samples that use them keep their time,
# task and count but not their callchain, and say so, until the recorder defines its stacks
# again (--stack-interval, a new numbering); none gets another stack's callchain: each new
# numbering is said at the start of every frame (format 2.2), so ids are never read against
# an older numbering's definitions when the frame that started the new one is lost.
record_good --stack-interval 0.5
"$RP" report -i "$T/good.data" --dump 2>/dev/null | grep '^SAMPLE' | sort >"$T/good.samples"
check_range "$(wc -l <"$T/good.samples")" "$samples" "$samples" "--dump shows every sample of the intact file"
# Each frame that defines stacks, damaged in turn. The first whose loss leaves later samples
# without their stack (a frame's stacks may all be used within it, or defined again right
# after) is kept as stacks.* for the checks after the loop.
first=0 tried=0 wrong=0
for ((i = 1; i < frames - 1; i++)); do
	head -c ${offs[$((i + 1))]} "$T/good.data" | tail -c +$((${offs[$i]} + 1)) >"$T/one.data"
	"$RP" report -i "$T/one.data" --stats 2>/dev/null | grep -q '^  stacks  *[1-9]' || continue
	tried=$((tried + 1))
	cp "$T/good.data" "$T/try.data"
	printf '\xff\x00\xff\x00\xff\x00\xff\x00' |
		dd of="$T/try.data" bs=1 seek=$((${offs[$i]} + 90)) conv=notrunc status=none
	"$RP" report -i "$T/try.data" --stats >"$T/try.stats" 2>"$T/try.err" ||
		fail "a recording that lost frame $i's stack definitions is still usable (status $?)"
	# Every sample kept with a callchain has its own: the same line in the intact file's dump.
	"$RP" report -i "$T/try.data" --dump 2>/dev/null | grep '^SAMPLE' | grep -v ' nr=0\b' | sort >"$T/try.samples"
	n=$(comm -23 "$T/try.samples" "$T/good.samples" | wc -l)
	[ "$n" = 0 ] || { comm -23 "$T/try.samples" "$T/good.samples" | head -3 >&2; echo "frame $i lost: $n samples with another callchain" >&2; }
	wrong=$((wrong + n))
	if [ $first = 0 ] && grep -q 'samples refer to stacks whose definitions were lost' "$T/try.err"; then
		first=$i
		for f in data stats err; do cp "$T/try.$f" "$T/stacks.$f"; done
	fi
done
check_range "$tried" 2 "$frames" "frames that define stacks, each damaged in turn"
check_eq "$wrong" 0 "no sample is given another stack's callchain, whichever of the $tried frames is lost"
check_range "$first" 1 "$frames" "some frame's loss leaves later samples without their stack"
check_grep "warning: frame [0-9]+: samples refer to stacks whose definitions were lost \(damaged frames earlier in the file\); they are kept without their callchain \(--stats counts them\)" \
	"$T/stacks.err" "samples whose stack definition was lost are reported"
check_grep '^  stacks +[0-9]+ defined, [0-9]+ samples packed against them, [1-9][0-9]* of them lost their stack' \
	"$T/stacks.stats" "--stats counts them"
ss=$(stat_field samples "$T/stacks.stats")
check_range "$ss" $((samples * (frames - 3) / frames)) $((samples - 1)) "only the damaged frame's samples are missing"
"$RP" report -i "$T/stacks.data" --no-children >"$T/stacks.rep" 2>/dev/null || fail "report of the recording that lost stacks"
# The callchains come back with the next definitions, half a second later.
nolost=$(sed -n 's/.*packed against them, \([0-9]*\) of them lost their stack.*/\1/p' "$T/stacks.stats")
check_range "$nolost" 1 $((ss * 3 / 4)) "samples after the stacks are defined again have their callchain"
# Kernel symbols are written again with the new numbering: no kernel frame is left unnamed.
check_no_grep '\[k\] 0x' "$T/stacks.rep" "kernel frames resolve (symbols written again too)"
check_eq "$(grep -c 'samples refer to stacks whose definitions were lost' "$T/stacks.err")" 1 "the loss is reported once"

# Cut inside the very first frame: nothing usable.
head -c 100 "$T/good.data" >"$T/tiny.data"
"$RP" report -i "$T/tiny.data" --stats >"$T/tiny.out" 2>&1
check_eq "$?" 1 "a file with no complete frame exits 1"
check_grep 'truncated' "$T/tiny.out" "and says it is truncated"
exit 0
