#!/bin/bash
# html-bench.sh — report --html: the page's size and the time to its first paint in headless
# chromium, for a recording of ~10 k samples and a larger system-wide one.
#
# Usage: bash bench/html-bench.sh [SECONDS]      (as root, after setup.sh and the build)
#
# Recordings: rp-workload -d 10 at 999 Hz (~10 k samples, three threads), then every CPU at
# 4 kHz with callchains for SECONDS (default 30: ~240 k samples on 2 CPUs, whatever runs).
# For each: the time report --html takes, the page's size (and pprof's for comparison), and,
# median of RUNS (default 3) loads in chromium (tests/web/report-html.cjs --paint): first
# contentful paint, every view drawn, zooms into the widest frame of the third row and back
# out (median of 10 of each: until the frame it changed is rendered, the click's script alone,
# and the script with that frame's rendering: the main thread's work, 16.7 ms at 60 frames a
# second).
# Environment: RUNS, RP_BUILD (build dir, default build/), KEEP=1 keeps the temp dir,
# LARGE=FILE an existing recording (or directory of them) to use as the large one (the same recording measured by two
# builds: no new system-wide recording, whose distinct stacks depend on what else runs);
# DAY=DIR a directory of recordings (ringprofd's, or --switch-output's) for one more row,
# read with --dir; PPROF_HTTP=1 also times `go tool pprof -http` on each row's pprof file (Go's
# golang-go, no graphviz needed): until it listens, then its flame graph and top pages loaded
# in the same chromium (tests/web/report-html.cjs --load), each given PPROF_LIMIT seconds
# (default 300), pprof stopped when its memory passes PPROF_RSS_MB (default 8000: the machine
# is shared).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-30}
RUNS=${RUNS:-3}
B=${RP_BUILD:-$ROOT/build}
die() { echo "html-bench: $*" >&2; exit 1; }
[ -x "$B/ringprof" ] || die "no $B/ringprof: build first (bash setup.sh demo)"
[ -f "$ROOT/tests/web/node_modules/playwright-core/package.json" ] || die "playwright-core missing: run setup.sh"
[ -x /usr/bin/chromium ] || die "chromium missing: run setup.sh"
[ "$(id -u)" = 0 ] || die "needs root (system-wide recording)"
T=$(mktemp -d /tmp/html-bench.XXXXXX)
trap '[ -n "${KEEP:-}" ] && echo "kept: $T" || rm -rf "$T"' EXIT
RP=$B/ringprof

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
field() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# one NAME LABEL OPTION DATA: a table row for recording (-i) or directory (--dir) DATA.
one() {
	local name=$1 label=$2 opt=$3 data=$4 samples t0 t1 size pprof i fcp drawn zoom unzoom frames
	samples=$("$RP" report "$opt" "$data" --header-only 2>/dev/null | sed -n 's/^# samples: \([0-9]*\).*/\1/p')
	t0=$(date +%s%N)
	"$RP" report "$opt" "$data" --html "$T/$name.html" 2>/dev/null
	t1=$(date +%s%N)
	"$RP" report "$opt" "$data" --pprof "$T/$name.pb.gz" 2>/dev/null
	size=$(stat -c %s "$T/$name.html")
	pprof=$(stat -c %s "$T/$name.pb.gz")
	: >"$T/$name.runs"
	for ((i = 0; i < RUNS; i++)); do
		timeout 300 node "$ROOT/tests/web/report-html.cjs" --paint "$T/$name.html" "$T" >"$T/$name.$i" ||
			die "chromium run failed: $(cat "$T/$name.$i")"
		grep -q '^request ' "$T/$name.$i" && die "the page made a request: $(grep '^request ' "$T/$name.$i")"
	done
	fcp=$(for ((i = 0; i < RUNS; i++)); do field first_contentful_paint_ms "$T/$name.$i"; done | median)
	drawn=$(for ((i = 0; i < RUNS; i++)); do field views_drawn_ms "$T/$name.$i"; done | median)
	zoom=$(for ((i = 0; i < RUNS; i++)); do field zoom_ms "$T/$name.$i"; done | median)
	unzoom=$(for ((i = 0; i < RUNS; i++)); do field unzoom_ms "$T/$name.$i"; done | median)
	zscript=$(field zoom_script_ms "$T/$name.0")
	zwork=$(field zoom_work_ms "$T/$name.0")
	frames=$(field frames_drawn "$T/$name.0")
	stacks=$(field stacks "$T/$name.0")
	printf '| %s | %s | %s | %d ms | %s KiB | %s KiB | %s ms | %s ms | %s | %s ms / %s ms | %s ms | %s ms |\n' \
		"$label" "$samples" "$stacks" $(((t1 - t0) / 1000000)) $((size / 1024)) $((pprof / 1024)) \
		"$fcp" "$drawn" "$frames" "$zoom" "$unzoom" "$zscript" "$zwork"
}

