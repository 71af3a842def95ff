#!/bin/bash
# stacks-judge.sh — issue 22's judging, measured: new small programs of each kind the issue
# lists, each recorded by `ringprof record -g` (dwarf), `ringprof record --call-graph fp` and
# `perf record --call-graph dwarf` (separate runs of the same program, cpu-clock, 999 Hz), and
# per tool the share of samples whose user stack reaches a root frame.
#
# Usage: bash bench/stacks-judge.sh [SECONDS]   (as root, after the build; default 3 per run)
#
# The kinds (programs written and built in the temp dir, none of tests/'s fixtures):
#   dbgframe  C, -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables -fomit-frame-pointer:
#             only .debug_frame; a call chain of its own and a qsort callback through libc
#   go        Go 1.19 (golang-1.19-go): a goroutine per CPU and main, recursion and a map
#   dlchurn   a host dlopen()s plugin A, calls it, dlclose()s it, then plugin B (mapped at the
#             same address), in turn (-O2 -fomit-frame-pointer)
#   static    -static -O2 -fomit-frame-pointer: qsort of strings by strcmp and memcpy in the
#             hot path (glibc's IRELATIVE PLT calls)
#   node      node -e: a JS loop (JIT code) calling into JSON and string builtins
#   all       `record -a -- sleep 1` beside 2 python3 loops and one sh loop started 1 s before
#             (cold: a new --unwind-cache; warm: the same cache again); Debian's python3 and dash
#             run as copies named busy-py and busy-sh, and only their samples are counted
#   forkexec  a shell script running short C programs (about 20 ms of CPU each) one after another
#   deleted   a C program started, then removed while it runs (its file is gone mid-recording)
# The two-call-paths-with-identical-frames kind is tests/unwind-perf.sh's and the lead's, not
# here. ringprof's recordings use a new --unwind-cache directory each (a cold start), except
# "all (warm)". Roots: _start, __libc_start_*, main, start_thread, clone/clone3, ld.so's
# _dl_start_user/_dl_start, Go's runtime.goexit/main/mstart/rt0_go/clone (a new thread starts in runtime.clone).
# The share counts the samples of the kind's processes that have at least one user frame (a
# sample taken in the kernel with no user stack is counted apart: "no user").
# Targets (issue 22): >= 95 % reaching a root for each (>= 99 % static), ringprof -g >= fp.
# ringprof's report header (`report --no-children | grep '^#'`) is printed per kind: its
# diagnoses are to be read (no "no unwind information" for ld.so start-up, no frame-pointer
# advice for an object that has them).
# Environment: RP_BUILD, KEEP=1 (keep the recordings), KINDS (default: all of the above).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=stacks-judge
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
SECS=${1:-3}
KINDS=${KINDS:-dbgframe go dlchurn static node all forkexec deleted}
GO=/usr/lib/go-1.19/bin/go
{ [[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -ge 1 ]; } || die "SECONDS must be a positive integer, got '$SECS'"

bench_init gcc
S=$T/src
mkdir -p "$S"
ROOTS='_start|_dl_start_user|_dl_start|__libc_start_main|__libc_start_main_impl|__libc_start_call_main|main|start_thread|clone3|__clone3|__GI___clone3|clone|__clone|__GI___clone|runtime\.(goexit|main|mstart|rt0_go|clone)(\.abi0)?'

# ---- folding (as tests/lib.sh): "comm;outer;...;inner COUNT", kernel frames "_[k]" -------------
ufold() {
	awk '{
		n = $NF; line = substr($0, 1, length($0) - length($NF) - 1)
		k = split(line, f, ";"); s = f[1]
		for (i = 2; i <= k; i++) {
			if (f[i] ~ /_\[k\]$/ || f[i] == "[joined]") continue
			sub(/@@?[A-Za-z0-9_.]+$/, "", f[i]); s = s ";" f[i]
		}
		c[s] += n
	} END { for (s in c) print s, c[s] }'
}
perf_fold() {
	perf script -i "$1" -F comm,ip,sym,dso --no-demangle --no-inline 2>/dev/null | awk '
		function flush() {
			if (comm != "") { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ }
			comm = ""; n = 0
		}
		/^[^ \t]/ { flush(); comm = $0; sub(/ +$/, "", comm); next }
		/^[ \t]*$/ { flush(); next }
		{
			l = $0; sub(/^[ \t]+[0-9a-f]+ /, "", l); d = ""
			if (match(l, / [(][^()]*[)]$/)) { d = substr(l, RSTART + 2, RLENGTH - 3); l = substr(l, 1, RSTART - 1) }
			if (d ~ /^\[kernel/) l = l "_[k]"
			f[++n] = l
		}
		END { flush(); for (s in c) print s, c[s] }'
}
# roots FILE COMM: "PCT N NOUSER TOPMISS": over COMM's (ERE) samples with a user frame, the percent
# whose outermost frame is a root, their number, the samples without a user frame, and the most
# common outermost frame of those that miss (with its share of the samples).
roots() {
	awk -v comm="^($2)\$" -v root="^($ROOTS)\$" '
		{ n = $NF; line = substr($0, 1, length($0) - length($NF) - 1); k = split(line, f, ";")
		  if (f[1] !~ comm) next
		  if (k < 2) { nouser += n; next }
		  tot += n; if (f[2] ~ root) hit += n; else miss[f[2]] += n }
		END { best = "-"; m = 0; for (o in miss) if (miss[o] > m) { m = miss[o]; best = o }
		      printf "%.1f %d %d %s(%.1f%%)\n", tot ? 100 * hit / tot : 0, tot, nouser, best, tot ? 100 * m / tot : 0 }' "$1"
}

# ---- the programs -----------------------------------------------------------------------------
cat >"$S/dbgframe.c" <<'C'
#include <stdlib.h>
#include <time.h>
#define NOI __attribute__((noipa))
static volatile double sink;
static double now_s(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
NOI static double df_leaf(double x, int n) { for (int i = 0; i < n; i++) x = x * 1.0000001 + 1e-9; return x; }
NOI static double df_mid(int n) { volatile double pad[48]; pad[n % 48] = df_leaf(n, n); return pad[n % 48]; }
NOI static double df_top(int n) { return df_mid(n) + df_mid(n / 2); }
NOI static int df_cmp(const void *a, const void *b) { unsigned x = *(const unsigned *)a, y = *(const unsigned *)b; return (x > y) - (x < y); }
NOI static void df_sort(unsigned *v, int n) { for (int i = 0; i < n; i++) v[i] = (unsigned)rand(); qsort(v, n, sizeof *v, df_cmp); }
int main(int argc, char **argv)
{
	static unsigned v[20000];
	double end = now_s() + atof(argv[1]);
	while (now_s() < end) { sink += df_top(200000); df_sort(v, 20000); }
	return 0;
}
C
cat >"$S/static.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define NOI __attribute__((noipa))
static char words[4096][24], buf[1 << 16], buf2[1 << 16];
static double now_s(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
NOI static int st_cmp(const void *a, const void *b) { return strcmp(a, b); }
NOI static void st_sort(void) { for (int i = 0; i < 4096; i++) snprintf(words[i], 24, "w%08x", (unsigned)rand()); qsort(words, 4096, 24, st_cmp); }
NOI static size_t st_copy(void) { size_t s = 0; for (int i = 0; i < 64; i++) { memcpy(buf2 + (i & 7), buf, sizeof buf - 8); s += buf2[i]; } return s; }
int main(int argc, char **argv)
{
	double end = now_s() + atof(argv[1]);
	size_t s = 0;
	while (now_s() < end) { st_sort(); s += st_copy(); }
	printf("%zu\n", s);
	return 0;
}
C
cat >"$S/host.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define NOI __attribute__((noipa))
static double now_s(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
NOI static double host_call(const char *path, const char *fn, double x)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) { fprintf(stderr, "%s\n", dlerror()); exit(1); }
	double (*f)(double) = (double (*)(double))dlsym(h, fn);
	for (int i = 0; i < 10; i++) x = f(x);
	dlclose(h);
	return x;
}
int main(int argc, char **argv)
{
	double end = now_s() + atof(argv[1]), x = 1;
	while (now_s() < end) { x = host_call(argv[2], "alpha_work", x); x = host_call(argv[3], "beta_work", x); }
	printf("%g\n", x);
	return 0;
}
C
for p in alpha beta; do
	cat >"$S/$p.c" <<C
#define NOI __attribute__((noipa))
NOI static double ${p}_inner(double x) { for (int i = 0; i < 100000; i++) x = x * 0.9999999 + 1e-7; return x; }
NOI static double ${p}_step(double x) { volatile double pad[32]; pad[1] = ${p}_inner(x); return pad[1]; }
double ${p}_work(double x) { return ${p}_step(x) + ${p}_step(x / 2) * 1e-9; }
C
done
cat >"$S/victim.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define NOI __attribute__((noipa))
static double now_s(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static char names[2048][16];
NOI static int vi_cmp(const void *a, const void *b) { return strcmp(a, b); }
NOI static double vi_burn(int n) { double x = 1; for (int i = 0; i < n; i++) x = x * 1.0000001 + 1e-9; return x; }
NOI static void vi_round(void) { for (int i = 0; i < 2048; i++) snprintf(names[i], 16, "n%07x", (unsigned)rand()); qsort(names, 2048, 16, vi_cmp); }
int main(int argc, char **argv)
{
	double end = now_s() + atof(argv[1]), s = 0;
	while (now_s() < end) { vi_round(); s += vi_burn(300000); }
	printf("%g\n", s);
	return 0;
}
C
cat >"$S/short.c" <<'C'
#include <time.h>
#define NOI __attribute__((noipa))
static volatile double sink;
NOI static void sh_burn(void) { struct timespec a, b; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do { for (int i = 0; i < 20000; i++) sink = sink * 1.0000001 + 1e-9; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b); }
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 20000000L); }
int main(void) { sh_burn(); return 0; }
C
cat >"$S/spin.go" <<'G'
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

//go:noinline
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

//go:noinline
func fill(m map[int]int, n int) int {
	s := 0
	for i := 0; i < n; i++ {
		m[i*7919%n] += i
		s += m[i%n]
	}
	return s
}

//go:noinline
func worker(end time.Time, out chan<- int) {
	s := 0
	for time.Now().Before(end) {
		s += fib(24)
	}
	out <- s
}

func main() {
	secs, _ := strconv.ParseFloat(os.Args[1], 64)
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	out := make(chan int)
	go worker(end, out)
	s := 0
	for time.Now().Before(end) {
		s += fill(make(map[int]int), 20000)
	}
	fmt.Println(s + <-out)
}
G
cat >"$S/app.js" <<'J'
const end = Date.now() + 1000 * Number(process.argv[2]);
function shape(i) { return { id: i, name: 'item' + i, tags: [i % 3, i % 5, i % 7] }; }
function churn(n) { let s = 0; for (let i = 0; i < n; i++) { s += JSON.stringify(shape(i)).length; } return s; }
function primes(n) { let c = 0; for (let i = 2; i < n; i++) { let p = true; for (let j = 2; j * j <= i; j++) if (i % j === 0) { p = false; break; } if (p) c++; } return c; }
let t = 0;
while (Date.now() < end) { t += churn(2000) + primes(20000); }
console.log(t);
J
cat >"$S/forkloop.sh" <<SH
#!/bin/sh
i=0
while [ \$i -lt $((SECS * 30)) ]; do $T/bin/short; i=\$((i + 1)); done
SH
chmod +x "$S/forkloop.sh"
# deleted: copy the program, start it, remove the file while it runs
cat >"$S/deleted.sh" <<SH
#!/bin/sh
cp $T/bin/victim $T/bin/victim-del
$T/bin/victim-del $SECS &
sleep 0.4
rm $T/bin/victim-del
wait
SH
chmod +x "$S/deleted.sh"

NOFP=(-O2 -g -fomit-frame-pointer)
gcc "${NOFP[@]}" -fno-asynchronous-unwind-tables -fno-unwind-tables -o "$T/bin/dbgframe" "$S/dbgframe.c"
readelf -S "$T/bin/dbgframe" | grep -q '\.debug_frame' || die "dbgframe has no .debug_frame"
! readelf -S "$T/bin/dbgframe" | grep -q '\.eh_frame ' || echo "# note: dbgframe still has crt's .eh_frame (crt1.o, crti.o): its own code has none"
gcc "${NOFP[@]}" -static -o "$T/bin/static" "$S/static.c"
gcc "${NOFP[@]}" -o "$T/bin/host" "$S/host.c" -ldl
gcc "${NOFP[@]}" -fPIC -shared -o "$T/bin/libalpha.so" "$S/alpha.c"
gcc "${NOFP[@]}" -fPIC -shared -o "$T/bin/libbeta.so" "$S/beta.c"
gcc "${NOFP[@]}" -o "$T/bin/victim" "$S/victim.c"
gcc "${NOFP[@]}" -o "$T/bin/short" "$S/short.c"
cp "$S/forkloop.sh" "$S/deleted.sh" "$T/bin/"
cp /usr/bin/python3 "$T/bin/busy-py"
cp /bin/dash "$T/bin/busy-sh"
HAVE_GO=0
if [ -x "$GO" ]; then
	(cd "$S" && GOCACHE=$T/gocache GOPATH=$T/gopath GO111MODULE=off GOFLAGS='' "$GO" build -o "$T/bin/spin" spin.go) && HAVE_GO=1
fi
HAVE_NODE=0
command -v node >/dev/null && HAVE_NODE=1

# ---- the recordings ---------------------------------------------------------------------------
# rec NAME CG RECORD-ARGS...: one recording by TOOL (perf | rp-dwarf | rp-fp) into $T/NAME.TOOL.u
# (folded user stacks); ringprof's report header in $T/NAME.TOOL.head, --stats in .stats.
rec() {
	local name=$1 tool=$2 _ cache t0
	shift 2
	case $tool in
	perf)
		for _ in 1 2 3; do
			if perf record -q -e cpu-clock -F 999 --call-graph dwarf -o "$T/$name.perf.data" "$@" \
				>"$T/$name.perf.out" 2>"$T/$name.perf.err"; then
				perf_fold "$T/$name.perf.data" | ufold >"$T/$name.perf.u"
				rm -f "$T/$name.perf.data"
				return 0
			fi
			grep -q 'util/build-id.c' "$T/$name.perf.err" || break
		done
		echo "$name: perf record failed: $(tail -2 "$T/$name.perf.err")" >&2
		: >"$T/$name.perf.u"
		return 0
		;;
	rp-dwarf) cg=(-g) ;;
	rp-fp) cg=(--call-graph fp) ;;
	esac
	cache=${CACHE:-$T/cache.$name.$tool}
	t0=$(date +%s.%N)
	"$RP" record -e cpu-clock -F 999 "${cg[@]}" --unwind-cache "$cache" -o "$T/$name.$tool.rp" "$@" \
		>"$T/$name.$tool.out" 2>"$T/$name.$tool.err" ||
		echo "$name: ringprof record ${cg[*]} failed: $(tail -2 "$T/$name.$tool.err")" >&2
	echo "ringprof record: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s wall, load $(cut -d' ' -f1 /proc/loadavg)" >>"$T/$name.$tool.err"
	"$RP" report -i "$T/$name.$tool.rp" --folded --no-demangle 2>/dev/null | ufold >"$T/$name.$tool.u"
	"$RP" report -i "$T/$name.$tool.rp" --no-children 2>/dev/null | grep '^#' >"$T/$name.$tool.head" || true
	"$RP" report -i "$T/$name.$tool.rp" --stats >"$T/$name.$tool.stats" 2>&1 || true
}

