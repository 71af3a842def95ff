#!/bin/bash
# fuzz-regress.sh — every fuzz target, built with the normal compiler as a plain driver, replays
# its checked-in corpus (seeds and every crasher found so far) and must survive all of it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

for t in fuzz-reader fuzz-frame fuzz-maps fuzz-kallsyms fuzz-config fuzz-utab fuzz-utab-build fuzz-symtab; do
	bin="$top_builddir/tests/fuzz/$t"
	corpus="$top_srcdir/tests/fuzz/corpus/$t"
	[ -x "$bin" ] || fail "$bin missing (make check builds it)"
	n=$(find "$corpus" -maxdepth 1 -type f ! -name '.*' | wc -l)
	[ "$n" -gt 0 ] || fail "$corpus is empty"
	"$bin" "$corpus" >"$T/$t.out" 2>&1 || { cat "$T/$t.out" >&2; fail "$t crashed or failed on its corpus"; }
	check_grep "^$n inputs run$" "$T/$t.out" "$t: all $n corpus inputs replayed"
done
