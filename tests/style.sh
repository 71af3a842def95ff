#!/bin/bash
# style.sh — the shape rules a reviewer would otherwise check by hand: no function in lib/ or
# the programs over 100 lines, the format's limits and stored names written out only in
# lib/format, and the tree formatted as .clang-format says.
. "$(dirname "$0")/lib.sh"

cd "$top_srcdir" || fail "no source tree"
files=$(ls lib/*/*.[ch] record/*.c report/*.c push/*.[ch] daemon/*.[ch] helper/*.[ch] front/*.c tests/*.c tests/fuzz/*.[ch] tests/workload/*.[ch] tests/symfix/*.c 2>/dev/null)
[ -n "$files" ] || fail "no sources found under $top_srcdir"

# Kernel style: a function body opens with "{" in column 0 and closes with "}" in column 0.
long=$(awk -v max=100 '
	FNR == 1 { inside = 0 }
	/^\{/ { inside = 1; start = FNR; name = prev; next }
	/^\}/ && inside { n = FNR - start - 1; if (n > max) printf "%s:%d: %s: %d lines\n", FILENAME, start, name, n; inside = 0 }
	{ if ($0 !~ /^[ \t]*$/) prev = $0 }' $(echo "$files" | grep -Ev '^tests/'))
if [ -n "$long" ]; then
	echo "$long" >&2
	fail "functions over 100 lines: split them into steps with names"
fi
ok "no function over 100 lines"

# The format owns every limit of a record (format.h: RP_RECORD_MAX, RP_RECORD_MAX8,
# RP_STACK_USER_MAX, RP_MAX_CPUS, RP_KERNEL_FLOOR) and names the stored unwind stops
# (format_unwind_stop_name): elsewhere they are named, not written out (--help's text aside).
lim=$(grep -nE '\b(65535|65528)u?\b|MAX_CPUS[ \t]+[0-9]|0xffff8000{8}|"(stack copy exhausted|no unwind information|bad frame|depth limit)"' \
	$(echo "$files" | grep -Ev '^(lib/format/format\.[ch]|tests/)') | grep -Ev '^[^:]+:[0-9]+:[[:space:]]*"' || true)
if [ -n "$lim" ]; then
	echo "$lim" >&2
	fail "a record limit or a stored stop's name written out: use format.h's name for it"
fi
ok "record limits and stored stop names written out only in lib/format/format.[ch]"

command -v clang-format >/dev/null || fail "clang-format is not installed (setup.sh installs it)"
bad=""
for f in $files; do
	clang-format --style=file "$f" | cmp -s - "$f" || bad="$bad $f"
done
if [ -n "$bad" ]; then
	for f in $bad; do clang-format --style=file "$f" | diff -u "$f" - | head -20 >&2; done
	fail "not formatted as .clang-format says:$bad (run: clang-format -i FILE)"
fi
ok "$(echo "$files" | wc -l) files formatted as .clang-format says"
