#!/bin/bash
# report-damaged.sh — truncated and corrupted recordings: a warning that says what and where,
# the intact frames still read, exit status 0 while anything is usable.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events

# Short flush interval: many frames to damage.
"$RP" record -q -e cpu-clock -F 999 -g --flush-interval 0.1 -o "$T/good.data" -- "$WL" -d 2 >/dev/null \
	|| fail "recording failed"
"$RP" report -i "$T/good.data" --stats >"$T/good.stats" || fail "stats of the intact file"
frames=$(awk '$1 == "frames" { print $2 }' "$T/good.stats")
samples=$(stat_field samples "$T/good.stats")
check_range "$frames" 8 1000 "the recording has many frames"
size=$(stat -c %s "$T/good.data")
# Offsets of the frame descriptors (zstd skippable magic, size 64, "RPFD").
offs=($(LC_ALL=C grep -obUaP '\x5e\x2a\x4d\x18\x40\x00\x00\x00RPFD' "$T/good.data" | cut -d: -f1))
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

# Cut inside the very first frame: nothing usable.
head -c 100 "$T/good.data" >"$T/tiny.data"
"$RP" report -i "$T/tiny.data" --stats >"$T/tiny.out" 2>&1
check_eq "$?" 1 "a file with no complete frame exits 1"
check_grep 'truncated' "$T/tiny.out" "and says it is truncated"
exit 0
