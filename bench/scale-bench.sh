#!/bin/bash
# scale-bench.sh — reports of a system-wide day-like recording (millions of diverse stacks in rotated files), ringprof vs perf.
#
# Usage: bash bench/scale-bench.sh [-n SAMPLES] DATADIR      (as root, after the build)
#
# Record once: with DATADIR empty or missing, `ringprof record -a -g --switch-output` and
# `perf record -a -g --buildid-mmap` record the same window side by side while diverse real
# programs run (python3 loops, gcc -O2 compiling, node, a shell loop of short commands), at a
# rate and for a time that give each tool about SAMPLES samples (default 1M; the issue asks
# for 5M and 20M: -n 5M, -n 20M). The recordings stay in DATADIR: a rerun with the same
# DATADIR only reports (SAMPLES is then ignored).
# Report: flat, -g caller, --folded, --pprof, script and a window (10 % of the span in the
# middle), each RUNS times (default 3) under /usr/bin/time -f: median wall time, CPU (user+sys)
# and peak RSS, ringprof vs perf on the same run, ratios printed with the issue's targets.
# perf's -g caller grows to tens of GB at 5M samples: it runs under PERF_TIMEOUT (default
# 600 s) and PERF_MAXRSS_GB (default: half the memory), once, and shows ">" when cut off.
# Environment: RUNS (3), RATE (Hz per CPU, default 20000), RP_BUILD (build dir), PERF_TIMEOUT,
# PERF_MAXRSS_GB, ONLY (a regexp over the case names below: flat graph folded pprof script window).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-3}
N=1M
while getopts n: o; do
	case $o in
	n) N=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || { echo "usage: bash bench/scale-bench.sh [-n SAMPLES] DATADIR" >&2; exit 2; }
D=$1
BENCH=scale-bench
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh" # die, calc

case $N in
*[mM]) N=$((${N%[mM]} * 1000000)) ;;
*[kK]) N=$((${N%[kK]} * 1000)) ;;
esac
[[ "$N" =~ ^[0-9]+$ ]] && [ "$N" -ge 10000 ] || die "-n SAMPLES: a count (1M, 5M, 20M, 500k), got '$N'"

if [ -n "${RP_BUILD:-}" ]; then B=$RP_BUILD
elif [ -x "$ROOT/build/ringprof" ]; then B=$ROOT/build
else die "no ringprof binary: build first (cd build && make -j2) or set RP_BUILD"; fi
for f in ringprof ringprof-record ringprof-report ringprof-script ringprof-unwind; do
	[ -x "$B/$f" ] || die "$B/$f missing: build first"
done
[ "$(id -u)" = 0 ] || die "needs root (system-wide recording)"
need=()
perf version >/dev/null 2>&1 || need+=(linux-perf)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
for p in python3 gcc node; do command -v $p >/dev/null || die "$p missing (the workload runs it)"; done

NCPU=$(nproc)
mkdir -p "$D"
D=$(cd "$D" && pwd)
# The binaries under test: a private copy per run (a rebuild meanwhile does not change them).
BIN=$D/bin.$$
mkdir "$BIN"
cp "$B/ringprof" "$B/ringprof-record" "$B/ringprof-report" "$B/ringprof-script" "$B/ringprof-unwind" "$BIN/"
RP=$BIN/ringprof
BG=()
cleanup() {
	local p
	for p in "${BG[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$BIN" "$D/work"
}
trap cleanup EXIT
trap "exit 130" INT
trap "exit 143" TERM