echo "recording: rp-workload -d 10 (999 Hz), then every CPU for $SECS s at 4 kHz" >&2
"$RP" record -q -g -e cpu-clock -F 999 -o "$T/small.data" -- "$B/tests/workload/rp-workload" -d 10 -q
large_opt=-i
if [ -d "${LARGE:-}" ]; then
	ln -s "$(realpath "$LARGE")" "$T/large.data"
	large_opt=--dir
	large_label="directory $LARGE ($(ls "$LARGE" | grep -c '\.data$') files)"
elif [ -n "${LARGE:-}" ]; then
	[ -r "$LARGE" ] || die "LARGE=$LARGE: not readable"
	ln -s "$(realpath "$LARGE")" "$T/large.data"
	large_label="every CPU, given ($(basename "$LARGE"))"
else
	"$RP" record -q -a -g -e cpu-clock -F 4000 -o "$T/large.data" -- sleep "$SECS"
	large_label="every CPU, ${SECS} s"
fi

echo "| recording | samples | distinct stacks | report --html | page | pprof | first contentful paint | views drawn | frames drawn | zoom / back | their script | script and rendering |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
one small "rp-workload, 10 s" -i "$T/small.data"
one large "$large_label" "$large_opt" "$T/large.data"
names="small large"
if [ -n "${DAY:-}" ]; then
	[ -d "$DAY" ] || die "DAY=$DAY: not a directory"
	one day "directory $DAY ($(ls "$DAY" | grep -c '\.data$') files)" --dir "$DAY"
	names="$names day"
fi

# pprof_http NAME: go tool pprof -http on NAME's pprof file: ms until it listens, then until its
# flame graph page (/ui/flamegraph) and its top page (/ui/top) have loaded in chromium.
pprof_http() {
	local name=$1 port=$((18000 + RANDOM % 1000)) t0 t1 pid fl top
	t0=$(date +%s%N)
	# The tool itself, not `go tool`'s wrapper: its memory is what is watched.
	"$("$GO" tool -n pprof)" -no_browser -http="127.0.0.1:$port" "$T/$name.pb.gz" >"$T/$name.pprof-http.log" 2>&1 &
	pid=$!
	until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
		kill -0 "$pid" 2>/dev/null || die "go tool pprof -http exited: $(cat "$T/$name.pprof-http.log")"
		sleep 0.1
	done
	t1=$(date +%s%N)
	mkdir -p "$T/$name.pprof-fl" "$T/$name.pprof-top"
	(while kill -0 "$pid" 2>/dev/null; do
		[ "$(awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$pid/status" 2>/dev/null || echo 0)" -gt "${PPROF_RSS_MB:-8000}" ] &&
			{ echo "pprof passed ${PPROF_RSS_MB:-8000} MB: stopped" >>"$T/$name.pprof-http.log"; kill "$pid"; }
		sleep 1
	done) &
	fl=$(timeout "${PPROF_LIMIT:-300}" node "$ROOT/tests/web/report-html.cjs" --load "http://127.0.0.1:$port/ui/flamegraph" "$T/$name.pprof-fl" | field load_ms /dev/stdin)
	top=$(timeout "${PPROF_LIMIT:-300}" node "$ROOT/tests/web/report-html.cjs" --load "http://127.0.0.1:$port/ui/top" "$T/$name.pprof-top" | field load_ms /dev/stdin)
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	fl=${fl:+$fl ms}
	top=${top:+$top ms}
	printf '| %s | %s KiB | %d ms | %s | %s |\n' "$name" $(($(stat -c %s "$T/$name.pb.gz") / 1024)) \
		$(((t1 - t0) / 1000000)) "${fl:-not loaded (see its log)}" "${top:-not loaded}"
	grep -h 'stopped' "$T/$name.pprof-http.log" >&2 || true
}
if [ -n "${PPROF_HTTP:-}" ]; then
	GO=${GO:-$(command -v go || echo /usr/lib/go-1.19/bin/go)}
	[ -x "$GO" ] || die "PPROF_HTTP: no go (apt-get install golang-go)"
	echo
	echo "| recording | pprof file | pprof -http listening | its flame graph page loaded | its top page loaded |"
	echo "| --- | ---: | ---: | ---: | ---: |"
	for n in $names; do pprof_http "$n"; done
fi
