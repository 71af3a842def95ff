#!/bin/bash
# report-pprof.sh — `ringprof report --pprof FILE` read by the real pprof (golang-1.19-go): the
# same flat shares as ringprof's own report, the sample types and period, build-ids, the pid,
# tid and comm labels (and unit where there is one), the program as pprof's File:, filters applied, C++ names demangled with the mangled system_name, and
# clear errors for an output path that cannot be written.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
PPROF=${PPROF:-/usr/lib/go-1.19/pkg/tool/linux_amd64/pprof}
[ -x "$PPROF" ] || fail "the pprof tool is missing ($PPROF): install golang-1.19-go (setup.sh does)"
command -v protoc-c >/dev/null || fail "protoc-c is missing: install protobuf-c-compiler (setup.sh does)"
export PPROF_TMPDIR="$T/pprof-home" HOME="$T" # pprof keeps nothing of ours elsewhere
CXX_WL="$top_builddir/tests/workload/rp-unwind-cxx"

"$RP" record -q -g -e cpu-clock -F 999 -o "$T/wl.data" -- "$WL" -d 2 -q || fail "recording the workload"
"$RP" report -i "$T/wl.data" --pprof "$T/wl.pb.gz" >"$T/out" 2>"$T/err" || fail "report --pprof: $(cat "$T/err")"
check_eq "$(wc -c <"$T/out")" 0 "--pprof prints nothing on stdout"
check_eq "$(head -c 2 "$T/wl.pb.gz" | od -An -tx1 | tr -d ' ')" 1f8b "the file is gzip-compressed"

# ---- shares: pprof -top against ringprof's flat report --------------------------------------
check_pprof_report "$T/wl.pb.gz" "the workload's profile" -i "$T/wl.data"
check_eq "$(wc -l <"$T/wl.pb.gz.top")" 5 "ringprof's report has 5 entries to compare"
check_grep '^worker_spin ' "$T/wl.pb.gz.top" "worker_spin is among the top entries"

# ---- raw: types, period, window, mappings with build-ids -------------------------------------
"$PPROF" -raw "$T/wl.pb.gz" >"$T/raw" 2>&1 || fail "pprof -raw: $(cat "$T/raw")"
check_grep '^PeriodType: cpu nanoseconds$' "$T/raw" "period type cpu/nanoseconds (cpu-clock counts ns)"
check_grep '^Period: 1001001$' "$T/raw" "period 1e9/999 ns at 999 Hz"
check_grep '^samples/count cpu/nanoseconds\[dflt\]$' "$T/raw" "sample types samples/count and cpu/nanoseconds"
check_grep "^Time: $(date -u +%Y-%m-%d) " "$T/raw" "time_nanos is today's wall-clock time"
# duration_nanos: from the first sample to the last, as the report's header says
span=$(sed -n 's/^# recorded: .* UTC, \([0-9.]*\) s of samples.*/\1/p' "$T/wl.pb.gz.flat")
dur=$(sed -n 's/^Duration: \([0-9.]*\)$/\1/p' "$T/raw")
awk -v d="$dur" -v s="$span" 'BEGIN { exit !(s >= 1.5 && d - s <= 0.02 && s - d <= 0.02) }' ||
	fail "duration $dur s, the report's span of samples $span s (at least 1.5 of the 2 s recorded)"
ok "duration $dur s: the report's $span s of samples"
bid=$(build_id_of "$WL")
check_grep "^[0-9]+: 0x0/0x[0-9a-f]+/0x0 [^ ]*/rp-workload $bid \[FN\]" "$T/raw" \
	"rp-workload's mapping: file offsets, its build-id $bid"
bid=$(build_id_of "$top_builddir/tests/workload/librp-worklib.so")
check_grep "librp-worklib.so $bid " "$T/raw" "the library's mapping with its build-id"
check_grep '\[kernel.kallsyms\]' "$T/raw" "a mapping for the kernel"
check_grep '^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ worker_spin ' "$T/raw" "a location with its address, mapping and function"

