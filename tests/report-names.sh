#!/bin/bash
# report-names.sh — how the report names code: C++ and Rust names demangled as perf shows them
# in every output (flat, --sort sym, -g trees, --folded, --inline, script, diff), --no-demangle.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
command -v gcc >/dev/null || skip "gcc is needed to build the fixture"

CXX_WL="$top_builddir/tests/workload/rp-unwind-cxx"
RN="$T/rustnames"
gcc -std=gnu11 -O1 -g -fno-omit-frame-pointer -o "$RN" "$top_srcdir/tests/namefix/rustnames.c" ||
	fail "building the Rust-names fixture"

# ---- Rust: legacy (_ZN...17h<hash>E) and v0 (_R...) names ------------------------------------
"$RP" record -q -e cpu-clock -F 999 -g -o "$T/rn.data" -- "$RN" 1 || fail "recording the fixture"
"$RP" report -i "$T/rn.data" --no-children >"$T/rn.flat" 2>"$T/rn.err" || fail "report: $(cat "$T/rn.err")"
check_grep '^ +[0-9.]+% rustnames +rustnames +\[\.\] core::fmt::write$' "$T/rn.flat" \
	"flat: the legacy Rust name demangled, its hash dropped"
check_grep '^ +[0-9.]+% rustnames +rustnames +\[\.\] std::mem::align_of::<usize>$' "$T/rn.flat" \
	"flat: a v0 generic instance demangled"
check_no_grep '_ZN4core|_RINv|_RNv|17h0123456789abcdef' "$T/rn.flat" "flat: no mangled name left"

"$RP" report -i "$T/rn.data" --no-children --sort sym >"$T/rn.sym" 2>&1 || fail "report --sort sym"
check_grep '\[\.\] core::fmt::write$' "$T/rn.sym" "--sort sym: demangled"

"$RP" report -i "$T/rn.data" --folded >"$T/rn.folded" 2>&1 || fail "report --folded"
check_grep '^rustnames;(.*;)?main;mycrate::foo::bar;core::fmt::write [0-9]+$' "$T/rn.folded" \
	"--folded: main -> mycrate::foo::bar (v0) -> core::fmt::write (legacy)"
check_grep ';mycrate::foo::bar;std::mem::align_of::<usize> [0-9]+$' "$T/rn.folded" \
	"--folded: the v0 generic under its caller"
check_no_grep '_ZN4core|_RINv|_RNv' "$T/rn.folded" "--folded: no mangled name left"

"$RP" report -i "$T/rn.data" -g caller >"$T/rn.graph" 2>&1 || fail "report -g caller"
check_grep '--[0-9.]+%--mycrate::foo::bar$' "$T/rn.graph" "-g: the v0 caller demangled in the tree"
check_grep '--[0-9.]+%--core::fmt::write$' "$T/rn.graph" "-g: the legacy callee demangled in the tree"
check_no_grep '_ZN4core|_RINv|_RNv' "$T/rn.graph" "-g: no mangled name left"

"$RP" report -i "$T/rn.data" --no-children --no-demangle >"$T/rn.raw" 2>&1 || fail "report --no-demangle"
check_grep '\[\.\] _ZN4core3fmt5write17h0123456789abcdefE$' "$T/rn.raw" "--no-demangle: the legacy name raw"
check_grep '\[\.\] _RINvNtC3std3mem8align_ofjE$' "$T/rn.raw" "--no-demangle: the v0 name raw"
check_no_grep 'core::fmt::write' "$T/rn.raw" "--no-demangle: nothing demangled"
"$RP" report -i "$T/rn.data" --folded --no-demangle >"$T/rn.rawf" 2>&1 || fail "report --folded --no-demangle"
check_grep ';_RNvNtCs1234_7mycrate3foo3bar;_ZN4core3fmt5write17h0123456789abcdefE [0-9]+$' "$T/rn.rawf" \
	"--folded --no-demangle: raw names"

# ---- C++: the same names as perf report on the same program -----------------------------------
"$RP" record -q -e cpu-clock -F 999 -g -o "$T/cxx.data" -- "$CXX_WL" all 1 >/dev/null || fail "recording the C++ workload"
"$RP" report -i "$T/cxx.data" --no-children >"$T/cxx.flat" 2>&1 || fail "report of the C++ workload"
check_grep '\[\.\] ByMixedKey::operator\(\)$' "$T/cxx.flat" "C++: an operator demangled without parameters"
check_grep '\[\.\] Circle::area$' "$T/cxx.flat" "C++: a virtual method demangled"
check_no_grep '\[\.\] _Z' "$T/cxx.flat" "C++: no mangled name left"

