#!/bin/bash
# report-absurd.sh — recordings whose lengths and counts are absurd but whose frame
# descriptors carry a valid CRC, so that the reader's own checks must catch them: huge or
# wrong raw_size, zsize and n_records, a callchain nr of 2^40 or past the record, a KSYMS
# count of 2^32-1, an MMAP2 filename without its NUL, records of size 0 and 65528, a header
# with 2^32-1 CPUs, CPU_STATS counts near 2^64. `ringprof report`, `--stats` and `--dump`
# must not crash or hang, must say what is wrong and where (frame number and file offset,
# byte in the frame) where a frame or record is skipped, must use everything intact, and
# must exit non-zero only when nothing is usable. The files come from tests/rp-craft (see
# its header for the layout: 4 frames, 10 samples in each of frames 1 and 2).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

CRAFT="$top_builddir/tests/rp-craft"
[ -x "$CRAFT" ] || fail "$CRAFT is missing (make check builds it)"

# run CASE: craft it, then --stats, the flat report and --dump, each under a timeout;
# outputs in $T/CASE.{stats,report,dump} and their stderr in .err; statuses in S_STATS,
# S_REPORT, S_DUMP. A crash (signal) or a hang fails the test at once.
run() {
	local c=$1 mode st
	"$CRAFT" "$c" "$T/$c.data" || fail "rp-craft $c"
	for mode in stats report dump; do
		case $mode in
		stats) timeout 30 "$RP" report -i "$T/$c.data" --stats ;;
		report) timeout 30 "$RP" report -i "$T/$c.data" ;;
		dump) timeout 30 "$RP" report -i "$T/$c.data" --dump ;;
		esac >"$T/$c.$mode" 2>"$T/$c.$mode.err"
		st=$?
		[ "$st" -lt 124 ] || { cat "$T/$c.$mode.err" >&2; fail "$c: report --$mode died or hung (status $st)"; }
		eval "S_${mode^^}=$st"
	done
	ok "$c: --stats, the report and --dump ended by themselves (status $S_STATS $S_REPORT $S_DUMP)"
}

# usable CASE SAMPLES: exit 0 everywhere, and SAMPLES samples in --stats and in the report.
usable() {
	local c=$1 n=$2
	check_eq "$S_STATS $S_REPORT $S_DUMP" "0 0 0" "$c: exit status 0 while data is usable"
	check_eq "$(stat_field samples "$T/$c.stats")" "$n" "$c: --stats counts the $n samples that are intact"
	check_grep "^# samples: $n," "$T/$c.report" "$c: the report uses the $n samples"
	check_grep '^ +[0-9.]+% +[0-9.]+% absurd +\[kernel.kallsyms\] +\[k\] rp_kfunc_a$' "$T/$c.report" \
		"$c: kernel frames are still named from the KSYMS record"
	check_grep '^  finished +yes$' "$T/$c.stats" "$c: the frames after the damage are read (FINISH)"
}

# skipped_frame CASE WHAT: frame 1 (at its offset in the intact file) is skipped with a
# warning matching WHAT, in every mode; no descriptor is called damaged (its CRC is valid).
skipped_frame() {
	local c=$1 what=$2 mode
	for mode in stats report dump; do
		check_grep "^ringprof report: $T/$c.data: warning: frame 1 at offset $off1 $what" "$T/$c.$mode.err" \
			"$c: --$mode says frame 1 at offset $off1 $what"
	done
	check_grep '^  frames +3 read, [12] damaged or truncated' "$T/$c.stats" "$c: --stats counts the skipped frame"
	check_eq "$(grep -c '^SAMPLE ' "$T/$c.dump")" 10 "$c: --dump prints the 10 samples of frame 2"
}