ROWS=""
# measure NAME COMM TARGET: the row of one kind (the three recordings made)
measure() {
	local name=$1 comm=$2 target=$3 t r n nu miss line ok
	local -A v
	line="| $name |"
	for t in rp-dwarf rp-fp perf; do
		read -r r n nu miss <<<"$(roots "$T/$name.$t.u" "$comm")"
		v[$t]=$r
		line+=" $r % ($n; no user $nu; top miss $miss) |"
	done
	ok=$(awk -v d="${v[rp-dwarf]}" -v f="${v[rp-fp]}" -v t="$target" 'BEGIN { s = (d >= t) ? "yes" : "MISS (< " t " %)"; if (d < f) s = s ", -g < fp"; print s }')
	line+=" $ok |"
	ROWS+=$line$'\n'
	echo "$line"
	echo "## $name: ringprof -g report header:"
	sed 's/^/##   /' "$T/$name.rp-dwarf.head"
	grep -hE '^(ringprof record|\[ user stacks)' "$T/$name.rp-dwarf.err" 2>/dev/null | sed 's/^/##   record: /' || true
}

# busy_start: 2 python3 loops and one sh loop, running before the recording starts. Debian's
# python3 and dash copied as busy-py and busy-sh: their own comm, apart from other python3 and
# sh processes on the machine (same files, same build-ids, so the warm run finds their tables).
BUSY=()
busy_start() {
	local i
	for i in 1 2; do
		"$T/bin/busy-py" -c 'while True: sum(i * i for i in range(1000))' &
		BUSY+=($!)
		BG+=($!)
	done
	"$T/bin/busy-sh" -c 'while :; do :; done' &
	BUSY+=($!)
	BG+=($!)
	sleep 1
}
busy_stop() {
	kill "${BUSY[@]}" 2>/dev/null || true
	wait "${BUSY[@]}" 2>/dev/null || true
	BUSY=()
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
MACHINE=$(machine_md 999 | grep -v '^| sysctl')
echo "| kind | ringprof -g | ringprof --call-graph fp | perf --call-graph dwarf | -g >= target, -g >= fp |"
echo "| --- | --- | --- | --- | --- |"
for kind in $KINDS; do
	case $kind in
	dbgframe) for t in rp-dwarf rp-fp perf; do rec dbgframe $t -- "$T/bin/dbgframe" "$SECS"; done
		measure dbgframe dbgframe 95 ;;
	go) if [ $HAVE_GO = 0 ]; then echo "| go | skipped: no $GO or its build failed | | | |"; continue; fi
		for t in rp-dwarf rp-fp perf; do rec go $t -- "$T/bin/spin" "$SECS"; done
		measure go spin 95 ;;
	dlchurn) for t in rp-dwarf rp-fp perf; do rec dlchurn $t -- "$T/bin/host" "$SECS" "$T/bin/libalpha.so" "$T/bin/libbeta.so"; done
		measure dlchurn host 95 ;;
	static) for t in rp-dwarf rp-fp perf; do rec static $t -- "$T/bin/static" "$SECS"; done
		measure static static 99 ;;
	node) if [ $HAVE_NODE = 0 ]; then echo "| node | skipped: no node | | | |"; continue; fi
		for t in rp-dwarf rp-fp perf; do rec node $t -- node "$S/app.js" "$SECS"; done
		measure node node 95 ;;
	all) for t in rp-dwarf rp-fp perf; do busy_start; rec all $t -a -- sleep 1; busy_stop; done
		measure all 'busy-py|busy-sh' 95
		# warm: the same cache as the cold -g run, new busy processes (new pids, same binaries)
		busy_start; CACHE=$T/cache.all.rp-dwarf rec all-warm rp-dwarf -a -- sleep 1; busy_stop
		cp "$T/all.rp-fp.u" "$T/all-warm.rp-fp.u"; cp "$T/all.perf.u" "$T/all-warm.perf.u"
		measure all-warm 'busy-py|busy-sh' 95 ;;
	forkexec) for t in rp-dwarf rp-fp perf; do rec forkexec $t -- "$T/bin/forkloop.sh"; done
		measure forkexec 'short|forkloop.sh' 95 ;;
	deleted) for t in rp-dwarf rp-fp perf; do rec deleted $t -- "$T/bin/deleted.sh"; done
		measure deleted 'victim-del' 95 ;;
	*) die "unknown kind '$kind' (KINDS)" ;;
	esac
done
echo
echo "load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$MACHINE"