"$RP" report -i "$T/cxx.data" --no-children --inline >"$T/cxx.inline" 2>&1 || fail "report --inline"
check_grep '\[\.\] std::' "$T/cxx.inline" "--inline: frames from the C++ library"
check_no_grep '_Z[NK0-9]' "$T/cxx.inline" "--inline: inline frames demangled too"
"$RP" report -i "$T/cxx.data" --folded --inline >"$T/cxx.ifold" 2>&1 || fail "report --folded --inline"
check_grep ';std::__[a-z_]+<[^;]*;([^;]*;)*ByMixedKey::operator\(\)(;[^;]*)? [0-9]+$' "$T/cxx.ifold" \
	"--inline --folded: inlined std:: callers of the comparator"
check_no_grep '_Z[NK0-9]' "$T/cxx.ifold" "--inline --folded: demangled"

# ---- script and diff name frames the same way --------------------------------------------------
"$RP" script -i "$T/rn.data" >"$T/rn.script" 2>&1 || fail "script of the Rust fixture"
check_grep '^	 *[0-9a-f]+ core::fmt::write\+0x[0-9a-f]+ \(.*/rustnames\)$' "$T/rn.script" \
	"script: the legacy Rust name demangled, with its offset"
check_grep '^	 *[0-9a-f]+ mycrate::foo::bar\+0x[0-9a-f]+ \(.*/rustnames\)$' "$T/rn.script" \
	"script: the v0 name demangled"
check_grep '^	 *[0-9a-f]+ std::mem::align_of::<usize>\+0x[0-9a-f]+ \(' "$T/rn.script" "script: the v0 generic demangled"
check_no_grep '_ZN4core|_RINv|_RNv|17h0123456789abcdef' "$T/rn.script" "script: no mangled Rust name left"
"$RP" script -i "$T/rn.data" --no-demangle >"$T/rn.rscript" 2>&1 || fail "script --no-demangle"
check_grep '^	 *[0-9a-f]+ _ZN4core3fmt5write17h0123456789abcdefE\+0x[0-9a-f]+ \(' "$T/rn.rscript" \
	"script --no-demangle: the raw legacy name"
check_no_grep 'core::fmt::write' "$T/rn.rscript" "script --no-demangle: nothing demangled"
"$RP" script -i "$T/cxx.data" >"$T/cxx.script" 2>&1 || fail "script of the C++ workload"
check_grep '^	 *[0-9a-f]+ ByMixedKey::operator\(\)\+0x[0-9a-f]+ \(.*/rp-unwind-cxx\)$' "$T/cxx.script" \
	"script: a C++ operator demangled"
check_grep '^	 *[0-9a-f]+ Circle::area\+0x[0-9a-f]+ \(.*/rp-unwind-cxx\)$' "$T/cxx.script" \
	"script: a C++ virtual method demangled"
check_no_grep '^	 *[0-9a-f]+ _Z[A-Za-z0-9_]*\+0x' "$T/cxx.script" "script: no mangled C++ frame left"

"$RP" diff "$T/rn.data" "$T/cxx.data" >"$T/names.diff" 2>&1 || fail "diff of the Rust fixture and the C++ workload"
check_grep 'only base +rustnames +\[\.\] core::fmt::write$' "$T/names.diff" "diff: the legacy Rust name demangled"
check_grep 'only base +rustnames +\[\.\] std::mem::align_of::<usize>$' "$T/names.diff" "diff: the v0 name demangled"
check_grep 'only new +rp-unwind-cxx +\[\.\] ByMixedKey::operator\(\)$' "$T/names.diff" "diff: a C++ operator demangled"
check_grep 'only new +rp-unwind-cxx +\[\.\] Circle::area$' "$T/names.diff" "diff: a C++ method demangled"
check_no_grep '\[\.\] _[ZR]' "$T/names.diff" "diff: no mangled name left"
"$RP" diff --no-demangle "$T/rn.data" "$T/cxx.data" >"$T/names.rdiff" 2>&1 || fail "diff --no-demangle"
check_grep 'only new +rp-unwind-cxx +\[\.\] _ZNK6Circle4areaEv$' "$T/names.rdiff" "diff --no-demangle: the raw C++ name"