# ---- the intact file, for reference ----------------------------------------------------------
run good
usable good 20
check_grep '^  kernel syms +3$' "$T/good.stats" "good: 3 kernel symbols"
check_grep '^  target +system-wide, 2 CPUs recorded$' "$T/good.stats" "good: 2 CPUs recorded"
check_grep '^  frames +4 read, 0 damaged or truncated, 0 B skipped$' "$T/good.stats" "good: 4 frames, none damaged"
check_no_grep 'warning' "$T/good.report.err" "good: no warning"
check_eq "$(grep -c '^SAMPLE .* nr=3 chain=' "$T/good.dump")" 20 "good: --dump prints 20 samples with their chains"
# Offsets of the descriptors (zstd skippable magic, size 64, "RPFD"), as report-damaged.sh.
offs=($(LC_ALL=C grep -obUaP '\x5e\x2a\x4d\x18\x40\x00\x00\x00RPFD' "$T/good.data" | cut -d: -f1))
check_eq "${#offs[@]}" 4 "good: 4 frame descriptors in the file"
off1=${offs[1]}

# ---- absurd frame descriptors, with valid CRCs -------------------------------------------------
run desc-raw-huge # raw_size 0xffffffff
usable desc-raw-huge 10
skipped_frame desc-raw-huge 'has an unsupported version or size; skipped'
check_no_grep 'damaged frame descriptor' "$T/desc-raw-huge.stats.err" "desc-raw-huge: its CRC was accepted (not called damaged)"

run desc-raw-max # raw_size 64 MiB (the largest allowed) for 1 KiB of content
usable desc-raw-max 10
skipped_frame desc-raw-max 'is corrupt \(wrong decompressed size\); its 10 records are skipped'

run desc-raw-small # raw_size 64, less than the content
usable desc-raw-small 10
skipped_frame desc-raw-small 'is corrupt \(.*\); its 10 records are skipped'

run desc-zsize-huge # zsize 0xffffffff
usable desc-zsize-huge 10
skipped_frame desc-zsize-huge 'has an unsupported version or size; skipped'

run desc-zsize-past-eof # zsize 72 MiB (allowed) beyond the end of the file
usable desc-zsize-past-eof 10
skipped_frame desc-zsize-past-eof 'claims 75497472 bytes, more than the file holds, yet another frame follows at offset [0-9]+: its size is damaged; its 10 records are lost'

run desc-zsize-small # zsize 16: the frame is cut, the reader lands inside it and resyncs
usable desc-zsize-small 10
skipped_frame desc-zsize-small 'is corrupt \(.*\); its 10 records are skipped'
check_grep "warning: damaged frame descriptor at offset $((off1 + 72 + 16)); skipped [0-9]+ bytes to the next frame" \
	"$T/desc-zsize-small.stats.err" "desc-zsize-small: the bytes after the short zstd frame are skipped with their offset"

run desc-nrec-huge # n_records 0xffffffff: informational only, the frame is intact
usable desc-nrec-huge 20
check_no_grep 'warning' "$T/desc-nrec-huge.stats.err" "desc-nrec-huge: the frame is read without complaint"
check_eq "$(grep -c '^SAMPLE ' "$T/desc-nrec-huge.dump")" 20 "desc-nrec-huge: --dump prints 20 samples, not 2^32-1 records"

run only-frame-raw-huge # the only frame has raw_size 0xffffffff: nothing usable
check_eq "$S_STATS $S_REPORT $S_DUMP" "1 1 1" "only-frame-raw-huge: exit 1 when nothing is usable"
for mode in stats report dump; do
	check_grep 'warning: frame 0 at offset 0 has an unsupported version or size; skipped' \
		"$T/only-frame-raw-huge.$mode.err" "only-frame-raw-huge: --$mode says which frame and why"
	check_grep 'no intact frame in the file; nothing could be read' "$T/only-frame-raw-huge.$mode.err" \
		"only-frame-raw-huge: --$mode says nothing could be read"
done

