#!/bin/bash
# report-expand.sh — a crafted recording of about a kilobyte whose packed samples would take
# gigabytes rebuilt with their callchains (600 000 samples of an 8000-word stack in one frame,
# tests/rp-craft "expand"): --stats, report, --folded, --dump and script read it within a
# memory bound and use every sample with its callchain; the frame fits the ordering window
# whole (a frame that would not is read in parts, with a warning). The bound is checked two ways: peak RSS under 256 MiB (what issue 24 allows a crafted
# file of 64 KiB), and a hard limit so that a regression fails here instead of exhausting the
# machine: an address-space limit, or ASan's hard_rss_limit_mb in the sanitizer build (where
# the shadow memory makes an address-space limit useless).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

CRAFT="$top_builddir/tests/rp-craft"
[ -x "$CRAFT" ] || fail "$CRAFT is missing (make check builds it)"
command -v python3 >/dev/null || fail "python3 is needed to measure peak RSS"

RSS_MAX_KB=$((256 * 1024))
if nm "$top_builddir/ringprof-report" 2>/dev/null | grep -q '__asan_init'; then
	# The same bound holds with the shadow (1/8 of what is used) once freed memory is not
	# held back by a 256 MiB quarantine (the default).
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1024:quarantine_size_mb=16"
	LIMIT="ASan hard_rss_limit_mb=1024"
else
	LIMIT="ulimit -v 1 GiB"
fi

# bounded NAME CMD...: run CMD (stdout NAME.out, stderr NAME.err) under the hard limit and
# record its peak RSS in KiB in NAME.rss; fails on a crash, a hang or a non-zero exit.
bounded() {
	local name=$1 st
	shift
	(
		[ "$LIMIT" = "ulimit -v 1 GiB" ] && ulimit -v $((1024 * 1024))
		exec timeout 120 python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:], stdout=open(sys.argv[1] + ".out", "w"),
                     stderr=open(sys.argv[1] + ".err", "w"))
open(sys.argv[1] + ".rss", "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc if rc >= 0 else 128 - rc)' "$T/$name" "$@"
	)
	st=$?
	[ "$st" = 0 ] || { head -c 2000 "$T/$name.err" >&2; fail "$name: exit status $st under $LIMIT"; }
	check_range "$(cat "$T/$name.rss")" 1 "$RSS_MAX_KB" "$name: peak RSS in KiB under $((RSS_MAX_KB / 1024)) MiB"
}

"$CRAFT" expand "$T/e.data" || fail "rp-craft expand"
check_range "$(stat -c %s "$T/e.data")" 1 65536 "the crafted recording is at most 64 KiB"
# 600 000 packed samples take about 70 MiB of the ordering window: within its 256 MiB, so the
# frame is read whole, in time order, without a warning.

# --stats: every sample and both stack definitions, the frames intact, the note.
bounded stats "$RP" report -i "$T/e.data" --stats
check_eq "$(stat_field samples "$T/stats.out")" 600000 "--stats counts all 600000 samples"
check_grep '^  stacks +2 defined, 600000 samples packed against them$' "$T/stats.out" "--stats: 2 stacks, every sample packed against one"
check_grep '^  frames +3 read, 0 damaged or truncated, 0 B skipped$' "$T/stats.out" "--stats: no frame skipped"
check_grep '^    cpu 0 +599990 +599990 ' "$T/stats.out" "--stats: CPU 0 has its 599990 samples"
check_no_grep 'warning' "$T/stats.err" "--stats: the frame is read whole (no warning)"

# The report: every sample, with its whole callchain (folded stacks count each stack).
bounded report "$RP" report -i "$T/e.data"
check_grep '^# samples: 600000, lost: 0 ' "$T/report.out" "report uses the 600000 samples"
check_grep '^ +100\.00% +100\.00% +absurd +\[kernel\.kallsyms\] +\[k\] rp_kfunc_b$' "$T/report.out" \
	"report: rp_kfunc_b is the deep stack's leaf"
check_no_grep 'warning' "$T/report.err" "report: the frame is read whole (no warning)"
bounded folded "$RP" report -i "$T/e.data" --folded
check_grep '^absurd;rp_kfunc_a_\[k\];rp_kfunc_a_\[k\];.*;rp_kfunc_a_\[k\];rp_kfunc_b_\[k\] 599990$' "$T/folded.out" \
	"--folded: the 599990 samples of the deep stack, rp_kfunc_b called from rp_kfunc_a"
check_grep '^absurd;rp_kfunc_b_\[k\];rp_kfunc_a_\[k\] 10$' "$T/folded.out" \
	"--folded: the 10 samples of the short stack"
check_eq "$(wc -l <"$T/folded.out")" 2 "--folded: nothing else"

# --dump shows the sample as rebuilt: all 8000 words of its callchain (the first one only:
# the whole dump would be 600000 lines of 8000 words).
"$RP" report -i "$T/e.data" --dump 2>/dev/null | grep -m1 '^SAMPLE ' >"$T/dump1"
check_grep '^SAMPLE 1000\.001000000 cpu=0 pid=4242 tid=4242 period=1000000 mode=kernel ip=0xffffffff81002020 nr=8000 chain=kernel,0xffffffff81002020,0xffffffff81001010,' \
	"$T/dump1" "--dump: the first sample with its 8000-word callchain"
check_eq "$(tr ',' '\n' <"$T/dump1" | grep -c '^0xffffffff81001010')" 7998 "--dump: 7998 frames of rp_kfunc_a in it"

# script reads every sample (CPU 0's with their callchains) and prints CPU 1's ten.
bounded script "$RP" script -i "$T/e.data" --cpu 1
check_eq "$(grep -Ec '^absurd  4242/4242  \[001\] .* cpu-clock: $' "$T/script.out")" 10 "script prints the 10 samples of CPU 1"
check_eq "$(grep -A2 '\[001\] *1030\.001000:' "$T/script.out" | sed 1d | awk '{print $2}' | tr '\n' ' ')" \
	"rp_kfunc_a+0x10 rp_kfunc_b+0x20 " "script: each with its callchain, rp_kfunc_a called from rp_kfunc_b"
check_no_grep 'warning' "$T/script.err" "script: the frame is read whole (no warning)"
bounded script-max "$RP" script -i "$T/e.data" --cpu 0 --max-stack 1
check_eq "$(grep -c '^	ffffffff81002020 rp_kfunc_b+0x20 ' "$T/script-max.out")" 599990 \
	"script --cpu 0 prints all 599990 samples of CPU 0"
exit 0