# perf's own names for the same program: every user symbol perf shows above 1 % must appear,
# spelled the same, in our report.
if command -v perf >/dev/null &&
	perf record -q -e cpu-clock -F 999 -o "$T/perf.data" -- "$CXX_WL" all 1 >/dev/null 2>"$T/perf.err"; then
	perf report -i "$T/perf.data" --stdio -q --no-children --sort dso,sym --percent-limit 1 2>/dev/null |
		awk '$2 == "rp-unwind-cxx" { sub(/^.*\[\.\] /, ""); print }' >"$T/perf.names"
	[ -s "$T/perf.names" ] || fail "perf report named no symbol of rp-unwind-cxx"
	n=0
	while IFS= read -r name; do
		grep -Fq -- "[.] $name" "$T/cxx.flat" || fail "perf shows '$name'; our report does not"
		n=$((n + 1))
	done <"$T/perf.names"
	ok "perf's $n top C++ names appear verbatim in the report"
else
	echo "# perf could not record here ($(cat "$T/perf.err" 2>/dev/null)): cross-check left out"
fi

# ---- the object column: named by the mapping's path, not by the first path of a build-id ------
cp /bin/bash "$T/loopsh" || fail "copying bash"
loop='i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'
"$RP" record -q -e cpu-clock -F 999 -o "$T/ls.data" -- sh -c "'$T/loopsh' -c '$loop' & bash -c '$loop'; wait" ||
	fail "recording loopsh and bash"
"$RP" report -i "$T/ls.data" --no-children >"$T/ls.flat" 2>&1 || fail "report of loopsh and bash"
check_grep '^ +[0-9.]+% loopsh +loopsh +\[\.\] ' "$T/ls.flat" "the copy of bash run as loopsh is the object loopsh"
check_grep '^ +[0-9.]+% bash +bash +\[\.\] ' "$T/ls.flat" "bash itself is still the object bash"
check_no_grep '^ +[0-9.]+% loopsh +bash ' "$T/ls.flat" "no loopsh sample is put in bash"
for sel in loopsh "$T/loopsh"; do
	"$RP" report -i "$T/ls.data" --no-children --dso "$sel" >"$T/ls.dso" 2>&1 || fail "report --dso $sel"
	check_grep '^ +[0-9.]+% loopsh +loopsh ' "$T/ls.dso" "--dso $sel selects loopsh's samples"
	others=$(awk '$1 ~ /%$/ && $3 != "loopsh"' "$T/ls.dso")
	[ -z "$others" ] || fail "--dso $sel shows other objects: $others"
	ok "--dso $sel: only loopsh"
done
"$RP" report -i "$T/ls.data" --no-children --dso bash >"$T/ls.bash" 2>&1 || fail "report --dso bash"
check_grep '^ +[0-9.]+% bash +bash ' "$T/ls.bash" "--dso bash selects bash's samples"
check_no_grep ' loopsh ' "$T/ls.bash" "--dso bash: none of loopsh"

# ---- code in no known mapping: [unknown] unless the process has a perf map --------------------
# rp-craft's user samples at an address no MMAP2 covers (pid 4242, "absurd").
CRAFT="$top_builddir/tests/rp-craft"
"$CRAFT" unmapped "$T/um.data" || fail "rp-craft unmapped"
"$RP" report -i "$T/um.data" --no-children >"$T/um.flat" 2>&1 || fail "report of unmapped samples"
check_grep '^ +10\.00% absurd +\[unknown\] +\[\.\] \[unknown\]$' "$T/um.flat" "no mapping and no perf map: [unknown], not [JIT]"
check_no_grep 'JIT' "$T/um.flat" "no mapping and no perf map: no JIT label"
check_no_grep '^# note: .*no known mapping' "$T/um.flat" "nothing lost: no note about lost mappings"
mkdir -p "$T/sfs/tmp"
printf '500000001000 1000 jitted_fn\n500000002000 1000 jitted_caller\n' >"$T/sfs/tmp/perf-4242.map"
"$RP" report -i "$T/um.data" --no-children --symfs "$T/sfs" >"$T/um.jit" 2>&1 || fail "report with a perf map"
check_grep '^ +10\.00% absurd +\[JIT\] pid 4242 +\[\.\] jitted_fn$' "$T/um.jit" "with a perf map: [JIT] pid N and the map's name"
"$RP" report -i "$T/um.data" --folded --symfs "$T/sfs" >"$T/um.jitf" 2>&1 || fail "report --folded with a perf map"
check_grep '^absurd;jitted_caller;jitted_fn 2$' "$T/um.jitf" "with a perf map: the caller named from it too"

