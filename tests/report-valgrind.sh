#!/bin/bash
# report-valgrind.sh — ringprof-report under valgrind on a short workload recording: no
# invalid access, no use of uninitialised memory, no definite leak, in every output mode.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
command -v valgrind >/dev/null || skip "valgrind is not installed"
require_perf_events
# Under ASan the binary cannot run under valgrind (both replace malloc and map shadow memory).
if nm "$top_builddir/ringprof-report" 2>/dev/null | grep -q '__asan_init'; then
	skip "ringprof-report is built with AddressSanitizer, which valgrind cannot run; the plain build runs this test"
fi

"$RP" record -q -g -F 999 -o "$T/wl.data" -- "$WL" -d 0.5 >/dev/null 2>"$T/rec.err" ||
	fail "recording the workload: $(cat "$T/rec.err")"

n=0
while read -r name args; do
	# shellcheck disable=SC2086 # the arguments are words
	valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
		--show-leak-kinds=definite --log-file="$T/vg-$name.log" \
		"$top_builddir/ringprof-report" -i "$T/wl.data" $args >"$T/out-$name" 2>"$T/err-$name"
	rc=$?
	[ "$rc" != 9 ] || { cat "$T/vg-$name.log" >&2; fail "valgrind found errors in report $args"; }
	[ "$rc" = 0 ] || fail "report $args exited $rc under valgrind: $(head -5 "$T/err-$name")"
	[ ! -s "$T/vg-$name.log" ] || { cat "$T/vg-$name.log" >&2; fail "valgrind reported on report $args"; }
	[ -s "$T/out-$name" ] || fail "report $args printed nothing"
	ok "valgrind-clean: ringprof-report ${args:-(flat)}"
	n=$((n + 1))
done <<'EOF'
flat
caller -g caller
folded --folded
stats --stats
dump --dump
EOF
check_grep 'rp-workload|worklib|rp_' "$T/out-flat" "the flat report names the workload's symbols"
check_grep '^SAMPLE ' "$T/out-dump" "the dump holds samples"
check_grep '^  samples +[1-9]' "$T/out-stats" "the stats count samples"
exit 0