# ---- the workload: diverse real programs ---------------------------------------------------
write_workload() {
	local w=$D/work
	mkdir -p "$w"
	cat >"$w/load.py" <<'EOF'
import json, re, random, sys, zlib, hashlib
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
def walk(d, depth):
    if depth == 0: return sum(len(str(v)) for v in d.values())
    return walk({k: [v, depth] for k, v in d.items()}, depth - 1)
def text(n):
    r = random.Random(n)
    return " ".join("".join(r.choice("abcdefgh") for _ in range(r.randint(2, 9))) for _ in range(200))
def work(i):
    k = i % 6
    if k == 0: return fib(18 + i % 5)
    if k == 1: return len(json.dumps({str(j): [j] * (j % 7) for j in range(400)}))
    if k == 2: return len(re.findall(r"a[b-e]+h?", text(i)))
    if k == 3: return len(zlib.compress(text(i).encode() * 20))
    if k == 4: return walk({j: j for j in range(50)}, 2 + i % 12)
    return hashlib.sha256(text(i).encode()).hexdigest()
i = 0
while True:
    work(i); i += 1
EOF
	cat >"$w/load.js" <<'EOF'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sortRandom(n) { const a = []; for (let i = 0; i < n; i++) a.push(Math.random()); return a.sort()[0]; }
function strings(n) { let s = ""; for (let i = 0; i < n; i++) s += i.toString(36); return s.split("a").length; }
function objects(n) { const m = new Map(); for (let i = 0; i < n; i++) m.set("k" + (i % 977), { i }); return m.size; }
function jsonRound(n) { return JSON.parse(JSON.stringify(Array.from({ length: n }, (_, i) => ({ i, s: "x" + i })))).length; }
const fns = [() => fib(22), () => sortRandom(20000), () => strings(20000), () => objects(50000), () => jsonRound(3000)];
for (let i = 0; ; i++) fns[i % fns.length]();
EOF
	# A C file with many functions: cc1 walks diverse passes over it.
	{
		echo '#include <stdio.h>'
		echo '#include <string.h>'
		for i in $(seq 1 120); do
			echo "static int f$i(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) { s += a[i] * $i; if (s > $((i * 1000))) s -= a[(i * 7) % n]; } return s; }"
			echo "struct s$i { int x; double y[$((i % 9 + 1))]; char name[$((i % 13 + 4))]; };"
			echo "int g$i(struct s$i *p, int n) { int a[16]; for (int j = 0; j < 16; j++) a[j] = p->x + j * n; snprintf(p->name, sizeof p->name, \"%d\", n); return f$i(a, 16) + (int)p->y[0]; }"
		done
	} >"$w/many.c"
	cat >"$w/loop.sh" <<'EOF'
while :; do
	ls -l /usr/bin >/dev/null; sort /etc/services | uniq -c >/dev/null; sha1sum /usr/bin/bash >/dev/null
	for i in 1 2 3 4 5 6 7 8; do x=$(expr $i \* 3); done
	gzip -c /usr/bin/bash | wc -c >/dev/null
done
EOF
}
workload_start() {
	local w=$D/work
	python3 "$w/load.py" &
	BG+=($!)
	node "$w/load.js" &
	BG+=($!)
	(while :; do gcc -O2 -g -c "$w/many.c" -o "$w/many.o"; done) >/dev/null 2>&1 &
	BG+=($!)
	(cd "$w" && exec bash loop.sh) >/dev/null 2>&1 &
	BG+=($!)
}
workload_stop() {
	local p
	for p in "${BG[@]}"; do pkill -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
	wait "${BG[@]}" 2>/dev/null || true
	BG=()
}

# ---- record (once per DATADIR) -------------------------------------------------------------
record() {
	local rate=${RATE:-20000} max secs sw rc=0 try
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	[ "$max" -ge "$rate" ] || rate=$max
	# 10 % margin (both recorders and the load share the CPUs; cpu-clock samples idle CPUs too)
	secs=$(calc "s = $N * 1.1 / ($NCPU * $rate); print (s == int(s)) ? s : int(s) + 1")
	sw=$(calc "s = int($secs / 25); print (s < 2) ? 2 : s")
	echo "== record: $rate Hz x $NCPU CPUs x $secs s (~$N samples per tool), ringprof rotating every ${sw}s"
	write_workload
	for try in 1 2 3; do
		rm -rf "$D/rp" "$D/perf.data"
		mkdir "$D/rp"
		workload_start
		sleep 2
		RP_REC=("$RP" record -a -g -m 2048 -e cpu-clock -F "$rate" -o "$D/rp/ringprof.data" --switch-output="${sw}s" -d "$secs")
		PERF_REC=(perf record -a -g --buildid-mmap --timestamp-boundary -e cpu-clock -F "$rate" -o "$D/perf.data" -- sleep "$secs")
		echo "  \$ ${RP_REC[*]}"
		echo "  \$ ${PERF_REC[*]}"
		"${RP_REC[@]}" >"$D/rp-record.log" 2>&1 &
		local rp_pid=$!
		sleep 0.5
		"${PERF_REC[@]}" >"$D/perf-record.log" 2>&1 &
		local perf_pid=$!
		wait "$rp_pid" || { cat "$D/rp-record.log" >&2; die "ringprof record failed"; }
		rc=0
		wait "$perf_pid" || rc=$?
		workload_stop
		[ "$rc" != 0 ] || break
		tail -3 "$D/perf-record.log" >&2
		[ "$try" -lt 3 ] || die "perf record failed 3 times"
	done
	sed 's/^/  /' "$D/rp-record.log" | tail -8
	grep -E '^\[ perf record' "$D/perf-record.log" | sed 's/^/  /' || true
	echo "$rate $secs $sw" >"$D/plan"
}
if [ ! -e "$D/perf.data" ] || [ -z "$(ls "$D/rp" 2>/dev/null)" ]; then record; else echo "== reusing the recordings in $D (plan: $(cat "$D/plan" 2>/dev/null))"; fi