"$CRAFT" unmapped-lost "$T/ul.data" || fail "rp-craft unmapped-lost"
"$RP" report -i "$T/ul.data" --no-children >"$T/ul.flat" 2>&1 || fail "report of unmapped samples with losses"
check_grep '^# note: 10\.0% of the samples run code in no known mapping \(\[unknown\]\), and records were lost: .*larger buffer \(-m\) or a lower rate \(-F\)$' \
	"$T/ul.flat" "samples in no mapping and lost records: the header says what to change"

# ---- lost samples with filters: a LOST record says how many a CPU dropped, not whose -------------
# ul.data: 20 samples of pid 4242 on CPUs 0 and 1, and CPU 1 lost 7: 7 of 27 (25.93 %).
check_grep '^# samples: 20, lost: 7 \(25\.93%\),' "$T/ul.flat" "unfiltered: lost 7 of all 27 samples"
for filt in "--cpu 0" "--pid 4242" "--tid 4242" "--comm absurd"; do
	# shellcheck disable=SC2086
	"$RP" report -i "$T/ul.data" $filt --no-children >"$T/ul.filt" 2>&1 || fail "report $filt"
	check_grep '^# samples: [0-9]+( of 20 \(filtered\))?, lost: the recording lost 7 samples \(25\.93% of all\),' \
		"$T/ul.filt" "$filt: the header gives the recording's 7 lost samples as such, 25.93 % of all"
done
"$RP" report -i "$T/ul.data" --cpu 0 --no-children >"$T/ul.cpu0" 2>&1 || fail "report --cpu 0"
check_grep '^# samples: 10 of 20 \(filtered\), lost: the recording lost 7 samples \(25\.93% of all\),' \
	"$T/ul.cpu0" "--cpu 0: 10 samples kept; the losses are not 7 of 17 (41 %)"

# ---- zero-size symbols: ld.so's start-up stacks end in _start (local, untyped, size 0) ---------
# ld.so's own symbols (_start, _dl_start) are in its debug file (libc6-dbg on Debian); without
# them no frame of ld.so has a name, named or not, and there is nothing to check here.
"$RP" record -q -e cpu-clock -F 4000 -g -o "$T/ld.data" -- sh -c 'for i in $(seq 40); do LD_BIND_NOW=1 /bin/true; done' ||
	fail "recording short programs"
"$RP" report -i "$T/ld.data" --folded >"$T/ld.folded" 2>&1 || fail "report --folded of short programs"
if grep -q ';_dl_start;' "$T/ld.folded"; then
	# A stack the recording left incomplete (its header counts them) ends where its unwinding
	# stopped: --folded does not mark it. The others start at _start; none at [unknown].
	awk -F';' '/;_dl_start;/ { print $2 }' "$T/ld.folded" | sort -u >"$T/ld.all-roots"
	check_grep '^_start$' "$T/ld.all-roots" "stacks through _dl_start start at ld.so's zero-size _start"
	check_no_grep '\[unknown\]' "$T/ld.all-roots" "no stack through _dl_start starts at [unknown]"
	others=$(awk -F';' '/;_dl_start;/ && $2 != "_start" { n += $NF + 0 } END { print n + 0 }' "$T/ld.folded")
	"$RP" report -i "$T/ld.data" --no-children >"$T/ld.flat" 2>/dev/null || fail "report of short programs"
	cut=$(sed -n 's/^# samples: \([0-9]*\).*/\1/p' "$T/ld.flat" | head -1)
	pct=$(sed -n 's/^# user stacks: \([0-9.]*\)% complete.*/\1/p' "$T/ld.flat")
	cut=$(awk -v n="${cut:-0}" -v p="${pct:-100}" 'BEGIN { printf "%d", n * (100 - p) / 100 + 0.999 }')
	check_range "$others" 0 "$cut" "stacks through _dl_start not at _start: no more than the $cut the header calls incomplete ($(tr '\n' ' ' <"$T/ld.all-roots"))"
	echo _start >"$T/ld.roots"
	if command -v perf >/dev/null; then
		perf record -q --buildid-mmap -e cpu-clock -F 4000 --call-graph dwarf -o "$T/perf-ld.data" -- \
			sh -c 'for i in $(seq 40); do LD_BIND_NOW=1 /bin/true; done' 2>"$T/perf-ld.err" ||
			fail "perf record of short programs failed: $(tail -3 "$T/perf-ld.err")"
		perf script -i "$T/perf-ld.data" -F ip,sym 2>/dev/null |
			awk 'BEGIN { RS = "" } / _dl_start\n/ { n = split($0, a, "\n"); split(a[n], f, " "); print f[2] }' |
			sort -u >"$T/perf-ld.roots"
		if [ -s "$T/perf-ld.roots" ]; then
			check_eq "$(cat "$T/perf-ld.roots")" "$(cat "$T/ld.roots")" "perf's start-up stacks start in the same frame"
		else
			echo "# perf unwound no stack through _dl_start: cross-check left out"
		fi
	else
		echo "# perf is not installed: no cross-check against perf"
	fi