# ---- labels ---------------------------------------------------------------------------------
"$PPROF" -tags "$T/wl.pb.gz" >"$T/tags" 2>&1 || fail "pprof -tags"
for c in rp-workload rp-worker rp-child; do
	check_grep "^ +[0-9.]+m?s \(([0-9.]+)%\): $c$" "$T/tags" "comm label $c"
done
check_grep '^ pid: Total' "$T/tags" "pid labels"
check_grep '^ tid: Total' "$T/tags" "tid labels"
# A recording of no unit (the root cgroup, or none recorded) gives its samples no unit label.
unit_rows=$("$RP" report -i "$T/wl.data" --sort unit -n 2>/dev/null | awk '$1 !~ /^#/ && NF { print $NF }' | sort -u | tr '\n' ' ')
case "$unit_rows" in
"- " | "[unknown] " | "- [unknown] ") check_no_grep '^ unit:' "$T/tags" "no unit label where there is none (report --sort unit: $unit_rows)" ;;
*) check_grep '^ unit: Total' "$T/tags" "a unit label: the samples are in units ($unit_rows)" ;;
esac
# pprof names the first mapping's file as the profile's: the program the heaviest command runs.
"$PPROF" -top "$T/wl.pb.gz" 2>/dev/null | head -1 >"$T/file"
check_grep '^File: rp-workload$' "$T/file" "pprof's File: is the program, rp-workload ($(cat "$T/file"))"
wpid=$(awk '/^ +[0-9.]+m?s \(/ && in_pid { print $NF; exit } /^ pid:/ { in_pid = 1 }' "$T/tags")

# ---- filters apply --------------------------------------------------------------------------
"$RP" report -i "$T/wl.data" --comm rp-worker --pprof "$T/worker.pb.gz" 2>"$T/err" || fail "--comm: $(cat "$T/err")"
"$PPROF" -top "$T/worker.pb.gz" >"$T/wtop" 2>&1 || fail "pprof -top of --comm"
check_grep ' 9[5-9]\.[0-9]+%.* worker_spin$| 100%.* worker_spin$' "$T/wtop" "--comm rp-worker: worker_spin holds it all"
check_no_grep 'warm_func|worklib_spin' "$T/wtop" "--comm rp-worker: no other thread's functions"
"$PPROF" -tags "$T/worker.pb.gz" >"$T/wtags" 2>&1
check_no_grep ': rp-(workload|child)$' "$T/wtags" "--comm rp-worker: no other comm label"
"$RP" report -i "$T/wl.data" --pid "$wpid" --pprof "$T/pid.pb.gz" 2>"$T/err" || fail "--pid: $(cat "$T/err")"
"$PPROF" -tags "$T/pid.pb.gz" >"$T/ptags" 2>&1
check_grep "\( *100%\): $wpid$" "$T/ptags" "--pid $wpid: only that process"

# ---- C++: demangled names, mangled system_name ----------------------------------------------
"$RP" record -q -g -e cpu-clock -F 999 -o "$T/cxx.data" -- "$CXX_WL" all 1 >/dev/null || fail "recording the C++ workload"
"$RP" report -i "$T/cxx.data" --pprof "$T/cxx.pb.gz" 2>"$T/err" || fail "report --pprof (C++): $(cat "$T/err")"
"$PPROF" -top "$T/cxx.pb.gz" >"$T/ctop" 2>&1 || fail "pprof -top (C++)"
check_grep ' ByMixedKey::operator\(\)$' "$T/ctop" "C++: the comparator demangled, as ringprof shows it"
check_grep ' Circle::area$' "$T/ctop" "C++: a virtual method demangled"
gzip -dc "$T/cxx.pb.gz" | protoc-c --proto_path="$top_srcdir/lib/profile" \
	--decode=perftools.profiles.Profile pprof.proto >"$T/cxx.txt" 2>&1 || fail "decoding with our .proto"
