#!/bin/bash
# pprof-bench.sh — what exporting and pushing profiles costs (issue 15): ringprofd with its
# defaults (49 Hz, callchains unwound while recording) and `perf record -a -g -F 49` side by
# side over the same busy machine for SECONDS, ringprofd rotating every ROTATE seconds. Then:
#   - `ringprof report --dir --pprof` of the whole window: CPU time, peak RSS, the profile's size;
#     against `perf script` of perf's file (the text that perf-to-pprof converters read): CPU,
#     RSS and its size;
#   - `ringprof push --once` of the directory to a receiver on 127.0.0.1: bytes sent, requests;
#   - both scaled to a host-hour and a host-day (linear: a longer window repeats stacks, so the
#     pprof of a real day is smaller than this says);
#   - the bytes captured symbols add: a second ringprofd with CaptureSymbols=no beside the
#     first (its symbols/ cache against the recordings, and how much of the cache came after
#     the first file, which is what a longer run adds), and `ringprof record -a -g -F 49` with
#     and without --no-symbols over the same window (tables inside the file).
# Usage: bash bench/pprof-bench.sh [SECONDS] (as root, after the build; default 120, at least 30)
# Environment: RP_BUILD, ROTATE (default 30), KEEP=1.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=pprof-bench
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
SECS=${1:-120}
ROTATE=${ROTATE:-30}
[[ "$SECS" =~ ^[0-9]+$ ]] && [ "$SECS" -ge 30 ] || die "SECONDS must be an integer of at least 30"
[[ "$ROTATE" =~ ^[0-9]+$ ]] && [ "$ROTATE" -ge 5 ] || die "ROTATE must be an integer of at least 5"
bench_init time python3
cp "$B/ringprofd" "$B/ringprof-push" "$T/bin/" 2>/dev/null || die "no ringprofd/ringprof-push in $B"
command -v python3 >/dev/null || die "python3 is missing"

D=$T/rec
DN=$T/rec-nosym
mkdir -p "$D" "$DN"
printf 'CaptureSymbols=no\n' >"$T/nosym.conf"
# The load: two CPU-bound workloads and a shell loop of short processes, as a busy host has.
"$WL" -d "$((SECS + 5))" -q >/dev/null 2>&1 &
BG+=($!)
"$WL" -d "$((SECS + 5))" -q >/dev/null 2>&1 &
BG+=($!)
(end=$((SECONDS + SECS + 5)); while [ $SECONDS -lt $end ]; do /bin/true; sleep 0.02; done) &
BG+=($!)

"$T/bin/ringprofd" -c /dev/null -D "$D" --max-file-sec "${ROTATE}s" >"$T/daemon.log" 2>&1 &
DPID=$!
BG+=($DPID)
"$T/bin/ringprofd" -c "$T/nosym.conf" -D "$DN" --max-file-sec "${ROTATE}s" >"$T/daemon-nosym.log" 2>&1 &
DNPID=$!
BG+=($DNPID)
"$RP" record -q -a -g -F 49 -d "$SECS" -o "$T/rec-sym.data" >"$T/rec-sym.log" 2>&1 &
RS1=$!
BG+=($RS1)
"$RP" record -q -a -g -F 49 -d "$SECS" --no-symbols -o "$T/rec-nosym.data" >"$T/rec-nosym.log" 2>&1 &
RS2=$!
BG+=($RS2)
# perf last: perf 6.1 aborts on the MMAP2 records it gets when a `ringprof record -a` starts
# after it (bench/README, report-bench.sh); ringprof's recorders run about a second longer.
sleep 1
perf record -a -g -F 49 -q -o "$T/perf.data" -- sleep "$SECS" >/dev/null 2>&1 &
PPID_=$!
BG+=($PPID_)
sleep "$((ROTATE - 1))"
# The symbol tables of the first file: what any run starts with.
ls "$D/symbols" 2>/dev/null | sort >"$T/symbols.first" || true
sleep "$((SECS - ROTATE))"
wait "$PPID_" || die "perf record failed (did a ringprof record -a start during the window? rerun)"
kill -TERM "$DPID" "$DNPID"
wait "$DPID" || true
wait "$DNPID" || true
wait "$RS1" || die "record -a failed: $(cat "$T/rec-sym.log")"
wait "$RS2" || die "record -a --no-symbols failed: $(cat "$T/rec-nosym.log")"

# cost NAME CMD...: user+sys seconds and peak RSS (KiB) of CMD into $T/NAME.time.
cost() {
	local name=$1
	shift
	/usr/bin/time -f '%U %S %M' -o "$T/$name.time" "$@"
}
cpu() { tail -1 "$T/$1.time" | awk '{ printf "%.2f", $1 + $2 }'; }
rss() { tail -1 "$T/$1.time" | awk '{ printf "%.1f", $3 / 1024 }'; }

cost pprof "$RP" report --dir "$D" --pprof "$T/all.pb.gz" >/dev/null 2>"$T/pprof.err" ||
	die "report --pprof failed: $(cat "$T/pprof.err")"
cost script perf script -i "$T/perf.data" >"$T/perf.txt" 2>/dev/null || die "perf script failed"
samples=$("$RP" report --dir "$D" --no-children 2>/dev/null | sed -n 's/^# samples: \([0-9]*\),.*/\1/p')
psamples=$(grep -c '^[^[:space:]]' "$T/perf.txt" || true)

