#!/bin/bash
# report-late-buildid.sh — one binary in two inodes at one path (reinstalled, or relinked alike,
# while recording), each mapped and sampled before its RP_REC_BUILDID came (the recorder writes
# a build-id once its helper has read it): the report counts the file as one object, each of
# its functions one row, as pprof's reading of the same recording does (issue 24: report-unit
# once gave worklib_spin 8.48 % in the report and 16.75 % in pprof). The recording is crafted
# by tests/rp-craft (late-buildid) around the workload's library.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
command -v readelf >/dev/null || skip "readelf (binutils) is missing"

LIB="$top_builddir/tests/workload/librp-worklib.so"
[ -f "$LIB" ] || fail "$LIB was not built"
mkdir -p "$T/lib"
P="$T/lib/librp-worklib.so"
cp "$LIB" "$P"
ino1=$(stat -c %i "$P")
cp "$LIB" "$P.new" && mv "$P.new" "$P"
ino2=$(stat -c %i "$P")
[ "$ino1" != "$ino2" ] || fail "the copy kept the inode"
dev=$(stat -c '%Hd %Ld' "$P")
bid=$(readelf -n "$P" | sed -n 's/^ *Build ID: \([0-9a-f]*\)$/\1/p')
[ -n "$bid" ] || fail "no build-id in $LIB"
# worklib_spin's file offset: its address in the first executable PT_LOAD, less that segment's
# address, plus its offset.
addr=$(readelf -Ws "$P" | awk '$8 == "worklib_spin" && $4 == "FUNC" { print $2; exit }')
seg=$(readelf -lW "$P" | awk '$1 == "LOAD" && / E / { print $2, $3; exit }')
[ -n "$addr" ] && [ -n "$seg" ] || fail "worklib_spin or the code segment not found in $LIB"
off=$(printf '%x' $((0x$addr - ${seg#* } + ${seg% *} + 4)))
RP_CRAFT_LIB="$P" RP_CRAFT_MAJ=${dev% *} RP_CRAFT_MIN=${dev#* } RP_CRAFT_INO1=$ino1 \
	RP_CRAFT_INO2=$ino2 RP_CRAFT_OFF=$off RP_CRAFT_BID=$bid \
	"$top_builddir/tests/rp-craft" late-buildid "$T/l.data" || fail "rp-craft late-buildid"

"$RP" report -i "$T/l.data" --dump >"$T/dump" 2>&1 || fail "--dump: $(tail -1 "$T/dump")"
check_eq "$(grep -c "^MMAP2 .* path=$P\$" "$T/dump")" 2 "the recording maps the file twice"
check_eq "$(grep -c '^BUILDID .* ino=\('"$ino1\|$ino2"'\) ' "$T/dump")" 2 "a build-id record for each inode"
"$RP" report -i "$T/l.data" --no-children -s sym >"$T/sym" 2>"$T/err" || fail "report: $(cat "$T/err")"
check_eq "$(grep -c '\[\.\] worklib_spin$' "$T/sym")" 1 "report -s sym: one row of worklib_spin"
check_grep '^ +100\.00% +\[\.\] worklib_spin$' "$T/sym" "with all the samples of both inodes"
"$RP" report -i "$T/l.data" --no-children -s dso,sym >"$T/dsosym" 2>&1
check_eq "$(grep -cE 'librp-worklib\.so +\[\.\] worklib_spin$' "$T/dsosym")" 1 "report -s dso,sym: one row of it"
echo "# $n_checks checks"