# Each function as "NAME -> SYSTEM_NAME", through the string table.
awk '/^string_table: / { s = substr($0, 15); gsub(/^"|"$/, "", s); str[n++] = s }
	/^function \{/ { inf = 1 } inf && /^  name: / { nm = $2 } inf && /^  system_name: / { sn = $2 }
	inf && /^\}/ { inf = 0; fn[++nf] = nm " " sn }
	END { for (i = 1; i <= nf; i++) { split(fn[i], a, " "); print str[a[1]] " -> " str[a[2]] } }' \
	"$T/cxx.txt" >"$T/cxx.fns"
check_grep '^ByMixedKey::operator\(\) -> _ZNK10ByMixedKeyclERK4ItemS2_$' "$T/cxx.fns" \
	"C++: Function.system_name is the mangled name"
check_grep '^Circle::area -> _ZNK6Circle4areaEv$' "$T/cxx.fns" "C++: a method's mangled system_name"

"$RP" report -i "$T/cxx.data" --inline --pprof "$T/inl.pb.gz" 2>"$T/err" || fail "--inline --pprof: $(cat "$T/err")"
"$PPROF" -raw "$T/inl.pb.gz" >"$T/inl.raw" 2>&1 || fail "pprof -raw (--inline)"
check_grep '/rp-unwind-cxx [0-9a-f]{40} \[FN\]\[FL\]\[LN\]\[IN\]$' "$T/inl.raw" \
	"--inline: the mapping says functions, files, lines and inline frames"
grep -A1 -E '^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ ByMixedKey::mix [^ ]*rp-unwind-cxx.cc:[0-9]+ ' "$T/inl.raw" |
	grep -qE '^ +ByMixedKey::operator\(\) [^ ]*rp-unwind-cxx.cc:[0-9]+ ' ||
	{ grep -A1 'ByMixedKey::mix' "$T/inl.raw" | head -6 >&2; fail "--inline: no location with ByMixedKey::mix inlined into ByMixedKey::operator()"; }
ok "--inline: a location's lines innermost first (ByMixedKey::mix, then its caller ByMixedKey::operator())"

# ---- errors: the output path ----------------------------------------------------------------
cp "$T/wl.pb.gz" "$T/keep.pb.gz"
if "$RP" report -i "$T/wl.data" --pprof "$T/no/such/dir/p.pb.gz" >"$T/out" 2>"$T/err"; then
	fail "--pprof into a missing directory succeeded"
fi
check_grep "^ringprof report: --pprof: cannot create $T/no/such/dir/p.pb.gz.tmp: No such file or directory$" \
	"$T/err" "a missing directory: one sentence naming the path"
mkdir "$T/adir"
if "$RP" report -i "$T/wl.data" --pprof "$T/adir" 2>"$T/err"; then
	fail "--pprof onto a directory succeeded"
fi
check_grep "^ringprof report: --pprof: cannot rename $T/adir.tmp to $T/adir: Is a directory$" "$T/err" \
	"a directory as the output: said"
[ ! -e "$T/adir.tmp" ] || fail "the temporary file was left behind"
ok "no temporary file left behind"
"$RP" report -i "$T/wl.data" --comm nosuchcomm --pprof "$T/keep.pb.gz" 2>"$T/err" || fail "an empty selection: $(cat "$T/err")"
"$PPROF" -raw "$T/keep.pb.gz" >"$T/empty.raw" 2>&1 || fail "pprof cannot read an empty profile: $(cat "$T/empty.raw")"
check_no_grep 'worker_spin' "$T/empty.raw" "an empty selection gives an empty profile pprof reads"
if "$RP" report -i "$T/wl.data" --pprof "$T/x.pb.gz" --folded 2>"$T/err"; then
	fail "--pprof with --folded was accepted"
fi
check_grep 'are different outputs: choose one of them' "$T/err" "--pprof and --folded: refused, said"
