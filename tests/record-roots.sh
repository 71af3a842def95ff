#!/bin/bash
# record-roots.sh — stacks that end at ld.so's entry code are complete (issue 22): a library's
# constructor runs under _dl_start_user -> _dl_init (ld.so's RTLD_START has no FDE, the helper
# marks it as the outermost frame). `ringprof record -g` of a program whose library constructor
# burns 0.6 s of CPU: >= 90 % of the user stacks complete, ctor_burn's samples under
# _dl_start_user;_dl_init;call_init, and no "no unwind information" advice in the header. The
# fixture is built here (gcc). Environment: KEEP=1 keeps $T.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

command -v gcc >/dev/null || skip "gcc is not installed"
require_perf_events
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

cat >"$T/ctorlib.c" <<'C'
#include <time.h>
static volatile unsigned long sink;
void ctor_burn(void);
__attribute__((noinline)) void ctor_burn(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 7;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 600000000L);
}
__attribute__((constructor)) static void lib_init(void)
{
	ctor_burn();
}
int ctorlib_value(void);
int ctorlib_value(void)
{
	return (int)sink;
}
C
printf 'int ctorlib_value(void);\nint main(void)\n{\n\treturn ctorlib_value() == -1;\n}\n' >"$T/ctormain.c"
gcc -O2 -g -fPIC -shared -Wl,--build-id -o "$T/libctorlib.so" "$T/ctorlib.c" &&
	gcc -O2 -g -Wl,--build-id -o "$T/rp-ctor" "$T/ctormain.c" -L"$T" -lctorlib -Wl,-rpath,"$T" ||
	fail "cannot build the fixture"

"$RP" record -g -e cpu-clock -F 999 -o "$T/c.data" -- "$T/rp-ctor" >"$T/c.out" 2>"$T/c.err"
check_eq $? 0 "record -g of a library constructor exits 0"
"$RP" report -i "$T/c.data" --no-children 2>"$T/c.rerr" | grep '^#' >"$T/c.head"
"$RP" report -i "$T/c.data" --folded 2>>"$T/c.rerr" | ufold >"$T/c.folded"
c=$(awk '/^# user stacks:/ && match($0, /[0-9.]+% complete/) { print substr($0, RSTART, RLENGTH - 10) + 0; f = 1 } END { if (!f) print 0 }' "$T/c.head")
ge "$c" 90 || { cat "$T/c.head" "$T/c.err" >&2; fail "user stacks $c % complete (< 90): stacks ending in ld.so's _dl_start_user are not roots"; }
ok "user stacks $c % complete (>= 90)"
check_no_grep '^# note: .*(without unwind information|frame pointers)' "$T/c.head" "no advice about unwind information or frame pointers in the header"
# ctor_burn's samples: their path from the outermost frame (ld.so's names come from libc6-dbg).
grep -q ';_dl_init;' "$T/c.folded" || { echo "# ld.so has no symbols here (libc6-dbg): the path is not checked"; exit 0; }
s=$(awk '{ n = $NF; if ($1 !~ /^rp-ctor;/) next; if ($1 ~ /;ctor_burn(;|$)/) { t += n; if ($1 ~ /^rp-ctor;_dl_start_user;_dl_init;call_init;ctor_burn(;|$)/) h += n } }
	END { printf "%.1f\n", t ? 100 * h / t : 0 }' "$T/c.folded")
ge "$s" 90 || { sort -k2 -nr "$T/c.folded" | head -5 >&2; fail "$s % of ctor_burn's samples under _dl_start_user;_dl_init;call_init (< 90)"; }
ok "$s % of ctor_burn's samples under _dl_start_user;_dl_init;call_init (>= 90)"