else
	echo "# no frame of ld.so is named (no debug symbols for it: libc6-dbg): the _start check is left out"
fi

# ---- symbol versions: libc's .symtab (its debug file) names __libc_start_main@@GLIBC_2.34 -----
# perf shows it as __libc_start_main, and so do trees, --folded and the flat output.
"$RP" record -q -e cpu-clock -F 999 -g -o "$T/wl.data" -- "$WL" -d 1 -q || fail "recording rp-workload"
"$RP" report -i "$T/wl.data" -g caller >"$T/wl.tree" 2>&1 || fail "report -g caller"
"$RP" report -i "$T/wl.data" --folded >"$T/wl.folded" 2>&1 || fail "report --folded"
"$RP" report -i "$T/wl.data" --no-children --sort sym >"$T/wl.sym" 2>&1 || fail "report --sort sym"
check_grep '^rp-workload;_start;__libc_start_main;__libc_start_call_main;main;' "$T/wl.folded" \
	"--folded: the main thread's stacks go through __libc_start_main, named without its version"
check_grep '[-]-__libc_start_main$' "$T/wl.tree" "-g caller: __libc_start_main in the trees"
check_no_grep '@@?GLIBC_' "$T/wl.folded" "--folded: no symbol version (@GLIBC_...) is shown"
check_no_grep '@@?GLIBC_' "$T/wl.tree" "-g caller: no symbol version is shown"
check_no_grep '@@?GLIBC_' "$T/wl.sym" "flat --sort sym: no symbol version is shown"

