#!/bin/bash
# golden.sh — recordings of every format version read the same forever.
#
# tests/golden/vN/ holds a recording made by the version that wrote format N (workload.rpd,
# an unprivileged `ringprof record -g --switch-events -e cpu-clock -F 999` of rp-workload run
# from /tmp/rp-golden), the exact binaries it ran (under symfs/, found by path and build-id)
# and what --stats, --dump and the -g caller report printed then (expected.*). Every later ringprof must
# print the same: the dump and the stats byte for byte, the report except for libc frames
# (they come from the host's libc, which may differ) and the unresolved share they change.
. "$(dirname "$0")/lib.sh"

G="$top_srcdir/tests/golden"
export TZ=UTC
n=0
for d in "$G"/v*/; do
	v=$(basename "$d")
	[ -f "$d/workload.rpd" ] || continue
	n=$((n + 1))
	# The recording's name appears in the output: read it under a fixed name.
	cp "$d/workload.rpd" "$T/workload.rpd"
	(cd "$T" && "$RP" report -i workload.rpd --stats) >"$T/$v.stats" 2>&1 || fail "$v: --stats failed"
	diff -u "$d/expected.stats" "$T/$v.stats" >&2 || fail "$v: --stats differs from expected.stats"
	ok "$v: --stats as when it was written"
	(cd "$T" && "$RP" report -i workload.rpd --dump) >"$T/$v.dump" 2>&1 || fail "$v: --dump failed"
	diff -u "$d/expected.dump" "$T/$v.dump" | head -40 >&2
	cmp -s "$d/expected.dump" "$T/$v.dump" || fail "$v: --dump differs from expected.dump"
	ok "$v: --dump as when it was written ($(wc -l <"$T/$v.dump") records)"
	(cd "$T" && "$RP" report -i workload.rpd -g caller --symfs "$d/symfs") 2>&1 |
		grep -Ev 'libc\.so|unresolved frames' >"$T/$v.report"
	grep -Ev 'libc\.so|unresolved frames' "$d/expected.report" >"$T/$v.report.want"
	diff -u "$T/$v.report.want" "$T/$v.report" >&2 || fail "$v: report differs from expected.report"
	ok "$v: report as when it was written"
	check_grep '^ +2[0-9]\.[0-9]+% +2[0-9]\.[0-9]+% rp-worker +rp-workload +\[\.\] worker_spin$' "$T/$v.report" \
		"$v: worker_spin symbolized from the golden binary"
done
[ "$n" -ge 1 ] || fail "no golden recordings under $G"