# ---- absurd records inside intact frames ----------------------------------------------------------
for c in chain-huge chain-over; do # one sample whose callchain nr is 2^40 / one past the record
	run $c
	check_eq "$S_STATS $S_REPORT $S_DUMP" "0 0 0" "$c: exit status 0"
	check_grep '^# samples: 19,' "$T/$c.report" "$c: the report uses the 19 other samples"
	check_grep '^ +[0-9.]+% +[0-9.]+% absurd +\[kernel.kallsyms\] +\[k\] rp_kfunc_a$' "$T/$c.report" "$c: with their symbols"
	check_eq "$(grep -c '^SAMPLE (malformed)$' "$T/$c.dump")" 1 "$c: --dump marks that one sample malformed"
	check_eq "$(grep -c '^SAMPLE .* nr=3 chain=' "$T/$c.dump")" 19 "$c: and prints the 19 others whole"
	check_grep '^  frames +4 read, 0 damaged' "$T/$c.stats" "$c: no frame is lost over one record"
	check_grep '^    malformed +1 \(samples whose fields do not fit their record: not counted\)$' "$T/$c.stats" \
		"$c: --stats counts the malformed sample apart"
	check_grep '^  samples +19$' "$T/$c.stats" "$c: --stats counts 19 samples, like the report"
	check_grep '^# note: 1 malformed sample skipped \(fields that do not fit the record\)$' "$T/$c.report" \
		"$c: the report says it skipped one"
done

run ksyms-huge # KSYMS claims 2^32-1 entries, 3 are there
usable ksyms-huge 20
check_grep '^ +[0-9.]+% +[0-9.]+% absurd +\[kernel.kallsyms\] +\[k\] rp_kfunc_b$' "$T/ksyms-huge.report" \
	"ksyms-huge: the entries present are used (rp_kfunc_b)"
check_grep '^KSYMS [0-9.]+ n=4294967295$' "$T/ksyms-huge.dump" "ksyms-huge: --dump shows the count as stored"
check_grep '^  kernel syms +3( |$)' "$T/ksyms-huge.stats" "ksyms-huge: --stats counts the 3 entries present"

run mmap-unterminated # MMAP2 filename without a NUL before the sample_id trailer
usable mmap-unterminated 20
check_grep '^MMAP2 .* path=\(malformed\)$' "$T/mmap-unterminated.dump" "mmap-unterminated: --dump marks the path malformed"
check_no_grep 'xxxxxxxx' "$T/mmap-unterminated.report" "mmap-unterminated: the unterminated bytes are never printed as a name"
check_grep '^# note: 1 malformed mapping record skipped \(file name not terminated\): samples in that mapping cannot be placed in their file$' \
	"$T/mmap-unterminated.report" "mmap-unterminated: the report says it skipped the mapping"

for c in rec-size-zero rec-size-over; do # a record of size 0 / 65528 after the 6th sample of frame 1
	run $c
	usable $c 16
	size=0
	[ $c = rec-size-over ] && size=65528
	for mode in stats report dump; do
		check_grep "warning: frame 1 holds a record of impossible size $size at byte 480; the rest of the frame is skipped" \
			"$T/$c.$mode.err" "$c: --$mode names the size, the frame and the byte"
	done
	check_eq "$(grep -c '^SAMPLE ' "$T/$c.dump")" 16 "$c: the 6 samples before it and the 10 of frame 2 are printed"
done

run header-ncpus # n_cpus_online and n_cpus_recorded 2^32-1
usable header-ncpus 20
check_eq "$(grep -c '^SAMPLE ' "$T/header-ncpus.dump")" 20 "header-ncpus: --dump prints every sample"

run cpu-stats-huge # CPU_STATS with cpu 2^32-1 and counts near 2^64
usable cpu-stats-huge 20
check_grep '^CPU_STATS .* cpu=4294967295 samples=18446744073709551615 ' "$T/cpu-stats-huge.dump" \
	"cpu-stats-huge: --dump prints the record as stored"
check_no_grep '[0-9]{4,}\.[0-9]+%' "$T/cpu-stats-huge.stats" "cpu-stats-huge: --stats never shows a share over 100 % (sums do not wrap)"
check_no_grep '[0-9]{4,}\.[0-9]+%' "$T/cpu-stats-huge.report" "cpu-stats-huge: nor does the report"
exit 0