# The receiver counts requests and bytes.
cat >"$T/recv.py" <<'EOF'
import http.server, os, sys
d = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        self.rfile.read(n)
        with open(os.path.join(d, "sent"), "a") as f:
            f.write("%d\n" % n)
        self.send_response(200); self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(os.path.join(d, "port.tmp"), "w").write(str(s.server_address[1]))
os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))
s.serve_forever()
EOF
python3 "$T/recv.py" "$T" &
BG+=($!)
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
[ -s "$T/port" ] || die "the receiver did not start"
cost push "$T/bin/ringprof-push" --dir "$D" --url "http://127.0.0.1:$(cat "$T/port")" --once \
	--cursor "$T/cursor" >/dev/null 2>"$T/push.err" || die "push failed: $(cat "$T/push.err")"
requests=$(wc -l <"$T/sent")
sent=$(awk '{ s += $1 } END { print s + 0 }' "$T/sent")

size() { stat -c %s "$1"; }
files=$(ls "$D" | grep -c '\.data$' || true)
rec_bytes=$(du -cb "$D"/*.data | tail -1 | cut -f1)
hour() { awk -v b="$1" -v s="$SECS" 'BEGIN { printf "%.1f MiB", b * 3600 / s / 1048576 }'; }
day() { awk -v b="$1" -v s="$SECS" 'BEGIN { printf "%.0f MiB", b * 86400 / s / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3fx", (b > 0 ? a / b : 0) }'; }
echo "$(machine_md "$ORIG_RATE")"
echo
echo "Window: $SECS s, ringprofd rotating every $ROTATE s ($files files, $samples samples; perf: $psamples samples)."
echo
echo "| measure | ringprof | perf | ratio |"
echo "|---|---:|---:|---:|"
echo "| recordings | $(hour "$rec_bytes")/h | $(hour "$(size "$T/perf.data")")/h | $(ratio "$rec_bytes" "$(size "$T/perf.data")") |"
echo "| export (report --pprof / perf script): CPU | $(cpu pprof) s | $(cpu script) s | $(ratio "$(cpu pprof)" "$(cpu script)") |"
echo "| export: peak RSS | $(rss pprof) MiB | $(rss script) MiB | $(ratio "$(rss pprof)" "$(rss script)") |"
echo "| export: output | $(size "$T/all.pb.gz") B (pprof, gzip) | $(size "$T/perf.txt") B (text) | $(ratio "$(size "$T/all.pb.gz")" "$(size "$T/perf.txt")") |"
echo "| export output per host-day (linear) | $(day "$(size "$T/all.pb.gz")") | $(day "$(size "$T/perf.txt")") | |"
echo "| push: requests, bytes | $requests, $sent B | | |"
echo "| push: bytes per host-hour | $(hour "$sent") | | |"
echo "| push: CPU | $(cpu push) s | | |"

# ---- captured symbols ----------------------------------------------------------------------
nos_bytes=$(du -cb "$DN"/*.data | tail -1 | cut -f1)
sym_bytes=$(du -sb "$D/symbols" | cut -f1)
sym_n=$(ls "$D/symbols" | wc -l)
later=$(cd "$D/symbols" && ls | sort | comm -13 "$T/symbols.first" - | xargs -r stat -c %s | awk '{ s += $1 } END { print s + 0 }')
later_n=$(cd "$D/symbols" && ls | sort | comm -13 "$T/symbols.first" - | wc -l)
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f %%", (b > 0 ? (a - b) * 100 / b : 0) }'; }
echo
echo "| captured symbols | with | without | more |"
echo "|---|---:|---:|---:|"
echo "| ringprofd: recordings (*.data) | $rec_bytes B | $nos_bytes B | $(pct "$rec_bytes" "$nos_bytes") |"
echo "| ringprofd: symbols/ cache | $sym_bytes B ($sym_n tables; $later B in $later_n tables after the first file) | 0 | |"
echo "| ringprofd: all, this window | $((rec_bytes + sym_bytes)) B | $nos_bytes B | $(pct "$((rec_bytes + sym_bytes))" "$nos_bytes") |"
echo "| ringprof record -a -g -F 49 -d $SECS | $(size "$T/rec-sym.data") B | $(size "$T/rec-nosym.data") B | $(pct "$(size "$T/rec-sym.data")" "$(size "$T/rec-nosym.data")") |"
# A day of ringprofd: the recordings grow with time, the cache with binaries not seen before:
# the tables of the first file once, plus what came after it at the rate it came (an upper
# bound on a host whose set of binaries settles).
awk -v w="$rec_bytes" -v r="$nos_bytes" -v s="$sym_bytes" -v l="$later" -v secs="$SECS" -v rot="$ROTATE" 'BEGIN {
	with = w * 86400 / secs + (s - l) + l * 86400 / (secs - rot); without = r * 86400 / secs
	printf "| ringprofd: a host-day (recordings linear; cache: first file once + later tables at their rate) | %.0f MiB | %.0f MiB | %+.1f %% |\n",
		with / 1048576, without / 1048576, (with - without) * 100 / without }'