# ---- unresolved frames: one per object and address in trees and --folded, as perf keeps them ---
# A stripped program (no .symtab, static functions not in .dynsym: nothing names them, also not
# the symbols captured at record time). spin_a does 3 times spin_b's work.
cat >"$T/nosym.c" <<'EOS'
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) static void spin_a(void)
{
	for (unsigned long i = 0; i < 300000; i++)
		sink += i;
}
__attribute__((noinline)) static void spin_b(void)
{
	for (unsigned long i = 0; i < 100000; i++)
		sink ^= i;
}
int main(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		spin_a();
		spin_b();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1000000000L);
	return 0;
}
EOS
gcc -O1 -fno-omit-frame-pointer -o "$T/nosym-full" "$T/nosym.c" || fail "building the stripped fixture"
strip -o "$T/nosym" "$T/nosym-full" || fail "strip"
"$RP" record -q -e cpu-clock -F 999 -g -o "$T/nosym.data" -- "$T/nosym" || fail "recording the stripped program"
"$RP" report -i "$T/nosym.data" --folded >"$T/nosym.folded" 2>&1 || fail "report --folded"
"$RP" report -i "$T/nosym.data" -g caller --percent-limit 5 >"$T/nosym.tree" 2>&1 || fail "report -g caller"
"$RP" report -i "$T/nosym.data" --no-children >"$T/nosym.flat" 2>&1 || fail "report (flat)"
# File offsets of the functions: the executable PT_LOAD's offset - vaddr, and nm -S's ranges.
# (mawk has no strtonum: hex() is the shell's.)
hex() { echo $((16#${1#0x})); }
read -r off vaddr < <(readelf -lW "$T/nosym-full" | awk '$1 == "LOAD" && / R E / { print $2, $3; exit }')
delta=$(($(hex "$off") - $(hex "$vaddr")))
nm -S "$T/nosym-full" | while read -r a sz _ name; do
	case $name in spin_a | spin_b | main) echo "$name $(($(hex "$a") + delta)) $(($(hex "$a") + delta + $(hex "$sz")))" ;; esac
done >"$T/nosym.ranges"
check_eq "$(wc -l <"$T/nosym.ranges")" 3 "nm gives the ranges of spin_a, spin_b and main"
# Per user leaf (stacks without kernel frames): which function its offset is in, and which
# distinct caller frames (in main) the leaves of each function have.
awk -v ranges="$T/nosym.ranges" '
	BEGIN { while ((getline l < ranges) > 0) { split(l, r, " "); lo[r[1]] = r[2]; hi[r[1]] = r[3] } }
	function hex(h,   i, v) { v = 0; for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
	function fn(label,   o, f) {
		if (label !~ /^\[unknown\] nosym\+0x[0-9a-f]+$/) return "?"
		o = hex(substr(label, index(label, "+") + 3))
		for (f in lo) if (o >= lo[f] && o < hi[f]) return f
		return "?"
	}
	/_\[k\]/ { next }
	{
		n = $NF; sub(/ [0-9]+$/, ""); k = split($0, fr, ";")
		f = fn(fr[k]); total += n; in_f[f] += n
		if (f != "?") { c = fr[k - 1]; if (fn(c) == "main" && !((f, c) in seen)) { seen[f, c] = 1; callers[f] = callers[f] " " c } }
	}
	END {
		printf "total %d spin_a %d spin_b %d other %d\n", total, in_f["spin_a"], in_f["spin_b"], in_f["?"]
		printf "callers_a%s\ncallers_b%s\n", callers["spin_a"], callers["spin_b"]
	}' "$T/nosym.folded" >"$T/nosym.sum"
read -r _ total _ na _ nb _ nother < <(head -1 "$T/nosym.sum")
# (The program spins for 1 s of wall time: on a loaded machine it gets a part of a CPU, and
# ASan's recorder a part of the rest: 129 such stacks once beside stress-ng --cpu 2.)
check_range "$total" 50 100000 "user-only stacks of the stripped program (--folded)"
check_range $((nother * 100 / total)) 0 2 "% of leaves that are not '[unknown] nosym+0xOFF' inside spin_a or spin_b"
check_range $((na * 100 / (na + nb))) 60 95 "spin_a's share of the two (3 times spin_b's work), told apart by address"
ca=$(sed -n 's/^callers_a //p' "$T/nosym.sum")
cb=$(sed -n 's/^callers_b //p' "$T/nosym.sum")
check_eq "$(echo "$ca" | grep -o 'nosym+' | wc -l) $(echo "$cb" | grep -o 'nosym+' | wc -l)" "1 1" "each function's leaves have one caller frame in main (its call site): '$ca', '$cb'"
[ "$ca" != "$cb" ] || fail "the two call sites in main are different frames"
ok "the two call sites in main are different frames"
check_grep '[-]-\[unknown\] nosym\+0x[0-9a-f]+$' "$T/nosym.tree" "-g caller: unresolved frames with the object and offset"
check_range "$(grep -oE '\[unknown\] nosym\+0x[0-9a-f]+$' "$T/nosym.tree" | sort -u | wc -l)" 3 1000 \
	"-g caller: distinct unresolved frames stay apart (call sites and leaves)"
check_eq "$(grep -cE '^ +[0-9.]+% +nosym +nosym +\[\.\] ' "$T/nosym.flat")" 1 "flat: the object's unresolved code is one row"
check_grep '^ +[0-9.]+% +nosym +nosym +\[\.\] \[unknown\]$' "$T/nosym.flat" "flat: that row is [unknown], as before"

# ---- [vdso]: named from the image the recording carries (perf names these frames too) ----------
python3 -c 'import time
t = time.time()
while time.time() - t < 1: pass' >/dev/null 2>&1 || skip "python3 is needed for the vdso workload"
"$RP" record -q -e cpu-clock -F 999 -o "$T/vdso.data" -- python3 -c 'import time
t = time.time()
while time.time() - t < 1: pass' || fail "recording a clock_gettime loop"
"$RP" report -i "$T/vdso.data" --stats >"$T/vdso.stats"
check_grep '^    IMAGE +1$' "$T/vdso.stats" "the recording carries the vdso image"
"$RP" report -i "$T/vdso.data" --dso '[vdso]' -s dso,sym --no-children >"$T/vdso.rep" 2>&1
check_grep '^ +[0-9.]+% +\[vdso\] +\[\.\] __vdso_clock_gettime$' "$T/vdso.rep" "[vdso] frames are named (__vdso_clock_gettime)"
check_no_grep '\[vdso\] +\[\.\] \[unknown\]' "$T/vdso.rep" "no [vdso] frame is [unknown]"
"$RP" script -i "$T/vdso.data" --dso '[vdso]' | grep -m1 -E '^	 *[0-9a-f]+ __vdso_clock_gettime\+0x[0-9a-f]+ \(\[vdso\]\)$' >/dev/null ||
	fail "script names [vdso] frames with their offsets"
ok "script names [vdso] frames with their offsets"