# ---- what was recorded ---------------------------------------------------------------------
rp_files=$(find "$D/rp" -name '*.data' | wc -l)
rp_bytes=$(du -cb "$D"/rp/*.data | awk 'END { print $1 }')
rp_samples=$("$RP" report --dir "$D/rp" --stats 2>/dev/null | awk '$1 == "samples" { s += $2 } END { print s + 0 }')
perf report -i "$D/perf.data" --stats >"$D/perf-stats.txt" 2>/dev/null || true
perf_samples=$(awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }' "$D/perf-stats.txt")
perf_bytes=$(stat -c %s "$D/perf.data")
echo "  ringprof: $rp_samples samples in $rp_files files, $rp_bytes bytes ($(calc "printf \"%.1f\", $rp_bytes / $rp_samples") B/sample)"
echo "  perf:     $perf_samples samples, $perf_bytes bytes ($(calc "printf \"%.1f\", $perf_bytes / $perf_samples") B/sample)"
echo "  machine:  $NCPU CPUs, $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(uname -r), $(perf version 2>&1), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# ---- report --------------------------------------------------------------------------------
# tm NAME RUNS CMD...: median wall s, median CPU s (user+sys), max peak RSS MB into W C M [NAME];
# a run cut off by the timeout or the memory cap sets CUT[NAME].
declare -A W C M CUT
PERF_TIMEOUT=${PERF_TIMEOUT:-600}
PERF_MAXRSS_GB=${PERF_MAXRSS_GB:-$(awk '/^MemTotal/ { print int($2 / 2097152) }' /proc/meminfo)}
tm() {
	local name=$1 runs=$2 i rc
	shift 2
	: >"$D/$name.times"
	for ((i = 1; i <= runs; i++)); do
		rc=0
		/usr/bin/time -o "$D/$name.time" -f '%e %U %S %M' "$@" >"$D/$name.out" 2>"$D/$name.err" || rc=$?
		if [ "$rc" != 0 ]; then
			# perf cut off by the timeout (137: KILL) or the memory cap (allocation failure)
			case $name in *_perf) CUT[$name]=1 ;; *) cat "$D/$name.err" >&2; die "failed ($rc): $*" ;; esac
		fi
		# perf's -g caller out of memory under the cap reports it and exits 0 with no table
		case $name in *_perf) ! grep -q 'Cannot allocate memory' "$D/$name.err" || CUT[$name]=1 ;; esac
		tail -1 "$D/$name.time" >>"$D/$name.times"
	done
	W[$name]=$(awk '{ print $1 }' "$D/$name.times" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	C[$name]=$(awk '{ print $2 + $3 }' "$D/$name.times" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	M[$name]=$(awk '$4 > m { m = $4 } END { printf "%.0f", m / 1024 }' "$D/$name.times")
	printf '  %-16s %8.2f s wall %8.2f s CPU %7d MB%s   %s lines   runs: %s\n' "$name" "${W[$name]}" "${C[$name]}" "${M[$name]}" \
		"${CUT[$name]:+ (cut off)}" "$(wc -l <"$D/$name.out")" "$(awk '{ printf "%s%s", (NR > 1 ? ", " : ""), $1 }' "$D/$name.times")"
}
# perf under a timeout and a memory cap (its -g caller takes tens of GB at 5M samples)
PERFCAP=(bash -c 'ulimit -v "$0" && exec timeout -s KILL "$1" "${@:2}"' $((PERF_MAXRSS_GB * 1048576)) "$PERF_TIMEOUT")

ONLY=${ONLY:-.}
want() { [[ "$1" =~ $ONLY ]]; }
echo "== report ($RUNS runs each; median wall and CPU, max peak RSS)"
if want flat; then
	tm flat_rp "$RUNS" "$RP" report --dir "$D/rp" --no-children --no-pager
	tm flat_perf "$RUNS" "${PERFCAP[@]}" perf report -i "$D/perf.data" --stdio --no-children -g none
fi
if want graph; then
	tm graph_rp "$RUNS" "$RP" report --dir "$D/rp" -g caller --no-pager
	tm graph_perf 1 "${PERFCAP[@]}" perf report -i "$D/perf.data" --stdio -g caller
fi
want folded && tm folded_rp "$RUNS" "$RP" report --dir "$D/rp" --folded --no-pager
want pprof && tm pprof_rp "$RUNS" "$RP" report --dir "$D/rp" --pprof "$D/profile.pb.gz"
if want script; then
	tm script_rp "$RUNS" "$RP" script --dir "$D/rp" --no-pager
	tm script_perf "$RUNS" "${PERFCAP[@]}" perf script -i "$D/perf.data"
fi
if want window; then
	tm window_rp "$RUNS" "$RP" report --dir "$D/rp" --no-children --time 45%-55% --no-pager
	# No perf beside it: perf 6.1 finds no first/last sample time in a file recorded with
	# --buildid-mmap (even with --timestamp-boundary) and refuses every --time.
fi
echo

# ---- table ---------------------------------------------------------------------------------
ratio() { calc "a = $1 + 0; b = $2 + 0; printf \"%.3f\", (b > 0) ? a / b : 0"; }
row() { # row LABEL RP PERF TARGET
	local rp=$2 pf=${3:-} t pt
	[ -n "${W[$rp]:-}" ] || return 0
	if [ -n "$pf" ] && [ -n "${W[$pf]:-}" ]; then
		pt="${CUT[$pf]:+>}${W[$pf]} s, ${C[$pf]} s, ${M[$pf]} MB"
		t="$(ratio "${W[$rp]}" "${W[$pf]}")x${CUT[$pf]:+ (perf cut off: less)}"
	else pt="—" t="—"; fi
	printf '| %s | %s s, %s s, %s MB | %s | %s | %s |\n' "$1" "${W[$rp]}" "${C[$rp]}" "${M[$rp]}" "$pt" "$t" "$4"
}
echo "== results: $rp_samples ringprof samples ($rp_files files) / $perf_samples perf samples"
echo "| report | ringprof: wall, CPU, peak RSS | perf: wall, CPU, peak RSS | time ratio | issue target |"
echo "|---|---:|---:|---:|---|"
row "flat (\`--no-children\`; perf \`--no-children -g none\`)" flat_rp flat_perf "≤ 0.1×, ≤ 1 s, ≤ 100 MB"
row "\`-g caller\`" graph_rp graph_perf "≤ 0.02×"
row "\`--folded\` (perf: its flat report)" folded_rp flat_perf "≤ 0.1×, ≤ 1 s"
row "\`--pprof\`" pprof_rp "" "≤ 1.5 s"
row "\`script\`" script_rp script_perf "≤ 0.5×"
row "window: 10 % of the span (\`--time 45%-55%\`; perf 6.1 refuses --time on this file)" window_rp "" "—"
for k in flat_rp graph_rp folded_rp pprof_rp script_rp window_rp; do
	[ -n "${W[$k]:-}" ] || continue
	printf '  %-10s %6.0f ns/sample CPU\n' "$k" "$(calc "print ${C[$k]} * 1e9 / $rp_samples")"
done
