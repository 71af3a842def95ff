#!/bin/bash
# report-captured.sh — symbols captured at record time (RP_REC_SYMTAB): a binary that only a
# private mount namespace could see is named after the namespace and the binary are gone; a
# binary replaced on disk by another build is named from the captured table instead of being
# refused, while a matching file on disk is still preferred; a table larger than one record
# is cut into parts that all name; .gnu_debugdata (MiniDebugInfo) names static functions.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
require_root
command -v unshare >/dev/null || skip "unshare (util-linux) is needed"
LIB="$top_builddir/tests/workload/librp-worklib.so"
CAPTURED='^# [0-9]+ objects? named from symbols captured at record time'

# ---- a binary only a private mount namespace sees ----------------------------------------------
mkdir -p "$T/ns"
cat >"$T/inns.sh" <<EOS
mount -t tmpfs none "$T/ns" || exit 1
cp "$WL" "$LIB" "$T/ns/" || exit 1
echo \$\$ >"$T/ns.pid.tmp" && mv "$T/ns.pid.tmp" "$T/ns.pid"
exec "$T/ns/rp-workload" -d 3 -q
EOS
unshare -m --propagation private sh "$T/inns.sh" &
NS_SH=$!
BG_PIDS="$BG_PIDS $NS_SH"
wait_for_file "$T/ns.pid"
pid=$(cat "$T/ns.pid")
[ -e "$T/ns/rp-workload" ] && fail "the tmpfs of the namespace is visible outside it"
"$RP" record -q -e cpu-clock -g -p "$pid" -o "$T/ns.data" 2>"$T/ns.err" ||
	fail "recording the process in the namespace: $(cat "$T/ns.err")"
wait "$NS_SH"
[ -e "$T/ns/rp-workload" ] && fail "the namespace's binary is still visible"
"$RP" report -i "$T/ns.data" --dump >"$T/ns.dump" 2>&1 || fail "report --dump"
check_grep "^SYMTAB .* build_id=$(build_id_of "$WL") part=0/1 n=[0-9]+ flags=0x1 " "$T/ns.dump" \
	"the recording holds rp-workload's .symtab, keyed by its build-id"
"$RP" report -i "$T/ns.data" --no-children >"$T/ns.rep" 2>"$T/ns.rerr" || fail "report: $(cat "$T/ns.rerr")"
check_grep "$CAPTURED" "$T/ns.rep" "the header says objects were named from captured symbols"
check_grep '^ +[0-9.]+% +rp-workload +rp-workload +\[\.\] hot_outer_a$' "$T/ns.rep" \
	"the namespace's binary is named (hot_outer_a) after the namespace is gone"
check_grep '^ +[0-9.]+% +rp-worker +rp-workload +\[\.\] worker_spin$' "$T/ns.rep" \
	"its worker thread's function too (worker_spin)"
check_grep '\[\.\] warm_func$' "$T/ns.rep" "and warm_func"
unres=$(sed -nE 's/.*unresolved frames: ([0-9]+)\..*/\1/p' "$T/ns.rep")
check_range "$unres" 0 5 "unresolved frames (%) with the binary gone"
check_no_grep 'build-id|not found|No such file' "$T/ns.rerr" \
	"no warning about the missing binary: the captured table stands in"
"$RP" script -i "$T/ns.data" >"$T/ns.script" 2>&1 || fail "script"
check_grep "^[[:space:]]+[0-9a-f]+ warm_func\+0x[0-9a-f]+ \($T/ns/rp-workload\)$" "$T/ns.script" \
	"script (streaming) names the frames from the captured table too"

# ---- a binary replaced by another build ---------------------------------------------------------
mkdir -p "$T/bin"
cp "$WL" "$LIB" "$T/bin/"
"$RP" record -q -e cpu-clock -g -o "$T/rep.data" -- "$T/bin/rp-workload" -d 1 -q ||
	fail "recording the copy"
