#!/bin/bash
# report-debuginfod.sh — `report --debuginfod` against a real debuginfod server on 127.0.0.1
# serving the debug file of a stripped test binary: it names the functions (and inline frames)
# the stripped binary alone cannot; a build-id the server lacks is asked once per report, not
# per location; a server that never answers costs the per-request timeout, not a hang; an
# inherited DEBUGINFOD_URLS is not used without --debuginfod; `push --debuginfod` sends
# profiles that name the function, push without it asks no server.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
require_perf_events
command -v debuginfod >/dev/null || skip "the debuginfod server (Debian package debuginfod) is not installed"
command -v gcc >/dev/null || skip "gcc is needed to build the fixture"
command -v python3 >/dev/null || skip "python3 is needed to pick a free port"

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ---- the fixture: a static function and an inline expansion, only in the debug file ------------
cat >"$T/dprog.c" <<'EOC'
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
static inline __attribute__((always_inline)) unsigned long di_inlined_step(unsigned long x)
{
	for (int i = 0; i < 200; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
__attribute__((noinline)) static unsigned long di_static_hot(unsigned long x)
{
	return di_inlined_step(x) ^ sink;
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 1);
	unsigned long x = 1;
	while (time(NULL) < end)
		x = di_static_hot(x);
	sink = x;
	return 0;
}
EOC
mkdir -p "$T/srv"
gcc -O1 -g -Wl,--build-id -o "$T/dprog" "$T/dprog.c" || fail "building the fixture"
objcopy --only-keep-debug "$T/dprog" "$T/srv/dprog.debug" || fail "objcopy --only-keep-debug"
strip --strip-all "$T/dprog" || fail "strip"
readelf -S "$T/dprog" | grep -Eq ' \.(symtab|debug_info) ' && fail "the fixture is not stripped"
BID=$(build_id_of "$T/dprog")
[ -n "$BID" ] && [ "$BID" = "$(build_id_of "$T/srv/dprog.debug")" ] ||
	fail "the debug file does not carry the binary's build-id"
"$RP" record -q -e cpu-clock -g -o "$T/d.data" -- "$T/dprog" 2 || fail "recording the fixture"

# ---- the server --------------------------------------------------------------------------------
PORT=$(free_port)
debuginfod -F "$T/srv" -p "$PORT" -d "$T/db.sqlite" -v >"$T/srv.log" 2>&1 &
BG_PIDS="$BG_PIDS $!"
URL="http://127.0.0.1:$PORT"
# Ready when it serves the debug file (it scans the directory after it starts listening).
for i in $(seq 100); do
	DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/probe.$i" debuginfod-find debuginfo "$BID" \
		>/dev/null 2>&1 && break
	[ "$i" = 100 ] && { tail -20 "$T/srv.log" >&2; fail "debuginfod on $URL never served $BID"; }
	sleep 0.2
done
ok "debuginfod serves the debug file on $URL"
gets() { grep -c "GET /buildid/" "$T/srv.log"; }
# The server logs a request once it has answered it, and a loaded machine can run the next
# command first: wait until its log has not grown for 0.4 s (10 s at most).
settle() {
	local n m same=0
	n=$(gets)
	for _ in $(seq 50); do
		sleep 0.2
		m=$(gets)
		if [ "$m" = "$n" ]; then same=$((same + 1)); [ "$same" -ge 2 ] && return; else same=0; fi
		n=$m
	done
}

# ---- without --debuginfod: an inherited DEBUGINFOD_URLS is not used ---------------------------
before=$(gets)
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/cache0" \
	"$RP" report -i "$T/d.data" --no-children >"$T/plain.rep" 2>&1 || fail "report without --debuginfod"
settle
check_eq "$(gets)" "$before" "without --debuginfod the server in DEBUGINFOD_URLS is never asked"
check_grep '^ +[0-9.]+% +dprog +dprog +\[\.\] \[unknown\]$' "$T/plain.rep" \
	"the stripped binary alone cannot name its hot code"
check_no_grep 'di_static_hot|di_inlined_step' "$T/plain.rep" "no name from the debug file"

# ---- with --debuginfod ------------------------------------------------------------------------
before=$(gets)
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/cache1" \
	"$RP" report -i "$T/d.data" --no-children --debuginfod >"$T/di.rep" 2>"$T/di.err" ||
	fail "report --debuginfod: $(cat "$T/di.err")"
settle
check_grep '^ +[0-9.]+% +dprog +dprog +\[\.\] di_static_hot$' "$T/di.rep" \
	"--debuginfod names the static function from the served debug file"
check_no_grep '^ +[5-9][0-9.]*% +dprog +dprog +\[\.\] \[unknown\]$' "$T/di.rep" \
	"the hot code is no longer [unknown]"
sed -n "$((before + 1)),\$p" <(grep "GET /buildid/" "$T/srv.log") >"$T/di.gets"
check_grep "GET /buildid/$BID/debuginfo 200" "$T/di.gets" "the report fetched the debug file by build-id"
# Every other object of the recording (libc, ld.so, vdso) is unknown to the server: each
# build-id asked at most once however many locations it has (libdwfl asks per module, and
# libdebuginfod keeps a negative cache).
grep -q ' 404 ' "$T/di.gets" ||
	fail "no build-id the server lacks was asked (the check below would prove nothing): $(tr '\n' ' ' <"$T/di.gets")"
dups=$(grep -oE 'GET /buildid/[0-9a-f]+/[a-z]+' "$T/di.gets" | sort | uniq -d | wc -l)
check_eq "$dups" 0 "each build-id is asked once per report, not per location"
before=$(gets)
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/cache1" \
	"$RP" report -i "$T/d.data" --no-children --debuginfod >"$T/di2.rep" 2>&1 || fail "report --debuginfod (2)"
settle
check_eq "$(gets)" "$before" "a second report asks nothing: the debug file and the misses are cached"
check_grep '\[\.\] di_static_hot$' "$T/di2.rep" "and still names the function from the cache"

DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/cache2" \
	"$RP" report -i "$T/d.data" --debuginfod --inline --folded >"$T/di.folded" 2>&1 || fail "report --inline"
check_grep '^dprog;(.*;)?main;di_static_hot;di_inlined_step [0-9]+$' "$T/di.folded" \
	"--inline: the inline expansion from the served DWARF is a frame of its own"

# ---- push --debuginfod: the profiles sent name the function too -------------------------------
PPROF=${PPROF:-/usr/lib/go-1.19/pkg/tool/linux_amd64/pprof}
[ -x "$PPROF" ] || fail "the pprof tool is missing ($PPROF): install golang-1.19-go (setup.sh does)"
export PPROF_TMPDIR="$T/pprof-home"
mkdir -p "$T/push-rec"
cp "$T/d.data" "$T/push-rec/d.data"
for i in 0 1; do push_receiver "$T/r$i"; done
before=$(gets)
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/cache4" "$RP" push --dir "$T/push-rec" --once \
	--url "http://127.0.0.1:$(cat "$T/r0/port")" --cursor "$T/cursor0" 2>"$T/push0.err" ||
	fail "push: $(cat "$T/push0.err")"
settle
check_eq "$(gets)" "$before" "push without --debuginfod asks no server"
"$PPROF" -top "$T/r0/got/000.pb.gz" >"$T/push0.top" 2>&1 || fail "pprof -top: $(cat "$T/push0.top")"
check_no_grep 'di_static_hot' "$T/push0.top" "push without --debuginfod: the function is not named"
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/cache4" "$RP" push --dir "$T/push-rec" --once \
	--url "http://127.0.0.1:$(cat "$T/r1/port")" --cursor "$T/cursor1" --debuginfod \
	--debuginfod-timeout 3 2>"$T/push1.err" || fail "push --debuginfod: $(cat "$T/push1.err")"
sed -n "$((before + 1)),\$p" <(grep "GET /buildid/" "$T/srv.log") >"$T/push.gets"
check_grep "GET /buildid/$BID/debuginfo 200" "$T/push.gets" "push --debuginfod fetched the debug file"
"$PPROF" -top "$T/r1/got/000.pb.gz" >"$T/push1.top" 2>&1 || fail "pprof -top: $(cat "$T/push1.top")"
check_grep '^ +[0-9.]+m?s +[5-9][0-9.]*% .* di_static_hot$' "$T/push1.top" \
	"push --debuginfod: pprof names the hot static function in the profile sent"
if "$RP" push --dir "$T/push-rec" --url "http://127.0.0.1:1" --debuginfod-timeout 0 2>"$T/err"; then
	fail "--debuginfod-timeout 0 was accepted"
fi
check_grep "^ringprof push: invalid --debuginfod-timeout '0' \(1 to 3600 seconds\)$" "$T/err" \
	"push: an invalid --debuginfod-timeout is said"

# ---- a server that accepts and never answers: the per-request timeout --------------------------
DEAD=$(free_port)
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
time.sleep(600)' "$DEAD" &
BG_PIDS="$BG_PIDS $!"
sleep 0.5
t0=$(date +%s)
DEBUGINFOD_URLS="http://127.0.0.1:$DEAD" DEBUGINFOD_CACHE_PATH="$T/cache3" \
	timeout 120 "$RP" report -i "$T/d.data" --no-children --debuginfod --debuginfod-timeout 1 \
	>"$T/dead.rep" 2>&1
rc=$?
t1=$(date +%s)
[ "$rc" = 124 ] && fail "report --debuginfod hung on a server that never answers"
check_eq "$rc" 0 "report --debuginfod finishes against a server that never answers"
check_range "$((t1 - t0))" 0 30 "seconds spent with --debuginfod-timeout 1"
check_grep '^ +[0-9.]+% +dprog +dprog +\[\.\] \[unknown\]$' "$T/dead.rep" \
	"the frames stay [unknown], the rest of the report is there"