"$RP" report -i "$T/rep.data" --no-children --inline >"$T/same.rep" 2>&1 || fail "report (same file)"
check_no_grep "$CAPTURED" "$T/same.rep" "the file on disk with the recorded build-id is preferred"
check_grep '\[\.\] hot_outer_a$' "$T/same.rep" "named from the file on disk"
# Another build at the same path: a different build-id (and no hot_outer_a in it).
cp "$top_builddir/tests/workload/rp-unwind" "$T/bin/rp-workload"
"$RP" report -i "$T/rep.data" --no-children >"$T/other.rep" 2>"$T/other.err" ||
	fail "report (replaced file): $(cat "$T/other.err")"
check_grep "$CAPTURED" "$T/other.rep" "the replaced binary is named from the captured table"
check_grep '^ +[0-9.]+% +rp-workload +rp-workload +\[\.\] hot_outer_a$' "$T/other.rep" \
	"hot_outer_a named although the file on disk is another build"
check_grep '\[\.\] worker_spin$' "$T/other.rep" "worker_spin too"

# ---- a table larger than one record -------------------------------------------------------------
command -v gcc >/dev/null || skip "gcc is needed for the large-table fixture"
{
	for i in $(seq 3000); do
		printf '__attribute__((noinline)) int rp_symbol_padding_function_number_%04d(int x) { return x * %d; }\n' "$i" "$i"
	done
	cat <<'EOC'
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) unsigned long zz_hot_last(unsigned long x) {
	for (int i = 0; i < 1000; i++) x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
int main(int argc, char **argv) {
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 1);
	volatile unsigned long x = 1;
	while (time(NULL) < end) x = zz_hot_last(x);
	return 0;
}
EOC
} >"$T/big.c"
gcc -O1 -g0 -Wl,--build-id -o "$T/big" "$T/big.c" || fail "building the large-table fixture"
"$RP" record -q -e cpu-clock -g -o "$T/big.data" -- "$T/big" 2 || fail "recording the fixture"
rm -f "$T/big"
"$RP" report -i "$T/big.data" --dump >"$T/big.dump" 2>&1 || fail "report --dump (big)"
bid=$(grep -m1 -oE "^SYMTAB .* build_id=[0-9a-f]+ part=0/[2-9]" "$T/big.dump" | sed -E 's/.*build_id=([0-9a-f]+).*/\1/')
[ -n "$bid" ] || { grep SYMTAB "$T/big.dump" >&2; fail "the fixture's table was not cut into parts"; }
nparts=$(grep -m1 -oE "build_id=$bid part=0/[0-9]+" "$T/big.dump" | sed 's|.*/||')
check_eq "$(grep -cE "^SYMTAB .* build_id=$bid part=[0-9]+/$nparts " "$T/big.dump")" "$nparts" \
	"every part of the large table is written once ($nparts parts)"
total=$(grep -E "^SYMTAB .* build_id=$bid " "$T/big.dump" | sed -E 's/.* n=([0-9]+) .*/\1/' | paste -sd+ | bc)
check_range "$total" 3002 3100 "the parts hold every function of the fixture"
"$RP" report -i "$T/big.data" --no-children >"$T/big.rep" 2>&1 || fail "report (big)"
check_grep '^ +[0-9.]+% +big +big +\[\.\] zz_hot_last$' "$T/big.rep" \
	"the function in the last part is named, the binary deleted"

"$RP" report -i "$T/big.data" --stats >"$T/big.stats" 2>&1 || fail "report --stats (big)"
check_grep '^  symbols +[0-9]+ binaries, [0-9]+ functions, [0-9.]+ KiB before compression; 0 skipped' \
	"$T/big.stats" "--stats counts the captured tables"

# ---- a table above the bound a recording stores: skipped, and counted ---------------------------
for i in $(seq 20000); do
	printf 'int rp_a_rather_long_symbol_name_to_make_the_table_large_enough_%05d(int x) { return x + %d; }\n' "$i" "$i"
done >"$T/huge.c"
echo 'int main(void) { return 0; }' >>"$T/huge.c"
gcc -O0 -o "$T/huge" "$T/huge.c" || fail "building the huge-table fixture"
"$top_builddir/ringprof-unwind" --symbols "$T/huge" >"$T/huge.sym" || fail "ringprof-unwind --symbols"
check_grep '^symbols +200[0-9][0-9]$' "$T/huge.sym" "ringprof-unwind --symbols counts the fixture's functions"
"$RP" record -q -e cpu-clock -o "$T/huge.data" -- "$T/huge" || fail "recording the huge fixture"
"$RP" report -i "$T/huge.data" --dump >"$T/huge.dump" 2>&1 || fail "report --dump (huge)"
check_grep "^SYMTAB .* build_id=$(build_id_of "$T/huge") part=0/1 n=0 flags=0x100( |$)" "$T/huge.dump" \
	"a table over 1 MiB is not stored; a record says it was skipped"
"$RP" report -i "$T/huge.data" --stats >"$T/huge.stats" 2>&1 || fail "report --stats (huge)"
check_grep '^  symbols .* 1 skipped \(larger than the recorder stores\)$' "$T/huge.stats" \
	"--stats counts the skipped table"

# ---- MiniDebugInfo: static functions only in .gnu_debugdata --------------------------------------
cp "$WL" "$T/mini"
nm -D "$T/mini" --format=posix --defined-only | awk '{ print $1 }' | sort >"$T/dynsyms"
nm "$T/mini" --format=posix --defined-only | awk '$2 == "T" || $2 == "t" { print $1 }' | sort >"$T/funcsyms"
comm -13 "$T/dynsyms" "$T/funcsyms" >"$T/keep"
objcopy --only-keep-debug "$T/mini" "$T/mini.dbg"
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$T/keep" \
	"$T/mini.dbg" "$T/mini.mdi"
strip --strip-all -R .comment "$T/mini"
xz -f "$T/mini.mdi" || skip "xz is needed for the MiniDebugInfo fixture"
objcopy --add-section .gnu_debugdata="$T/mini.mdi.xz" "$T/mini"
readelf -S "$T/mini" | grep -q " \.symtab " && fail "the MiniDebugInfo fixture still has a .symtab"
cp "$LIB" "$T/"
"$RP" record -q -e cpu-clock -g -o "$T/mini.data" -- "$T/mini" -d 1 -q || fail "recording the fixture"
rm -f "$T/mini"
"$RP" report -i "$T/mini.data" --dump >"$T/mini.dump" 2>&1 || fail "report --dump (mini)"
check_grep '^SYMTAB .* flags=0x6 ' "$T/mini.dump" ".dynsym and .gnu_debugdata captured (flags 0x6)"
"$RP" report -i "$T/mini.data" --no-children >"$T/mini.rep" 2>&1 || fail "report (mini)"
check_grep '^ +[0-9.]+% +mini +mini +\[\.\] hot_outer_a$' "$T/mini.rep" \
	"a static function known only to .gnu_debugdata is named"

# ---- record --no-symbols: nothing captured, the replaced binary stays unnamed --------------------
mkdir -p "$T/bin2"
cp "$WL" "$LIB" "$T/bin2/"
"$RP" record -q --no-symbols -e cpu-clock -g -o "$T/nosym.data" -- "$T/bin2/rp-workload" -d 1 -q ||
	fail "record --no-symbols"
cp "$top_builddir/tests/workload/rp-unwind" "$T/bin2/rp-workload"
"$RP" report -i "$T/nosym.data" --dump >"$T/nosym.dump" 2>&1 || fail "report --dump (--no-symbols)"
check_no_grep '^SYMTAB' "$T/nosym.dump" "--no-symbols: no SYMTAB record"
"$RP" report -i "$T/nosym.data" --no-children >"$T/nosym.rep" 2>&1 || fail "report (--no-symbols)"
check_no_grep 'hot_outer_a|worker_spin' "$T/nosym.rep" "--no-symbols: the replaced binary is not named"
